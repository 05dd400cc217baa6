// DataLoader: batching, shuffling, determinism across worker counts, errors, early exit.
#include <catch2/catch.hpp>

#include <chrono>
#include <set>
#include <vector>

#include <kindling/tensor/small_object_pool.hpp>
#include <kindling/tensor/small_object_pool_stats.hpp>

#include "data/data_test_utils.hpp"
#include "sanitizers.hpp"

namespace kd = kindling;
using kd::data::DataLoader;
using kdtest::ProbeDataset;

namespace {
// Every batch of one epoch as (indices, noise) vectors, for comparing epochs and loaders.
template <class Loader>
std::vector<std::vector<float>> epoch_values(Loader& loader) {
  std::vector<std::vector<float>> out;
  for (auto& [x, y] : loader) {
    out.push_back(x.template to_vector<float>());
    std::vector<std::int64_t> labels = y.template to_vector<std::int64_t>();
    // the label of each row must be the index stored in the row: samples stay paired
    for (std::size_t r = 0; r < labels.size(); ++r) REQUIRE(out.back()[2 * r] == static_cast<float>(labels[r]));
  }
  return out;
}
std::vector<std::int64_t> epoch_indices(const std::vector<std::vector<float>>& batches) {
  std::vector<std::int64_t> idx;
  for (const auto& b : batches)
    for (std::size_t k = 0; k < b.size(); k += 2) idx.push_back(static_cast<std::int64_t>(b[k]));
  return idx;
}
}  // namespace

TEST_CASE("DataLoader: batches in order, shapes and dtypes, size()") {
  ProbeDataset ds{.n = 10};
  DataLoader loader(ds, {.batch_size = 4});
  CHECK(loader.size() == 3);  // ceil(10 / 4)
  std::vector<kd::Shape> shapes;
  std::vector<std::int64_t> seen;
  for (auto& [inputs, labels] : loader) {
    shapes.push_back(inputs.shape());
    CHECK(inputs.dtype() == kd::kFloat32);
    CHECK(labels.dtype() == kd::kInt64);
    CHECK(labels.dim() == 1);
    for (auto v : labels.to_vector<std::int64_t>()) seen.push_back(v);
  }
  CHECK(shapes == std::vector<kd::Shape>{{4, 2}, {4, 2}, {2, 2}});
  std::vector<std::int64_t> expected(10);
  for (std::int64_t i = 0; i < 10; ++i) expected[static_cast<std::size_t>(i)] = i;
  CHECK(seen == expected);  // shuffle=false: sequential
}

TEST_CASE("DataLoader: drop_last drops the short batch") {
  ProbeDataset ds{.n = 10};
  DataLoader loader(ds, {.batch_size = 4, .drop_last = true});
  CHECK(loader.size() == 2);
  std::int64_t batches = 0;
  for (auto& [x, y] : loader) {
    CHECK(x.size(0) == 4);
    ++batches;
  }
  CHECK(batches == 2);
  DataLoader exact(ds, {.batch_size = 5, .drop_last = true});
  CHECK(exact.size() == 2);
}

TEST_CASE("DataLoader: shuffle visits every index once, a new order each epoch", "[threads]") {
  ProbeDataset ds{.n = 50};
  for (std::int64_t workers : {0, 2}) {
    DataLoader loader(ds, {.batch_size = 8, .shuffle = true, .num_workers = workers, .seed = 7});
    auto e1 = epoch_indices(epoch_values(loader));
    auto e2 = epoch_indices(epoch_values(loader));
    CHECK(std::set<std::int64_t>(e1.begin(), e1.end()).size() == 50);
    CHECK(e1.size() == 50);
    CHECK(std::set<std::int64_t>(e2.begin(), e2.end()).size() == 50);
    CHECK(e1 != e2);  // a new permutation each epoch
    std::vector<std::int64_t> sorted = e1;
    std::sort(sorted.begin(), sorted.end());
    CHECK(e1 != sorted);  // actually shuffled
  }
}

