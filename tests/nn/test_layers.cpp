// Layer behaviour that is not a plain formula: Dropout and BatchNorm in train vs eval, default
// initialisation and nn::init statistics, and the errors layers raise. (Values against PyTorch are
// in tests/parity/ch03_nn.*; backward formulas against finite differences in test_gradcheck.cpp.)
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>
#include <kindling/nn.hpp>

namespace kd = kindling;
namespace nn = kindling::nn;
namespace F = kindling::nn::functional;
using Catch::Contains;

namespace {
double mean_of(const kd::Tensor& t) { return t.to(kd::kFloat64).mean().item<double>(); }
double var_of(const kd::Tensor& t) { return t.to(kd::kFloat64).var(/*correction=*/0).item<double>(); }
}  // namespace

TEST_CASE("layers: Dropout zeroes about p of the elements and scales the rest by 1/(1-p) in training only") {
  kd::manual_seed(0);
  nn::Dropout drop(0.25);
  const kd::Tensor x = kd::ones({200, 500});
  const kd::Tensor y = drop(x);
  const std::int64_t n = x.numel();
  const double zero_frac = (y == 0.0).to(kd::kFloat64).mean().item<double>();
  // Binomial(n, 0.25): a 6-sigma band around p.
  CHECK(std::abs(zero_frac - 0.25) < 6 * std::sqrt(0.25 * 0.75 / static_cast<double>(n)));
  const kd::Tensor kept = (y != 0.0);
  CHECK(kd::allclose(kd::where(kept, y, kd::full({1}, 1.0 / 0.75)), kd::full(x.shape(), 1.0 / 0.75)));
  CHECK(std::abs(mean_of(y) - 1.0) < 0.01);  // the expectation is preserved
  drop.eval();
  CHECK(drop(x).is_same(x));  // identity, not even a copy
  drop.train();
  CHECK(kd::equal(nn::Dropout(0.0)(x), x));
  CHECK(nn::Dropout(1.0)(x).abs().sum().item<double>() == 0);
  CHECK_THROWS_AS(nn::Dropout(1.5), kd::ValueError);
  // The mask is the same for the same seed.
  kd::manual_seed(42);
  const kd::Tensor a = drop(x);
  kd::manual_seed(42);
  CHECK(kd::equal(drop(x), a));
  // Gradient flows only through the kept elements, scaled the same way.
  kd::Tensor w = kd::ones({4, 100}, {.requires_grad = true});
  const kd::Tensor out = drop(w);
  out.sum().backward();
  CHECK(kd::equal(w.grad(), out.detach()));
}

TEST_CASE("layers: BatchNorm uses batch statistics in train() and running statistics in eval()") {
  kd::manual_seed(1);
  nn::BatchNorm1d bn(3);
  const kd::Tensor x = kd::randn({64, 3}) * 2.0 + 5.0;
  const kd::Tensor y = bn(x);
  // Training output: per-channel mean 0 and biased variance 1 (up to eps).
  for (int c = 0; c < 3; ++c) {
    const kd::Tensor col = y.select(1, c);
    CHECK(std::abs(mean_of(col)) < 1e-5);
    CHECK(std::abs(var_of(col) - 1.0) < 1e-3);
  }
  // Running stats: 0.9·init + 0.1·batch (mean, and *unbiased* variance).
  const kd::Tensor expected_mean = x.mean(0) * 0.1;
  const kd::Tensor expected_var = kd::ones({3}) * 0.9 + x.var(0, false, /*correction=*/1) * 0.1;
  CHECK(kd::allclose(bn.running_mean, expected_mean, 1e-5, 1e-6));
  CHECK(kd::allclose(bn.running_var, expected_var, 1e-5, 1e-6));
  CHECK(bn.num_batches_tracked.item<std::int64_t>() == 1);
  // Eval: (x - running_mean) / sqrt(running_var + eps); no statistics change.
  bn.eval();
  const kd::Tensor ye = bn(x);
  CHECK(kd::allclose(ye, (x - bn.running_mean) / (bn.running_var + 1e-5).sqrt(), 1e-5, 1e-5));
  CHECK(bn.num_batches_tracked.item<std::int64_t>() == 1);
  // momentum = None: a cumulative average over the batches seen.
  nn::BatchNorm1d cum(3, {.momentum = std::nullopt});
  const kd::Tensor x2 = kd::randn({16, 3});
  cum(x);
  cum(x2);
  CHECK(kd::allclose(cum.running_mean, (x.mean(0) + x2.mean(0)) / 2.0, 1e-5, 1e-6));
  // No running stats: batch statistics even in eval().
  nn::BatchNorm2d nostats(2, {.track_running_stats = false});
  nostats.eval();
  CHECK(nostats.named_buffers().empty());
  const kd::Tensor img = kd::randn({4, 2, 3, 3}) + 3.0;
  CHECK(std::abs(mean_of(nostats(img))) < 1e-5);
}

