// ch11.ex3 — detail::mark_gradient_ready, DistributedDataParallel's bookkeeping during backward: the
// twin's parameters in the twin's buckets, their gradients arriving in the twin's order; after each
// gradient, the buckets that may start their all-reduce, and at the end every bucket's buffer. The
// twin computes the same in plain Python.
#include "ch11_grading.hpp"

using namespace ch11_grading;

namespace {

/// Builds the twin's BucketState ("bucket_of", "offset", one zero buffer of "bucket_numel" each),
/// hands it the gradients "g<p>" in the order "ready" (transposed first when `transposed`, so the
/// gradient is a non-contiguous view), and reports what each call started and the buffers.
void run_backward(bool transposed) {
  dist::detail::BucketState state;
  const std::vector<std::int64_t> bucket_of = ints_of("bucket_of"), offset = ints_of("offset");
  const std::vector<std::int64_t> bucket_numel = ints_of("bucket_numel"), ready = ints_of("ready");
  for (const std::int64_t numel : bucket_numel) state.buffers.push_back(kd::zeros({numel}));
  state.pending.assign(bucket_numel.size(), 0);
  for (std::size_t p = 0; p < bucket_of.size(); ++p) {
    state.bucket_of.push_back(static_cast<std::size_t>(bucket_of[p]));
    state.offset.push_back(offset[p]);
    ++state.pending[static_cast<std::size_t>(bucket_of[p])];
  }
  for (std::size_t k = 0; k < ready.size(); ++k) {
    const auto p = static_cast<std::size_t>(ready[k]);
    kd::Tensor g = grading::input("g" + std::to_string(p));
    if (transposed) g = g.t();  // [cols, rows], strides [1, cols]: not contiguous
    const auto started = dist::detail::mark_gradient_ready(state, p, g);
    grading::expect("started after gradient " + std::to_string(k), started);
    grading::expect("next_bucket after gradient " + std::to_string(k), static_cast<std::int64_t>(state.next_bucket));
  }
  for (std::size_t b = 0; b < state.buffers.size(); ++b) grading::expect("bucket " + std::to_string(b), state.buffers[b]);
}

}  // namespace

TEST_CASE("mark_gradient_ready: gradients in backward's order, buckets start one by one", "[ch11][ex3][pts=6]") {
  run_backward(false);
}

TEST_CASE("mark_gradient_ready: a bucket complete out of order waits for the ones before it", "[ch11][ex3][pts=7]") {
  run_backward(false);
}

TEST_CASE("mark_gradient_ready: gradients of any shape and layout land at their offsets", "[ch11][ex3][pts=7]") {
  run_backward(true);
}
