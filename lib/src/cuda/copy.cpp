// Tensor::to(Device) for CUDA: the hooks the tensor layer calls (tensor/device_copy.hpp).
//   to the device: make the tensor contiguous on the CPU, allocate device memory, one copy.
//   to the host:   copy_strided_to_host (chapter 8's exercise 5,
//                  solutions/ch08/ex5_copy_strided.cpp): a strided view on the device is
//                  brought back with one copy of the memory it spans, then made contiguous.
#include "cuda/backend.hpp"
#include "cuda/pieces.hpp"
#include "kindling/cuda/runtime.hpp"
#include "tensor/device_copy.hpp"
#include "tensor/internal.hpp"

namespace kindling::cuda {
namespace {

void check_index(Device target, const char* op) {
  const int n = is_emulated() ? 1 : device_count();
  if (target.index < 0 || target.index >= n)
    throw DeviceError(std::string(op) + ": there is no " + target.str() + ": " + std::to_string(n) +
                      " CUDA device(s) " + (is_emulated() ? "(emulated) " : "") + "visible" +
                      (n ? " (cuda:0" + (n > 1 ? " to cuda:" + std::to_string(n - 1) : std::string()) + ")"
                         : std::string()));
}

Tensor to_device(const Tensor& cpu_src, Device target) {
  check_index(target, "to");
  const Tensor src = cpu_src.contiguous();
  Tensor out = kindling::detail::make_tensor(src.shape(), src.dtype(), target);
  detail::active_backend()->to_device(out.raw_data_ptr(), src.raw_data_ptr(), src.nbytes());
  return out;
}

Tensor to_host(const Tensor& device_src) {
  return copy_strided_to_host(device_src, detail::active_backend()->to_host);
}

// dst: contiguous on the device; src: contiguous on the host, same dtype and numel (copy_ checks).
void upload_into(const Tensor& device_dst, const Tensor& cpu_src) {
  detail::active_backend()->to_device(device_dst.raw_data_ptr(), cpu_src.raw_data_ptr(), cpu_src.nbytes());
}

}  // namespace

namespace detail {
void install_allocator(const Backend* backend);
void install_pinned_memory();  // pinned.cpp
void install_device_ops();     // device_ops.cpp
void install(const Backend* backend) {
  install_allocator(backend);
  install_pinned_memory();
  install_device_ops();
  kindling::detail::register_device_copy(DeviceType::CUDA, {to_device, to_host, upload_into});
}
}  // namespace detail

}  // namespace kindling::cuda
