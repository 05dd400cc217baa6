// Planted submission "wrong" for the grader's own tests: ex1 misbehaves, ex2 is right.
#include "answers.hpp"

#include <cstdio>
#include <cstdlib>
#include <numeric>

namespace kindling::exercises::ch99 {

int add(int a, int b) {
  return a + b + 1;  // off by one
}

int sum(const std::vector<int>& v) { return std::accumulate(v.begin(), v.end(), 0); }

int Counter::count() { return ++calls; }

}  // namespace kindling::exercises::ch99
