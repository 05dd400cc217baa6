#pragma once
// The fixture chapter's exercise declarations (shared by solutions/ and exercises/).
#include <vector>

namespace kindling::exercises::ch99 {

/// ex1: a + b.
int add(int a, int b);

/// ex2: the sum of v (0 when empty).
int sum(const std::vector<int>& v);

/// A class whose member list is part of an exercise (shows `// STUB` in a class body).
struct Counter {
  // BEGIN SOLUTION ex2: the members count() needs
  int calls = 0;
  // STUB
  // // ex2: add the members count() needs here
  // END SOLUTION
  int count();
};

}  // namespace kindling::exercises::ch99
