#include "answers.hpp"

#include <kindling/tensor/error.hpp>

#include <numeric>

namespace kindling::exercises::ch99 {

int add(int a, int b) {
  // BEGIN SOLUTION ex1: add two integers
  return a + b;
  // END SOLUTION
}

int sum(const std::vector<int>& v) {
  // BEGIN SOLUTION ex2
  return std::accumulate(v.begin(), v.end(), 0);
  // END SOLUTION
}

int Counter::count() {
  // BEGIN SOLUTION ex2: Counter::count
  return ++calls;
  // STUB
  // $NOT_IMPLEMENTED;
  // END SOLUTION
}

}  // namespace kindling::exercises::ch99
