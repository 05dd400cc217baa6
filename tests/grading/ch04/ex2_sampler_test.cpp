// ch04.ex2 — Fisher–Yates: the library's permutation for the same seed; a Sampler a DataLoader can use.
#include <algorithm>
#include <memory>
#include <numeric>
#include <set>

#include "ch04_grading.hpp"

using namespace ch04_grading;

TEST_CASE("ch04.ex2: shuffled_indices equals random_permutation for the same seed", "[ch04][ex2][pts=5]") {
  for (std::int64_t n : {0, 1, 2, 3, 10, 257, 5000}) {
    for (std::uint64_t seed : {0u, 1u, 42u, 123456u}) {
      INFO("n " << n << ", seed " << seed);
      kd::Generator a(seed), b(seed);
      REQUIRE(ex::shuffled_indices(n, a) == kd::data::random_permutation(n, b));
      // and the generator advanced by the same draws: the next number agrees too
      CHECK(a.next_u64() == b.next_u64());
    }
  }
}

TEST_CASE("ch04.ex2: every index exactly once, same seed same order, n < 0 rejected", "[ch04][ex2][pts=4]") {
  kd::Generator gen(7);
  for (std::int64_t n : {1, 5, 100, 1000}) {
    INFO("n " << n);
    std::vector<std::int64_t> p = ex::shuffled_indices(n, gen);
    REQUIRE(static_cast<std::int64_t>(p.size()) == n);
    std::vector<std::int64_t> sorted = p;
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::int64_t> iota(static_cast<std::size_t>(n));
    std::iota(iota.begin(), iota.end(), std::int64_t{0});
    CHECK(sorted == iota);
    if (n >= 100) CHECK(p != iota);  // actually shuffled
  }
  kd::Generator a(99), b(99), c(100);
  const auto pa = ex::shuffled_indices(50, a), pb = ex::shuffled_indices(50, b), pc = ex::shuffled_indices(50, c);
  CHECK(pa == pb);
  CHECK(pa != pc);
  CHECK(ex::shuffled_indices(50, a) != pa);  // the generator moved on: the next call differs
  CHECK_THROWS_AS(ex::shuffled_indices(-1, a), kd::ValueError);
  CHECK_THROWS_AS(ex::ShuffleSampler(-3), kd::ValueError);
}

TEST_CASE("ch04.ex2: ShuffleSampler drives a DataLoader like shuffle = true", "[ch04][ex2][pts=6][threads]") {
  const std::int64_t n = 103;
  kd::data::TensorDataset ds(kd::arange(n).to(kd::kFloat32).view({n, 1}), kd::arange(n));
  auto sampler = std::make_shared<ex::ShuffleSampler>(n);
  REQUIRE(sampler->size() == n);
  for (std::int64_t workers : {0, 2}) {
    INFO("num_workers " << workers);
    kd::data::DataLoader mine(ds, {.batch_size = 10, .num_workers = workers, .seed = 5, .sampler = sampler});
    kd::data::DataLoader library(ds, {.batch_size = 10, .shuffle = true, .num_workers = workers, .seed = 5});
    std::vector<std::int64_t> previous;
    for (int epoch = 0; epoch < 3; ++epoch) {
      INFO("epoch " << epoch);
      std::vector<std::int64_t> seen, expected;
      for (auto& [x, y] : mine)
        for (auto v : y.to_vector<std::int64_t>()) seen.push_back(v);
      for (auto& [x, y] : library)
        for (auto v : y.to_vector<std::int64_t>()) expected.push_back(v);
      REQUIRE(static_cast<std::int64_t>(seen.size()) == n);
      CHECK(std::set<std::int64_t>(seen.begin(), seen.end()).size() == static_cast<std::size_t>(n));
      CHECK(seen == expected);   // same seed, same draws as the library's RandomSampler
      CHECK(seen != previous);   // a new order every epoch
      previous = seen;
    }
  }
}
