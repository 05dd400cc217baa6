// Activation memory, measured with the allocator's counters: what a forward keeps for backward with
// its graph, under NoGradGuard and after detach; and activation checkpointing, which keeps only a
// segment's inputs and recomputes the rest in backward (its gradients are compared with PyTorch's
// in tests/parity/ch06_amp.*).
#include <catch2/catch.hpp>
#include <kindling/amp.hpp>

#include <vector>

namespace kd = kindling;
namespace F = kindling::nn::functional;
using kd::Tensor;
using Catch::Contains;

namespace {
// Eight tanh layers of width 128 on a batch of 2048: each layer's [2048, 128] output is 1 MiB
// (its weight 64 KiB). Checkpointed in two segments of four layers.
constexpr std::int64_t kBatch = 2048, kWidth = 128, kLayers = 8, kPerSegment = 4;
constexpr std::size_t kActivation = kBatch * kWidth * sizeof(float);

struct Mlp {
  std::vector<Tensor> w, b;
  Mlp() {
    kd::manual_seed(0);
    for (int i = 0; i < kLayers; ++i) {
      w.push_back((kd::randn({kWidth, kWidth}) * 0.1).requires_grad_());
      b.push_back(kd::zeros({kWidth}).requires_grad_());
    }
  }
  Tensor layer(int i, const Tensor& x) const { return F::linear(x, w[i], b[i]).tanh(); }
  Tensor forward(const Tensor& x, bool checkpointed) const {
    Tensor h = x;
    for (int first = 0; first < kLayers; first += kPerSegment) {
      auto segment = [this, first](const Tensor& t) {
        Tensor out = t;
        for (int i = first; i < first + kPerSegment; ++i) out = layer(i, out);
        return out;
      };
      h = checkpointed ? kd::utils::checkpoint(segment, h) : segment(h);
    }
    return h;
  }
  void zero_grad() {
    for (auto* ps : {&w, &b})
      for (Tensor& p : *ps) p.set_grad(Tensor());
  }
};
}  // namespace

TEST_CASE("memory: a forward keeps its activations with the graph, not under NoGradGuard or after detach") {
  Mlp mlp;
  const Tensor x = kd::randn({kBatch, kWidth});
  const std::size_t base = kd::memory::memory_allocated();
  std::size_t with_graph = 0, no_grad = 0, detached = 0;
  {
    Tensor out = mlp.forward(x, false);
    with_graph = kd::memory::memory_allocated() - base;
  }
  CHECK(kd::memory::memory_allocated() == base);  // the graph died with its output
  {
    kd::NoGradGuard guard;
    Tensor out = mlp.forward(x, false);
    no_grad = kd::memory::memory_allocated() - base;
  }
  {
    Tensor out = mlp.forward(x, false).detach();  // the graph dies at the end of this statement
    detached = kd::memory::memory_allocated() - base;
  }
  INFO("graph " << with_graph << " bytes, NoGradGuard " << no_grad << ", detach " << detached);
  // Each tanh keeps its output for backward (the last one is the output itself).
  CHECK(with_graph >= kLayers * kActivation);
  CHECK(no_grad == kActivation);   // the output alone
  CHECK(detached == kActivation);  // same: detach() let the graph go
}

TEST_CASE("checkpoint: keeps only the segments' inputs after forward, and lowers the peak of backward") {
  Mlp mlp;
  const Tensor x = kd::randn({kBatch, kWidth});
  auto measure = [&](bool checkpointed, std::size_t& kept, std::size_t& peak) {
    mlp.zero_grad();
    const std::size_t base = kd::memory::memory_allocated();
    kd::memory::reset_peak_memory_stats();
    Tensor loss = mlp.forward(x, checkpointed).sum();
    kept = kd::memory::memory_allocated() - base;
    loss.backward();
    peak = kd::memory::max_memory_allocated() - base;
  };
  std::size_t kept_plain = 0, peak_plain = 0, kept_ckpt = 0, peak_ckpt = 0;
  measure(false, kept_plain, peak_plain);
  const std::vector<Tensor> plain_grads = {mlp.w[0].grad().clone(), mlp.b[3].grad().clone()};
  measure(true, kept_ckpt, peak_ckpt);
  INFO("kept after forward: plain " << kept_plain << ", checkpointed " << kept_ckpt);
  INFO("peak: plain " << peak_plain << ", checkpointed " << peak_ckpt);
  // Plain: every layer's output. Checkpointed: the segments' outputs and the loss, nothing inside.
  CHECK(kept_plain >= kLayers * kActivation);
  CHECK(kept_ckpt <= (kLayers / kPerSegment) * kActivation + 64);
  // Backward recomputes one segment at a time: its activations, never all of them at once.
  CHECK(peak_ckpt + kActivation < peak_plain);
  // And the same gradients, bit for bit: the recomputation runs the same ops on the same inputs.
  CHECK(kd::equal(mlp.w[0].grad(), plain_grads[0]));
  CHECK(kd::equal(mlp.b[3].grad(), plain_grads[1]));
}

