// ch04.ex1 — data::random_permutation, the order of a shuffled epoch. PyTorch's generator is not
// Kindling's, so the twin states properties: a permutation, seeded, uniform.
#include "ch04_grading.hpp"

#include <algorithm>
#include <vector>

using namespace ch04_grading;

TEST_CASE("random_permutation: a permutation of 0..n-1", "[ch04][ex1][pts=4]") {
  // The draws themselves are reported; the grader checks outside this process that each is a
  // permutation of 0..n-1 (n drawn per grading run) and that they are not all in order.
  kd::Generator gen(1);
  for (std::int64_t n : grading::input("sizes").to_vector<std::int64_t>()) {
    const auto perm = data::random_permutation(n, gen);
    grading::expect("random_permutation(" + std::to_string(n) + ")",
                    kd::tensor(perm, kd::Shape{static_cast<std::int64_t>(perm.size())}));
  }
  std::vector<std::int64_t> five;
  for (int k = 0; k < 5; ++k) {
    const auto p = data::random_permutation(10, gen);
    five.insert(five.end(), p.begin(), p.end());
  }
  grading::expect("random_permutation(10), 5 draws", kd::tensor(five, kd::Shape{static_cast<std::int64_t>(five.size()) / 10, 10}));
}

TEST_CASE("random_permutation: the same seed gives the same order, another seed another", "[ch04][ex1][pts=3]") {
  const std::int64_t n = grading::input("n").item<std::int64_t>();
  kd::Generator a(7), b(7), c(8);
  const auto pa = data::random_permutation(n, a), pb = data::random_permutation(n, b), pc = data::random_permutation(n, c);
  // The orders themselves are reported; the grader compares them outside this process.
  const auto t = [](const std::vector<std::int64_t>& p) { return kd::tensor(p, kd::Shape{static_cast<std::int64_t>(p.size())}); };
  grading::expect("seed 7", t(pa));
  grading::expect("seed 7 again", t(pb));
  grading::expect("seed 8", t(pc));
  grading::expect("seed 7, second draw", t(data::random_permutation(n, a)));
}

TEST_CASE("random_permutation: every order is equally likely", "[ch04][ex1][pts=6]") {
  // 12000 draws, reported as they are: the grader counts the orders and computes the chi-square outside
  // this process.
  const std::int64_t n = grading::input("n").item<std::int64_t>();  // 4: 24 orders
  kd::Generator gen(11);
  const std::int64_t draws = 12000;
  std::vector<std::int64_t> all;
  all.reserve(static_cast<std::size_t>(draws * n));
  for (std::int64_t k = 0; k < draws; ++k) {
    const auto p = data::random_permutation(n, gen);
    all.insert(all.end(), p.begin(), p.end());
  }
  grading::expect("12000 draws of random_permutation(n)",
                  kd::tensor(all, kd::Shape{static_cast<std::int64_t>(all.size()) / std::max<std::int64_t>(n, 1), n}));
}

TEST_CASE("random_permutation: negative sizes are refused", "[ch04][ex1][pts=2]") {
  kd::Generator gen(3);
  grading::expect_error("random_permutation(-1)", [&] { (void)data::random_permutation(-1, gen); });
  grading::expect("RandomSampler over 12 samples: sorted", sorted(data::RandomSampler(12).indices(gen)));
}