TEST_CASE("DataLoader: the same seed gives the same batches for 0, 1, 2 and 4 workers", "[threads]") {
  ProbeDataset ds{.n = 37};
  std::vector<std::vector<std::vector<float>>> reference;  // two epochs
  {
    DataLoader loader(ds, {.batch_size = 5, .shuffle = true, .num_workers = 0, .seed = 123});
    reference.push_back(epoch_values(loader));
    reference.push_back(epoch_values(loader));
  }
  for (std::int64_t workers : {1, 2, 4}) {
    DataLoader loader(ds, {.batch_size = 5, .shuffle = true, .num_workers = workers, .seed = 123});
    INFO("num_workers = " << workers);
    CHECK(epoch_values(loader) == reference[0]);  // same order *and* same per-sample randomness
    CHECK(epoch_values(loader) == reference[1]);
  }
  DataLoader other(ds, {.batch_size = 5, .shuffle = true, .num_workers = 2, .seed = 124});
  CHECK(epoch_values(other) != reference[0]);
}

TEST_CASE("DataLoader: kd::manual_seed makes an unseeded loader reproducible", "[threads]") {
  ProbeDataset ds{.n = 20};
  DataLoader loader(ds, {.batch_size = 6, .shuffle = true, .num_workers = 2});
  kd::manual_seed(5);
  auto a = epoch_values(loader);
  kd::manual_seed(5);
  auto b = epoch_values(loader);
  CHECK(a == b);
  kd::Generator g(9);
  DataLoader with_gen(ds, {.batch_size = 6, .shuffle = true, .generator = &g});
  auto c = epoch_values(with_gen);
  g.manual_seed(9);
  CHECK(epoch_values(with_gen) == c);
}

TEST_CASE("DataLoader: random transforms are reproducible across worker counts", "[threads]") {
  // Images 1x6x6 with distinct pixels; RandomCrop + flip + rotation draw per-sample randomness.
  kd::Tensor images = kd::arange(0, 20 * 36).to(kd::kFloat32).reshape({20, 1, 6, 6});
  kd::data::TensorDataset base(images, kd::arange(0, 20));
  namespace T = kd::data::transforms;
  T::Compose augment({T::RandomCrop(4, {.padding = 1}), T::RandomHorizontalFlip(0.5), T::RandomRotation(30)});
  struct Augmented {
    kd::data::TensorDataset base;
    T::Compose augment;
    std::int64_t size() const { return base.size(); }
    kd::data::Example get(std::int64_t i) const {
      auto [x, y] = base.get(i);
      return {augment(x), y};
    }
  } ds{base, augment};
  auto run = [&](std::int64_t workers) {
    DataLoader loader(ds, {.batch_size = 3, .shuffle = true, .num_workers = workers, .seed = 99});
    std::vector<std::vector<float>> out;
    for (auto& [x, y] : loader) out.push_back(x.to_vector<float>());
    return out;
  };
  auto ref = run(0);
  CHECK(run(1) == ref);
  CHECK(run(4) == ref);
  // and the augmentation really is random: the crops differ from the plain centre window
  std::int64_t differing = 0;
  for (const auto& b : ref) differing += b != ref.front();
  CHECK(differing > 0);
}

TEST_CASE("DataLoader: a worker's exception reaches the loop with the sample index", "[threads]") {
  for (std::int64_t workers : {0, 1, 3}) {
    INFO("num_workers = " << workers);
    ProbeDataset ds{.n = 30, .throw_at = 13};
    DataLoader loader(ds, {.batch_size = 4, .num_workers = workers});
    std::int64_t batches_before = 0;
    bool caught = false;
    try {
      for (auto& batch : loader) {
        (void)batch;
        ++batches_before;
      }
    } catch (const kd::data::DataLoaderError& e) {
      caught = true;
      const std::string msg = e.what();
      CHECK_THAT(msg, Catch::Contains("sample index 13"));
      CHECK_THAT(msg, Catch::Contains("probe: cannot read sample 13"));
      // the original exception is nested inside
      bool nested = false;
      try {
        std::rethrow_if_nested(e);
      } catch (const std::runtime_error& inner) {
        nested = std::string(inner.what()) == "probe: cannot read sample 13";
      }
      CHECK(nested);
    }
    CHECK(caught);
    CHECK(batches_before == 3);  // batches 0..2 arrived in order before batch 3 (indices 12..15) failed
  }
}

