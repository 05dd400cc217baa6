// Graded tests of the fixture chapter ch99 (the grader's own tests; see tests/tools/test_grader.py).
// Expected values come from the standard library, not from the code under test.
#include <catch2/catch.hpp>

#include <numeric>
#include <vector>

#include "answers.hpp"

namespace ex = kindling::exercises::ch99;

TEST_CASE("add: small numbers", "[ch99][ex1][pts=1]") {
  CHECK(ex::add(2, 3) == std::plus<int>{}(2, 3));
}

TEST_CASE("add: negative numbers, with a comma, [brackets] and *stars*", "[ch99][ex1][pts=3]") {
  for (int a : {-7, 0, 9}) {
    INFO("a = " << a);
    REQUIRE(ex::add(a, -4) == std::plus<int>{}(a, -4));
  }
}

TEST_CASE("sum: a few values", "[ch99][ex2][pts=2]") {
  std::vector<int> v{1, 2, 3, 40};
  REQUIRE(ex::sum(v) == std::accumulate(v.begin(), v.end(), 0));
}