TEST_CASE("layers: BatchNorm and LayerNorm refuse inputs they cannot normalise") {
  nn::BatchNorm1d bn(3);
  CHECK_THROWS_WITH(bn(kd::randn({1, 3})), Contains("more than 1 value per channel"));
  CHECK_THROWS_WITH(bn(kd::randn({4, 5})), Contains("running_mean should have shape [5]"));
  CHECK_THROWS_WITH(bn(kd::randn({4, 3, 2, 2})), Contains("expected 2D or 3D input (got 4D input"));
  nn::BatchNorm2d bn2(3);
  CHECK_THROWS_WITH(bn2(kd::randn({4, 3})), Contains("expected 4D input"));
  bn.eval();
  CHECK_NOTHROW(bn(kd::randn({1, 3})));  // a single sample is fine in eval()
  nn::LayerNorm ln({4});
  CHECK_THROWS_WITH(ln(kd::randn({2, 5})), Contains("normalized_shape [4] must match the last dimensions"));
}

TEST_CASE("layers: Linear, Conv2d, Embedding check their inputs with helpful messages") {
  nn::Linear fc(784, 128);
  CHECK_THROWS_WITH(fc(kd::randn({32, 28, 28})), Contains("in_features=784") && Contains("[32, 28, 28]") &&
                                                     Contains("flatten"));
  nn::Conv2d conv(3, 8, 3);
  CHECK_THROWS_WITH(conv(kd::randn({2, 1, 8, 8})), Contains("has 1 channels, but weight [8, 3, 3, 3] expects 3"));
  CHECK_THROWS_WITH(conv(kd::randn({2, 3, 2, 2})), Contains("smaller than the (dilated) kernel"));
  CHECK_THROWS_WITH(conv(kd::randn({8, 8})), Contains("expected a 4-D input"));
  CHECK(conv(kd::randn({3, 8, 8})).shape() == kd::Shape{8, 6, 6});  // unbatched input, like PyTorch
  nn::Embedding emb(10, 4);
  CHECK_THROWS_AS(emb(kd::tensor({1, 10})), kd::IndexError);
  CHECK_THROWS_WITH(emb(kd::tensor({{1, 2}, {-1, 3}})), Contains("index -1") && Contains("0..9"));
  CHECK_THROWS_AS(emb(kd::tensor({1.0, 2.0})), kd::DTypeError);
  CHECK(emb(kd::tensor({{1, 2, 3}, {4, 5, 6}})).shape() == kd::Shape{2, 3, 4});
  CHECK_THROWS_WITH(nn::MaxPool2d(2, {.padding = 2})(kd::randn({1, 1, 4, 4})), Contains("at most half"));
  CHECK_THROWS_AS(nn::Conv2d(3, 8, 3, {.groups = 2}), kd::ValueError);
  CHECK_THROWS_AS(nn::GELU("fast"), kd::ValueError);
}

