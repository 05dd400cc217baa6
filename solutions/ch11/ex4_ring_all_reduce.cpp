// ch11.ex4 — the ring all-reduce: N - 1 steps of reduce-scatter, then N - 1 steps of all-gather, each
// step one chunk to the right neighbour and one from the left.
//
// distributed::detail::ring_all_reduce (kindling/distributed/ring.hpp): all_reduce runs it over MPI
// when the process group was started with .all_reduce_algorithm = "ring" (and divides afterwards for
// AVG); simulate_ring_all_reduce (lib/src/distributed/ring.cpp) runs it with one thread per rank.
#include "kindling/distributed/ring.hpp"

namespace kindling::distributed::detail {

void ring_all_reduce(const Tensor& flat, RingLink& link) {
  // BEGIN SOLUTION ex4: reduce-scatter, then all-gather, one chunk per step
  const std::int64_t n = flat.numel(), N = link.world_size(), r = link.rank();
  // Chunk c: [c * n / N, (c + 1) * n / N), a view of flat (writing it writes flat).
  auto chunk = [&](std::int64_t c) {
    c = ((c % N) + N) % N;
    return flat.slice(0, c * n / N, (c + 1) * n / N);
  };
  // Reduce-scatter: after step s, chunk (r - s - 1) holds the sum of s + 2 ranks' values; after N - 1
  // steps rank r holds the whole sum of chunk (r + 1).
  for (std::int64_t s = 0; s + 1 < N; ++s) {
    Tensor mine = chunk(r - s - 1);
    Tensor incoming = mine.clone();  // a buffer of the received chunk's size
    link.send_recv(chunk(r - s), incoming);
    mine.add_(incoming);
  }
  // All-gather: the finished chunks go once around the ring, each copied over the stale one.
  for (std::int64_t s = 0; s + 1 < N; ++s) {
    link.send_recv(chunk(r + 1 - s), chunk(r - s));
  }
  // END SOLUTION
}

}  // namespace kindling::distributed::detail
