// Chapter 11 parity, Kindling's side (PyTorch's: ch11_distributed.py). The cases are made by the
// same loops as the Python side, so their names match one for one.
#include <deque>
#include <string>

#include "kindling/distributed.hpp"
#include "parity.hpp"

namespace dist = kindling::distributed;

namespace {
kd::Tensor as_tensor(const std::vector<std::int64_t>& v) {
  kd::Tensor t = kd::empty({static_cast<std::int64_t>(v.size())}, {.dtype = kd::kInt64});
  for (std::size_t i = 0; i < v.size(); ++i) t.data_ptr<std::int64_t>()[i] = v[i];
  return t;
}

void sampler_case(std::int64_t n, std::int64_t R, std::int64_t r, bool shuffle, bool drop_last, std::uint64_t s,
                  std::int64_t epoch) {
  const std::string name = "sampler/n" + std::to_string(n) + "-R" + std::to_string(R) + "-r" + std::to_string(r) +
                           "-shuffle" + std::to_string(shuffle) + "-drop" + std::to_string(drop_last) + "-s" +
                           std::to_string(s) + "-e" + std::to_string(epoch);
  parity::register_case(name.c_str(), [=](parity::Inputs&) -> parity::Outputs {
    dist::DistributedSampler sampler(
        n, {.num_replicas = R, .rank = r, .shuffle = shuffle, .seed = s, .drop_last = drop_last});
    sampler.set_epoch(epoch);
    const auto idx = sampler.indices();
    if (static_cast<std::int64_t>(idx.size()) != sampler.size()) throw kd::Error("size() disagrees with indices()");
    return as_tensor(idx);
  });
}

const bool registered = [] {
  for (std::int64_t n : {1, 7, 10, 1003})
    for (std::int64_t R : {2, 3, 4})
      for (std::int64_t r = 0; r < R; ++r)
        for (bool drop_last : {false, true}) {
          sampler_case(n, R, r, false, drop_last, 0, 0);
          sampler_case(n, R, r, true, drop_last, 0, 0);
          sampler_case(n, R, r, true, drop_last, 42, 3);
        }
  const std::pair<std::int64_t, std::uint64_t> perms[] = {
      {0, 0}, {1, 5}, {10, 0}, {1000, 123}, {100000, 7}, {20, (1ull << 32) + 5}};
  for (auto [n, s] : perms) {
    const std::string name = "randperm/n" + std::to_string(n) + "-s" + std::to_string(s);
    parity::register_case(name.c_str(), [n = n, s = s](parity::Inputs&) -> parity::Outputs {
      return as_tensor(dist::torch_randperm(n, s));
    });
  }
  return true;
}();
}  // namespace

namespace {
struct BucketCase {
  const char* name;
  std::vector<std::pair<std::int64_t, kd::DType>> sizes;
  std::vector<std::int64_t> limits;
};

const bool buckets_registered = [] {
  const kd::DType f = kd::kFloat32, d = kd::kFloat64;
  static const std::vector<BucketCase> cases = {
      {"buckets/1MB-then-25MB", {{157286, f}, {157286, f}, {2621440, f}, {5242880, f}, {256, f}}, {1 << 20, 25 << 20}},
      {"buckets/dtypes-apart", {{4, f}, {4, d}, {4, f}, {300000, d}, {9, d}}, {1 << 20}},
      {"buckets/small-limits", {{3, f}, {40, f}, {7, f}, {100, f}, {1, f}, {1, f}, {64, f}, {20, f}}, {16, 200, 100}},
      {"buckets/exact-limit", {{256, f}, {256, f}, {512, f}}, {1024, 2048}},
  };
  for (const BucketCase& c : cases) {
    parity::register_case(c.name, [&c](parity::Inputs&) -> parity::Outputs {
      std::vector<kd::Tensor> tensors;
      for (auto [n, dtype] : c.sizes) tensors.push_back(kd::empty({n}, {.dtype = dtype}));
      std::vector<std::int64_t> flat;
      for (const auto& b : dist::compute_bucket_assignment_by_size(tensors, c.limits)) {
        for (std::size_t i : b) flat.push_back(static_cast<std::int64_t>(i));
        flat.push_back(-1);
      }
      return as_tensor(flat);
    });
  }
  return true;
}();
}  // namespace

PARITY_CASE("sampler/rank-out-of-range") {
  return as_tensor(dist::DistributedSampler(5, {.num_replicas = 2, .rank = 2}).indices());
}
PARITY_CASE("sampler/negative-rank") {
  return as_tensor(dist::DistributedSampler(5, {.num_replicas = 2, .rank = -1}).indices());
}