TEST_CASE("checkpoint: dropout inside a segment drops the same units when recomputed") {
  Tensor w = kd::randn({8, 8}).requires_grad_();
  Tensor x = kd::randn({16, 8}).requires_grad_();
  auto seg = [&](const Tensor& t) { return F::dropout(t.matmul(w), 0.5, true).tanh(); };
  kd::manual_seed(7);
  seg(x).sum().backward();
  const Tensor gw = w.grad().clone(), gx = x.grad().clone();
  w.set_grad(Tensor());
  x.set_grad(Tensor());
  kd::manual_seed(7);
  Tensor out = kd::utils::checkpoint(seg, x);
  kd::randn({100});  // random numbers drawn between forward and backward do not change the mask
  out.sum().backward();
  CHECK(kd::equal(w.grad(), gw));
  CHECK(kd::equal(x.grad(), gx));
  CHECK(out.grad_fn()->name() == std::string("CheckpointFunctionBackward"));
}

TEST_CASE("checkpoint: a segment whose input needs no grad still keeps nothing and trains its parameters") {
  Tensor w = kd::randn({256, 256}).requires_grad_();
  const Tensor x = kd::randn({64, 256});  // data: no grad; the parameter is inside the segment
  const std::size_t base = kd::memory::memory_allocated();
  Tensor out = kd::utils::checkpoint([&](const Tensor& t) { return t.matmul(w).tanh().tanh(); }, x);
  CHECK(kd::memory::memory_allocated() - base == out.nbytes());  // the output alone
  out.sum().backward();
  REQUIRE(w.grad().defined());  // PyTorch's reentrant version would leave it undefined
  const Tensor g = w.grad().clone();
  w.set_grad(Tensor());
  x.matmul(w).tanh().tanh().sum().backward();
  CHECK(kd::equal(w.grad(), g));
}

TEST_CASE("checkpoint: an input changed in place before backward is caught") {
  const Tensor w = kd::randn({3, 3}).requires_grad_();
  Tensor x = kd::randn({2, 3}).requires_grad_() * 1.0;  // not a leaf: may be changed in place
  Tensor out = kd::utils::checkpoint([&](const Tensor& t) { return t.matmul(w); }, x);
  {
    kd::NoGradGuard guard;
    x.mul_(2.0);
  }
  CHECK_THROWS_AS(out.sum().backward(), kd::AutogradError);
}

TEST_CASE("checkpoint: a backward inside a backward is still refused everywhere else") {
  struct Nested : kd::autograd::Function<Nested> {
    Tensor forward(kd::autograd::Context&, const Tensor& x) { return x * 2.0; }
    kd::autograd::Grads backward(kd::autograd::Context&, const kd::autograd::Grads& g) {
      kd::EnableGradGuard enable;  // backward formulas run with grad mode off
      Tensor y = kd::ones({1}).requires_grad_();
      (y * 3.0).sum().backward();
      return {g[0] * 2.0};
    }
  };
  Tensor x = kd::ones({2}).requires_grad_();
  CHECK_THROWS_WITH(Nested::apply(x).sum().backward(), Contains("called from inside a backward formula"));
  // and the engine still works afterwards
  (x * 3.0).sum().backward();
  CHECK(x.grad()[0].item<double>() == 3.0);
}

TEST_CASE("checkpoint: a segment run under bfloat16 autocast is recomputed under it, gradients as without checkpoint") {
  // torch.utils.checkpoint keeps the autocast state of the forward and restores it around the
  // recompute; a recompute in float32 would give the gradients of a different (float32) segment.
  kd::manual_seed(3);
  Tensor w1 = (kd::randn({32, 24}) * 0.2).requires_grad_();
  Tensor w2 = (kd::randn({24, 16}) * 0.2).requires_grad_();
  Tensor x = kd::randn({8, 32}).requires_grad_();
  auto seg = [&](const Tensor& h) { return F::linear(h.matmul(w1).tanh(), w2.t()).tanh(); };
  auto grads = [&](bool checkpointed) {
    for (Tensor* p : {&w1, &w2}) p->set_grad(Tensor());
    x.set_grad(Tensor());
    Tensor out;
    {
      kd::amp::AutocastGuard autocast({.dtype = kd::kBFloat16});
      out = checkpointed ? kd::utils::checkpoint(seg, x) : seg(x);
    }
    CHECK(out.dtype() == kd::kBFloat16);
    const Tensor o = out.to(kd::kFloat32);
    (o * o).sum().backward();  // outside the region, as PyTorch recommends
    return std::vector<Tensor>{w1.grad().clone(), w2.grad().clone(), x.grad().clone()};
  };
  const auto plain = grads(false);
  const auto checkpointed = grads(true);
  for (std::size_t i = 0; i < plain.size(); ++i) {
    CAPTURE(i);
    CHECK(checkpointed[i].dtype() == plain[i].dtype());
    CHECK(kd::equal(checkpointed[i], plain[i]));
  }
}
