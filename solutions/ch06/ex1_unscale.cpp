// ch06.ex1 — GradScaler's unscale and inf check: divide a gradient by the loss scale, in place, and
// say whether it overflowed.
//
// amp::detail::unscale_and_check (lib/src/amp/pieces.hpp), PyTorch 1.13's
// _amp_foreach_non_finite_check_and_unscale_. GradScaler::unscale_ calls it for every gradient of the
// optimizer's parameters (after refusing float16 ones) and records whether any of them is inf or NaN;
// GradScaler::step then skips optimizer.step() for that iteration.
#include <cmath>
#include <string>
#include <type_traits>

#include "amp/pieces.hpp"
#include "kindling/tensor/error.hpp"
#include "tensor/dispatch.hpp"

namespace kindling::amp::detail {

bool unscale_and_check(Tensor& g, float inv_scale) {
  // BEGIN SOLUTION ex1: multiply every element by inv_scale (in float32, float64 for float64), look for inf/NaN
  Tensor c = g.is_contiguous() ? g : g.contiguous();
  bool found_inf = false;
  kindling::detail::dispatch_all(c.dtype(), "GradScaler.unscale_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool> || std::is_integral_v<T>) {
      throw DTypeError("GradScaler.unscale_: a gradient of dtype " + std::string(dtype_name(c.dtype())) +
                       " cannot be unscaled.");
    } else {
      using Math = std::conditional_t<std::is_same_v<T, double>, double, float>;
      T* p = c.data_ptr<T>();
      const std::int64_t n = c.numel();
      for (std::int64_t i = 0; i < n; ++i) {
        const Math v = static_cast<Math>(p[i]);
        found_inf |= !std::isfinite(v);
        p[i] = static_cast<T>(inv_scale == 1.0f ? v : v * static_cast<Math>(inv_scale));
      }
    }
  });
  // In place: a contiguous g was written directly (its version moves on); a view gets the copy back.
  if (c.shares_storage(g)) g.storage()->bump_version();
  else g.copy_(c);
  return found_inf;
  // END SOLUTION
}

}  // namespace kindling::amp::detail
