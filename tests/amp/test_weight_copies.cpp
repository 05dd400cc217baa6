// The persistent bfloat16 copies of the weights: refreshed by the optimizer's step, reused by the
// next autocast region, never used after an in-place change that the optimizer did not make.
// Every check compares with a fresh cast of the weight (what autocast did before the copies).
#include <catch2/catch.hpp>
#include <kindling/amp.hpp>
#include <kindling/nn.hpp>
#include <kindling/train.hpp>

namespace kd = kindling;
namespace amp = kindling::amp;
namespace F = kindling::nn::functional;

namespace {

struct Run {
  std::vector<float> losses;
  std::vector<kd::Tensor> params;
  kd::detail::AutocastCopyStats stats;
};

// A few Adam (or SGD) steps of a two-layer net under bfloat16 autocast. With `persistent` false,
// the copies are dropped before every forward, so each weight is cast afresh as before. With
// `in` = 200 the first weight has 20,000 elements: Adam and SGD update and refresh it in two
// chunks (16,384 + 3,616, autocast_mode.cpp), the other weights in one.
template <class Opt, class Options>
Run train(bool persistent, Options options, std::int64_t in) {
  kd::manual_seed(7);
  kd::nn::Sequential model(kd::nn::Linear(in, 100), kd::nn::ReLU(), kd::nn::Linear(100, 3));
  Opt opt(model.parameters(), options);
  const kd::Tensor x = kd::randn({8, in});
  const kd::Tensor y = kd::randn({8, 3});
  kd::detail::clear_autocast_weight_copies();
  const auto before = kd::detail::autocast_copy_stats();
  Run r;
  for (int step = 0; step < 5; ++step) {
    if (!persistent) kd::detail::clear_autocast_weight_copies();
    opt.zero_grad();
    kd::Tensor loss;
    {
      amp::AutocastGuard autocast;
      loss = F::mse_loss(model.forward(x), y);
    }
    loss.backward();
    opt.step();
    r.losses.push_back(loss.item<float>());
  }
  for (const kd::Tensor& p : model.parameters()) r.params.push_back(p.detach().clone());
  const auto after = kd::detail::autocast_copy_stats();
  r.stats = {after.casts - before.casts, after.reuses - before.reuses, after.refreshes - before.refreshes};
  kd::detail::clear_autocast_weight_copies();
  return r;
}

template <class Opt, class Options>
void check_identical(Options options, std::int64_t in = 6) {
  const Run fresh = train<Opt>(false, options, in);
  const Run kept = train<Opt>(true, options, in);
  CHECK(fresh.stats.reuses == 0);
  // 2 weights and 2 biases, cast at the first step, then reused at the 4 others; the input x is
  // no weight and is cast at every step.
  CHECK(fresh.stats.casts == 4 * 5 + 5);
  CHECK(kept.stats.casts == 4 + 5);
  CHECK(kept.stats.reuses == 16);
  CHECK(kept.stats.refreshes == 20);
  REQUIRE(fresh.losses.size() == kept.losses.size());
  for (std::size_t i = 0; i < fresh.losses.size(); ++i) CHECK(fresh.losses[i] == kept.losses[i]);  // bitwise
  for (std::size_t i = 0; i < fresh.params.size(); ++i) CHECK(kd::equal(fresh.params[i], kept.params[i]));
}

// The tensor that autocast hands to a lower-precision op for `w` in a new region.
kd::Tensor cast_in_region(const kd::Tensor& w) {
  amp::AutocastGuard autocast;
  return kd::detail::autocast_to_lower(w).detach().clone();
}

}  // namespace

TEST_CASE("autocast copies: Adam, AdamW and SGD steps are bit-identical with and without them") {
  check_identical<kd::optim::Adam>(kd::optim::AdamOptions{.lr = 1e-2});
  check_identical<kd::optim::AdamW>(kd::optim::AdamWOptions{.lr = 1e-2, .weight_decay = 0.1});
  check_identical<kd::optim::SGD>(kd::optim::SGDOptions{.lr = 0.1, .momentum = 0.9});
}

