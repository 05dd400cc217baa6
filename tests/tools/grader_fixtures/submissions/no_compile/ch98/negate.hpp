#pragma once
namespace kindling::exercises::ch98 {
/// ex1: -x.
int negate(int x);
}  // namespace kindling::exercises::ch98
