// Exports chapter 5's CNN to ONNX (ch10_cnn.onnx, which export.py then checks with
// ONNX's own checker and draws), loads the file back with kd::onnx::load, and runs it
// at another batch size than the one traced.
#include "common.hpp"

int main() {
  kd::manual_seed(0);
  SmallCNN model;
  const kd::Tensor example = kd::randn({1, 1, 28, 28});  // traced at batch 1

  // [snippet: export]
  kd::onnx::export_model(model, example, "ch10_cnn.onnx",
                         {.opset = 17,
                          .input_name = "input",
                          .output_name = "logits",
                          .dynamic_batch = true});  // dimension 0 is "batch"
  // [end]
  std::printf("wrote ch10_cnn.onnx: %zu bytes\n",
              static_cast<std::size_t>(std::filesystem::file_size("ch10_cnn.onnx")));

  // [snippet: load]
  std::shared_ptr<kd::onnx::OnnxModule> loaded = kd::onnx::load("ch10_cnn.onnx");
  const kd::Tensor x = kd::randn({5, 1, 28, 28});  // another batch size
  kd::NoGradGuard no_grad;
  model.eval();
  const kd::Tensor ours = model(x), theirs = (*loaded)(x);  // [5, 10] each
  // [end]
  std::printf("inputs %s, outputs %s\n", loaded->input_names().front().c_str(),
              loaded->output_names().front().c_str());
  std::printf("parameters of the loaded module:");
  for (const auto& [name, p] : loaded->named_parameters())
    std::printf(" %s%s", name.c_str(), kd::shape_str(p.shape()).c_str());
  std::printf("\nlogits of 5 images, model vs the loaded file: max |difference| %.2g\n",
              (ours - theirs).abs().max().item<double>());
  return kd::allclose(ours, theirs, 1e-5, 1e-6) ? 0 : 1;
}
