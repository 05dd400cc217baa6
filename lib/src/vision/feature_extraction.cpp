// create_feature_extractor: named stages' outputs through forward hooks (see the header for how
// this differs from torchvision's graph cutting).
#include "kindling/vision/feature_extraction.hpp"

#include <utility>

#include "kindling/tensor/error.hpp"

namespace kindling::vision {

FeatureExtractor::FeatureExtractor(std::shared_ptr<nn::Module> model, std::vector<std::string> return_nodes)
    : model_(std::move(model)), nodes_(std::move(return_nodes)) {
  if (!model_) throw ValueError("create_feature_extractor: the model is null");
  if (nodes_.empty()) throw ValueError("create_feature_extractor: return_nodes is empty");
  const auto named = model_->named_modules();
  for (const std::string& node : nodes_) {
    nn::Module* found = nullptr;
    for (const auto& [name, m] : named)
      if (name == node) found = m;
    if (!found || node.empty()) {
      std::string top;
      for (const auto& [name, m] : model_->named_children()) top += (top.empty() ? "" : ", ") + name;
      throw ValueError("create_feature_extractor: " + model_->type_name() + " has no module named '" + node +
                       "' (its children: " + top + "; deeper ones by dotted name, e.g. 'layer1.0')");
    }
    for (std::size_t i = 0; i < modules_.size(); ++i)
      if (nodes_[i] == node) throw ValueError("create_feature_extractor: '" + node + "' is requested twice");
    modules_.push_back(found);
  }
}

std::map<std::string, Tensor> FeatureExtractor::operator()(const Tensor& x) {
  std::map<std::string, Tensor> out;
  std::vector<autograd::RemovableHandle> handles;
  // The handles remove the hooks however the forward ends (an exception included).
  struct Remove {
    std::vector<autograd::RemovableHandle>& h;
    ~Remove() {
      for (auto& handle : h) handle.remove();
    }
  } remove{handles};
  for (std::size_t i = 0; i < modules_.size(); ++i) {
    const std::string name = nodes_[i];
    handles.push_back(modules_[i]->register_forward_hook([&out, name](nn::Module&, const Tensor&, const Tensor& output) {
      out[name] = output;
      return Tensor();  // undefined: the output is left as it is
    }));
  }
  (*model_)(x);
  for (const std::string& node : nodes_)
    if (!out.count(node))
      throw ValueError("create_feature_extractor: the module '" + node + "' did not run in " + model_->type_name() +
                       "'s forward, so it has no output to return");
  return out;
}

FeatureExtractor create_feature_extractor(std::shared_ptr<nn::Module> model, std::vector<std::string> return_nodes) {
  return FeatureExtractor(std::move(model), std::move(return_nodes));
}

}  // namespace kindling::vision
