#pragma once
// Pieces of the cuda layer that chapter 8 teaches, declared apart from their callers.
#include <cstddef>

#include "kindling/tensor/tensor.hpp"

namespace kindling::cuda {

/// A tensor on the device, with any strides and offset, as a contiguous CPU tensor.
/// `copy_to_host(dst, src, nbytes)` copies device bytes to host memory; call it once, for the
/// bytes from the tensor's first element to its last one (the span its strides reach).
Tensor copy_strided_to_host(const Tensor& src,
                            void (*copy_to_host)(void* dst, const void* src, std::size_t nbytes));

}  // namespace kindling::cuda
