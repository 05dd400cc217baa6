// Instructor-only tests for chapter 4 (not in the student handout), twinned in hidden/ch04/pytorch.py.
#include "ch04_grading.hpp"

#include <random>
#include <thread>

using namespace ch04_grading;
using data::detail::OrderedPrefetcher;

TEST_CASE("prefetcher: 30 runs with random workers and windows (hidden)", "[ch04][ex4][pts=3][hidden]") {
  const std::int64_t n = grading::input("n").item<std::int64_t>();
  std::mt19937 rng(5);
  for (int r = 0; r < 30; ++r) {
    const std::int64_t workers = 1 + rng() % 6, window = 1 + rng() % 9;
    OrderedPrefetcher q(n, workers, window, [r](std::int64_t k, std::int64_t) -> OrderedPrefetcher::Item {
      std::this_thread::sleep_for(std::chrono::microseconds((k * 31 + r) % 200));
      return std::make_shared<std::int64_t>(k + r);
    });
    std::vector<std::int64_t> got;
    while (auto item = q.next()) got.push_back(*static_cast<std::int64_t*>(item.get()));
    grading::expect("run " + std::to_string(r), got);
  }
}

TEST_CASE("collate: 40 random batches of views (hidden)", "[ch04][ex2][pts=2][hidden]") {
  const kd::Tensor x = grading::input("x");
  for (std::int64_t b = 0; b < 40; ++b) {
    grading::expect("batch " + std::to_string(b),
                    data::collate_tensors({x[b].t(), x[(b + 1) % 40].t(), x[(b + 7) % 40].t()}));
  }
}
