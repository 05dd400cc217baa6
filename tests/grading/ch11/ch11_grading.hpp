#pragma once
// Shared by chapter 11's graded tests. None of them needs mpirun: the sampler and the bucket
// assignment are arithmetic on one rank's view, DistributedDataParallel's bucket bookkeeping runs on
// a BucketState the test builds, and the ring all-reduce runs with one thread per rank
// (simulate_ring_all_reduce). The twin (tests/grading/ch11/pytorch.py) draws the sizes per run.
#include <cstdint>
#include <string>
#include <vector>

#include <kindling/distributed.hpp>
#include <kindling/kindling.hpp>

#include "grading.hpp"

namespace ch11_grading {
namespace kd = kindling;
namespace dist = kd::distributed;

/// An int the twin chose for this run (an int64 0-d input).
inline std::int64_t int_of(const std::string& name) { return grading::input(name).item<std::int64_t>(); }

/// An int64 1-d input as a list.
inline std::vector<std::int64_t> ints_of(const std::string& name) {
  const kd::Tensor t = grading::input(name);
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < t.numel(); ++i) out.push_back(t[i].item<std::int64_t>());
  return out;
}

}  // namespace ch11_grading
