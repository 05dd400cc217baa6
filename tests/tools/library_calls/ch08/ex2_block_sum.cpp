// A "library call" submission: sum_v1 returns the library's sum_v2 (warp shuffles, not the tree in
// shared memory the exercise asks for). Must earn nothing.
#include "kindling/cuda/kernels.hpp"

namespace kindling::cuda::emulated {
void sum_v1(const float* x, std::int64_t n, float* out) { sum_v2(x, n, out); }
}  // namespace kindling::cuda::emulated
