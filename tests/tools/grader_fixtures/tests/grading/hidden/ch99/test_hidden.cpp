// Instructor-only test of ch99 (removed from the student handout).
#include <catch2/catch.hpp>

#include <numeric>
#include <vector>

#include "answers.hpp"

TEST_CASE("sum: empty vector", "[ch99][ex2][pts=1][hidden]") {
  std::vector<int> v;
  REQUIRE(kindling::exercises::ch99::sum(v) == std::accumulate(v.begin(), v.end(), 0));
}
