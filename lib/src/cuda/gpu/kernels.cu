// The chapter's kernels for the device: the very sources the emulator runs (lib/src/cuda/kernels/),
// compiled by nvcc, where kernel.hpp makes them CUDA (namespace kindling::cuda::gpu).
#include "cuda/kernels/adam.cpp"
#include "cuda/kernels/elementwise.cpp"
#include "cuda/kernels/matmul.cpp"
#include "cuda/kernels/softmax.cpp"
#include "cuda/kernels/sum.cpp"
