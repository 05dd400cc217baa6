#pragma once
/// @file
/// Chapter 8: the CUDA device (kd::cuda::is_available(), tensors on "cuda:N") and the chapter's
/// kernels (kd::cuda::gpu on a GPU, kd::cuda::emulated on the kernel emulator). Kernel sources
/// include kindling/cuda/kernel.hpp instead: it defines CUDA's vocabulary (threadIdx, ...).
#include "kindling/amp.hpp"
#include "kindling/cuda/kernels.hpp"
#include "kindling/cuda/runtime.hpp"
#include "kindling/cuda/streams.hpp"