TEST_CASE("layers: elu of -0 and 0 is +0 and the signs PyTorch's (e^x - 1)·alpha gives, in every dtype") {
  // The parity suite compares values, and -0 == +0 there: the sign is checked here. PyTorch 1.13:
  // F.elu(tensor([-0., 0.])) -> [0., 0.] (both +0); with alpha = -1, (e^0 - 1)·(-1) -> [-0., -0.].
  for (kd::DType dt : {kd::kFloat32, kd::kFloat64, kd::kFloat16, kd::kBFloat16}) {
    const kd::Tensor x = kd::tensor({-0.0, 0.0}).to(dt);
    for (double v : F::elu(x).to(kd::kFloat64).to_vector<double>()) CHECK_FALSE(std::signbit(v));
    for (double v : F::elu(x, -1.0).to(kd::kFloat64).to_vector<double>()) CHECK(std::signbit(v));
  }
}

TEST_CASE("layers: padding strings, transposed convolutions and Upsample refuse bad arguments (issue 18)") {
  CHECK_THROWS_WITH(nn::Conv2d(2, 4, 3, {.stride = 2, .padding = "same"}), Contains("strided"));
  CHECK_THROWS_WITH(nn::Conv1d(2, 4, 3, {.padding = "full"}), Contains("Invalid padding string 'full'"));
  CHECK_THROWS_WITH(nn::Upsample({}), Contains("either size or scale_factor"));
  CHECK_THROWS_WITH(nn::ConvTranspose2d(3, 4, 3, {.groups = 2}), Contains("divisible by groups"));
  const kd::Tensor img = kd::randn({1, 2, 4, 4});
  CHECK_THROWS_AS(F::interpolate(img, {.scale_factor = {0.0}}), kd::ValueError);
  CHECK_THROWS_AS(F::interpolate(img, {.scale_factor = {1e300}}), kd::Error);  // no cast of a huge size
  CHECK_THROWS_WITH(F::interpolate(img, {.size = {2, 3, 4}}), Contains("same number of spatial dimensions"));
  CHECK_THROWS_WITH(F::conv_transpose2d(img, kd::randn({2, 1, 3, 3}), kd::Tensor(), 1, 3), Contains("padding"));
  // A padding of 0 still reads as a number (the string overload must not swallow it).
  CHECK(F::conv2d(img, kd::randn({3, 2, 3, 3}), kd::Tensor(), 1, 0).shape() == kd::Shape{1, 3, 2, 2});
  CHECK(F::conv1d(kd::randn({1, 2, 5}), kd::randn({3, 2, 3}), kd::Tensor(), 1, 0).shape() == kd::Shape{1, 3, 3});
}

TEST_CASE("layers: default initialisation follows PyTorch's bounds") {
  kd::manual_seed(0);
  nn::Linear fc(400, 300);
  const double bound = 1.0 / std::sqrt(400.0);  // kaiming_uniform_(a=√5) → U(-1/√fan_in, 1/√fan_in)
  CHECK(fc.weight.abs().max().item<double>() <= bound);
  CHECK(fc.weight.abs().max().item<double>() > 0.99 * bound);
  CHECK(std::abs(var_of(fc.weight) - bound * bound / 3.0) < 0.02 * bound * bound / 3.0);
  CHECK(fc.bias.abs().max().item<double>() <= bound);
  nn::Conv2d conv(16, 32, 3);
  const double cb = 1.0 / std::sqrt(16.0 * 9.0);
  CHECK(conv.weight.abs().max().item<double>() <= cb);
  CHECK(conv.bias.abs().max().item<double>() <= cb);
  nn::Embedding emb(1000, 64);
  CHECK(std::abs(mean_of(emb.weight)) < 0.02);
  CHECK(std::abs(var_of(emb.weight) - 1.0) < 0.03);
  nn::BatchNorm2d bn(4);
  CHECK(kd::equal(bn.weight, kd::ones({4})));
  CHECK(kd::equal(bn.bias, kd::zeros({4})));
  CHECK(kd::equal(bn.running_var, kd::ones({4})));
  // Same seed, same weights.
  kd::manual_seed(7);
  nn::Linear a(5, 5);
  kd::manual_seed(7);
  nn::Linear b(5, 5);
  CHECK(kd::equal(a.weight, b.weight));
}

