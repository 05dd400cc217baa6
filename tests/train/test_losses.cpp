// Losses and metrics: clear errors (values are checked against PyTorch in tests/parity/ch05_optim),
// the graph's node names, and accuracy against a hand-counted argmax.
#include <catch2/catch.hpp>
#include <kindling/train.hpp>

namespace kd = kindling;
namespace F = kindling::nn::functional;
namespace train = kindling::train;
using Catch::Contains;

TEST_CASE("loss: cross_entropy names bad labels, shapes and dtypes") {
  kd::Tensor logits = kd::randn({4, 3});
  CHECK_THROWS_WITH(F::cross_entropy(logits, kd::tensor(std::vector<std::int64_t>{0, 1, 3, 2}, {4})),
                    Contains("target 3 at position 2") && Contains("3 classes"));
  CHECK_THROWS_WITH(F::cross_entropy(logits, kd::tensor(std::vector<float>{0, 1, 2, 2}, {4})),
                    Contains("int64") && Contains("float32"));
  CHECK_THROWS_WITH(F::cross_entropy(logits, kd::zeros({4, 3}, {.dtype = kd::kInt64})),
                    Contains("[4, 3]") && Contains("one-hot"));
  CHECK_THROWS_AS(F::cross_entropy(logits, kd::tensor(std::vector<std::int64_t>{0, 1, 2}, {3})), kd::ShapeError);
}

TEST_CASE("loss: the graph reads NllLossBackward0 then LogSoftmaxBackward0, like PyTorch") {
  kd::Tensor x = kd::randn({4, 3}).requires_grad_();
  kd::Tensor loss = kd::nn::CrossEntropyLoss()(x, kd::tensor(std::vector<std::int64_t>{0, 1, 2, 0}, {4}));
  REQUIRE(loss.grad_fn());
  CHECK(std::string(loss.grad_fn()->name()) == "NllLossBackward0");
}

TEST_CASE("loss: regression losses refuse shapes that would silently broadcast") {
  kd::Tensor pred = kd::randn({8, 1}), target = kd::randn({8});
  CHECK_THROWS_WITH(kd::nn::MSELoss()(pred, target), Contains("mse_loss") && Contains("squeeze"));
  CHECK_THROWS_AS(kd::nn::L1Loss()(pred, target), kd::ShapeError);
  CHECK_THROWS_AS(kd::nn::SmoothL1Loss()(pred, target), kd::ShapeError);
  CHECK_THROWS_WITH(kd::nn::SmoothL1Loss({.beta = -1})(target, target), Contains("beta"));
}

TEST_CASE("loss: bce_with_logits weights broadcast to the input, never beyond it (issue 18)") {
  const kd::Tensor x = kd::randn({4, 3}), y = kd::rand({4, 3});
  CHECK_THROWS_AS(F::binary_cross_entropy_with_logits(x, y, {.weight = kd::rand({2, 4, 3})}), kd::ShapeError);
  CHECK_THROWS_WITH(F::binary_cross_entropy_with_logits(x, y, {.pos_weight = kd::rand({2, 1, 3})}),
                    Contains("pos_weight") && Contains("[2, 1, 3]") && Contains("[2, 4, 3]"));
  CHECK_NOTHROW(F::binary_cross_entropy_with_logits(x, y, {.weight = kd::rand({3}), .pos_weight = kd::rand({3})}));
  // An empty batch: nan (the mean of nothing), and backward works, twice.
  kd::Tensor e = kd::randn({0, 4}).requires_grad_();
  kd::Tensor loss = F::binary_cross_entropy_with_logits(e, kd::rand({0, 4}), {.reduction = kd::nn::Reduction::Sum});
  CHECK_NOTHROW(loss.backward({}, /*retain_graph=*/true));
  CHECK_NOTHROW(loss.backward());
  CHECK(e.grad().shape() == kd::Shape{0, 4});
}

TEST_CASE("loss: kl_div and huber_loss refuse shapes that would broadcast, BatchMean is kl_div's (issue 18)") {
  // Stricter than PyTorch on purpose: PyTorch broadcasts a [3] target against a [4, 3] input (kl_div
  // silently, huber_loss with a warning), which averages a loss the model never meant.
  const kd::Tensor x = kd::randn({4, 3}), y = kd::rand({3});
  CHECK_THROWS_WITH(F::kl_div(x, y), Contains("kl_div") && Contains("[4, 3]") && Contains("[3]"));
  CHECK_THROWS_WITH(F::huber_loss(x, y), Contains("huber_loss") && Contains("refuses on purpose"));
  CHECK_THROWS_WITH(F::huber_loss(x, x, {.delta = -1}), Contains("delta"));
  using R = kd::nn::Reduction;
  CHECK_THROWS_WITH(F::mse_loss(x, x, R::BatchMean), Contains("mse_loss") && Contains("BatchMean"));
  CHECK_THROWS_AS(F::cross_entropy(x, kd::zeros({4}, {.dtype = kd::kInt64}), {.reduction = R::BatchMean}),
                  kd::ValueError);
  CHECK_THROWS_AS(F::binary_cross_entropy(x.sigmoid(), x.sigmoid(), {.reduction = R::BatchMean}), kd::ValueError);
  CHECK_NOTHROW(F::kl_div(x, kd::rand({4, 3}), {.reduction = R::BatchMean}));
  // A class-probability target of int64 is named as such.
  CHECK_THROWS_WITH(F::cross_entropy(x, kd::zeros({4, 3}, {.dtype = kd::kInt64})),
                    Contains("class probabilities") && Contains("int64"));
}

TEST_CASE("loss: a loss that requires no grad builds no graph") {
  kd::Tensor x = kd::randn({4, 3});
  kd::Tensor loss = F::cross_entropy(x, kd::tensor(std::vector<std::int64_t>{0, 1, 2, 0}, {4}));
  CHECK_FALSE(loss.requires_grad());
  kd::Tensor y = kd::randn({4, 3}).requires_grad_();
  {
    kd::NoGradGuard no_grad;
    CHECK_FALSE(F::cross_entropy(y, kd::tensor(std::vector<std::int64_t>{0, 1, 2, 0}, {4})).requires_grad());
  }
}

TEST_CASE("metrics: count_correct and accuracy agree with a hand-counted argmax") {
  kd::Generator gen(3);
  kd::Tensor logits = kd::randn({50, 7}, {}, &gen);
  kd::Tensor labels = kd::randint(0, 7, {50}, {.dtype = kd::kInt64}, &gen);
  const auto v = logits.to_vector<float>();
  const auto l = labels.to_vector<std::int64_t>();
  std::int64_t expected = 0;
  for (int i = 0; i < 50; ++i) {
    int best = 0;
    for (int c = 1; c < 7; ++c)
      if (v[i * 7 + c] > v[i * 7 + best]) best = c;
    expected += best == l[i];
  }
  CHECK(train::count_correct(logits, labels) == expected);
  CHECK(train::accuracy(logits, labels) == Approx(expected / 50.0));
  CHECK_THROWS_AS(train::count_correct(logits, labels.to(kd::kFloat32)), kd::DTypeError);
  CHECK_THROWS_AS(train::count_correct(logits, labels.slice(0, 0, 10)), kd::ShapeError);
}

TEST_CASE("metrics: RunningMean weights by batch size") {
  train::RunningMean m;
  m.add(1.0, 30);
  m.add(4.0, 10);
  CHECK(m.mean() == Approx((30 * 1.0 + 10 * 4.0) / 40));
  CHECK(m.count() == 40);
  m.reset();
  CHECK(m.mean() == 0);
}
