#pragma once
/// @file
/// Chapter 11's exercise pieces: the parts of the distributed layer that *you* write
/// (exercises/ch11/). Declared here or in a public header named below, defined in your
/// `exercises/ch11/exK_*.cpp` or the reference `solutions/ch11/exK_*.cpp`.
///
///   ex1  distributed::detail::sampler_shard        DistributedSampler's shard of an epoch
///   ex2  distributed::detail::assign_buckets       PyTorch's bucket assignment (DDP's constructor)
///   ex3  distributed::detail::mark_gradient_ready  (kindling/distributed/ddp.hpp) a bucket starts
///        its all-reduce when it is complete
///   ex4  distributed::detail::ring_all_reduce      (kindling/distributed/ring.hpp) the ring all-reduce
///
/// The library does the bookkeeping around them: DistributedSampler checks that ex1 returned
/// num_samples indices of the dataset; compute_bucket_assignment_by_size checks its arguments and
/// that ex2 put every tensor in exactly one bucket of one dtype; DistributedDataParallel launches
/// the all-reduces ex3 returns and checks that they are the next ones in order; all_reduce and
/// simulate_ring_all_reduce hand ex4 a link to the neighbours and divide for AVG afterwards.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kindling/distributed/ddp.hpp"
#include "kindling/distributed/ring.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling::distributed::detail {

/// Rank `rank`'s indices of one epoch, given the epoch's `order` of the whole dataset (shuffled, or
/// 0 .. n-1) and `num_replicas` ranks (1 <= num_replicas, 0 <= rank < num_replicas):
///   without drop_last, every rank gets ceil(n / R) indices: the order is padded to R * ceil(n / R)
///   by repeating it from its start (again and again if it is shorter than the padding needs);
///   with drop_last, every rank gets floor(n / R): the order is cut to R * floor(n / R);
///   rank r then takes positions r, r + R, r + 2R, ... of the padded (or cut) order.
/// (torch.utils.data.distributed.DistributedSampler.__iter__)
std::vector<std::int64_t> sampler_shard(const std::vector<std::int64_t>& order, std::int64_t num_replicas,
                                        std::int64_t rank, bool drop_last);

/// PyTorch's bucket assignment (torch.distributed._compute_bucket_assignment_by_size), the
/// arguments already checked (limits non-empty, each > 0): walk `tensors` in order; each dtype has
/// one open bucket; add the tensor's index to its dtype's open bucket and its nbytes() to that
/// bucket's size; once the size reaches the dtype's current limit (>=), close the bucket: the
/// dtype's first bucket uses limits[0], its second limits[1], ..., and every later one the last
/// limit. At the end close the open buckets that hold anything. Return the buckets sorted by
/// their first index.
std::vector<std::vector<std::size_t>> assign_buckets(const std::vector<Tensor>& tensors,
                                                     const std::vector<std::int64_t>& limits);

}  // namespace kindling::distributed::detail
