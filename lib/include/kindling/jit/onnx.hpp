#pragma once
/// @file
/// Importing an ONNX model (kd::onnx::load): the graph runs with Kindling ops, so it is
/// differentiable, and its initializers are the module's parameters.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "kindling/nn/module.hpp"

namespace kindling::onnx {

/// A loaded ONNX graph. Its initializers are registered as parameters (float) or buffers (the
/// others), named after the ONNX initializer with '.' kept (PyTorch's exporter uses state_dict names).
class OnnxModule : public nn::Module {
 public:
  struct Impl;
  explicit OnnxModule(std::shared_ptr<Impl> impl);
  ~OnnxModule() override;
  /// One input, the first output: `model(x)`.
  Tensor forward(const Tensor& input) override;
  /// All graph inputs (in the order of input_names()) → all graph outputs.
  std::vector<Tensor> forward_all(const std::vector<Tensor>& inputs);
  const std::vector<std::string>& input_names() const;
  const std::vector<std::string>& output_names() const;

 private:
  std::shared_ptr<Impl> impl_;
};

/// Reads `path` with ONNX's own protobuf classes (onnx-ml.proto) and checks every node's op and
/// attributes up front. Throws kd::Error naming the node and field for a malformed file or an op
/// Kindling does not implement.
std::shared_ptr<OnnxModule> load(const std::filesystem::path& path);

/// Reads one TensorProto file (the conformance tests' input_N.pb / output_N.pb).
Tensor load_tensor(const std::filesystem::path& path);

}  // namespace kindling::onnx
