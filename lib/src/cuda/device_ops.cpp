// The ops a training step needs on the device, registered in the tensor layer's dispatch table
// (tensor/device_ops.hpp) when a device is set up: each runs one of the chapter's kernels, on
// the GPU (kc::gpu) or on the kernel emulator (kc::emulated), never a copy to the host.
// The kernels take contiguous float32 memory -- and, for chapter 6's autocast, float16 and
// bfloat16 (relu, its gradient, the column sum, + - * /, the matmul, the casts between them): the
// elementwise kernel reads any strides, and the matmul's operands are made contiguous on the device
// through it; any other operand in another layout or dtype is refused with a DeviceError (there is
// no general device contiguous() yet), so nothing is silently wrong.
#include <cmath>
#include <limits>
#include <string>

#include "kindling/cuda/kernels.hpp"
#include "kindling/cuda/runtime.hpp"
#include "kindling/tensor/creation.hpp"
#include "tensor/device_ops.hpp"
#include "tensor/internal.hpp"

namespace kindling::cuda {
namespace {

// A size as the kernels' int, refused past INT_MAX rather than wrapped.
int kernel_int(std::int64_t n, const char* op) {
  if (n > std::numeric_limits<int>::max())
    throw DeviceError(std::string(op) + ": a size of " + std::to_string(n) + " is more than the kernel's int " +
                      "indexing takes (" + std::to_string(std::numeric_limits<int>::max()) + ").");
  return static_cast<int>(n);
}

void check_operand(const Tensor& t, const char* op) {
  if (t.dtype() != kFloat32 || !t.is_contiguous())
    throw DeviceError(std::string(op) + ": the " + t.device().str() + " kernel takes a contiguous float32 tensor, "
                      "got " + dtype_name(t.dtype()) + " of shape " + shape_str(t.shape()) + " and strides " +
                      shape_str(t.strides()) + ". Hint: make it contiguous on the CPU before moving it, "
                      "or call .cpu() first.");
}

// The dtypes with device kernels: float32, and the two 16-bit dtypes of autocast.
using kindling::detail::device_float;

// A contiguous float32, float16 or bfloat16 operand; `like`, when given, must have its dtype.
void check_float_operand(const Tensor& t, const char* op, const Tensor* like = nullptr) {
  if (!device_float(t.dtype()) || !t.is_contiguous() || (like && like->dtype() != t.dtype()))
    throw DeviceError(std::string(op) + ": the " + t.device().str() + " kernel takes contiguous float32, float16 "
                      "or bfloat16 tensors (all of one dtype), got " + dtype_name(t.dtype()) +
                      (like ? std::string(" with ") + dtype_name(like->dtype()) : std::string()) + " of shape " +
                      shape_str(t.shape()) + " and strides " + shape_str(t.strides()) +
                      ". Hint: make it contiguous on the CPU before moving it, or call .cpu() first.");
}

// A new contiguous tensor on `like`'s device, in `like`'s dtype unless told.
Tensor empty_on(const Shape& shape, const Tensor& like) {
  return kindling::detail::make_tensor(shape, like.dtype(), like.device());
}
Tensor empty_on(const Shape& shape, const Tensor& like, DType dtype) {
  return kindling::detail::make_tensor(shape, dtype, like.device());
}

// Runs the kernel for t's dtype: f32(float*), f16(Half*) or bf16(BFloat16*) -- one of the three
// names of a kernel family, each called with t's elements as its own pointer type.
template <class F32, class F16, class BF16>
void by_dtype(const Tensor& t, F32&& f32, F16&& f16, BF16&& bf16) {
  switch (t.dtype()) {
    case kFloat32: f32(float{}); return;
    case kFloat16: f16(Half{}); return;
    case kBFloat16: bf16(BFloat16{}); return;
    default: throw DeviceError(std::string("device op: no kernel for ") + dtype_name(t.dtype()));
  }
}

Tensor relu(const Tensor& x) {
  check_float_operand(x, "relu");
  Tensor out = empty_on(x.shape(), x);
  const std::int64_t n = x.numel();
  const bool emu = is_emulated();
  by_dtype(
      x,
      [&](float) {
        (emu ? emulated::relu : gpu::relu)(x.data_ptr<float>(), out.data_ptr<float>(), n);
      },
      [&](Half) {
        (emu ? emulated::relu_half : gpu::relu_half)(x.data_ptr<Half>(), out.data_ptr<Half>(), n);
      },
      [&](BFloat16) {
        (emu ? emulated::relu_bfloat16 : gpu::relu_bfloat16)(x.data_ptr<BFloat16>(), out.data_ptr<BFloat16>(), n);
      });
  return out;
}

Tensor relu_backward(const Tensor& grad, const Tensor& out) {
  check_float_operand(out, "threshold_backward");
  check_float_operand(grad, "threshold_backward", &out);
  Tensor dx = empty_on(out.shape(), out);
  const std::int64_t n = out.numel();
  const bool emu = is_emulated();
  by_dtype(
      out,
      [&](float) {
        (emu ? emulated::relu_backward : gpu::relu_backward)(grad.data_ptr<float>(), out.data_ptr<float>(),
                                                             dx.data_ptr<float>(), n);
      },
      [&](Half) {
        (emu ? emulated::relu_backward_half : gpu::relu_backward_half)(grad.data_ptr<Half>(), out.data_ptr<Half>(),
                                                                       dx.data_ptr<Half>(), n);
      },
      [&](BFloat16) {
        (emu ? emulated::relu_backward_bfloat16 : gpu::relu_backward_bfloat16)(
            grad.data_ptr<BFloat16>(), out.data_ptr<BFloat16>(), dx.data_ptr<BFloat16>(), n);
      });
  return dx;
}

// x: [rows, cols] -> [cols] (16-bit: accumulated in float32, rounded once)
Tensor sum_dim0(const Tensor& x) {
  check_float_operand(x, "sum");
  const int rows = kernel_int(x.shape()[0], "sum"), cols = kernel_int(x.shape()[1], "sum");
  Tensor out = empty_on({x.shape()[1]}, x);
  const bool emu = is_emulated();
  by_dtype(
      x,
      [&](float) {
        (emu ? emulated::column_sum : gpu::column_sum)(x.data_ptr<float>(), out.data_ptr<float>(), rows, cols);
      },
      [&](Half) {
        (emu ? emulated::column_sum_half : gpu::column_sum_half)(x.data_ptr<Half>(), out.data_ptr<Half>(), rows,
                                                                 cols);
      },
      [&](BFloat16) {
        (emu ? emulated::column_sum_bfloat16 : gpu::column_sum_bfloat16)(x.data_ptr<BFloat16>(),
                                                                         out.data_ptr<BFloat16>(), rows, cols);
      });
  return out;
}

// Elements of t's storage from its first element on: what a kernel may read through t's strides.
std::int64_t readable(const Tensor& t) {
  return static_cast<std::int64_t>(t.storage()->nbytes() / element_size(t.dtype())) - t.storage_offset();
}

// out = a op b over their broadcast shape, through the strided elementwise kernel (stride 0
// along a broadcast dimension, so a bias [N] is read in place, never expanded in memory).
Tensor binary_op(BinaryOp op, const Tensor& a, const Tensor& b, const char* name, Tensor* into = nullptr) {
  const Shape shape = broadcast_shapes(a.shape(), b.shape(), name);
  if (shape.size() > static_cast<std::size_t>(kMaxKernelDims))
    throw DeviceError(std::string(name) + ": the " + a.device().str() + " elementwise kernel takes at most " +
                      std::to_string(kMaxKernelDims) + " dimensions, got shape " + shape_str(shape) + ".");
  const Tensor ea = a.expand(shape), eb = b.expand(shape);
  BinaryLayout L;
  L.ndim = static_cast<int>(shape.size());
  for (int d = 0; d < L.ndim; ++d) {
    L.sizes[d] = shape[static_cast<std::size_t>(d)];
    L.a_strides[d] = ea.stride(d);
    L.b_strides[d] = eb.stride(d);
  }
  // The kernel reads through the data pointers (which include the storage offsets).
  // `into` (contiguous, of the broadcast shape) receives the result in place: each output element
  // reads only the input elements at its own index, so out may be a itself.
  if (!device_float(a.dtype()) || a.dtype() != b.dtype())
    throw DeviceError(std::string(name) + ": the " + a.device().str() + " elementwise kernel takes two float32, "
                      "float16 or bfloat16 tensors of one dtype, got " + dtype_name(a.dtype()) + " and " +
                      dtype_name(b.dtype()) + ". Hint: convert one with .to(dtype) first.");
  Tensor out = into ? *into : empty_on(shape, a);
  if (out.numel() == 0) return out;
  const std::int64_t n = out.numel(), na = readable(a), nb = readable(b);
  const bool emu = is_emulated();
  by_dtype(
      a,
      [&](float) {
        (emu ? emulated::binary : gpu::binary)(op, a.data_ptr<float>(), na, b.data_ptr<float>(), nb,
                                               out.data_ptr<float>(), n, L);
      },
      [&](Half) {
        (emu ? emulated::binary_half : gpu::binary_half)(op, a.data_ptr<Half>(), na, b.data_ptr<Half>(), nb,
                                                         out.data_ptr<Half>(), n, L);
      },
      [&](BFloat16) {
        (emu ? emulated::binary_bfloat16 : gpu::binary_bfloat16)(op, a.data_ptr<BFloat16>(), na,
                                                                 b.data_ptr<BFloat16>(), nb,
                                                                 out.data_ptr<BFloat16>(), n, L);
      });
  return out;
}

constexpr BinaryOp kBinaryOps[] = {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div};
constexpr const char* kBinaryNames[] = {"add", "sub", "mul", "div"};
constexpr const char* kInplaceNames[] = {"add_", "sub_", "mul_", "div_"};

Tensor binary(int code, const Tensor& a, const Tensor& b) {
  return binary_op(kBinaryOps[code], a, b, kBinaryNames[code]);
}

void binary_inplace(int code, Tensor& self, const Tensor& other) {
  check_float_operand(self, kInplaceNames[code]);
  binary_op(kBinaryOps[code], self, other, kInplaceNames[code], &self);
}

// A contiguous copy of a float32 device tensor with any strides: x * 1 through the strided
// elementwise kernel (multiplying by 1 is exact, -0 and NaN included). A transposed weight
// (x @ w.t()) goes through this before the matmul kernel, which reads row-major matrices.
Tensor contiguous_on_device(const Tensor& x) {
  if (x.is_contiguous()) return x;
  const Tensor one = kindling::scalar_tensor(1.0f).to(x.dtype()).to(x.device());  // 0-d, stride 0
  return binary_op(BinaryOp::Mul, x, one, "contiguous");
}

// a: [M, K] @ b: [K, N] -> [M, N], with the register-blocked matmul (v3).
Tensor matmul(const Tensor& a_in, const Tensor& b_in) {
  const Tensor a = contiguous_on_device(a_in), b = contiguous_on_device(b_in);
  const int M = kernel_int(a.size(0), "matmul"), K = kernel_int(a.size(1), "matmul"),
            N = kernel_int(b.size(1), "matmul");
  check_float_operand(b, "matmul", &a);
  Tensor c = empty_on({a.size(0), b.size(1)}, a);
  const bool emu = is_emulated();
  by_dtype(
      a,
      [&](float) {
        (emu ? emulated::matmul_v3 : gpu::matmul_v3)(a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(),
                                                     M, N, K);
      },
      // Autocast's products: 16-bit tiles, float32 sums, each element of c rounded once.
      [&](Half) {
        (emu ? emulated::matmul_half : gpu::matmul_half)(a.data_ptr<Half>(), b.data_ptr<Half>(), c.data_ptr<Half>(),
                                                         M, N, K);
      },
      [&](BFloat16) {
        (emu ? emulated::matmul_bfloat16 : gpu::matmul_bfloat16)(a.data_ptr<BFloat16>(), b.data_ptr<BFloat16>(),
                                                                 c.data_ptr<BFloat16>(), M, N, K);
      });
  return c;
}

// x.to(dtype) between float32, float16 and bfloat16 (-> contiguous). 16 -> 16 bits goes through
// float32, which holds both exactly, so it is rounded once, as on the CPU.
Tensor to_dtype(const Tensor& x_in, DType target) {
  const Tensor x = contiguous_on_device(x_in);
  check_float_operand(x, "to");
  if (!device_float(target))
    throw DeviceError(std::string("to: the ") + x.device().str() + " casts go between float32, float16 and "
                      "bfloat16, not to " + dtype_name(target) + ". Hint: convert on the CPU: x.cpu().to(dtype).");
  if (x.dtype() == target) return x;
  if (x.dtype() != kFloat32 && target != kFloat32) return to_dtype(to_dtype(x, kFloat32), target);
  Tensor out = empty_on(x.shape(), x, target);
  const std::int64_t n = x.numel();
  const bool emu = is_emulated();
  if (x.dtype() == kFloat32) {
    if (target == kFloat16)
      (emu ? emulated::cast_float_to_half : gpu::cast_float_to_half)(x.data_ptr<float>(), out.data_ptr<Half>(), n);
    else
      (emu ? emulated::cast_float_to_bfloat16 : gpu::cast_float_to_bfloat16)(x.data_ptr<float>(),
                                                                             out.data_ptr<BFloat16>(), n);
  } else if (x.dtype() == kFloat16) {
    (emu ? emulated::cast_half_to_float : gpu::cast_half_to_float)(x.data_ptr<Half>(), out.data_ptr<float>(), n);
  } else {
    (emu ? emulated::cast_bfloat16_to_float : gpu::cast_bfloat16_to_float)(x.data_ptr<BFloat16>(),
                                                                           out.data_ptr<float>(), n);
  }
  return out;
}

void fill(Tensor& t, double value) {
  check_operand(t, "fill_");
  if (is_emulated())
    emulated::fill(t.data_ptr<float>(), t.numel(), static_cast<float>(value));
  else
    gpu::fill(t.data_ptr<float>(), t.numel(), static_cast<float>(value));
}

void check_target(const Tensor& logits, const Tensor& target) {
  if (target.dtype() != kInt64 || !target.is_contiguous() || target.dim() != 1 || target.size(0) != logits.size(0) ||
      target.device() != logits.device())
    throw DeviceError("cross_entropy: on " + logits.device().str() + " the target must be a contiguous int64 [" +
                      std::to_string(logits.size(0)) + "] on the same device, got " + dtype_name(target.dtype()) +
                      " " + shape_str(target.shape()) + " on " + target.device().str() + ".");
}

// logits: [N, C], target: [N] -> the mean of the rows' losses, 0-d: the per-row kernel, then
// the block sum (v2) and a division by N, all on the device.
Tensor cross_entropy_mean(const Tensor& logits, const Tensor& target) {
  check_operand(logits, "cross_entropy");
  check_target(logits, target);
  const int rows = kernel_int(logits.size(0), "cross_entropy"), classes = kernel_int(logits.size(1), "cross_entropy");
  Tensor per_row = empty_on({logits.size(0)}, logits), total = empty_on({}, logits);
  fill(total, 0.0);
  if (is_emulated()) {
    emulated::cross_entropy_rows(logits.data_ptr<float>(), target.data_ptr<std::int64_t>(), per_row.data_ptr<float>(),
                                 rows, classes);
    emulated::sum_v2(per_row.data_ptr<float>(), rows, total.data_ptr<float>());
  } else {
    gpu::cross_entropy_rows(logits.data_ptr<float>(), target.data_ptr<std::int64_t>(), per_row.data_ptr<float>(),
                            rows, classes);
    gpu::sum_v2(per_row.data_ptr<float>(), rows, total.data_ptr<float>());
  }
  // An empty batch gives nan (0 / 0), as on the CPU.
  const Tensor count = kindling::scalar_tensor(static_cast<float>(rows)).to(logits.device());
  return binary_op(BinaryOp::Div, total, count, "cross_entropy");
}

Tensor cross_entropy_backward(const Tensor& logits, const Tensor& target, const Tensor& grad) {
  check_operand(logits, "cross_entropy_backward");
  check_target(logits, target);
  const Tensor g = contiguous_on_device(grad);
  check_operand(g, "cross_entropy_backward");
  Tensor d = empty_on(logits.shape(), logits);
  const int rows = kernel_int(logits.size(0), "cross_entropy"), classes = kernel_int(logits.size(1), "cross_entropy");
  if (is_emulated())
    emulated::cross_entropy_backward_rows(logits.data_ptr<float>(), target.data_ptr<std::int64_t>(),
                                          g.data_ptr<float>(), d.data_ptr<float>(), rows, classes);
  else
    gpu::cross_entropy_backward_rows(logits.data_ptr<float>(), target.data_ptr<std::int64_t>(), g.data_ptr<float>(),
                                     d.data_ptr<float>(), rows, classes);
  return d;
}

void adam_step(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, double lr, double beta1, double beta2, double eps,
               double weight_decay, std::int64_t step) {
  check_operand(p, "adam_step");
  check_operand(g, "adam_step");
  check_operand(m, "adam_step");
  check_operand(v, "adam_step");
  const AdamStep h{static_cast<float>(lr), static_cast<float>(beta1), static_cast<float>(beta2),
                   static_cast<float>(eps), static_cast<float>(weight_decay),
                   static_cast<float>(1 - std::pow(beta1, static_cast<double>(step))),
                   static_cast<float>(1 - std::pow(beta2, static_cast<double>(step)))};
  if (is_emulated())
    emulated::adam_step(p.data_ptr<float>(), g.data_ptr<float>(), m.data_ptr<float>(), v.data_ptr<float>(), p.numel(), h);
  else
    gpu::adam_step(p.data_ptr<float>(), g.data_ptr<float>(), m.data_ptr<float>(), v.data_ptr<float>(), p.numel(), h);
}

// GradScaler.unscale_ for one float32 gradient on the device: grad *= inv_scale in place; whether
// any element was inf or NaN (the flag is read back to the host, as PyTorch's step() does).
bool unscale_and_check(Tensor& grad, float inv_scale) {
  check_operand(grad, "GradScaler.unscale_");
  Tensor found = empty_on({}, grad);
  fill(found, 0.0);
  if (is_emulated())
    emulated::unscale_and_check(grad.data_ptr<float>(), grad.numel(), inv_scale, found.data_ptr<float>());
  else
    gpu::unscale_and_check(grad.data_ptr<float>(), grad.numel(), inv_scale, found.data_ptr<float>());
  return found.cpu().item<float>() != 0.0f;
}

}  // namespace

namespace detail {
void install_device_ops() {
  kindling::detail::register_device_ops(
      DeviceType::CUDA, {relu, relu_backward, sum_dim0, matmul, binary, binary_inplace, fill, cross_entropy_mean,
                         cross_entropy_backward, adam_step, to_dtype, unscale_and_check});
}
}  // namespace detail

}  // namespace kindling::cuda