TEST_CASE("autocast copies: a weight updated and refreshed in chunks matches the whole-tensor update") {
  check_identical<kd::optim::Adam>(kd::optim::AdamOptions{.lr = 1e-2}, 200);
  check_identical<kd::optim::AdamW>(kd::optim::AdamWOptions{.lr = 1e-2, .weight_decay = 0.1, .amsgrad = true}, 200);
  check_identical<kd::optim::SGD>(kd::optim::SGDOptions{.lr = 0.1, .momentum = 0.9, .nesterov = true}, 200);
  check_identical<kd::optim::SGD>(kd::optim::SGDOptions{.lr = 0.1}, 200);
}

TEST_CASE("autocast copies: RMSprop and Adagrad refresh them too") {
  check_identical<kd::optim::RMSprop>(kd::optim::RMSpropOptions{.lr = 1e-2, .momentum = 0.5}, 200);
  check_identical<kd::optim::Adagrad>(kd::optim::AdagradOptions{.lr = 1e-2});
}

TEST_CASE("autocast copies: an in-place change outside the optimizer invalidates the copy") {
  kd::detail::clear_autocast_weight_copies();
  kd::nn::Linear layer(3, 2);
  kd::Tensor w = layer.named_parameters()[0].second;
  const kd::Tensor x = kd::randn({4, 3});
  auto region = [&] {
    amp::AutocastGuard autocast;
    F::linear(x, w).to(kd::kFloat32).sum().backward();
  };
  region();  // the copy is made
  REQUIRE(kd::detail::autocast_weight_copies_size() == 1);  // w (no bias in this call)
  const auto reuses = [] { return kd::detail::autocast_copy_stats().reuses; };

  const auto r0 = reuses();
  CHECK(kd::equal(cast_in_region(w), w.detach().to(kd::kBFloat16)));
  CHECK(reuses() == r0 + 1);  // unchanged weight: the copy is used

  {  // a no_grad edit
    kd::NoGradGuard no_grad;
    w.mul_(3.0);
  }
  auto r1 = reuses();
  CHECK(kd::equal(cast_in_region(w), w.detach().to(kd::kBFloat16)));
  CHECK(reuses() == r1);  // stale: cast again

  // a manual copy_
  {
    kd::NoGradGuard no_grad;
    w.copy_(kd::randn({2, 3}));
  }
  r1 = reuses();
  CHECK(kd::equal(cast_in_region(w), w.detach().to(kd::kBFloat16)));
  CHECK(reuses() == r1);

  // load_state_dict
  kd::nn::Linear other(3, 2);
  layer.load_state_dict(other.state_dict());
  r1 = reuses();
  CHECK(kd::equal(cast_in_region(w), other.named_parameters()[0].second.detach().to(kd::kBFloat16)));
  CHECK(reuses() == r1);

  // an edit of the 16-bit tensor autocast handed out is not seen by the next region either
  {
    amp::AutocastGuard autocast;
    kd::Tensor low = kd::detail::autocast_to_lower(w);
    kd::NoGradGuard no_grad;
    low.detach().zero_();
  }
  CHECK(kd::equal(cast_in_region(w), w.detach().to(kd::kBFloat16)));
  kd::detail::clear_autocast_weight_copies();
}

TEST_CASE("autocast copies: a graph kept from the last forward keeps the values it saw") {
  kd::detail::clear_autocast_weight_copies();
  kd::Tensor w = kd::randn({2, 3}).requires_grad_();
  kd::optim::SGD opt({w}, {.lr = 0.5});
  kd::Tensor low;
  {
    amp::AutocastGuard autocast;
    low = kd::detail::autocast_to_lower(w);
    low.to(kd::kFloat32).sum().backward();
  }
  const kd::Tensor seen = low.detach().clone();
  opt.step();  // refreshes the copy, but `low` still shares it: a new one is written instead
  CHECK(kd::equal(low.detach(), seen));
  CHECK(kd::equal(cast_in_region(w), w.detach().to(kd::kBFloat16)));
  kd::detail::clear_autocast_weight_copies();
}