TEST_CASE("DataLoader: break out of the loop early, then run a full epoch", "[threads]") {
  ProbeDataset ds{.n = 400, .sleep_us = 200};
  DataLoader loader(ds, {.batch_size = 4, .shuffle = true, .num_workers = 4, .seed = 1});
  std::int64_t taken = 0;
  for ([[maybe_unused]] auto& batch : loader) {
    if (++taken == 2) break;
  }
  CHECK(taken == 2);
  // Leaving the loop joined the workers without loading the remaining 98 batches: 2 batches taken
  // + at most prefetch_factor x workers in flight.
  CHECK(ds.calls->load() <= (2 + 2 * 4) * 4);
  std::int64_t full = 0;
  for (auto& [x, y] : loader) full += x.size(0);
  CHECK(full == 400);
}

TEST_CASE("DataLoader: prefetching is bounded by prefetch_factor x num_workers", "[threads]") {
  ProbeDataset ds{.n = 200};
  DataLoader loader(ds, {.batch_size = 2, .num_workers = 2, .prefetch_factor = 2});
  auto it = loader.begin();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let the workers run ahead
  // one batch in the loop's hands + at most 2 x 2 in flight, 2 samples each
  CHECK(ds.calls->load() <= (1 + 2 * 2) * 2);
  CHECK(ds.calls->load() >= 2);
}

TEST_CASE("DataLoader: destroying the iterator and loader mid-epoch joins the workers", "[threads]") {
  ProbeDataset ds{.n = 100, .sleep_us = 100};
  {
    DataLoader loader(ds, {.batch_size = 5, .num_workers = 3});
    auto it = loader.begin();
    ++it;
    CHECK((*it).data.size(0) == 5);
  }  // iterator, then loader, destroyed with workers busy
  {
    auto it = DataLoader(ProbeDataset{.n = 50}, {.batch_size = 5, .num_workers = 2}).begin();
    // the temporary loader is gone; the epoch keeps its own (moved-in) dataset alive
    std::int64_t rows = 0;
    for (; it != std::default_sentinel; ++it) rows += it->data.size(0);
    CHECK(rows == 50);
  }
}

TEST_CASE("DataLoader: custom collate function") {
  ProbeDataset ds{.n = 7};
  auto count_collate = [](std::vector<kd::data::Example>&& samples) {
    return static_cast<std::int64_t>(samples.size());
  };
  DataLoader loader(ds, {.batch_size = 3}, count_collate);
  std::vector<std::int64_t> sizes;
  for (std::int64_t n : loader) sizes.push_back(n);
  CHECK(sizes == std::vector<std::int64_t>{3, 3, 1});
}

TEST_CASE("DataLoader: custom sampler, option errors, pin_memory accepted") {
  ProbeDataset ds{.n = 10};
  auto sampler = std::make_shared<kd::data::SubsetRandomSampler>(std::vector<std::int64_t>{1, 3, 5});
  DataLoader loader(ds, {.batch_size = 2, .seed = 3, .sampler = sampler});
  CHECK(loader.size() == 2);
  std::set<std::int64_t> seen;
  for (auto& [x, y] : loader)
    for (auto v : y.to_vector<std::int64_t>()) seen.insert(v);
  CHECK(seen == std::set<std::int64_t>{1, 3, 5});
  CHECK_THROWS_AS(DataLoader(ds, {.shuffle = true, .sampler = sampler}), kd::ValueError);
  CHECK_THROWS_AS(DataLoader(ds, {.batch_size = 0}), kd::ValueError);
  CHECK_THROWS_AS(DataLoader(ds, {.num_workers = -1}), kd::ValueError);
  DataLoader pinned(ds, {.batch_size = 5, .pin_memory = true});
  CHECK(pinned.size() == 2);
}

