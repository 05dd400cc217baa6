// ch02.ex5 — gradcheck's other half: the Jacobian by finite differences, compared with backward's.
//
// kd::autograd::gradcheck (lib/src/autograd/gradcheck.cpp) prepares float64 leaf inputs, computes
// the analytical Jacobian (one backward per output element, with a one-hot gradient) and calls this
// with grad mode off; it writes the report from what this returns. Every gradcheck in the library's
// tests, the book and your own Functions goes through it. Declared in lib/src/autograd/pieces.hpp.
#include <cmath>
#include <limits>

#include "autograd/pieces.hpp"

namespace kindling::autograd {

GradcheckResult compare_with_finite_differences(const GradcheckFn& fn, const std::vector<Tensor>& xs,
                                                const std::vector<std::size_t>& checked,
                                                const std::vector<Tensor>& outs, const Jacobians& analytical,
                                                const GradcheckOptions& opt) {
  // BEGIN SOLUTION ex5: nudge each input element both ways, one column of the Jacobian at a time
  constexpr double inf = std::numeric_limits<double>::infinity();
  GradcheckResult result;
  double worst_excess = -inf;
  for (std::size_t k = 0; k < checked.size(); ++k) {
    const Tensor& x = xs[checked[k]];
    const std::int64_t n_in = x.numel();
    for (std::int64_t e = 0; e < n_in; ++e) {
      double* p = element_ptr(x, e);
      const double saved = *p;
      // Read the values out right away: an output may be a view of x (fn = transpose) and
      // would change with the next nudge.
      auto evaluate = [&](double value) {
        *p = value;
        std::vector<std::vector<double>> vals;
        for (const Tensor& t : fn(xs))
          vals.push_back(t.is_floating_point() ? t.to_vector<double>() : std::vector<double>{});
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
          result.max_abs_error = std::max(result.max_abs_error, std::isnan(err) ? inf : err);
          if (bad) result.ok = false;
          const double excess = std::isnan(err) ? inf : err - allowed;
          if (excess > worst_excess) {
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
  return result;
  // END SOLUTION
}

}  // namespace kindling::autograd
