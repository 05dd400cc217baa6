// Planted submission "rogue_test": the answers are right, but the file also defines a graded test.
#include "answers.hpp"

#include <cstdio>
#include <cstdlib>
#include <numeric>

#include <catch2/catch.hpp>
// A test of its own: the program then holds a test tests/grading does not define, and every test of it
// fails (an unexpected test is a failure, not a note).
TEST_CASE("rogue: free points", "[ch99][ex1][pts=100]") { CHECK(true); }

namespace kindling::exercises::ch99 {

int add(int a, int b) {
  return a + b;
}

int sum(const std::vector<int>& v) { return std::accumulate(v.begin(), v.end(), 0); }

int Counter::count() { return ++calls; }

}  // namespace kindling::exercises::ch99
