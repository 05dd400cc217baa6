#pragma once
/// @file
/// The autocast switches of this thread, one per device type as in PyTorch (a CPU region leaves
/// cuda tensors alone and the other way round), which the ops of every layer consult (the public
/// guard is kd::amp::AutocastGuard). Under autocast an op of the lower-precision list (matmul,
/// linear, conv2d) casts its float32 inputs to the autocast dtype of their device, and an op of the
/// float32 list (the losses, conv_transpose2d, prod) casts its float16/bfloat16 inputs to float32,
/// as torch.autocast does.
#include <cstdint>
#include <functional>
#include <memory>

#include "kindling/tensor/storage.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling {

/// torch.is_autocast_enabled(device_type): whether this thread is inside an enabled autocast region
/// for that device type (the CPU's: torch.is_autocast_cpu_enabled()).
bool is_autocast_enabled(DeviceType device_type = DeviceType::CPU);
/// torch.get_autocast_dtype(device_type): the dtype of the lower-precision ops on that device type
/// (bfloat16 by default on the CPU, float16 on CUDA).
DType get_autocast_dtype(DeviceType device_type = DeviceType::CPU);
/// Which kernel multiplies bfloat16 matrices on this machine: oneDNN's matmul where the CPU has
/// bfloat16 instructions (AVX512_BF16, AMX), else the float32 GEMM of the widened operands. Both
/// accumulate in float32 and round once; only the speed differs.
std::string bfloat16_gemm_backend();

namespace detail {

/// What AutocastGuard sets and restores, for one device type.
struct AutocastState {
  bool enabled = false;
  DType dtype = kBFloat16;  // the CUDA state's default is float16
  bool cache_enabled = true;
};
AutocastState autocast_state(DeviceType device_type = DeviceType::CPU);
void set_autocast_state(const AutocastState& state, DeviceType device_type = DeviceType::CPU);
/// torch.autocast_increment_nesting / decrement_nesting: the cache of cast weights lives until the
/// outermost region ends.
int autocast_increment_nesting();
int autocast_decrement_nesting();
void clear_autocast_cache();
/// How many casts the cache holds (for tests and the book).
std::size_t autocast_cache_size();

/// The 16-bit copy of a weight that outlives the autocast region, so that a training step does not
/// cast every weight again: written at the weight's first cast, refreshed by the optimizer's step,
/// and used only while the weight's version counter says it is unchanged since.
struct WeightCopy {
  std::weak_ptr<Storage> weight_storage;  // the weight's storage (weak: the copy keeps no model alive)
  Shape shape;
  Strides strides;
  std::int64_t offset = 0;
  std::uint64_t weight_version = 0;  // the weight's version when `data` was written
  Tensor data;                       // == weight.to(dtype), no autograd
  std::uint64_t data_version = 0;    // data's own version then (an in-place edit of it invalidates)
};
/// Counters for tests and the book: fresh casts, reuses of a persistent copy, optimizer refreshes.
struct AutocastCopyStats {
  std::uint64_t casts = 0;
  std::uint64_t reuses = 0;
  std::uint64_t refreshes = 0;
};
/// The optimizer's hook, called right after it updates `weight` (and bumps its version): if the
/// weight has a persistent 16-bit copy, writes weight.to(dtype) into it and marks it fresh. Returns
/// whether there was one. Bit-identical to the cast the next region would otherwise do.
bool refresh_autocast_copy(const Tensor& weight);
/// The same, fused with the optimizer's update: if the weight has a persistent 16-bit copy (and
/// both are contiguous), calls update(begin, end) over chunks of the weight's elements, each chunk
/// cast into the copy right after its update while it is still in cache, then bumps the weight's
/// version and marks the copy fresh. Returns false, calling nothing, when there is no such copy
/// (the caller then updates the whole weight, bumps its version and calls refresh_autocast_copy).
/// Elements [begin, end) of a contiguous tensor as a 1-d view without autograd (an undefined
/// tensor stays undefined): the chunks an optimizer's update takes.
Tensor flat_range(const Tensor& t, std::int64_t begin, std::int64_t end);
bool update_refreshing_autocast_copy(const Tensor& weight,
                                     const std::function<void(std::int64_t begin, std::int64_t end)>& update);
void clear_autocast_weight_copies();
std::size_t autocast_weight_copies_size();
AutocastCopyStats autocast_copy_stats();

/// An input of a lower-precision op: under autocast for its device type, a floating tensor other
/// than float64 is cast to that autocast dtype (recorded, so gradients flow back to it in its own
/// dtype). A float32 leaf that requires grad -- a weight -- is cast once per region and reused
/// (and, on the CPU, its copy kept across regions, refreshed by the optimizer).
Tensor autocast_to_lower(const Tensor& t);
/// An input of a float32 op: under autocast for its device type, a float16/bfloat16 tensor is cast
/// to float32.
Tensor autocast_to_float32(const Tensor& t);

}  // namespace detail
}  // namespace kindling
