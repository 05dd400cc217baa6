#pragma once
/// @file
/// The ring all-reduce (Baidu's, then Horovod's and NCCL's): N ranks stand in a ring, each sends
/// only to its right neighbour and receives only from its left one. The tensor is cut into N
/// chunks. In N - 1 steps of *reduce-scatter* each rank passes one chunk on and adds the chunk it
/// receives, so that at the end rank r holds the full sum of chunk (r + 1) mod N; in N - 1 steps of
/// *all-gather* the finished chunks travel once around the ring. Each rank sends 2 (N - 1) / N of
/// the tensor in all, whatever N is: the ring's time is about 2 (N - 1) / N * bytes / bandwidth
/// plus 2 (N - 1) latencies.
///
/// all_reduce runs it over MPI when the process group was started with
/// `.all_reduce_algorithm = "ring"`; simulate_ring_all_reduce runs it in one process, one thread
/// per rank, so you can watch and test it without mpirun.
#include <cstdint>
#include <vector>

#include "kindling/tensor/tensor.hpp"

namespace kindling::distributed {

// [snippet: ring-link]
/// One rank's view of the ring.
class RingLink {
 public:
  virtual ~RingLink() = default;
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  /// Sends `send` to rank (rank + 1) % world_size and, at the same time, receives into
  /// `recv` what rank (rank - 1 + world_size) % world_size sends in its own call (every
  /// rank calls send_recv the same number of times). Both contiguous, of the
  /// collective's dtype; `recv` must have as many elements as the left neighbour sends.
  /// Returns when both are done.
  virtual void send_recv(const Tensor& send, const Tensor& recv) = 0;
};
// [end]

/// What each rank of a simulated ring did.
struct RingStats {
  std::vector<std::int64_t> elements_sent;  // per rank: elements sent in all its send_recv calls
  std::vector<std::int64_t> calls;          // per rank: send_recv calls
};

/// Sums `tensors` (tensors[r] is rank r's: contiguous CPU tensors of one dtype -- float32, float64,
/// bfloat16 or int64 -- and one number of elements) in place with the ring all-reduce, every rank
/// a thread of this process; afterwards every tensor holds the sum. Returns what each rank sent.
RingStats simulate_ring_all_reduce(const std::vector<Tensor>& tensors);

namespace detail {
/// The ring all-reduce of one rank (exercise ch11.ex4): on return `flat` (a contiguous 1-D tensor
/// of n elements) holds the element-wise sum of every rank's `flat`. Chunk c (0 <= c < N) is
/// elements [c * n / N, (c + 1) * n / N) in integer division, so chunks differ by at most one
/// element and some are empty when n < N.
///   reduce-scatter, steps s = 0 .. N-2: send chunk (r - s) mod N, receive the left neighbour's
///     chunk (r - s - 1) mod N and add it into your own chunk (r - s - 1) mod N;
///   all-gather, steps s = 0 .. N-2: send chunk (r + 1 - s) mod N (complete), receive chunk
///     (r - s) mod N and copy it over yours.
/// Exactly 2 (N - 1) send_recv calls, each of one chunk; nothing else crosses the link.
void ring_all_reduce(const Tensor& flat, RingLink& link);
}  // namespace detail

}  // namespace kindling::distributed
