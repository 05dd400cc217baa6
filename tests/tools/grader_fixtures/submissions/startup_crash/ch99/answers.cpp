// Planted submission "startup_crash" for the grader's own tests: ex1 misbehaves, ex2 is right.
#include "answers.hpp"

#include <cstdio>
#include <cstdlib>
#include <numeric>

// Crashes before main(): the program cannot even list its tests.
static int boom = [] { std::abort(); return 0; }();

namespace kindling::exercises::ch99 {

int add(int a, int b) {
  return a + b;
}

int sum(const std::vector<int>& v) { return std::accumulate(v.begin(), v.end(), 0); }

int Counter::count() { return ++calls; }

}  // namespace kindling::exercises::ch99
