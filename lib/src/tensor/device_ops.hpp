#pragma once
// Device dispatch: the few ops a training step on the device needs, as a device layer
// (chapter 8's kindling_cuda) registers them, like Tensor::to's copy hooks (device_copy.hpp).
// The tensor and autograd layers cannot depend on kindling_cuda, so an op whose operand is
// not on the CPU asks this table; an empty entry keeps check_cpu's DeviceError, so an op with
// no device kernel never silently runs on the host.
#include "kindling/tensor/tensor.hpp"

namespace kindling::detail {

struct DeviceOps {
  // The float ops below take float32, and float16/bfloat16 where a 16-bit kernel exists (relu, its
  // backward, sum_dim0, matmul, binary, binary_); the rest are float32 only.
  // out = relu(x); x: contiguous on the device, any shape -> same shape.
  Tensor (*relu)(const Tensor& x) = nullptr;
  // dx = out > 0 ? grad : 0; grad, out: contiguous, one dtype, on the device, same shape.
  Tensor (*relu_backward)(const Tensor& grad, const Tensor& out) = nullptr;
  // out[j] = sum_i x[i, j]; x: [rows, cols] contiguous -> [cols] (16-bit: float32 sums, rounded once).
  Tensor (*sum_dim0)(const Tensor& x) = nullptr;
  // out = a @ b; a: [M, K], b: [K, N] of one dtype on the device, any strides -> [M, N] contiguous.
  Tensor (*matmul)(const Tensor& a, const Tensor& b) = nullptr;
  // out = a op b (op: 0 add, 1 sub, 2 mul, 3 div) broadcast, one dtype, any strides -> contiguous.
  Tensor (*binary)(int op, const Tensor& a, const Tensor& b) = nullptr;
  // self = self op other in place (self: contiguous, other of its dtype broadcasting to it, not aliased).
  void (*binary_)(int op, Tensor& self, const Tensor& other) = nullptr;
  // t[...] = value in place; t: contiguous float32 on the device.
  void (*fill)(Tensor& t, double value) = nullptr;
  // The mean cross-entropy of logits: [N, C] float32 and target: [N] int64 -> a 0-d float32.
  Tensor (*cross_entropy_mean)(const Tensor& logits, const Tensor& target) = nullptr;
  // Its gradient for the 0-d upstream gradient `grad`: [N, C].
  Tensor (*cross_entropy_backward)(const Tensor& logits, const Tensor& target, const Tensor& grad) = nullptr;
  // One fused Adam step (torch.optim.Adam, L2 weight decay) on contiguous float32 tensors, in place.
  void (*adam_step)(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq, double lr,
                    double beta1, double beta2, double eps, double weight_decay, std::int64_t step) = nullptr;
  // x.to(dtype) between float32, float16 and bfloat16 on the device -> contiguous (autocast's casts).
  Tensor (*to_dtype)(const Tensor& x, DType dtype) = nullptr;
  // GradScaler.unscale_ of one contiguous float32 gradient: grad *= inv_scale; any inf or NaN in it?
  bool (*unscale_and_check)(Tensor& grad, float inv_scale) = nullptr;
};
/// The dtypes device kernels may take: float32, float16, bfloat16 (which op takes which: above).
inline bool device_float(DType d) { return d == kFloat32 || d == kFloat16 || d == kBFloat16; }
void register_device_ops(DeviceType type, DeviceOps ops);
/// The registered ops of `t`'s device, or nullptr for a CPU tensor or a device none registered.
const DeviceOps* device_ops(const Tensor& t);

}  // namespace kindling::detail
