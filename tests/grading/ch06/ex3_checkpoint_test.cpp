// ch06.ex3 — utils::checkpoint's backward (utils::detail::checkpoint_backward), against
// torch.utils.checkpoint (reentrant, PyTorch 1.13's default).
#include "ch06_grading.hpp"

using namespace ch06_grading;
namespace F = kd::nn::functional;

TEST_CASE("checkpoint: two segments of an MLP, data that needs no grad", "[ch06][ex3][pts=10]") {
  const kd::Tensor x = grading::input("x");
  std::vector<kd::Tensor> ps;
  for (const char* n : {"w1", "b1", "w2", "b2", "w3", "b3"}) ps.push_back(grading::input(n).clone().requires_grad_());
  auto seg1 = [&](const kd::Tensor& t) { return F::linear(t, ps[0], ps[1]).tanh(); };
  auto seg2 = [&](const kd::Tensor& t) { return F::linear(t, ps[2], ps[3]).relu(); };
  kd::Tensor h = kd::utils::checkpoint(seg2, kd::utils::checkpoint(seg1, x));
  kd::Tensor out = F::linear(h, ps[4], ps[5]);
  kd::Tensor loss = (out * out).sum();
  loss.backward();
  const char* names[] = {"w1", "b1", "w2", "b2", "w3", "b3"};
  for (std::size_t i = 0; i < ps.size(); ++i) grading::expect(std::string("grad of ") + names[i], ps[i].grad());
  grading::expect("loss", loss.detach());
}

TEST_CASE("checkpoint: an input that needs grad and a weight shared with the outside", "[ch06][ex3][pts=8]") {
  kd::Tensor x = grading::input("x").clone().requires_grad_();
  kd::Tensor w = grading::input("w").clone().requires_grad_();
  const kd::Tensor v = grading::input("v");
  auto seg = [&](const kd::Tensor& t) { return t.matmul(w).sigmoid(); };
  kd::Tensor h = kd::utils::checkpoint(seg, kd::utils::checkpoint(seg, x));
  (h.matmul(v).sum() + (w * w).sum()).backward();
  grading::expect("grad of x", x.grad());
  grading::expect("grad of w", w.grad());
}

TEST_CASE("checkpoint: two inputs, two outputs, one of them unused", "[ch06][ex3][pts=8]") {
  kd::Tensor a = grading::input("a").clone().requires_grad_();
  kd::Tensor b = grading::input("b").clone().requires_grad_();
  kd::utils::CheckpointFn seg = [](const std::vector<kd::Tensor>& in) {
    return std::vector<kd::Tensor>{in[0] * in[1], (in[0] + in[1]).exp()};
  };
  std::vector<kd::Tensor> pq = kd::utils::checkpoint(seg, {a, b});
  (pq[0] * pq[0]).sum().backward();
  grading::expect("grad of a (p used)", a.grad().clone());
  grading::expect("grad of b (p used)", b.grad().clone());
  a.set_grad(kd::Tensor());
  b.set_grad(kd::Tensor());
  pq = kd::utils::checkpoint(seg, {a, b});
  (pq[0].sum() + 2 * pq[1].sum()).backward();
  grading::expect("grad of a (both used)", a.grad());
  grading::expect("grad of b (both used)", b.grad());
}

TEST_CASE("checkpoint: dropout sees the same random numbers twice", "[ch06][ex3][pts=10]") {
  const kd::Tensor x = grading::input("x"), w = grading::input("w");
  auto run = [&](bool use_checkpoint) {
    kd::manual_seed(5);
    kd::Tensor ww = w.clone().requires_grad_();
    auto seg = [&](const kd::Tensor& t) { return F::dropout(t.matmul(ww), 0.5, true).tanh(); };
    kd::Tensor h = use_checkpoint ? kd::utils::checkpoint(seg, x) : seg(x);
    (h * h).sum().backward();
    return std::pair{ww.grad(), kd::rand({3})};
  };
  const auto [g_plain, after_plain] = run(false);
  const auto [g_ckpt, after_ckpt] = run(true);
  grading::expect("same gradient as without checkpoint", kd::allclose(g_plain, g_ckpt, 1e-5, 1e-6));
  grading::expect("the generator goes on as without checkpoint", kd::equal(after_plain, after_ckpt));
}

TEST_CASE("checkpoint: a segment that changes its number of outputs", "[ch06][ex3][pts=4]") {
  kd::Tensor a = grading::input("a").clone().requires_grad_();
  int calls = 0;
  kd::utils::CheckpointFn seg = [&](const std::vector<kd::Tensor>& in) {
    ++calls;
    if (calls == 1) return std::vector<kd::Tensor>{in[0] * 2};
    return std::vector<kd::Tensor>{in[0] * 2, in[0] * 3};
  };
  kd::Tensor out = kd::utils::checkpoint(seg, {a})[0];
  grading::expect_error("backward", [&] { out.sum().backward(); });
}
