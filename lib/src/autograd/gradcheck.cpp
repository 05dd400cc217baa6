// gradcheck: analytical Jacobian (one backward pass per output element, through autograd::grad)
// against the numerical one (central differences, two forward passes per input element).
#include "kindling/autograd/gradcheck.hpp"

#include <cmath>
#include <sstream>

#include "kindling/autograd/engine.hpp"
#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/creation.hpp"

namespace kindling::autograd {

namespace {

// Address of element `flat` (row-major numbering) of a float64 tensor with any strides.
double* element(const Tensor& t, std::int64_t flat) {
  std::int64_t offset = 0;
  for (std::int64_t d = t.dim() - 1; d >= 0; --d) {
    const std::int64_t size = t.size(d);
    offset += (flat % size) * t.stride(d);
    flat /= size;
  }
  return t.data_ptr<double>() + offset;
}

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
  std::vector<std::vector<std::vector<double>>> analytical(outs.size());
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

  // Numerical Jacobian, column by column: nudge one input element both ways.
  GradcheckResult result;
  double worst_excess = -1;
  NoGradGuard no_grad;
  for (std::size_t k = 0; k < checked.size(); ++k) {
    const Tensor& x = xs[checked[k]];
    const std::int64_t n_in = x.numel();
    for (std::int64_t e = 0; e < n_in; ++e) {
      double* p = element(x, e);
      const double saved = *p;
      // Read the values out right away: an output may be a view of x (fn = transpose) and
      // would change with the next nudge.
      auto evaluate = [&](double value) {
        *p = value;
        std::vector<std::vector<double>> vals;
        for (const Tensor& t : fn(xs)) vals.push_back(t.is_floating_point() ? values(t) : std::vector<double>{});
        return vals;
      };
      const auto plus = evaluate(saved + opt.eps);
      const auto minus = evaluate(saved - opt.eps);
      *p = saved;
      for (std::size_t o = 0; o < outs.size(); ++o) {
        if (!outs[o].is_floating_point()) continue;
        const auto& fp = plus[o];
        const auto& fm = minus[o];
        for (std::size_t j = 0; j < fp.size(); ++j) {
          const double numerical = (fp[j] - fm[j]) / (2 * opt.eps);
          const double a = analytical[o][k][j * static_cast<std::size_t>(n_in) + static_cast<std::size_t>(e)];
          const double err = std::abs(a - numerical);
          const double allowed = opt.atol + opt.rtol * std::abs(numerical);
          const bool bad = !(err <= allowed);  // also catches NaN
          result.max_abs_error = std::max(result.max_abs_error, std::isnan(err) ? INFINITY : err);
          const double excess = std::isnan(err) ? INFINITY : err - allowed;
          if ((bad || result.ok) && excess > worst_excess) {
            if (bad) result.ok = false;
            worst_excess = excess;
            result.input_index = static_cast<std::int64_t>(checked[k]);
            result.output_index = static_cast<std::int64_t>(o);
            result.input_element = e;
            result.output_element = static_cast<std::int64_t>(j);
            result.analytical = a;
            result.numerical = numerical;
          }
        }
      }
    }
  }

  if (!result.ok) {
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
