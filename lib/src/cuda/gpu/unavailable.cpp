// A build without nvcc: kd::cuda::gpu's kernels exist (the same declarations as the emulator's)
// and each says why it cannot run. With nvcc they come from gpu/kernels.cu instead.
#include "kindling/version.hpp"

#if !KINDLING_HAVE_CUDA
#include "kindling/cuda/kernels.hpp"
#include "kindling/cuda/runtime.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling::cuda::gpu {
namespace {
[[noreturn]] void unavailable(const char* kernel) {
  throw DeviceError(std::string("kd::cuda::gpu::") + kernel + ": " + unavailable_reason() +
                    ". Hint: kd::cuda::emulated::" + kernel + " runs the same kernel on the CPU");
}
}  // namespace

void binary(BinaryOp, const float*, std::int64_t, const float*, std::int64_t, float*, std::int64_t,
            const BinaryLayout&) { unavailable("binary"); }
void sum_v1(const float*, std::int64_t, float*) { unavailable("sum_v1"); }
void sum_v2(const float*, std::int64_t, float*) { unavailable("sum_v2"); }
void softmax_rows(const float*, float*, int, int) { unavailable("softmax_rows"); }
void cross_entropy_rows(const float*, const std::int64_t*, float*, int, int) {
  unavailable("cross_entropy_rows");
}
void cross_entropy_backward_rows(const float*, const std::int64_t*, const float*, float*, int, int) {
  unavailable("cross_entropy_backward_rows");
}
void fill(float*, std::int64_t, float) { unavailable("fill"); }
void relu(const float*, float*, std::int64_t) { unavailable("relu"); }
void relu_backward(const float*, const float*, float*, std::int64_t) { unavailable("relu_backward"); }
void column_sum(const float*, float*, int, int) { unavailable("column_sum"); }
void matmul_v1(const float*, const float*, float*, int, int, int) { unavailable("matmul_v1"); }
void matmul_v2(const float*, const float*, float*, int, int, int) { unavailable("matmul_v2"); }
void matmul_v3(const float*, const float*, float*, int, int, int) { unavailable("matmul_v3"); }
void adam_step(float*, const float*, float*, float*, std::int64_t, const AdamStep&) {
  unavailable("adam_step");
}
void binary_half(BinaryOp, const Half*, std::int64_t, const Half*, std::int64_t, Half*, std::int64_t,
                 const BinaryLayout&) { unavailable("binary_half"); }
void binary_bfloat16(BinaryOp, const BFloat16*, std::int64_t, const BFloat16*, std::int64_t, BFloat16*,
                     std::int64_t, const BinaryLayout&) { unavailable("binary_bfloat16"); }
void matmul_half(const Half*, const Half*, Half*, int, int, int) { unavailable("matmul_half"); }
void matmul_bfloat16(const BFloat16*, const BFloat16*, BFloat16*, int, int, int) {
  unavailable("matmul_bfloat16");
}
void relu_half(const Half*, Half*, std::int64_t) { unavailable("relu_half"); }
void relu_bfloat16(const BFloat16*, BFloat16*, std::int64_t) { unavailable("relu_bfloat16"); }
void relu_backward_half(const Half*, const Half*, Half*, std::int64_t) { unavailable("relu_backward_half"); }
void relu_backward_bfloat16(const BFloat16*, const BFloat16*, BFloat16*, std::int64_t) {
  unavailable("relu_backward_bfloat16");
}
void column_sum_half(const Half*, Half*, int, int) { unavailable("column_sum_half"); }
void column_sum_bfloat16(const BFloat16*, BFloat16*, int, int) { unavailable("column_sum_bfloat16"); }
void cast_float_to_half(const float*, Half*, std::int64_t) { unavailable("cast_float_to_half"); }
void cast_half_to_float(const Half*, float*, std::int64_t) { unavailable("cast_half_to_float"); }
void cast_float_to_bfloat16(const float*, BFloat16*, std::int64_t) { unavailable("cast_float_to_bfloat16"); }
void cast_bfloat16_to_float(const BFloat16*, float*, std::int64_t) { unavailable("cast_bfloat16_to_float"); }
void unscale_and_check(float*, std::int64_t, float, float*) { unavailable("unscale_and_check"); }

}  // namespace kindling::cuda::gpu
#endif
