#pragma once
// Shared by chapter 8's graded tests: the kernels run on the kernel emulator, on host buffers (the
// emulator's "device" pointers are host memory), with every check on -- an index outside a buffer, a
// barrier not every thread reaches or a race on shared memory stops the launch with a KernelError,
// and the test fails with its message. The expected values come from PyTorch (pytorch.py); what
// PyTorch cannot say -- that a kernel was launched, how it was shaped, that it used shared memory --
// is read from the emulator's record of the launches (kd::cuda::emu::launch_log()).
#include <cstdint>
#include <string>
#include <vector>

#include <kindling/cuda.hpp>
#include <kindling/cuda/emulator.hpp>
#include <kindling/cuda/kernels.hpp>
#include <kindling/kindling.hpp>

#include "grading.hpp"

namespace ch08_grading {
namespace kd = kindling;
namespace kc = kindling::cuda;
namespace emu = kindling::cuda::emulated;

/// A contiguous float32 CPU tensor of `shape` holding `values` (what a kernel wrote).
inline kd::Tensor as_tensor(const std::vector<float>& values, const kd::Shape& shape) {
  return kd::tensor(values, shape);
}

/// Elements of t's storage from its first element on: what a kernel may read through t's strides.
inline std::int64_t readable(const kd::Tensor& t) {
  return static_cast<std::int64_t>(t.storage()->nbytes() / t.element_size()) - t.storage_offset();
}

/// The layout of `a op b` broadcast to `shape`, from the strides of the expanded views.
inline kc::BinaryLayout layout_of(const kd::Tensor& a, const kd::Tensor& b, const kd::Shape& shape) {
  kc::BinaryLayout L;
  L.ndim = static_cast<int>(shape.size());
  const kd::Tensor ea = a.expand(shape), eb = b.expand(shape);
  for (int d = 0; d < L.ndim; ++d) {
    L.sizes[d] = shape[static_cast<std::size_t>(d)];
    L.a_strides[d] = ea.stride(d);
    L.b_strides[d] = eb.stride(d);
  }
  return L;
}

/// out = a op b on the emulator, through the learner's kernel, over the broadcast shape.
inline kd::Tensor binary(kc::BinaryOp op, const kd::Tensor& a, const kd::Tensor& b) {
  const kd::Shape shape = kd::broadcast_shapes(a.shape(), b.shape());
  std::int64_t n = 1;
  for (std::int64_t s : shape) n *= s;
  std::vector<float> out(static_cast<std::size_t>(n), NAN);
  emu::binary(op, a.data_ptr<float>(), readable(a), b.data_ptr<float>(), readable(b), out.data(), n,
              layout_of(a, b, shape));
  return as_tensor(out, shape);
}

/// The launches of `f`, as the emulator recorded them.
template <class F>
std::vector<kc::emu::LaunchRecord> launches_of(F&& f) {
  kc::emu::clear_launch_log();
  f();
  return kc::emu::launch_log();
}

/// "kernel k<<<(4, 3, 1), (16, 16, 1)>>>: 3072 threads, 18432 barriers, ..." for INFO().
inline std::string describe(const kc::emu::LaunchRecord& r) {
  auto d3 = [](const dim3& d) {
    return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
  };
  return "kernel " + r.kernel + "<<<" + d3(r.grid) + ", " + d3(r.block) + ">>>: " +
         std::to_string(r.threads) + " threads, " + std::to_string(r.barriers) + " barriers, " +
         std::to_string(r.shuffles) + " shuffles, " + std::to_string(r.shared_bytes) +
         " bytes of shared memory, " + std::to_string(r.global_reads) + " global reads, " +
         std::to_string(r.global_accesses) + " global writes";
}

}  // namespace ch08_grading
