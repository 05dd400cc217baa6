// ch11.ex3 — overlap: the moment backward has finished the last gradient of a bucket, that bucket's
// all-reduce may start, while backward goes on with the earlier layers; buckets start in order.
//
// distributed::detail::mark_gradient_ready (lib/src/distributed/pieces.hpp): DistributedDataParallel's
// post-accumulate hook (lib/src/distributed/ddp.cpp) calls it for each parameter whose gradient is
// final, starts an asynchronous all-reduce of each bucket it returns, and checks that they are the
// next buckets in order.
#include "distributed/pieces.hpp"

namespace kindling::distributed::detail {

std::vector<std::size_t> mark_gradient_ready(BucketState& state, std::size_t param, const Tensor& grad) {
  // BEGIN SOLUTION ex3: copy the gradient into its bucket, count it off, start the complete buckets in order
  const std::size_t b = state.bucket_of[param];
  const std::int64_t begin = state.offset[param];
  // buffers[b]: [bucket numel]; the gradient (any shape) fills numel consecutive elements of it.
  state.buffers[b].slice(0, begin, begin + grad.numel()).copy_(grad.reshape({grad.numel()}));
  --state.pending[b];
  std::vector<std::size_t> start;
  while (state.next_bucket < state.pending.size() && state.pending[state.next_bucket] == 0) {
    start.push_back(state.next_bucket);
    ++state.next_bucket;
  }
  return start;
  // END SOLUTION
}

}  // namespace kindling::distributed::detail
