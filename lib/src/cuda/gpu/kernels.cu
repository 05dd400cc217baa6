// The chapter's kernels for the device: the very sources the emulator runs, compiled by nvcc, where
// kernel.hpp makes them CUDA (namespace kindling::cuda::gpu). The library's own kernels are in
// lib/src/cuda/kernels/; the four that are chapter 8's exercises come from the answer files the
// layer takes (solutions/ch08/ or your exercises/ch08/, as KINDLING_REFERENCE says; paths from
// lib/CMakeLists.txt), so a GPU runs the same kernels as the emulator.
#include "cuda/kernels/adam.cpp"
#include "cuda/kernels/cast.cpp"
#include "cuda/kernels/column_sum.cpp"
#include "cuda/kernels/cross_entropy.cpp"
#include "cuda/kernels/fill.cpp"
#include "cuda/kernels/half.cpp"
#include "cuda/kernels/matmul.cpp"
#include "cuda/kernels/relu.cpp"
#include "cuda/kernels/sum.cpp"
#include "cuda/kernels/unscale.cpp"
#include KINDLING_CH08_EX1_FILE
#include KINDLING_CH08_EX2_FILE
#include KINDLING_CH08_EX3_FILE
#include KINDLING_CH08_EX4_FILE
