#pragma once
// Shared by chapter 12's graded tests. The attention tests go through the library's
// scaled_dot_product_attention (which checks its arguments and calls your piece); the masks, heads,
// merges and probabilities are your pieces called directly (kindling/text/pieces.hpp). The twin
// (tests/grading/ch12/pytorch.py) draws the sizes and texts per run.
#include <cstdint>
#include <string>
#include <vector>

#include <kindling/kindling.hpp>
#include <kindling/text.hpp>
#include <kindling/text/pieces.hpp>

#include "grading.hpp"

namespace ch12_grading {
namespace kd = kindling;
namespace F = kd::nn::functional;
namespace detail = kd::text::detail;

/// An int64 1-d input as a list.
inline std::vector<std::int64_t> ints_of(const std::string& name) {
  const kd::Tensor t = grading::input(name).contiguous();
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < t.numel(); ++i) out.push_back(t[i].item<std::int64_t>());
  return out;
}

/// A float64 1-d tensor as a list of doubles.
inline std::vector<double> doubles_of(const kd::Tensor& t) {
  return t.to(kd::kFloat64).contiguous().to_vector<double>();
}

}  // namespace ch12_grading
