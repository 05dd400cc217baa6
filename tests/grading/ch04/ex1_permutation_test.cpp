// ch04.ex1 — data::random_permutation, the order of a shuffled epoch. PyTorch's generator is not
// Kindling's, so the twin states properties: a permutation, seeded, uniform.
#include "ch04_grading.hpp"

#include <map>
#include <set>

using namespace ch04_grading;

TEST_CASE("random_permutation: a permutation of 0..n-1", "[ch04][ex1][pts=4]") {
  kd::Generator gen(1);
  for (std::int64_t n : grading::input("sizes").to_vector<std::int64_t>()) {
    const auto perm = data::random_permutation(n, gen);
    grading::expect("sorted(random_permutation(" + std::to_string(n) + "))", sorted(perm));
  }
  bool shuffled = false;
  for (int k = 0; k < 5 && !shuffled; ++k) {
    const auto p = data::random_permutation(10, gen);
    shuffled = !std::is_sorted(p.begin(), p.end());
  }
  grading::expect("random_permutation(10) is not always sorted", shuffled);
}

TEST_CASE("random_permutation: the same seed gives the same order, another seed another", "[ch04][ex1][pts=3]") {
  const std::int64_t n = grading::input("n").item<std::int64_t>();
  kd::Generator a(7), b(7), c(8);
  const auto pa = data::random_permutation(n, a), pb = data::random_permutation(n, b), pc = data::random_permutation(n, c);
  grading::expect("seed 7 twice: equal", pa == pb);
  grading::expect("seed 7 and seed 8: different", pa != pc);
  grading::expect("one generator, two draws: different", data::random_permutation(n, a) != pa);
}

TEST_CASE("random_permutation: every order is equally likely", "[ch04][ex1][pts=6]") {
  const std::int64_t n = grading::input("n").item<std::int64_t>();  // 4: 24 orders
  kd::Generator gen(11);
  const int draws = 12000;
  std::map<std::vector<std::int64_t>, int> orders;
  std::vector<int> first(static_cast<std::size_t>(n), 0);
  for (int k = 0; k < draws; ++k) {
    const auto p = data::random_permutation(n, gen);
    ++orders[p];
    ++first[static_cast<std::size_t>(p[0])];
  }
  grading::expect("distinct orders seen", static_cast<std::int64_t>(orders.size()));
  const double e = draws / 24.0;
  double chi2 = 0;
  for (const auto& [order, count] : orders) chi2 += (count - e) * (count - e) / e;
  chi2 += (24 - static_cast<double>(orders.size())) * e;  // orders never seen
  INFO("chi-square of the 24 order counts: " << chi2);
  grading::expect("chi-square of the order counts < 60", chi2 < 60);
  bool even = true;
  for (int c : first) even = even && std::abs(c - draws / 4) <= 300;
  grading::expect("first element: each value about 3000 times (within 300)", even);
}

TEST_CASE("random_permutation: negative sizes are refused", "[ch04][ex1][pts=2]") {
  kd::Generator gen(3);
  grading::expect_error("random_permutation(-1)", [&] { (void)data::random_permutation(-1, gen); });
  grading::expect("RandomSampler over 12 samples: sorted", sorted(data::RandomSampler(12).indices(gen)));
}