TEST_CASE("layers: nn::init fills in place with the documented statistics") {
  kd::manual_seed(0);
  kd::Tensor w = kd::empty({500, 400}, {.requires_grad = true});  // a parameter: init works under no-grad
  const std::uint64_t v0 = w.version();
  nn::init::uniform_(w, -2.0, 3.0);
  CHECK(w.version() > v0);  // an in-place write bumps the version
  CHECK(w.min().item<double>() >= -2.0);
  CHECK(w.max().item<double>() < 3.0);
  CHECK(std::abs(mean_of(w) - 0.5) < 0.02);
  CHECK(std::abs(var_of(w) - 25.0 / 12.0) < 0.02 * 25.0 / 12.0);
  nn::init::normal_(w, 1.0, 0.5);
  CHECK(std::abs(mean_of(w) - 1.0) < 0.01);
  CHECK(std::abs(var_of(w) - 0.25) < 0.01);
  nn::init::xavier_uniform_(w);
  const double xa = std::sqrt(6.0 / 900.0);
  CHECK(w.abs().max().item<double>() <= xa);
  CHECK(std::abs(var_of(w) - xa * xa / 3.0) < 0.02 * xa * xa / 3.0);
  nn::init::xavier_normal_(w, 2.0);
  CHECK(std::abs(var_of(w) - 4.0 * 2.0 / 900.0) < 0.02 * 8.0 / 900.0);
  nn::init::kaiming_normal_(w, 0.0, nn::init::FanMode::FanOut, "relu");
  CHECK(std::abs(var_of(w) - 2.0 / 500.0) < 0.02 * 2.0 / 500.0);
  nn::init::kaiming_uniform_(w, 0.0, nn::init::FanMode::FanIn, "relu");
  CHECK(w.abs().max().item<double>() <= std::sqrt(6.0 / 400.0));
  nn::init::constant_(w, 0.3);
  CHECK(kd::allclose(w, kd::full({500, 400}, 0.3)));
  nn::init::zeros_(w);
  CHECK(w.abs().sum().item<double>() == 0);
  CHECK(w.requires_grad());
  CHECK(w.is_leaf());
  CHECK(nn::init::calculate_gain("tanh") == Approx(5.0 / 3.0));
  CHECK(nn::init::calculate_gain("leaky_relu", 0.2) == Approx(std::sqrt(2.0 / 1.04)));
  CHECK_THROWS_AS(nn::init::calculate_gain("swish"), kd::ValueError);
  kd::Tensor v = kd::empty({3});
  CHECK_THROWS_WITH(nn::init::xavier_uniform_(v), Contains("fewer than 2 dimensions"));
  CHECK(nn::init::calculate_fan_in_and_fan_out(kd::empty({8, 4, 3, 3})) == std::pair<std::int64_t, std::int64_t>{36, 72});
}

TEST_CASE("layers: nn::init refuses what PyTorch refuses and leaves zero-element tensors alone") {
  kd::Tensor w = kd::empty({4, 3});
  CHECK_THROWS_WITH(nn::init::uniform_(w, 2.0, 1.0), Contains("a = 2") && Contains("> b = 1"));
  CHECK_THROWS_WITH(nn::init::uniform_(w, std::nan(""), 1.0), Contains("finite"));
  CHECK_THROWS_WITH(nn::init::uniform_(w, 0.0, std::numeric_limits<double>::infinity()), Contains("finite"));
  CHECK_THROWS_WITH(nn::init::normal_(w, 0.0, -1.0), Contains("std >= 0.0"));
  CHECK_THROWS_WITH(nn::init::normal_(w, 0.0, std::nan("")), Contains("std >= 0.0"));
  kd::Tensor ints = kd::zeros({4}, {.dtype = kd::kInt64});
  CHECK_THROWS_AS(nn::init::uniform_(ints), kd::DTypeError);
  CHECK_THROWS_AS(nn::init::normal_(ints), kd::DTypeError);
  kd::Tensor flags = kd::ones({3, 3}, {.dtype = kd::kBool});
  CHECK_THROWS_AS(nn::init::kaiming_uniform_(flags), kd::DTypeError);
  nn::init::constant_(ints, 2.5);  // a constant converts, as PyTorch's fill_ does
  CHECK(ints.to_vector<std::int64_t>() == std::vector<std::int64_t>{2, 2, 2, 2});
  // Zero elements: nothing to fill, and no fan to divide by (PyTorch warns and returns)
  kd::Tensor empty = kd::empty({0, 5});
  CHECK(&nn::init::kaiming_uniform_(empty) == &empty);
  CHECK(&nn::init::kaiming_normal_(empty, 0.0, nn::init::FanMode::FanOut) == &empty);
  nn::Linear no_inputs(0, 3), no_outputs(4, 0);
  CHECK(no_inputs(kd::empty({2, 0})).shape() == kd::Shape{2, 3});
  CHECK(no_outputs.weight.shape() == kd::Shape{0, 4});
  nn::Conv2d no_channels(0, 2, 3);
  CHECK(no_channels.weight.numel() == 0);
}

