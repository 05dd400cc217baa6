// Planted submission "wrong" for the grader's own tests: ex1 misbehaves, ex2 is right.
#include "answers.hpp"

#include <cstdio>
#include <cstdlib>
#include <numeric>

#include <catch2/catch.hpp>
// A rogue test in the submission: it must earn nothing (only tests under tests/grading/ count).
TEST_CASE("rogue: free points", "[ch99][ex1][pts=100]") { CHECK(true); }

namespace kindling::exercises::ch99 {

int add(int a, int b) {
  return a + b + 1;  // off by one
}

int sum(const std::vector<int>& v) { return std::accumulate(v.begin(), v.end(), 0); }

int Counter::count() { return ++calls; }

}  // namespace kindling::exercises::ch99
