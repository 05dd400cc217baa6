// gradcheck: analytical Jacobian (one backward pass per output element, through autograd::grad)
// against the numerical one (central differences, two forward passes per input element). The
// numerical half and the comparison are compare_with_finite_differences (autograd/pieces.hpp,
// chapter 2's exercise 5); this file prepares the inputs, computes the analytical Jacobian and
// writes the report.
#include "kindling/autograd/gradcheck.hpp"

#include <cmath>
#include <sstream>

#include "kindling/autograd/engine.hpp"
#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "autograd/pieces.hpp"

namespace kindling::autograd {

namespace {

std::vector<double> values(const Tensor& t) { return t.to_vector<double>(); }

}  // namespace

GradcheckResult gradcheck(const GradcheckFn& fn, const std::vector<Tensor>& inputs, const GradcheckOptions& opt) {
  // Inputs under test: float64 leaves that require grad.
  std::vector<Tensor> xs = inputs;
  std::vector<std::size_t> checked;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (!xs[i].defined() || !xs[i].requires_grad()) continue;
    if (!xs[i].is_floating_point()) {
      throw DTypeError("gradcheck: input " + std::to_string(i) + " requires grad but is not floating point.");
    }
    if (xs[i].dtype() != kFloat64) xs[i] = xs[i].detach().to(kFloat64).requires_grad_(true);
    else if (!xs[i].is_leaf()) xs[i] = xs[i].detach().requires_grad_(true);  // same bytes and strides
    checked.push_back(i);
  }
  if (checked.empty()) {
    throw ValueError("gradcheck: no input requires grad, so there is nothing to check. Hint: call "
                     "requires_grad_() on the inputs you want to differentiate with respect to.");
  }

  EnableGradGuard enable_grad;
  const std::vector<Tensor> outs = fn(xs);

  // Analytical Jacobian: for each output element j, backward with a one-hot gradient gives row j.
  // analytical[o][k] = [out_numel x in_numel] row-major.
  Jacobians analytical(outs.size());
  std::vector<Tensor> wrt;
  for (auto k : checked) wrt.push_back(xs[k]);
  for (std::size_t o = 0; o < outs.size(); ++o) {
    const std::int64_t n_out = outs[o].numel();
    analytical[o].resize(checked.size());
    for (std::size_t k = 0; k < checked.size(); ++k)
      analytical[o][k].assign(static_cast<std::size_t>(n_out * xs[checked[k]].numel()), 0.0);
    if (!outs[o].is_floating_point() || !outs[o].requires_grad()) continue;  // constant: zero Jacobian
    for (std::int64_t j = 0; j < n_out; ++j) {
      Tensor one_hot = zeros(outs[o].shape(), {.dtype = outs[o].dtype()});
      one_hot.reshape({-1}).select(0, j).fill_(1.0);
      std::vector<Tensor> g = grad({outs[o]}, wrt, {one_hot}, /*retain_graph=*/true, /*allow_unused=*/true);
      for (std::size_t k = 0; k < checked.size(); ++k) {
        if (!g[k].defined()) continue;
        const auto row = values(g[k]);
        std::copy(row.begin(), row.end(), analytical[o][k].begin() + j * static_cast<std::int64_t>(row.size()));
      }
    }
  }

  // Numerical Jacobian and the comparison (autograd/pieces.hpp: chapter 2's exercise 5).
  GradcheckResult result;
  {
    NoGradGuard no_grad;
    result = compare_with_finite_differences(fn, xs, checked, outs, analytical, opt);
  }

  // The piece names the worst entry; a report must never index outside the tensors it names.
  const bool named = result.output_index >= 0 && result.output_index < static_cast<std::int64_t>(outs.size()) &&
                     result.input_index >= 0 && result.input_index < static_cast<std::int64_t>(xs.size());
  if (!result.ok && !named) {
    result.message = "gradcheck: Jacobian mismatch (max |analytical - numerical| = " +
                     std::to_string(result.max_abs_error) + "; no entry was named).";
    if (opt.raise_exception) throw AutogradError(result.message);
  } else if (!result.ok) {
    std::ostringstream msg;
    msg.precision(10);
    msg << "gradcheck: Jacobian mismatch for output " << result.output_index << " (shape "
        << shape_str(outs[result.output_index].shape()) << ") with respect to input " << result.input_index
        << " (shape " << shape_str(xs[result.input_index].shape()) << "): at output element "
        << result.output_element << ", input element " << result.input_element << " backward gives "
        << result.analytical << " but central differences give " << result.numerical << " (|difference| "
        << std::abs(result.analytical - result.numerical) << " > atol " << opt.atol << " + rtol " << opt.rtol
        << " * |numerical|). Hint: check the backward formula of the op (its row in the derivative "
           "table), especially broadcasting and which saved tensor it uses.";
    result.message = msg.str();
    if (opt.raise_exception) throw AutogradError(result.message);
  }
  return result;
}

GradcheckResult gradcheck(const GradcheckFn1& fn, const std::vector<Tensor>& inputs, const GradcheckOptions& opt) {
  return gradcheck(GradcheckFn([&fn](const std::vector<Tensor>& xs) { return std::vector<Tensor>{fn(xs)}; }),
                   inputs, opt);
}

}  // namespace kindling::autograd
