// Planted submission "no_compile": a syntax error. Chapter 99 scores 0 with the compiler's message;
// chapter 98 (correct) is still graded.
#include "answers.hpp"

namespace kindling::exercises::ch99 {

int add(int a, int b) {
  return a + b  // missing semicolon
}

int sum(const std::vector<int>& v) { return 0; }

int Counter::count() { return ++calls; }

}  // namespace kindling::exercises::ch99
