// ch06.ex2 — GradScaler::update's growth and backoff (amp::detail::update_scale), against PyTorch's
// GradScaler with its _amp_update_scale_ kernel.
#include "ch06_grading.hpp"

using namespace ch06_grading;

namespace {
const std::vector<double> kFactors = {1, 1, 1, kInf, 1, 1, kNaN, 1, 1, 1, 1, 1};
}

TEST_CASE("update: backoff after an overflow, growth after growth_interval clean steps", "[ch06][ex2][pts=8]") {
  report_scale_sequence(kFactors, {.init_scale = 1024.0, .growth_interval = 3});
}

TEST_CASE("update: PyTorch's defaults over a few steps", "[ch06][ex2][pts=5]") {
  report_scale_sequence(kFactors, {});
}

TEST_CASE("update: other factors, in float32 arithmetic", "[ch06][ex2][pts=7]") {
  report_scale_sequence(kFactors, {.init_scale = 1.0 / 3.0, .growth_factor = 1.1, .backoff_factor = 0.3,
                                   .growth_interval = 2});
}

TEST_CASE("update: the scale never grows to inf", "[ch06][ex2][pts=5]") {
  report_scale_sequence(std::vector<double>(6, 1.0), {.init_scale = 0x1p127, .growth_interval = 1});
}
