#pragma once
// Shared by chapter 3's graded tests. Expected values always come from the library (kindling::nn is
// parity-tested against PyTorch) or from invariants, never from numbers typed in here.
#include <catch2/catch.hpp>
#include <kindling/nn.hpp>

#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ch03/module_exercises.hpp"

namespace ch03_grading {
namespace kd = kindling;
namespace nn = kindling::nn;
namespace F = kindling::nn::functional;
namespace ex = kindling::exercises::ch03;

using Named = std::vector<std::pair<std::string, kd::Tensor>>;

/// The names of a (name, tensor) list, for comparing orders.
inline std::vector<std::string> names_of(const Named& items) {
  std::vector<std::string> out;
  for (const auto& [n, t] : items) out.push_back(n);
  return out;
}

/// "[a, b, c]" for failure messages.
inline std::string list_str(const std::vector<std::string>& names) {
  std::ostringstream os;
  os << "[";
  for (std::size_t i = 0; i < names.size(); ++i) os << (i ? ", " : "") << names[i];
  os << "]";
  return os.str();
}

/// A leaf copy of t that requires grad (to run the library's computation on the same values).
inline kd::Tensor leaf_copy(const kd::Tensor& t) { return t.detach().clone().requires_grad_(); }

/// Float comparison with a message naming what is compared.
inline void check_close(const kd::Tensor& got, const kd::Tensor& expected, const std::string& what,
                        double rtol = 1e-5, double atol = 1e-6) {
  INFO(what << ": got shape " << kd::shape_str(got.defined() ? got.shape() : kd::Shape{}) << ", expected "
            << kd::shape_str(expected.shape()));
  REQUIRE(got.defined());
  REQUIRE(got.shape() == expected.shape());
  INFO(what << ": got\n" << got << "\nexpected\n" << expected);
  CHECK(kd::allclose(got.to(kd::kFloat64), expected.to(kd::kFloat64), rtol, atol));
}

/// Min, max, mean and (population) std of a tensor's values.
struct Stats {
  double min, max, mean, std;
};
inline Stats stats_of(const kd::Tensor& t) {
  const std::vector<double> v = t.detach().to_vector<double>();
  Stats s{1e300, -1e300, 0, 0};
  for (double x : v) {
    s.min = std::min(s.min, x);
    s.max = std::max(s.max, x);
    s.mean += x;
  }
  s.mean /= static_cast<double>(v.size());
  for (double x : v) s.std += (x - s.mean) * (x - s.mean);
  s.std = std::sqrt(s.std / static_cast<double>(v.size()));
  return s;
}

}  // namespace ch03_grading
