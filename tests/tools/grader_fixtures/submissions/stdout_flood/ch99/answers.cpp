// Planted submission "stdout_flood" for the grader's own tests: ex1 misbehaves, ex2 is right.
#include "answers.hpp"

#include <cstdio>
#include <cstdlib>
#include <numeric>

namespace kindling::exercises::ch99 {

int add(int a, int b) {
  for (;;) std::puts("debug: a line of output, printed forever .........................................");
  return a + b;
}

int sum(const std::vector<int>& v) { return std::accumulate(v.begin(), v.end(), 0); }

int Counter::count() { return ++calls; }

}  // namespace kindling::exercises::ch99