TEST_CASE("layers: a small CNN trains: the loss goes down") {
  kd::manual_seed(0);
  nn::Sequential model(nn::Conv2d(1, 4, 3, {.padding = 1}), nn::BatchNorm2d(4), nn::ReLU(), nn::MaxPool2d(2),
                       nn::Flatten(), nn::Linear(4 * 4 * 4, 2));
  const kd::Tensor x = kd::randn({16, 1, 8, 8});
  // Label: is the mean of the image's left half larger than the right half's?
  const kd::Tensor left = x.index({kd::indexing::Slice(), 0, kd::indexing::Slice(), kd::indexing::Slice(0, 4)}).mean({1, 2});
  const kd::Tensor right = x.index({kd::indexing::Slice(), 0, kd::indexing::Slice(), kd::indexing::Slice(4, 8)}).mean({1, 2});
  const kd::Tensor target = kd::stack({(left > right).to(kd::kFloat32), (left <= right).to(kd::kFloat32)}, 1);
  double first = 0, last = 0;
  for (int step = 0; step < 30; ++step) {
    model.zero_grad();
    const kd::Tensor loss = -(model(x).log_softmax(1) * target).sum(1).mean();
    loss.backward();
    kd::NoGradGuard no_grad;
    for (kd::Tensor& p : model.parameters()) p.sub_(p.grad() * 0.1);
    (step == 0 ? first : last) = loss.item<double>();
  }
  CHECK(last < 0.5 * first);
}

// The 2x2 max-pool's float32 kernel works 8 windows at a time (AVX2 where the build has it), with a
// shorter last block per row and full-width stores that run into the next row except at the end of
// the tensor; float64 goes through the scalar loop. Both must pick the same window element (ties: the
// first maximum; NaN: the last NaN), for every row length around the block size, odd heights and
// widths included, forward and backward. (PyTorch's rule itself: parity max_pool2d/2x2-*.)
TEST_CASE("max_pool2d: the 2x2 float32 vector kernel picks what the float64 scalar loop picks, every row length") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (std::int64_t h = 2; h <= 5; ++h)
    for (std::int64_t w = 2; w <= 41; ++w) {
      const std::int64_t n = 2 * 3 * h * w;
      std::vector<float> v(static_cast<std::size_t>(n)), up(static_cast<std::size_t>(2 * 3 * (h / 2) * (w / 2)));
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t k = (i * 7919 + h * 31 + w) % 41;
        v[static_cast<std::size_t>(i)] = k == 0 ? nan : k == 1 ? -inf : k == 2 ? inf : k == 3 ? -0.0f : float(k % 3) - 1;
      }
      for (std::size_t i = 0; i < up.size(); ++i) up[i] = i % 5 == 0 ? -0.0f : 0.25f * float(i % 7) - 0.5f;
      INFO("h=" << h << " w=" << w);
      const kd::Tensor x32 = kd::tensor(v, {2, 3, h, w}).requires_grad_();
      const kd::Tensor x64 = x32.detach().to(kd::kFloat64).requires_grad_();
      const kd::Tensor y32 = F::max_pool2d(x32, 2), y64 = F::max_pool2d(x64, 2);
      CHECK(kd::allclose(y32, y64.to(kd::kFloat32), 0.0, 0.0, /*equal_nan=*/true));
      const kd::Tensor g = kd::tensor(up, y32.shape());
      y32.backward(g);
      y64.backward(g.to(kd::kFloat64));
      CHECK(kd::allclose(x32.grad(), x64.grad().to(kd::kFloat32), 0.0, 0.0, /*equal_nan=*/true));
      // Signs of zeros too (0 + g: -0.0 upstream becomes +0.0 where it lands, as in PyTorch's 0 += g).
      const kd::Tensor d32 = x32.grad().contiguous(), d64 = x64.grad().contiguous();
      std::int64_t sign_mismatches = 0;
      for (std::int64_t i = 0; i < n; ++i)
        sign_mismatches += std::signbit(d32.data_ptr<float>()[i]) != std::signbit(d64.data_ptr<double>()[i]);
      CHECK(sign_mismatches == 0);
    }
}

