// Every collective on every rank of an mpirun job, each dtype, synchronous and asynchronous, odd
// sizes (7 elements, 0 elements). Rank r contributes values that depend on r, so each rank can
// compute what it must receive.
#include <kindling/distributed.hpp>
#include <kindling/tensor.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace kd = kindling;
namespace dist = kindling::distributed;

namespace {
int rank = 0, world = 1;

void expect(bool ok, const std::string& what) {
  if (!ok) dist::abort_job("check failed: " + what);
}
void expect_equal(const kd::Tensor& got, const kd::Tensor& want, const std::string& what) {
  expect(kd::equal(got, want), what + ": got " + got.to_string() + ", want " + want.to_string());
}

// 1, 2, ..., 16, 1, 2, ...: small integers, so every sum below is exact in bfloat16 too.
kd::Tensor base_values(std::int64_t n) { return kd::remainder(kd::arange(0, n), 16) + 1; }
// rank r holds base_values * (r + 1).
kd::Tensor rank_values(std::int64_t n, int r, kd::DType d) {
  return (base_values(n) * static_cast<double>(r + 1)).to(d);
}
}  // namespace

// `mpi_collectives ring`: all_reduce SUM and AVG through the ring all-reduce (exercise ch11.ex4).
int main(int argc, char** argv) {
  const bool ring = argc > 1 && std::string(argv[1]) == "ring";
  dist::init_process_group({.all_reduce_algorithm = ring ? "ring" : "mpi"});
  rank = dist::get_rank();
  world = dist::get_world_size();
  const double ranks_sum = world * (world + 1) / 2.0;  // sum of (r + 1)
  for (kd::DType d : {kd::kFloat32, kd::kFloat64, kd::kBFloat16, kd::kInt64}) {
    const std::string dn = kd::dtype_name(d);
    for (std::int64_t n : {7, 0, 1000}) {
      const std::string tag = dn + " n=" + std::to_string(n);
      const kd::Tensor base = base_values(n);
      // all_reduce SUM and MAX, synchronous and asynchronous
      kd::Tensor t = rank_values(n, rank, d);
      dist::all_reduce(t, dist::ReduceOp::SUM);
      expect_equal(t, (base * ranks_sum).to(d), "all_reduce SUM " + tag);
      t = rank_values(n, rank, d);
      dist::Work w = dist::all_reduce(t, dist::ReduceOp::MAX, /*async_op=*/true);
      w.wait();
      expect(w.is_completed(), "is_completed after wait");
      expect_equal(t, rank_values(n, world - 1, d), "all_reduce MAX " + tag);
      if (d != kd::kInt64) {
        t = rank_values(n, rank, d);
        dist::all_reduce(t, dist::ReduceOp::AVG);
        expect_equal(t, (base * (ranks_sum / world)).to(d), "all_reduce AVG " + tag);
      }
      // broadcast from the last rank
      t = rank_values(n, rank, d);
      dist::broadcast(t, world - 1, true).wait();
      expect_equal(t, rank_values(n, world - 1, d), "broadcast " + tag);
      // all_gather: a list, and into one tensor
      std::vector<kd::Tensor> outs;
      for (int r = 0; r < world; ++r) outs.push_back(kd::zeros({n}, {.dtype = d}));
      dist::all_gather(outs, rank_values(n, rank, d));
      for (int r = 0; r < world; ++r) expect_equal(outs[r], rank_values(n, r, d), "all_gather " + tag);
      kd::Tensor flat = kd::zeros({world * n}, {.dtype = d});
      dist::all_gather_into_tensor(flat, rank_values(n, rank, d), true).wait();
      for (int r = 0; r < world; ++r)
        expect_equal(flat.slice(0, r * n, (r + 1) * n), rank_values(n, r, d), "all_gather_into_tensor " + tag);
      // reduce_scatter: block b of rank r is rank_values(n, r) * (b + 1); rank b gets the sum over r
      std::vector<kd::Tensor> blocks;
      for (int b = 0; b < world; ++b) blocks.push_back((rank_values(n, rank, kd::kFloat64) * (b + 1.0)).to(d));
      kd::Tensor out = kd::zeros({n}, {.dtype = d});
      dist::reduce_scatter(out, blocks);
      const kd::Tensor want = (base * ranks_sum * (rank + 1.0)).to(d);
      expect_equal(out, want, "reduce_scatter " + tag);
      out = kd::zeros({n}, {.dtype = d});
      dist::reduce_scatter_tensor(out, kd::cat(blocks, 0), dist::ReduceOp::SUM, true).wait();
      expect_equal(out, want, "reduce_scatter_tensor " + tag);
    }
  }
  // Several asynchronous all-reduces in flight at once complete in the order they were called.
  std::vector<kd::Tensor> ts;
  std::vector<dist::Work> works;
  for (int i = 0; i < 8; ++i) {
    ts.push_back(kd::full({100 + i}, static_cast<double>(rank + i)));
    works.push_back(dist::all_reduce(ts.back(), dist::ReduceOp::SUM, true));
  }
  for (int i = 0; i < 8; ++i) {
    works[i].wait();
    expect_equal(ts[i], kd::full({100 + i}, ranks_sum - world + world * static_cast<double>(i)), "in flight");
  }
  dist::barrier();
  if (rank == 0) std::printf("collectives: every check passed on %d ranks\n", world);
  dist::destroy_process_group();
  return 0;
}
