#pragma once
// Helpers for the math tests (binary/unary/compare ops, reductions, softmax, matmul, join): naive
// reference computations with plain loops, and a recorder that captures what ops report to autograd.
#include <cmath>
#include <functional>
#include <kindling/tensor.hpp>
#include <kindling/tensor/autograd_hooks.hpp>
#include <vector>

namespace kindling::testing {

/// All elements in row-major order as doubles.
inline std::vector<double> values(const Tensor& t) { return t.to_vector<double>(); }

/// The elements of `t` broadcast to `shape`, row-major (the naive reference for broadcasting).
inline std::vector<double> broadcast_values(const Tensor& t, const Shape& shape) {
  return t.expand(shape).contiguous().to_vector<double>();
}

/// out[i] = f(a[i], b[i]) over the broadcast shape, computed in double with plain loops.
inline std::vector<double> naive_binary(const Tensor& a, const Tensor& b,
                                        const std::function<double(double, double)>& f) {
  const Shape shape = broadcast_shapes(a.shape(), b.shape());
  const auto va = broadcast_values(a, shape), vb = broadcast_values(b, shape);
  std::vector<double> out(va.size());
  for (std::size_t i = 0; i < va.size(); ++i) out[i] = f(va[i], vb[i]);
  return out;
}

/// Elementwise |x - y| <= atol + rtol |y| (NaN only equal to NaN).
inline bool close(const std::vector<double>& x, const std::vector<double>& y, double rtol = 1e-6,
                  double atol = 1e-6) {
  if (x.size() != y.size()) return false;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) || std::isnan(y[i])) {
      if (!(std::isnan(x[i]) && std::isnan(y[i]))) return false;
      continue;
    }
    if (x[i] == y[i]) continue;
    if (!(std::abs(x[i] - y[i]) <= atol + rtol * std::abs(y[i]))) return false;
  }
  return true;
}

/// A float tensor with distinct, non-round values (so that wrong indexing shows up), built from
/// arange so the test does not depend on the random generator.
inline Tensor sample(const Shape& shape, DType dtype = kFloat32) {
  const std::int64_t n = numel_of(shape);
  std::vector<double> v(n);
  for (std::int64_t i = 0; i < n; ++i) v[i] = std::sin(0.7 * static_cast<double>(i) + 0.3) * 3.0;
  return tensor(v, shape).to(dtype);
}

/// Marks a tensor as requiring grad without the autograd layer (chapter 1 tests only see the hook).
inline Tensor needs_grad(Tensor t) {
  detail::set_requires_grad(*t.impl());
  return t;
}

/// How a recorded tensor argument is written in a capture: "Tensor[2, 3]@0x..." (see describe_arg).
inline std::string ref(const Tensor& t) { return detail::describe_arg(t); }

/// One op as a stand-in recorder saw it: its key and its arguments as text.
struct Recorded {
  std::string op;
  std::string args;
  std::vector<Tensor> outputs;
};

/// Installs a recorder that keeps every recorded op while alive. Like chapter 2's recorder, it makes
/// the (floating-point) outputs require grad, so chained ops are recorded too.
struct RecordCapture {
  static inline std::vector<Recorded> records;
  detail::Recorder previous;
  RecordCapture() : previous(detail::recorder()) {
    records.clear();
    detail::set_recorder(&capture);
  }
  ~RecordCapture() { detail::set_recorder(previous); }
  static void capture(const detail::RecordedOp& op) {
    Recorded r{op.key, op.describe(op.args), {}};
    for (std::size_t i = 0; i < op.num_outputs; ++i) {
      r.outputs.push_back(op.outputs[i]);
      if (op.outputs[i].is_floating_point()) detail::set_requires_grad(*op.outputs[i].impl());
    }
    records.push_back(std::move(r));
  }
  const Recorded& last() const { return records.back(); }
};

}  // namespace kindling::testing
