#pragma once
/// @file
/// Per-parameter gradient and weight statistics after a backward: the first thing to print when a
/// loss does not move (a gradient norm of 0 at the first layer: nothing reaches it) or turns into
/// NaN (norms growing past 100, then Inf).
#include <cstdint>
#include <string>
#include <vector>

#include "kindling/nn/module.hpp"

namespace kindling::debug {

/// Statistics of one tensor, computed in double.
struct TensorStats {
  std::int64_t numel = 0;
  double norm = 0;           ///< Euclidean norm of the finite elements
  double mean = 0;           ///< of the finite elements
  double abs_max = 0;        ///< largest |x| among the finite elements
  double zero_fraction = 0;  ///< share of exact zeros (dead ReLUs upstream, a zero init)
  std::int64_t nan = 0, inf = 0;
  bool finite() const { return nan == 0 && inf == 0; }
};
TensorStats tensor_stats(const Tensor& t);

struct GradReportOptions {
  double vanishing_norm = 1e-7;  ///< a gradient norm below this (or no gradient) is flagged vanishing
  double exploding_norm = 100;   ///< a gradient norm above this is flagged exploding
};

/// One parameter: its name (`fc1.weight`), its weight and gradient statistics, and the flags.
struct ParameterReport {
  std::string name;
  Shape shape;
  TensorStats weight;
  bool has_grad = false;
  TensorStats grad;
  bool vanishing = false, exploding = false, nonfinite = false;
};

struct GradReport {
  std::vector<ParameterReport> parameters;
  double total_grad_norm = 0;  ///< what clip_grad_norm_ would return (norm 2)
  bool any_vanishing() const;
  bool any_exploding() const;
  bool any_nonfinite() const;
  /// A table, one line per parameter, flags at the end of the line.
  std::string to_string() const;
};

/// The report for every parameter of `model` that requires grad, in named_parameters() order.
GradReport grad_report(const nn::Module& model, GradReportOptions options = {});

}  // namespace kindling::debug
