#pragma once
/// @file
/// torchvision's create_feature_extractor: the outputs of named stages of a model, by name.
///
///     auto model = kd::vision::models::resnet18();
///     auto body = kd::vision::create_feature_extractor(model, {"layer1", "layer4"});
///     auto features = body(x);          // {"layer1": [N, 64, H/4, W/4], "layer4": [N, 512, H/32, W/32]}
///
/// torchvision traces the model (torch.fx) and cuts the graph after the last requested node; here
/// the model's own forward runs whole, and forward hooks on the named modules (PyTorch's
/// register_forward_hook) keep their outputs. The values are the same; a stage after the last
/// requested one still runs. A name is a dotted module name of named_modules(): "layer4",
/// "features.3", "layer2.0.conv1".
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kindling/nn/module.hpp"

namespace kindling::vision {

class FeatureExtractor {
 public:
  /// Throws kd::ValueError naming an unknown node (and the model's top-level children) now,
  /// not at the first call.
  FeatureExtractor(std::shared_ptr<nn::Module> model, std::vector<std::string> return_nodes);
  /// Runs the model on x and returns each requested stage's output, keyed by its name. The hooks
  /// exist only during the call (the model runs as usual outside it).
  std::map<std::string, Tensor> operator()(const Tensor& x);
  nn::Module& model() const { return *model_; }
  const std::vector<std::string>& return_nodes() const { return nodes_; }

 private:
  std::shared_ptr<nn::Module> model_;
  std::vector<std::string> nodes_;
  std::vector<nn::Module*> modules_;
};

/// torchvision.models.feature_extraction.create_feature_extractor(model, return_nodes=[...]).
FeatureExtractor create_feature_extractor(std::shared_ptr<nn::Module> model, std::vector<std::string> return_nodes);

}  // namespace kindling::vision
