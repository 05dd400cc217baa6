// Runs a model PyTorch exported to ONNX (import_pytorch.py writes it) with Kindling's
// ops, compares its output with PyTorch's, then trains the imported model for a few
// steps: its initializers are Kindling parameters, and autograd goes through every
// node.
// book: run-first import_pytorch.py
#include "common.hpp"

int main() {
  // [snippet: run]
  auto model = kd::onnx::load("ch10_torch_cnn.onnx");  // written by torch.onnx.export
  kd::StateDict io = kd::load("ch10_torch_cnn_io.safetensors");
  kd::Tensor logits;
  {
    kd::NoGradGuard no_grad;
    logits = (*model)(io.at("x"));  // [4, 10]
  }
  // [end]
  std::printf("Kindling's logits[0, :5]:");
  for (std::int64_t j = 0; j < 5; ++j)
    std::printf(" %.4f", logits[0][j].item<double>());
  const double diff = (logits - io.at("logits")).abs().max().item<double>();
  std::printf("\nlargest difference from PyTorch's logits: %.2g\n", diff);
  if (!(diff < 1e-4)) return 1;

  std::printf("%zu parameters, %zu buffers:", model->parameters().size(),
              model->buffers().size());
  for (const auto& [name, p] : model->named_parameters())
    std::printf(" %s%s", name.c_str(), kd::shape_str(p.shape()).c_str());
  std::printf("\n");

  // [snippet: train]
  // The imported graph is made of Kindling ops: it trains like any module.
  kd::manual_seed(1);
  const kd::Tensor x = kd::randn({32, 1, 28, 28});
  const kd::Tensor y = kd::randint(0, 10, {32});
  kd::optim::SGD sgd(model->parameters(), {.lr = 0.05, .momentum = 0.9});
  kd::nn::CrossEntropyLoss criterion;
  for (int step = 0; step < 20; ++step) {
    sgd.zero_grad();
    kd::Tensor loss = criterion((*model)(x), y);
    loss.backward();
    sgd.step();
    if (step % 5 == 0 || step == 19)
      std::printf("step %2d  loss %.4f\n", step, loss.item<double>());
  }
  // [end]
}
