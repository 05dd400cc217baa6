// AutocastGuard: torch.autocast's __enter__ and __exit__. The switch itself lives in the tensor
// layer (kindling/tensor/autocast_mode.hpp) because the ops of every layer consult it.
#include "kindling/amp/autocast.hpp"

#include <string>

#include "kindling/tensor/error.hpp"

namespace kindling::amp {

AutocastGuard::AutocastGuard(AutocastOptions options) : previous_(detail::autocast_state()) {
  if (options.dtype != kBFloat16 && options.dtype != kFloat16) {
    throw DTypeError(std::string("AutocastGuard: autocast runs ops in bfloat16 or float16, not ") +
                     dtype_name(options.dtype) + ". Hint: {.dtype = kd::kBFloat16}.");
  }
  detail::set_autocast_state({.enabled = options.enabled, .dtype = options.dtype,
                              .cache_enabled = options.cache_enabled});
  detail::autocast_increment_nesting();
}

AutocastGuard::~AutocastGuard() {
  // Leaving the outermost region drops the cached 16-bit weights.
  if (detail::autocast_decrement_nesting() == 0) detail::clear_autocast_cache();
  detail::set_autocast_state(previous_);
}

}  // namespace kindling::amp
