// ch05.ex4 — ReduceLROnPlateau's logic against the library's scheduler.
#include "ch05_grading.hpp"

using namespace ch05_grading;

namespace {
void check_sequence(const std::vector<double>& metrics, double factor, std::int64_t patience, double threshold) {
  kd::Tensor p = kd::zeros({1}).requires_grad_();
  kd::optim::SGD opt({p}, {.lr = 0.1});
  kd::optim::ReduceLROnPlateau ref(opt, {.factor = factor, .patience = patience, .threshold = threshold});
  ex::Plateau mine(factor, patience, threshold);
  double lr = 0.1;
  for (std::size_t e = 0; e < metrics.size(); ++e) {
    lr = mine.step(metrics[e], lr);
    ref.step(metrics[e]);
    INFO("epoch " << e + 1 << ", metric " << metrics[e] << ", patience " << patience << ", factor " << factor);
    REQUIRE(lr == Approx(opt.lr()).epsilon(1e-12));
    REQUIRE(mine.num_bad_epochs() == ref.num_bad_epochs());
  }
}
}  // namespace

TEST_CASE("ch05.ex4: a plateau cuts the lr after patience bad epochs", "[ch05][ex4][pts=6]") {
  check_sequence({1.0, 0.9, 0.8, 0.8, 0.8, 0.8, 0.8, 0.7, 0.7, 0.7, 0.7, 0.7}, 0.1, 2, 1e-4);
}

TEST_CASE("ch05.ex4: the relative threshold decides what counts as better", "[ch05][ex4][pts=4]") {
  // 0.99 is not better than 1.0 * (1 - 0.05), so these are all bad epochs.
  check_sequence({1.0, 0.99, 0.98, 0.97, 0.96, 0.90, 0.89, 0.88, 0.87, 0.86}, 0.5, 1, 0.05);
}

TEST_CASE("ch05.ex4: random metric sequences", "[ch05][ex4][pts=5]") {
  kd::Generator gen(44);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> metrics;
    double m = 1.0;
    for (int e = 0; e < 40; ++e) metrics.push_back(m *= 0.97 + 0.06 * gen.uniform());
    check_sequence(metrics, 0.1 + 0.8 * gen.uniform(), gen.randint(0, 5), 1e-3);
  }
}
