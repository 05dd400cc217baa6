// Unit tests of chapter 12's attention (the values against PyTorch are
// tests/parity/ch12_text).
#include <catch2/catch.hpp>
#include <kindling/text.hpp>

#include <string>

namespace kd = kindling;
namespace F = kd::nn::functional;
using kd::Tensor;

TEST_CASE("attention: scaled_dot_product_attention passes gradcheck with a "
          "causal mask and a float mask") {
  kd::manual_seed(1);
  auto opt = kd::TensorOptions{.dtype = kd::kFloat64};
  Tensor q = kd::randn({1, 2, 4, 3}, opt).requires_grad_(true);
  Tensor k = kd::randn({1, 2, 4, 3}, opt).requires_grad_(true);
  Tensor v = kd::randn({1, 2, 4, 3}, opt).requires_grad_(true);
  Tensor m = kd::randn({4, 4}, opt).requires_grad_(true);
  auto causal = kd::autograd::gradcheck(
      [](const std::vector<Tensor> &t) {
        return F::scaled_dot_product_attention(t[0], t[1], t[2], Tensor(), 0.0,
                                               true);
      },
      {q, k, v});
  CHECK(causal.ok);
  auto masked = kd::autograd::gradcheck(
      [](const std::vector<Tensor> &t) {
        return F::scaled_dot_product_attention(t[0], t[1], t[2], t[3]);
      },
      {q, k, v, m});
  CHECK(masked.ok);
}

TEST_CASE("attention: causal attention ignores the future") {
  // Changing the last key and value must leave every earlier query's output
  // unchanged.
  kd::manual_seed(2);
  Tensor q = kd::randn({1, 1, 5, 4}), k = kd::randn({1, 1, 5, 4}),
         v = kd::randn({1, 1, 5, 4});
  Tensor out = F::scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true);
  Tensor k2 = k.clone(), v2 = v.clone();
  k2.narrow(2, 4, 1).fill_(7.0);
  v2.narrow(2, 4, 1).fill_(-3.0);
  Tensor out2 = F::scaled_dot_product_attention(q, k2, v2, Tensor(), 0.0, true);
  CHECK(kd::allclose(out.narrow(2, 0, 4), out2.narrow(2, 0, 4)));
  CHECK_FALSE(kd::allclose(out.narrow(2, 4, 1), out2.narrow(2, 4, 1)));
}

TEST_CASE("attention: dropout drops attention weights in training only") {
  kd::manual_seed(3);
  Tensor q = kd::randn({2, 2, 6, 4}), k = kd::randn({2, 2, 6, 4}),
         v = kd::randn({2, 2, 6, 4});
  Tensor plain = F::scaled_dot_product_attention(q, k, v);
  Tensor eval = F::scaled_dot_product_attention(q, k, v, Tensor(), 0.5, false,
                                                /*training=*/false);
  Tensor train = F::scaled_dot_product_attention(q, k, v, Tensor(), 0.5, false,
                                                 /*training=*/true);
  CHECK(kd::allclose(plain, eval));
  CHECK_FALSE(kd::allclose(plain, train));
}

TEST_CASE("attention: bad shapes name the op and the shapes") {
  Tensor q = kd::randn({1, 2, 4, 3}), k = kd::randn({1, 2, 4, 5});
  try {
    F::scaled_dot_product_attention(q, k, k);
    FAIL("no error");
  } catch (const kd::ShapeError &e) {
    const std::string msg = e.what();
    CHECK(msg.find("scaled_dot_product_attention") != std::string::npos);
    CHECK(msg.find("[1, 2, 4, 3]") != std::string::npos);
    CHECK(msg.find("Hint") != std::string::npos);
  }
  CHECK_THROWS_AS(
      F::scaled_dot_product_attention(q, q, q, kd::zeros({4, 4}), 0.0, true),
      kd::ValueError);
  CHECK_THROWS_AS(kd::nn::MultiheadAttention(10, 3), kd::ValueError);
  kd::nn::MultiheadAttention mha(8, 2);
  CHECK_THROWS_AS(mha.forward(kd::randn({5, 2, 6}), kd::randn({5, 2, 6}),
                              kd::randn({5, 2, 6})),
                  kd::ShapeError);
}

TEST_CASE("attention: MultiheadAttention batch_first equals the sequence-first "
          "module with the same weights") {
  kd::manual_seed(4);
  kd::nn::MultiheadAttention a(8, 2), b(8, 2, {.batch_first = true});
  b.load_state_dict(a.state_dict());
  Tensor x = kd::randn({5, 3, 8}); // [L, N, E]
  auto [oa, wa] = a.forward(x, x, x);
  auto [ob, wb] =
      b.forward(x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1));
  CHECK(kd::allclose(oa, ob.transpose(0, 1)));
  CHECK(kd::allclose(wa, wb));
  // The one-argument form is self-attention without weights.
  CHECK(kd::allclose(a(x), oa));
  // Parameters, PyTorch's names and shapes (the parity suite compares them with
  // PyTorch's).
  auto names = a.named_parameters();
  REQUIRE(names.size() == 4);
  CHECK(names[0].first == "in_proj_weight");
  CHECK(names[3].first == "out_proj.bias");
  // Every parameter receives a gradient.
  a(x).sum().backward();
  for (auto &[n, p] : names)
    CHECK(p.grad().defined());
}
