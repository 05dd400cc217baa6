// DistributedSampler's bookkeeping; its index lists are compared with PyTorch's in
// tests/parity/ch11_distributed.
#include <catch2/catch.hpp>

#include <algorithm>

#include <kindling/data.hpp>
#include <kindling/distributed.hpp>
#include <kindling/tensor.hpp>

namespace kd = kindling;

namespace dist = kindling::distributed;

TEST_CASE("DistributedSampler: the ranks' shards cover every index exactly once per epoch") {
  for (bool shuffle : {false, true}) {
    std::vector<std::int64_t> all;
    for (std::int64_t r = 0; r < 4; ++r) {
      dist::DistributedSampler s(100, {.num_replicas = 4, .rank = r, .shuffle = shuffle, .seed = 3});
      s.set_epoch(5);
      auto mine = s.indices();
      CHECK(static_cast<std::int64_t>(mine.size()) == s.size());
      all.insert(all.end(), mine.begin(), mine.end());
    }
    std::sort(all.begin(), all.end());
    std::vector<std::int64_t> want(100);
    for (std::int64_t i = 0; i < 100; ++i) want[i] = i;
    CHECK(all == want);
  }
}

TEST_CASE("DistributedSampler: set_epoch changes the order and the same epoch repeats it") {
  dist::DistributedSampler s(50, {.num_replicas = 2, .rank = 1});
  const auto e0 = s.indices();
  s.set_epoch(1);
  const auto e1 = s.indices();
  CHECK(e0 != e1);
  s.set_epoch(0);
  CHECK(s.indices() == e0);
}

TEST_CASE("DistributedSampler: padding repeats indices and drop_last drops the tail") {
  dist::DistributedSampler padded(10, {.num_replicas = 4, .rank = 3, .shuffle = false});
  CHECK(padded.size() == 3);
  CHECK(padded.indices() == std::vector<std::int64_t>{3, 7, 1});  // 10, 11 are 0, 1 again
  dist::DistributedSampler dropped(10, {.num_replicas = 4, .rank = 3, .shuffle = false, .drop_last = true});
  CHECK(dropped.size() == 2);
  CHECK(dropped.indices() == std::vector<std::int64_t>{3, 7});
  CHECK_THROWS_WITH(dist::DistributedSampler(10, {.num_replicas = 2, .rank = 2}), Catch::Contains("invalid rank 2"));
}

TEST_CASE("DistributedSampler: a DataLoader given it reads this rank's shard in its order") {
  // 10 samples whose data is their index; rank 1 of 3 reads every third index of the epoch's order.
  kd::data::TensorDataset data(kd::arange(0, 10).to(kd::kFloat32).unsqueeze(1), kd::arange(0, 10));
  auto sampler = std::make_shared<dist::DistributedSampler>(
      10, dist::DistributedSamplerOptions{.num_replicas = 3, .rank = 1, .seed = 9});
  sampler->set_epoch(2);
  kd::data::DataLoader loader(data, {.batch_size = 2, .sampler = sampler});
  std::vector<std::int64_t> seen;
  for (auto& [inputs, labels] : loader)
    for (std::int64_t i = 0; i < labels.numel(); ++i) seen.push_back(labels[i].item<std::int64_t>());
  CHECK(seen == sampler->indices());
  CHECK(seen.size() == 4);  // ceil(10 / 3)
}
