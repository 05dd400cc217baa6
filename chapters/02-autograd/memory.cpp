// Chapter 2 — what a graph costs in memory, measured with the allocation meter
// (kd::memory::allocated_bytes / peak_allocated_bytes). Inference with and without
// NoGradGuard; an evaluation loop that keeps its losses as tensors (their graphs stay
// alive) vs as numbers (.item()) or detached tensors.
#include <kindling/autograd.hpp>

#include <cstdio>
#include <optional>
#include <vector>

namespace kd = kindling;
namespace mem = kd::memory;

// A five-layer model's weights (requires_grad, as during training): four tanh layers
// and a head.
struct Model {
  std::vector<kd::Tensor> hidden;                                    // 4 x [512, 512]
  kd::Tensor head = (kd::randn({512, 10}) * 0.04).requires_grad_();  // [512, classes]
  Model() {
    for (int i = 0; i < 4; ++i)
      hidden.push_back((kd::randn({512, 512}) * 0.04).requires_grad_());
  }
  kd::Tensor forward(kd::Tensor h) const {  // h: [batch, 512]
    for (const kd::Tensor& w : hidden)
      h = h.matmul(w).tanh();  // TanhBackward0 saves its output
    return h.matmul(head);     // [batch, 10]
  }
};

double kib(std::size_t bytes) { return static_cast<double>(bytes) / 1024.0; }

int main() {
  kd::manual_seed(0);
  Model model;
  const kd::Tensor x = kd::randn({256, 512});  // one batch of inputs: 512 KiB
  std::printf("weights + batch: %.0f KiB\n", kib(mem::allocated_bytes()));

  // [snippet: inference]
  const std::size_t before = mem::allocated_bytes();
  mem::reset_peak();
  kd::Tensor out = model.forward(x);  // recorded: out.grad_fn() = MmBackward0
  std::printf(
      "inference, recording:     out kept alive with %7.0f KiB, peak +%7.0f KiB\n",
      kib(mem::allocated_bytes() - before), kib(mem::peak_allocated_bytes() - before));
  out = kd::Tensor();  // drop it (and the graph behind it)

  mem::reset_peak();
  {
    kd::NoGradGuard no_grad;  // torch.no_grad()
    out = model.forward(x);   // nothing recorded, nothing saved
  }
  std::printf(
      "inference, NoGradGuard:   out kept alive with %7.0f KiB, peak +%7.0f KiB\n",
      kib(mem::allocated_bytes() - before), kib(mem::peak_allocated_bytes() - before));
  // [end]
  out = kd::Tensor();

  // Five validation batches; the loss of each is kept in four different ways.
  std::printf("-- an evaluation loop: bytes still allocated after each of 5 steps\n");
  enum Keep { kTensor, kItem, kDetach, kNoGrad };
  const char* names[] = {"losses.push_back(loss)", "total += loss.item()",
                         "losses.push_back(loss.detach())",
                         "NoGradGuard + push_back(loss)"};
  for (Keep keep : {kTensor, kItem, kDetach, kNoGrad}) {
    std::printf("%-34s", names[keep]);
    const std::size_t start = mem::allocated_bytes();
    // [snippet: eval-loop]
    std::vector<kd::Tensor> losses;
    double total = 0;
    for (int step = 0; step < 5; ++step) {
      {
        std::optional<kd::NoGradGuard> no_grad;
        if (keep == kNoGrad) no_grad.emplace();
        kd::Tensor loss = model.forward(x).pow(2).mean();
        if (keep == kItem)
          total += loss.item<double>();  // a double: the graph dies with `loss`
        else if (keep == kDetach)
          losses.push_back(loss.detach());
        else
          losses.push_back(loss);  // kTensor, kNoGrad: keep the tensor
      }
      // bytes alive after the step
      std::printf(" %9zu", mem::allocated_bytes() - start);
    }
    // [end]
    std::printf("\n");
  }
}