// Without a gradient to route, max_pool2d computes the maxima alone, separably (rows, then columns);
// with one, it keeps where each maximum was. Both must give the same numbers, NaN and infinities
// included, for every window shape: strides, padding, dilation and ceil_mode.
TEST_CASE("max_pool2d: the maxima alone (no grad) equal the maxima the indexed kernel finds") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  struct Geom {
    std::int64_t k, s, p, d;
    bool ceil;
  };
  for (const Geom& gm : {Geom{3, 2, 1, 1, false}, Geom{3, 1, 1, 1, false}, Geom{2, 1, 0, 1, false}, Geom{3, 3, 0, 1, true},
                         Geom{3, 2, 1, 2, false}, Geom{5, 2, 2, 1, true}, Geom{1, 2, 0, 1, false}, Geom{4, 3, 2, 1, true}})
    for (const kd::DType dt : {kd::kFloat32, kd::kFloat64}) {
      INFO("k=" << gm.k << " s=" << gm.s << " p=" << gm.p << " d=" << gm.d << " ceil=" << gm.ceil);
      std::vector<double> v(2 * 3 * 11 * 13);
      for (std::size_t i = 0; i < v.size(); ++i) {
        const std::size_t k = (i * 7919 + 13) % 53;
        v[i] = k == 0 ? nan : k == 1 ? -inf : k == 2 ? inf : std::sin(0.37 * static_cast<double>(i));
      }
      const kd::Tensor x = kd::tensor(v, {2, 3, 11, 13}).to(dt);
      const kd::Tensor with_idx =
          F::max_pool2d(x.detach().requires_grad_(), gm.k, gm.s, gm.p, gm.d, gm.ceil).detach();
      kd::Tensor values;
      {
        kd::NoGradGuard no_grad;
        values = F::max_pool2d(x, gm.k, gm.s, gm.p, gm.d, gm.ceil);
      }
      CHECK(values.shape() == with_idx.shape());
      CHECK(kd::allclose(values, with_idx, 0.0, 0.0, /*equal_nan=*/true));
    }
}

