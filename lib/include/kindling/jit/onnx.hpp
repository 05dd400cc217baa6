#pragma once
/// @file
/// ONNX files. Importing (kd::onnx::load): the graph runs with Kindling ops, so it is
/// differentiable, and its initializers are the module's parameters. Exporting
/// (kd::onnx::export_model): one forward traced into an ONNX graph.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "kindling/nn/module.hpp"

namespace kindling::onnx {

/// A loaded ONNX graph. Its initializers are registered as parameters (float) or buffers (the
/// others), named after the ONNX initializer with '.' replaced by '_' (Module names have no dots):
/// PyTorch's exporter and export_model write state_dict names, so "fc1.weight" becomes "fc1_weight".
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

/// What export_model writes. The defaults give what torch.onnx.export gives with
/// `input_names=["input"], output_names=["output"], dynamic_axes={...: {0: "batch"}}`.
struct ExportOptions {
  /// 13..17 (Debian's ONNX 1.12 knows up to 17). LayerNorm needs 17; Hardswish 14.
  std::int64_t opset = 17;
  /// The graph's input and output names.
  std::string input_name = "input", output_name = "output";
  /// Dimension 0 of the input and the output is the symbolic "batch" (Reshape keeps it: shapes
  /// baked in by the trace copy dimension 0 from their input where the traced sizes agree).
  bool dynamic_batch = true;
  /// Written into the model's doc_string.
  std::string doc_string;
};

/// Traces one forward of `model` on `example_input` and writes it to `path` (atomically) as an
/// ONNX model: the parameters and buffers become initializers with their state_dict names.
///
/// Like torch.onnx.export, the model runs in eval() for the trace (its mode is restored after)
/// and the graph holds only what this forward did: Python-style control flow is unrolled, and a
/// tensor computed from no input or parameter is a constant. Layers (Linear, Conv1d, Conv2d,
/// ConvTranspose2d, BatchNorm, LayerNorm, pooling, activations, Flatten, Dropout, Embedding,
/// Softmax) become one ONNX node each (or a few: GELU, SiLU); tensor ops between them (+, *, matmul, reshape, transpose, cat, softmax, reductions...)
/// become theirs. An op with no ONNX mapping fails the export with kd::Error naming it.
/// `model(example_input)` is what runs (a Module has one input).
void export_model(nn::Module& model, const Tensor& example_input,
                  const std::filesystem::path& path, const ExportOptions& options = {});

/// Reads one TensorProto file (the conformance tests' input_N.pb / output_N.pb).
Tensor load_tensor(const std::filesystem::path& path);

}  // namespace kindling::onnx
