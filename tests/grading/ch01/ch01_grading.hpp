#pragma once
// Shared by chapter 1's graded tests: tensors in many memory layouts, and small helpers.
// Expected values always come from the library itself (kindling:: is parity-tested against PyTorch),
// never from numbers typed in here.
#include <catch2/catch.hpp>
#include <kindling/tensor.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "ch01/tensor_exercises.hpp"

namespace ch01_grading {
namespace kd = kindling;
namespace ex = kindling::exercises::ch01;

/// Random values of `dtype` (bools and integers from randint, floats from randn).
inline kd::Tensor random_of(const kd::Shape& shape, kd::DType dtype, kd::Generator& gen) {
  if (dtype == kd::kBool) return kd::randint(0, 2, shape, {.dtype = kd::kInt64}, &gen).to(kd::kBool);
  if (dtype == kd::kUInt8) return kd::randint(0, 256, shape, {.dtype = kd::kInt64}, &gen).to(kd::kUInt8);
  if (dtype == kd::kInt64) return kd::randint(-50, 50, shape, {.dtype = kd::kInt64}, &gen);
  return kd::randn(shape, {.dtype = dtype}, &gen);
}

struct Case {
  std::string name;
  kd::Tensor t;
};

/// A zoo of layouts: contiguous, transposed, permuted, stepped slices, a storage offset, selects,
/// stride-0 expands, size-1 dims, 0-d and empty tensors. Most of them are views (non-contiguous).
inline std::vector<Case> layout_zoo(kd::DType dtype = kd::kFloat32, std::uint64_t seed = 1) {
  kd::Generator gen(seed);
  auto r = [&](const kd::Shape& s) { return random_of(s, dtype, gen); };
  return {
      {"contiguous [2, 3, 4]", r({2, 3, 4})},
      {"transposed [3, 4].t()", r({3, 4}).t()},
      {"permuted [2, 3, 4] -> (2, 0, 1)", r({2, 3, 4}).permute({2, 0, 1})},
      {"stepped slice [3, 7][:, 1::2]", r({3, 7}).slice(1, 1, 7, 2)},
      {"narrowed rows (storage offset) [5, 3][1:4]", r({5, 3}).narrow(0, 1, 3)},
      {"one row [3, 4][2]", r({3, 4}).select(0, 2)},
      {"one column [3, 4][:, 1]", r({3, 4}).select(1, 1)},
      {"expanded [3, 1] -> [3, 4] (stride 0)", r({3, 1}).expand({3, 4})},
      {"expanded new dim [3, 4] -> [2, 3, 4]", r({3, 4}).expand({2, 3, 4})},
      {"transposed + unsqueezed [4, 1, 3]", r({3, 4}).t().unsqueeze(1)},
      {"0-d view with an offset", r({5}).select(0, 3)},
      {"empty [0, 3]", r({0, 3})},
      {"empty transposed [3, 0]", r({0, 3}).t()},
      {"5-d permuted and sliced", r({2, 1, 4, 3, 2}).permute({4, 2, 0, 1, 3}).slice(1, 1, 4, 2)},
  };
}

/// A random non-contiguous view: random shape (rank 1..4), permuted, sliced with steps, sometimes expanded.
inline kd::Tensor random_view(kd::Generator& gen, kd::DType dtype = kd::kFloat32) {
  const std::int64_t rank = gen.randint(1, 5);
  kd::Shape shape(rank);
  for (auto& s : shape) s = gen.randint(1, 6);
  kd::Tensor t = random_of(shape, dtype, gen);
  std::vector<std::int64_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  for (std::int64_t i = rank - 1; i > 0; --i) std::swap(perm[i], perm[gen.randint(0, i + 1)]);
  t = t.permute(perm);
  for (std::int64_t d = 0; d < rank; ++d) {
    const std::int64_t size = t.size(d);
    const std::int64_t start = gen.randint(0, size);
    t = t.slice(d, start, size, gen.randint(1, 3));
  }
  if (gen.randint(0, 2) == 1) {  // a stride-0 leading dimension, like a broadcast batch
    kd::Shape big = t.shape();
    big.insert(big.begin(), gen.randint(1, 4));
    t = t.unsqueeze(0).expand(big);
  }
  return t;
}

/// Every index of `shape` in row-major order (one empty index for a 0-d shape).
inline std::vector<std::vector<std::int64_t>> all_indices(const kd::Shape& shape) {
  std::vector<std::vector<std::int64_t>> out;
  if (kd::numel_of(shape) == 0) return out;
  std::vector<std::int64_t> idx(shape.size(), 0);
  for (;;) {
    out.push_back(idx);
    std::int64_t d = static_cast<std::int64_t>(shape.size()) - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
    if (d < 0) return out;
  }
}

/// "[1, 2]"-style text of an index, for failure messages.
inline std::string index_str(const std::vector<std::int64_t>& idx) { return kd::shape_str(idx); }

/// True when every element is finite.
inline bool all_finite(const kd::Tensor& t) {
  for (double v : t.to_vector<double>())
    if (!std::isfinite(v)) return false;
  return true;
}

}  // namespace ch01_grading