// A float32 convolution whose image's column matrix is 1 MB or more runs on oneDNN's convolution
// primitive (tensor/dnnl_conv.cpp); float64 always runs im2col + GEMM. The two must agree, with
// strides, padding, dilation and groups, with and without a bias -- and where oneDNN is handed a shape
// it would need a negative right padding for, the im2col path takes it. The backward (im2col's, from
// the saved input and weight) follows the float64 one too.
TEST_CASE("conv2d: the float32 forward on oneDNN's primitive equals the float64 im2col path") {
  struct Case {
    kd::Shape x, w;
    std::int64_t stride, padding, dilation, groups;
    bool bias;
  };
  for (const Case& c : {Case{{2, 64, 24, 24}, {32, 64, 3, 3}, 1, 1, 1, 1, true},
                        Case{{1, 64, 47, 47}, {16, 64, 3, 3}, 2, 1, 1, 1, false},
                        Case{{1, 64, 28, 28}, {8, 64, 3, 3}, 1, 2, 2, 1, true},
                        Case{{1, 256, 24, 24}, {64, 64, 3, 3}, 1, 1, 1, 4, true},
                        Case{{1, 512, 48, 48}, {8, 512, 1, 1}, 2, 0, 1, 1, false}}) {
    INFO("x " << kd::shape_str(c.x) << ", w " << kd::shape_str(c.w) << ", stride " << c.stride << ", groups "
              << c.groups);
    kd::manual_seed(7);
    const kd::Tensor x = kd::randn(c.x), w = kd::randn(c.w) * 0.1, b = c.bias ? kd::randn({c.w[0]}) : kd::Tensor();
    auto run = [&](kd::DType dt, bool grad) {
      kd::Tensor xd = x.to(dt).requires_grad_(grad), wd = w.to(dt).requires_grad_(grad);
      kd::Tensor y = F::conv2d(xd, wd, b.defined() ? b.to(dt) : kd::Tensor(), c.stride, c.padding, c.dilation, c.groups);
      if (grad) (y * y).sum().backward();
      return std::vector<kd::Tensor>{y.detach().to(kd::kFloat64), grad ? xd.grad().to(kd::kFloat64) : kd::Tensor(),
                                     grad ? wd.grad().to(kd::kFloat64) : kd::Tensor()};
    };
    const auto want = run(kd::kFloat64, true);
    {
      kd::NoGradGuard no_grad;
      CHECK(kd::allclose(run(kd::kFloat32, false)[0], want[0], 1e-4, 1e-4));
    }
    const auto got = run(kd::kFloat32, true);
    CHECK(kd::allclose(got[0], want[0], 1e-4, 1e-4));
    CHECK(kd::allclose(got[1], want[1], 1e-3, 1e-3));
    CHECK(kd::allclose(got[2], want[2], 1e-3, 1e-3));
  }
}

TEST_CASE("layers: conv2d of 0 input channels gives zeros (plus the bias), forward and backward") {
  // No columns to multiply: every output is an empty sum. (The batched-GEMM sizing divided by the
  // size of one image's columns, 0 here, and the process died of SIGFPE.)
  const kd::Tensor x = kd::randn({2, 0, 4, 4}).requires_grad_();
  const kd::Tensor w = kd::randn({3, 0, 3, 3}).requires_grad_();
  const kd::Tensor b = kd::tensor({1.0f, 2.0f, 3.0f});
  const kd::Tensor y = F::conv2d(x, w, b);
  CHECK(y.shape() == kd::Shape{2, 3, 2, 2});
  CHECK(kd::equal(y, b.reshape({1, 3, 1, 1}).expand({2, 3, 2, 2})));
  y.sum().backward();
  CHECK(x.grad().shape() == x.shape());
  CHECK(w.grad().shape() == w.shape());
}

TEST_CASE("layers: conv2d with no output (0 output channels, or a 0-image batch) has a zero input gradient") {
  // The input gradient is filled image by image as col2im adds into it; with no output there is
  // nothing to add, and the gradient must still be zeros, not whatever the allocator handed out.
  for (const auto& [xs, ws] : {std::pair{kd::Shape{2, 3, 5, 5}, kd::Shape{0, 3, 3, 3}},
                               std::pair{kd::Shape{0, 3, 5, 5}, kd::Shape{4, 3, 3, 3}}}) {
    for (int round = 0; round < 2; ++round) {  // the second time the caching allocator reuses a block
      const kd::Tensor x = (kd::randn(xs) * 1e6).requires_grad_();
      const kd::Tensor w = kd::randn(ws).requires_grad_();
      F::conv2d(x, w, kd::Tensor(), {1, 1}, {1, 1}).sum().backward();
      CHECK(x.grad().shape() == x.shape());
      CHECK(kd::equal(x.grad(), kd::zeros_like(x)));
    }
  }
}
