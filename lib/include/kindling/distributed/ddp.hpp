#pragma once
/// @file
/// DistributedDataParallel (torch.nn.parallel.DistributedDataParallel): every rank holds the
/// same model and trains it on its own shard of each batch; after backward every rank holds the
/// *average* of all ranks' gradients, so every optimizer step is the same step on every rank.
///
/// How: the parameters (and buffers) start as rank 0's (a broadcast). The gradients are grouped
/// into buckets -- the parameters in reverse order of registration, a first bucket of 1 MB, then
/// 25 MB each, as PyTorch does -- and the moment backward has finished a bucket's last gradient
/// (a post-accumulate hook on each parameter) its asynchronous all-reduce starts, while backward
/// goes on computing the earlier layers' gradients.
#include <cstdint>
#include <vector>

#include "kindling/autograd/hooks.hpp"
#include "kindling/distributed/process_group.hpp"
#include "kindling/nn/module.hpp"

namespace kindling::distributed {

namespace detail {
/// What DistributedDataParallel knows about its buckets during one backward.
struct BucketState {
  std::vector<Tensor> buffers;           // one flat contiguous buffer per bucket: [its parameters' numel]
  std::vector<std::size_t> bucket_of;    // parameter -> its bucket
  std::vector<std::int64_t> offset;      // parameter -> its first element in its bucket's buffer
  std::vector<std::size_t> pending;      // bucket -> how many of its gradients are not ready yet
  std::size_t next_bucket = 0;           // the first bucket whose all-reduce has not started
};

/// Called by DistributedDataParallel's post-accumulate hook when parameter `param`'s gradient
/// `grad` is final for this backward (each parameter once per backward):
///   copy `grad` (any shape, param's numel elements) into its place in its bucket's buffer;
///   count it off its bucket's pending gradients;
///   return the buckets whose all-reduce may start now, and advance state.next_bucket past them:
///   next_bucket, next_bucket + 1, ... as long as each of them has no pending gradient. Buckets
///   start strictly in order (the same order on every rank, or the ranks would pair different
///   buckets in their all-reduces), so a complete bucket waits for the ones before it.
std::vector<std::size_t> mark_gradient_ready(BucketState& state, std::size_t param, const Tensor& grad);
}  // namespace detail

/// Options of DistributedDataParallel, with PyTorch's names and defaults.
struct DistributedDataParallelOptions {
  /// The size of a bucket of gradients, in MiB (PyTorch's bucket_cap_mb).
  double bucket_cap_mb = 25;
  /// The first bucket (the last layers' gradients, ready first) is smaller so that its
  /// all-reduce starts early (PyTorch's _DEFAULT_FIRST_BUCKET_BYTES, 1 MiB).
  double first_bucket_mb = 1;
  /// Copy rank 0's buffers (BatchNorm's running statistics) to every rank before each forward.
  bool broadcast_buffers = true;
};

/// Wraps a module that every rank built the same way. Call it instead of the module; the
/// module must outlive the wrapper.
class DistributedDataParallel {
 public:
  explicit DistributedDataParallel(nn::Module& module, DistributedDataParallelOptions options = {});
  ~DistributedDataParallel();
  DistributedDataParallel(const DistributedDataParallel&) = delete;
  DistributedDataParallel& operator=(const DistributedDataParallel&) = delete;

  /// The module's forward (after the buffers' broadcast); the next backward averages gradients.
  Tensor forward(const Tensor& input);
  Tensor operator()(const Tensor& input) { return forward(input); }
  nn::Module& module() { return module_; }

  /// While the guard lives, backward only accumulates gradients on each rank (no communication);
  /// the first backward after it averages the accumulated sums (PyTorch's `with ddp.no_sync():`).
  class NoSyncGuard {
   public:
    explicit NoSyncGuard(DistributedDataParallel& ddp) : ddp_(ddp), previous_(ddp.require_sync_) {
      ddp.require_sync_ = false;
    }
    ~NoSyncGuard() { ddp_.require_sync_ = previous_; }
    NoSyncGuard(const NoSyncGuard&) = delete;
    NoSyncGuard& operator=(const NoSyncGuard&) = delete;

   private:
    DistributedDataParallel& ddp_;
    bool previous_;
  };
  [[nodiscard]] NoSyncGuard no_sync() { return NoSyncGuard(*this); }

  /// The buckets in the order their all-reduces start, each a list of indices into
  /// module.parameters() (PyTorch's reducer bucket assignment).
  const std::vector<std::vector<std::size_t>>& bucket_indices() const { return bucket_params_; }

 private:
  void on_gradient_ready(std::size_t param);
  void finish_backward();

  nn::Module& module_;
  DistributedDataParallelOptions options_;
  std::vector<Tensor> params_;
  std::vector<std::vector<std::size_t>> bucket_params_;
  detail::BucketState state_;  // buffers, parameter -> bucket and offset, this backward's progress
  std::vector<autograd::RemovableHandle> hooks_;
  // This backward's progress (reset by forward).
  bool require_sync_ = true;
  bool expect_backward_ = false;
  std::vector<bool> param_ready_;
  std::vector<Work> works_;
};

/// PyTorch's bucket assignment (torch.distributed._compute_bucket_assignment_by_size): walks the
/// tensors in the given order, one open bucket per dtype, and closes a bucket once it holds at
/// least the current limit (limits[0] for each dtype's first bucket, then the last limit); the
/// buckets are ordered by their first tensor. Sizes are in bytes.
std::vector<std::vector<std::size_t>> compute_bucket_assignment_by_size(const std::vector<Tensor>& tensors,
                                                                        const std::vector<std::int64_t>& limits);

}  // namespace kindling::distributed
