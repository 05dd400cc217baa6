#pragma once
/// @file
/// Printing options, like torch.set_printoptions.
#include <cstdint>

namespace kindling {

struct PrintOptions {
  int precision = 4;              // digits after the decimal point
  std::int64_t threshold = 1000;  // summarise with "..." above this many elements
  std::int64_t edgeitems = 3;     // items shown at each end of a summarised dimension
  int linewidth = 80;
};
/// Changes how tensors print from now on.
void set_printoptions(const PrintOptions& options);
const PrintOptions& get_printoptions();

}  // namespace kindling
