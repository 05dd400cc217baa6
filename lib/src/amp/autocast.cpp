// AutocastGuard: torch.autocast's __enter__ and __exit__. The switch itself lives in the tensor
// layer (kindling/tensor/autocast_mode.hpp) because the ops of every layer consult it.
#include "kindling/amp/autocast.hpp"

#include <string>

#include "kindling/tensor/error.hpp"

namespace kindling::amp {

AutocastGuard::AutocastGuard(AutocastOptions options)
    : device_type_(options.device_type), previous_(detail::autocast_state(options.device_type)) {
  const bool cpu = device_type_ == DeviceType::CPU;
  const DType dtype = options.dtype.value_or(cpu ? kBFloat16 : kFloat16);
  if (dtype != kBFloat16 && dtype != kFloat16) {
    throw DTypeError(std::string("AutocastGuard: autocast runs ops in bfloat16 or float16, not ") + dtype_name(dtype) +
                     ". Hint: {.dtype = kd::kBFloat16} on the CPU, {.device_type = kd::DeviceType::CUDA} (float16) "
                     "on a GPU.");
  }
  detail::set_autocast_state({.enabled = options.enabled, .dtype = dtype, .cache_enabled = options.cache_enabled},
                             device_type_);
  detail::autocast_increment_nesting();
}

AutocastGuard::~AutocastGuard() {
  // Leaving the outermost region (of any device type) drops the cached 16-bit weights.
  if (detail::autocast_decrement_nesting() == 0) detail::clear_autocast_cache();
  detail::set_autocast_state(previous_, device_type_);
}

}  // namespace kindling::amp