TEST_CASE("DataLoader: collating samples of different shapes names the sample") {
  struct Ragged {
    std::int64_t size() const { return 4; }
    kd::data::Example get(std::int64_t i) const { return {kd::zeros({i + 1}), kd::scalar_tensor(i)}; }
  };
  DataLoader loader(Ragged{}, {.batch_size = 2});
  try {
    for (auto& b : loader) (void)b;
    FAIL("expected an error");
  } catch (const kd::data::DataLoaderError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("collating batch 0"));
    CHECK_THAT(std::string(e.what()), Catch::Contains("[2]"));
  }
}

TEST_CASE("collate: default collate stacks into one preallocated batch") {
  std::vector<kd::Tensor> samples = {kd::rand({3, 2}), kd::rand({3, 2}).t().contiguous().t(), kd::rand({3, 2})};
  kd::Tensor batch = kd::data::collate_tensors(samples);
  CHECK(batch.shape() == kd::Shape{3, 3, 2});
  CHECK(kd::equal(batch, kd::stack(samples)));  // same as chapter 1's stack
  auto pairs = kd::data::DefaultCollate{}(std::vector<std::pair<kd::Tensor, std::int64_t>>{
      {kd::ones({2}), 4}, {kd::zeros({2}), 5}});
  CHECK(pairs.first.shape() == kd::Shape{2, 2});
  CHECK(pairs.second.dtype() == kd::kInt64);
  CHECK(pairs.second.to_vector<std::int64_t>() == std::vector<std::int64_t>{4, 5});
  // Numbers as PyTorch's default_collate makes them: int -> int64, float -> float64, bool -> bool.
  const kd::Tensor flags = kd::data::DefaultCollate{}(std::vector<bool>{true, false, true});
  CHECK(flags.dtype() == kd::kBool);
  CHECK(flags.to_vector<bool>() == std::vector<bool>{true, false, true});
  CHECK(kd::data::DefaultCollate{}(std::vector<float>{0.5f, 2.0f}).dtype() == kd::kFloat64);
  CHECK(kd::data::DefaultCollate{}(std::vector<int>{1, 2}).dtype() == kd::kInt64);
}

TEST_CASE("DataLoader: with workers, the small-object pool stops growing after warm-up", "[threads]") {
#if !defined(KINDLING_TEST_ASAN)
  // The workers allocate each batch's small blocks, the loop frees them. Before the pool had a
  // shared depot, the loop thread kept every one (up to its cap) while the workers called malloc
  // for each batch's: ~1.2 KB more resident memory per batch. Counted by the pool itself.
  namespace kdd = kd::detail;
  ProbeDataset ds{.n = 64};
  DataLoader loader(ds, {.batch_size = 4, .shuffle = true, .num_workers = 2, .seed = 5});
  auto run_epochs = [&](int epochs) {
    std::int64_t rows = 0;
    for (int e = 0; e < epochs; ++e)
      for (auto& [x, y] : loader) rows += x.size(0);
    return rows;
  };
  // Warm-up: until the loop thread's lists are full (kMaxLocalIdleBytes, ~1.2 KB a batch) and its
  // excess reaches the depot, then 50 epochs more (800 batches) to settle.
  int epochs = 0;
  auto filled = [&] { return kdd::pool_stats().thread_idle_bytes + 64 * 1024 > kdd::kMaxLocalIdleBytes; };
  while (!filled() && epochs < 5000) epochs += (run_epochs(10), 10);
  INFO("warm-up epochs: " << epochs);
  CHECK(filled());
  CHECK(run_epochs(50) == 3200);
  const kdd::PoolStats warm = kdd::pool_stats();
  CHECK(run_epochs(200) == 12800);  // 3200 more batches
  const kdd::PoolStats after = kdd::pool_stats();
  INFO("refills during the last 3200 batches: " << after.refills - warm.refills);
  CHECK(after.refills - warm.refills < 3200);  // well under one malloc per batch (before: many)
  CHECK(after.thread_idle_bytes <= kdd::kMaxLocalIdleBytes);
  CHECK(after.depot_bytes <= kdd::kMaxDepotBytes);
#endif
}
