// The ring all-reduce run by simulate_ring_all_reduce (one thread per rank): sums against a plain
// sum, the traffic the ring's chunk rule implies, and the errors a broken ring or bad tensors get
// (never a hang). Graded against PyTorch in tests/grading/ch11; over MPI in tests/distributed/mpi.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <kindling/distributed.hpp>
#include <kindling/tensor.hpp>

namespace kd = kindling;
namespace dist = kindling::distributed;

TEST_CASE("simulate_ring_all_reduce: every rank gets the sum, each sending 2 (N - 1) chunks", "[threads]") {
  for (int ranks : {1, 2, 3, 5}) {
    for (std::int64_t n : {0, 1, 4, 7, 64}) {
      std::vector<kd::Tensor> xs;
      kd::Tensor want = kd::zeros({n}, {.dtype = kd::kInt64});
      for (int r = 0; r < ranks; ++r) {
        xs.push_back(kd::arange(0, n) * (r + 1) + r);
        want = want + xs.back();
      }
      const dist::RingStats stats = dist::simulate_ring_all_reduce(xs);
      for (int r = 0; r < ranks; ++r) {
        INFO("ranks " << ranks << ", n " << n << ", rank " << r);
        CHECK(kd::equal(xs[r], want));
        auto size = [&](int c) { return (c + 1) * n / ranks - c * n / ranks; };
        const std::int64_t sent = ranks == 1 ? 0 : 2 * n - size((r + 1) % ranks) - size((r + 2) % ranks);
        CHECK(stats.elements_sent[r] == sent);
        CHECK(stats.calls[r] == 2 * (ranks - 1));
      }
    }
  }
}

TEST_CASE("simulate_ring_all_reduce: float32 and bfloat16 sums", "[threads]") {
  std::vector<kd::Tensor> xs = {kd::full({9}, 1.5), kd::full({9}, 2.0), kd::full({9}, -0.25)};
  dist::simulate_ring_all_reduce(xs);
  for (const auto& x : xs) CHECK(kd::equal(x, kd::full({9}, 3.25)));
  std::vector<kd::Tensor> bf = {kd::full({5}, 1.0).to(kd::kBFloat16), kd::full({5}, 3.0).to(kd::kBFloat16)};
  dist::simulate_ring_all_reduce(bf);
  CHECK(kd::equal(bf[1], kd::full({5}, 4.0).to(kd::kBFloat16)));
}

TEST_CASE("simulate_ring_all_reduce: tensors that cannot be reduced together are refused") {
  CHECK_THROWS_WITH(dist::simulate_ring_all_reduce({}), Catch::Contains("no tensors"));
  CHECK_THROWS_WITH(dist::simulate_ring_all_reduce({kd::zeros({3}), kd::zeros({4})}),
                    Catch::Contains("rank 1's tensor") && Catch::Contains("[4]") && Catch::Contains("[3]"));
  CHECK_THROWS_WITH(dist::simulate_ring_all_reduce({kd::zeros({3}), kd::zeros({3}, {.dtype = kd::kFloat64})}),
                    Catch::Contains("float64"));
  CHECK_THROWS_WITH(dist::simulate_ring_all_reduce({kd::zeros({4, 3}).t(), kd::zeros({3, 4})}),
                    Catch::Contains("contiguous"));
  CHECK_THROWS_WITH(dist::simulate_ring_all_reduce({kd::zeros({3}, {.dtype = kd::kUInt8}), kd::zeros({3}, {.dtype = kd::kUInt8})}),
                    Catch::Contains("uint8"));
}

TEST_CASE("compute_bucket_assignment_by_size: bad limits are refused") {
  CHECK_THROWS_WITH(dist::compute_bucket_assignment_by_size({kd::zeros({3})}, {}), Catch::Contains("no bucket size"));
  CHECK_THROWS_WITH(dist::compute_bucket_assignment_by_size({kd::zeros({3})}, {100, 0}), Catch::Contains("positive"));
}
