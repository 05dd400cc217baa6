// The hand-written backward nodes of chapter 3 against finite differences (float64 gradcheck):
// conv2d, the pools, batch_norm (train and eval), layer_norm, embedding, gelu; and issue 18's:
// conv_transpose2d, interpolate, leaky_relu/silu/elu/softplus (conv1d and "same" are views over conv2d).
#include <catch2/catch.hpp>
#include <kindling/nn.hpp>

namespace kd = kindling;
namespace F = kindling::nn::functional;
using kd::Tensor;

namespace {
const kd::TensorOptions f64g{.dtype = kd::kFloat64, .requires_grad = true};
const kd::TensorOptions f64{.dtype = kd::kFloat64};

void check(const kd::autograd::GradcheckFn1& fn, const std::vector<Tensor>& inputs) {
  const auto r = kd::autograd::gradcheck(fn, inputs, {.eps = 1e-6, .atol = 1e-6, .rtol = 1e-4});
  INFO(r.message);
  CHECK(r.ok);
}
}  // namespace

TEST_CASE("gradcheck: conv2d (padding, stride, dilation, groups, bias, unbatched)") {
  kd::manual_seed(0);
  check([](const std::vector<Tensor>& v) { return F::conv2d(v[0], v[1], v[2], 1, 1); },
        {kd::randn({2, 3, 5, 5}, f64g), kd::randn({4, 3, 3, 3}, f64g), kd::randn({4}, f64g)});
  check([](const std::vector<Tensor>& v) { return F::conv2d(v[0], v[1], Tensor(), {2, 1}, {0, 2}, {1, 2}); },
        {kd::randn({1, 2, 6, 5}, f64g), kd::randn({3, 2, 2, 3}, f64g)});
  check([](const std::vector<Tensor>& v) { return F::conv2d(v[0], v[1], v[2], 1, 0, 1, /*groups=*/2); },
        {kd::randn({2, 4, 4, 4}, f64g), kd::randn({6, 2, 3, 3}, f64g), kd::randn({6}, f64g)});
  check([](const std::vector<Tensor>& v) { return F::conv2d(v[0], v[1]); },
        {kd::randn({2, 4, 4}, f64g), kd::randn({1, 2, 3, 3}, f64g)});
  // Only the weight requires grad (a first layer): the input's gradient is not computed.
  check([](const std::vector<Tensor>& v) { return F::conv2d(v[0], v[1]); },
        {kd::randn({2, 1, 4, 4}, f64), kd::randn({2, 1, 3, 3}, f64g)});
}

TEST_CASE("gradcheck: max_pool2d, avg_pool2d, adaptive_avg_pool2d") {
  kd::manual_seed(1);
  // Distinct values: the max is never a tie, so the function is differentiable at the test point.
  const Tensor x = (kd::randperm(2 * 3 * 7 * 6).to(kd::kFloat64) * 0.1).reshape({2, 3, 7, 6}).requires_grad_();
  check([](const std::vector<Tensor>& v) { return F::max_pool2d(v[0], 2); }, {x});
  check([](const std::vector<Tensor>& v) { return F::max_pool2d(v[0], {3, 2}, 2, 1, 1, /*ceil_mode=*/true); }, {x});
  check([](const std::vector<Tensor>& v) { return F::max_pool2d(v[0], 2, 1, 0, /*dilation=*/2); }, {x});
  check([](const std::vector<Tensor>& v) { return F::avg_pool2d(v[0], 2); }, {x});
  check([](const std::vector<Tensor>& v) { return F::avg_pool2d(v[0], 3, 2, 1, /*ceil_mode=*/true, false); }, {x});
  check([](const std::vector<Tensor>& v) { return F::avg_pool2d(v[0], 3, 2, 1, false, true); }, {x});
  check([](const std::vector<Tensor>& v) { return F::adaptive_avg_pool2d(v[0], {3, 4}); }, {x});
  check([](const std::vector<Tensor>& v) { return F::adaptive_avg_pool2d(v[0], 1); }, {x});
}

TEST_CASE("gradcheck: batch_norm in training (batch statistics) and evaluation (running statistics)") {
  kd::manual_seed(2);
  check(
      [](const std::vector<Tensor>& v) {
        return F::batch_norm(v[0], Tensor(), Tensor(), v[1], v[2], /*training=*/true, 0.1, 1e-5);
      },
      {kd::randn({4, 3, 2, 2}, f64g), kd::randn({3}, f64g), kd::randn({3}, f64g)});
  check([](const std::vector<Tensor>& v) { return F::batch_norm(v[0], Tensor(), Tensor(), Tensor(), Tensor(), true); },
        {kd::randn({5, 2}, f64g)});
  const Tensor rm = kd::randn({3}, f64), rv = kd::rand({3}, f64) + 0.5;
  check([&](const std::vector<Tensor>& v) { return F::batch_norm(v[0], rm, rv, v[1], v[2], /*training=*/false); },
        {kd::randn({4, 3, 5}, f64g), kd::randn({3}, f64g), kd::randn({3}, f64g)});
}

