#include "negate.hpp"

#include <kindling/tensor/error.hpp>

namespace kindling::exercises::ch98 {
int negate(int x) {
  // BEGIN SOLUTION ex1
  return -x;
  // END SOLUTION
}
}  // namespace kindling::exercises::ch98
