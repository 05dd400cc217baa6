// profile_loader: counts batches and splits time into the loader's and the step's. Only lower
// bounds that sleep_for guarantees are checked (no assertion about speed).
#include <catch2/catch.hpp>
#include <kindling/kindling.hpp>

#include <chrono>
#include <thread>

namespace kd = kindling;

namespace {
struct SlowDataset {  // a get() that does heavy work: 2 ms per sample
  std::int64_t size() const { return 12; }
  kd::data::Example get(std::int64_t i) const {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return {kd::full({3}, static_cast<double>(i)), kd::scalar_tensor(i % 2, {.dtype = kd::kInt64})};
  }
};
}  // namespace

TEST_CASE("loader_profiler: waiting covers get(), compute covers the step") {
  SlowDataset ds;
  kd::data::DataLoader loader(ds, {.batch_size = 4});
  std::int64_t seen = 0;
  const auto p = kd::debug::profile_loader(loader, [&](auto& batch) {
    seen += batch.data.size(0);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  CHECK(p.batches == 3);
  CHECK(seen == 12);
  CHECK(p.wait_seconds >= 12 * 0.002);
  CHECK(p.compute_seconds >= 3 * 0.001);
  CHECK(p.to_string().find("3 batches") != std::string::npos);
  const auto two = kd::debug::profile_loader(loader, [](auto&) {}, 2);
  CHECK(two.batches == 2);
}