TEST_CASE("gradcheck: layer_norm with and without affine parameters") {
  kd::manual_seed(3);
  check([](const std::vector<Tensor>& v) { return F::layer_norm(v[0], {4}, v[1], v[2]); },
        {kd::randn({3, 4}, f64g), kd::randn({4}, f64g), kd::randn({4}, f64g)});
  check([](const std::vector<Tensor>& v) { return F::layer_norm(v[0], {2, 3}, v[1], v[2]); },
        {kd::randn({2, 2, 2, 3}, f64g), kd::randn({2, 3}, f64g), kd::randn({2, 3}, f64g)});
  check([](const std::vector<Tensor>& v) { return F::layer_norm(v[0], {5}); }, {kd::randn({2, 5}, f64g)});
}

TEST_CASE("gradcheck: embedding (repeated indices accumulate) and gelu (both forms)") {
  kd::manual_seed(4);
  const Tensor idx = kd::tensor({{1, 3, 1}, {0, 3, 3}});
  check([&](const std::vector<Tensor>& v) { return F::embedding(idx, v[0]); }, {kd::randn({5, 3}, f64g)});
  check([](const std::vector<Tensor>& v) { return F::gelu(v[0]); }, {kd::randn({3, 4}, f64g)});
  check([](const std::vector<Tensor>& v) { return F::gelu(v[0], "tanh"); }, {kd::randn({3, 4}, f64g)});
}

TEST_CASE("gradcheck: conv_transpose2d, interpolate and the parametrised activations (issue 18)") {
  kd::manual_seed(2);
  check([](const std::vector<Tensor>& v) { return F::conv_transpose2d(v[0], v[1], v[2], 2, 1, 1); },
        {kd::randn({2, 2, 3, 3}, f64g), kd::randn({2, 3, 3, 3}, f64g), kd::randn({3}, f64g)});
  check([](const std::vector<Tensor>& v) { return F::conv_transpose2d(v[0], v[1], Tensor(), {1, 2}, 0, 0, 2, {2, 1}); },
        {kd::randn({1, 4, 3, 2}, f64g), kd::randn({4, 1, 2, 2}, f64g)});
  check([](const std::vector<Tensor>& v) { return F::interpolate(v[0], {.size = {5, 7}, .mode = "bilinear"}); },
        {kd::randn({1, 2, 3, 4}, f64g)});
  check([](const std::vector<Tensor>& v) {
    return F::interpolate(v[0], {.scale_factor = {1.5}, .mode = "bilinear", .align_corners = true});
  }, {kd::randn({2, 1, 3, 3}, f64g)});
  check([](const std::vector<Tensor>& v) { return F::interpolate(v[0], {.size = {5, 2}}); }, {kd::randn({1, 2, 3, 4}, f64g)});
  // Away from 0, where leaky_relu and elu have a kink: shift the points off it.
  const Tensor x = kd::randn({3, 4}, f64) * 2;
  const Tensor away = (x + x.sign() * 0.1).requires_grad_();
  check([](const std::vector<Tensor>& v) { return F::leaky_relu(v[0], 0.2); }, {away});
  check([](const std::vector<Tensor>& v) { return F::elu(v[0], 0.7); }, {away});
  check([](const std::vector<Tensor>& v) { return F::silu(v[0]); }, {away});
  check([](const std::vector<Tensor>& v) { return F::softplus(v[0], 2.0, 3.0); }, {away});
}

TEST_CASE("gradcheck: a second backward through a freed layer node is refused clearly") {
  const Tensor x = kd::randn({1, 1, 4, 4}, f64g);
  const Tensor w = kd::randn({1, 1, 3, 3}, f64g);
  const Tensor y = F::conv2d(x, w).sum();
  y.backward();
  CHECK_THROWS_AS(y.backward(), kd::AutogradError);
  CHECK(F::conv2d(x, w).grad_fn()->name() == std::string("ConvolutionBackward0"));
  CHECK(F::max_pool2d(x, 2).grad_fn()->name() == std::string("MaxPool2DWithIndicesBackward0"));
  CHECK(F::layer_norm(x, {4}).grad_fn()->name() == std::string("NativeLayerNormBackward0"));
  {
    kd::NoGradGuard no_grad;
    CHECK(F::conv2d(x, w).grad_fn() == nullptr);
  }
}
