#pragma once
/// @file
/// The autocast switch of this thread, which the ops of every layer consult (the public guard is
/// kd::amp::AutocastGuard). Under autocast an op of the lower-precision list (matmul, linear,
/// conv2d) casts its float32 inputs to the autocast dtype, and an op of the float32 list (the
/// losses) casts its float16/bfloat16 inputs to float32, as torch.autocast does.
#include "kindling/tensor/tensor.hpp"

namespace kindling {

/// torch.is_autocast_cpu_enabled(): whether this thread is inside an enabled autocast region.
bool is_autocast_enabled();
/// torch.get_autocast_cpu_dtype(): the dtype of the lower-precision ops (bfloat16 by default).
DType get_autocast_dtype();
/// Which kernel multiplies bfloat16 matrices on this machine: oneDNN's matmul where the CPU has
/// bfloat16 instructions (AVX512_BF16, AMX), else the float32 GEMM of the widened operands. Both
/// accumulate in float32 and round once; only the speed differs.
std::string bfloat16_gemm_backend();

namespace detail {

/// What AutocastGuard sets and restores.
struct AutocastState {
  bool enabled = false;
  DType dtype = kBFloat16;
  bool cache_enabled = true;
};
AutocastState autocast_state();
void set_autocast_state(const AutocastState& state);
/// torch.autocast_increment_nesting / decrement_nesting: the cache of cast weights lives until the
/// outermost region ends.
int autocast_increment_nesting();
int autocast_decrement_nesting();
void clear_autocast_cache();
/// How many casts the cache holds (for tests and the book).
std::size_t autocast_cache_size();

/// An input of a lower-precision op: under autocast, a floating tensor other than float64 is
/// cast to the autocast dtype (recorded, so gradients flow back to it in its own dtype). A
/// float32 leaf that requires grad -- a weight -- is cast once per region and reused.
Tensor autocast_to_lower(const Tensor& t);
/// An input of a float32 op: under autocast, a float16/bfloat16 tensor is cast to float32.
Tensor autocast_to_float32(const Tensor& t);

}  // namespace detail
}  // namespace kindling
