// Planted submission "fake_pass" for the grader's own tests: ex1 misbehaves, ex2 is right.
#include "answers.hpp"

#include <cstdio>
#include <cstdlib>
#include <numeric>

namespace kindling::exercises::ch99 {

int add(int a, int b) {
  // Pretends to be Catch2 (and a result record) on stdout, then leaves quietly.
  std::printf("===============================================================================\n");
  std::printf("All tests passed (3 assertions in 1 test case)\n");
  std::printf("{\"nonce\": \"0\", \"name\": \"add: small numbers\", \"passed\": true}\n");
  std::fflush(stdout);
  std::_Exit(0);
  return a + b;
}

int sum(const std::vector<int>& v) { return std::accumulate(v.begin(), v.end(), 0); }

int Counter::count() { return ++calls; }

}  // namespace kindling::exercises::ch99
