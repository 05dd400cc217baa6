// ch06.ex2 — GradScaler's update: back off after an overflow, grow after growth_interval clean steps.
//
// amp::detail::update_scale (lib/src/amp/pieces.hpp), PyTorch 1.13's _amp_update_scale_ kernel.
// GradScaler::update calls it once per iteration with whether any optimizer's gradients held an inf
// or NaN; the scale is a float32 number, as PyTorch keeps it in a float32 tensor.
#include <cmath>

#include "amp/pieces.hpp"

namespace kindling::amp::detail {

void update_scale(float& scale, std::int64_t& growth_tracker, bool found_inf, double growth_factor,
                  double backoff_factor, std::int64_t growth_interval) {
  // BEGIN SOLUTION ex2: backoff on inf, growth after growth_interval clean steps (never to inf), else count
  if (found_inf) {
    scale = static_cast<float>(scale * backoff_factor);
    growth_tracker = 0;
  } else if (growth_tracker + 1 == growth_interval) {
    const float grown = static_cast<float>(scale * growth_factor);
    if (std::isfinite(grown)) scale = grown;  // never grow to inf
    growth_tracker = 0;
  } else {
    ++growth_tracker;
  }
  // END SOLUTION
}

}  // namespace kindling::amp::detail
