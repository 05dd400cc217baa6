// ch11.ex4 — detail::ring_all_reduce, run by simulate_ring_all_reduce with one thread per rank: every
// rank's tensor after the all-reduce (the twin sums with PyTorch), and how many elements and calls
// each rank sent (the twin counts what the ring's chunks must add up to: 2 (N - 1) one-chunk steps).
#include "ch11_grading.hpp"

using namespace ch11_grading;

namespace {

/// The twin's "ranks" tensors "x<r>", all-reduced on a simulated ring; every rank's result and its
/// traffic reported.
void ring(kd::DType dtype) {
  const std::int64_t ranks = int_of("ranks");
  std::vector<kd::Tensor> xs;
  for (std::int64_t r = 0; r < ranks; ++r) xs.push_back(grading::input("x" + std::to_string(r)).to(dtype).contiguous());
  const dist::RingStats stats = dist::simulate_ring_all_reduce(xs);
  for (std::int64_t r = 0; r < ranks; ++r) grading::expect("sum on rank " + std::to_string(r), xs[r]);
  grading::expect("elements sent per rank", stats.elements_sent);
  grading::expect("send_recv calls per rank", stats.calls);
}

}  // namespace

TEST_CASE("ring all-reduce: 2 ranks, float64", "[ch11][ex4][pts=5]") { ring(kd::kFloat64); }

TEST_CASE("ring all-reduce: 3 to 6 ranks, float32 of an odd size", "[ch11][ex4][pts=8]") { ring(kd::kFloat32); }

TEST_CASE("ring all-reduce: fewer elements than ranks", "[ch11][ex4][pts=6]") { ring(kd::kFloat64); }

TEST_CASE("ring all-reduce: int64 sums are exact, elements sent counted", "[ch11][ex4][pts=6]") { ring(kd::kInt64); }
