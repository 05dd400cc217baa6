#pragma once
// Shared by chapter 4's graded tests.
#include <kindling/data.hpp>

#include <string>
#include <vector>

#include "grading.hpp"

namespace ch04_grading {
namespace kd = kindling;
namespace data = kindling::data;
namespace F = kindling::data::transforms::functional;

/// The sorted copy of a list of indices.
inline std::vector<std::int64_t> sorted(std::vector<std::int64_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace ch04_grading
