// Pinned host memory, streams, events and the asynchronous copy to the device, and the
// DataLoader's pin_memory: on the emulated device (where all of it is synchronous, and says so),
// and on a GPU (ctest reports those as skipped, with the reason, when there is none).
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "kindling/cuda.hpp"
#include "helpers.hpp"
#include "kindling/data.hpp"
#include "kindling/tensor.hpp"

namespace kd = kindling;
namespace kc = kindling::cuda;
using kc::testing::need_emulated_device;
using kc::testing::skip;
using Catch::Matchers::Contains;

namespace {

// CTest runs every test case in its own process; exit code 77 is "skipped" (tests/CMakeLists.txt).
const kd::Device kCuda = kd::Device::parse("cuda");

}  // namespace

TEST_CASE("streams: pin_memory without a device set up is refused, and says how to set one up") {
  const kd::Tensor t = kd::randn({3});
  REQUIRE_THROWS_AS(kd::pin_memory(t), kd::DeviceError);
  REQUIRE_THROWS_WITH(kd::pin_memory(t), Contains("pin_memory") && Contains("is_available()"));
  CHECK_FALSE(kd::is_pinned(t));
  REQUIRE_THROWS_WITH(kc::Stream(), Contains("no CUDA device is set up"));
}

TEST_CASE("streams: pin_memory copies into pinned memory, once") {
  need_emulated_device();
  const kd::Tensor t = kd::randn({4, 5});
  const kd::Tensor view = t.t();  // non-contiguous: pinned as a contiguous copy
  const kd::Tensor p = kd::pin_memory(view);
  CHECK(kd::is_pinned(p));
  CHECK_FALSE(kd::is_pinned(t));
  CHECK(p.device().is_cpu());
  CHECK(p.is_contiguous());
  CHECK(p.to_vector<float>() == view.contiguous().to_vector<float>());
  CHECK(kd::pin_memory(p).data_ptr<float>() == p.data_ptr<float>());  // already pinned: itself
  const kd::Tensor empty = kd::pin_memory(kd::zeros({0, 3}));
  CHECK(kd::is_pinned(empty));
  CHECK(empty.numel() == 0);
  REQUIRE_THROWS_WITH(kd::pin_memory(t.to(kCuda)), Contains("only a CPU tensor"));
}

TEST_CASE("streams: an asynchronous copy from pinned memory, a stream and timed events") {
  need_emulated_device();
  const kd::Tensor x = kd::pin_memory(kd::randn({64, 32}));
  kc::Stream stream;
  CHECK(stream.native_handle() == nullptr);  // the emulated device has no CUDA stream behind it
  kc::Event start(true), stop(true);
  start.record(stream);
  const kd::Tensor d = kc::to_device_async(x, kCuda, stream);
  stop.record(stream);
  CHECK(d.device() == kCuda);
  CHECK(stream.query());  // the emulated device finishes every copy before the call returns
  stream.synchronize();
  stop.synchronize();
  CHECK(stop.query());
  CHECK(d.cpu().to_vector<float>() == x.to_vector<float>());
  CHECK(start.elapsed_time(stop) >= 0.0);
  // From pageable memory the copy is synchronous, and just as correct.
  const kd::Tensor y = kd::randn({7});
  CHECK(kc::to_device_async(y, kCuda, kc::Stream::default_stream()).cpu().to_vector<float>() ==
        y.to_vector<float>());
  // Another stream can wait for an event of this one.
  kc::Stream other;
  stop.wait(other);
  other.synchronize();
  CHECK_FALSE(other == stream);
  CHECK(stream == stream);
}

TEST_CASE("streams: elapsed_time needs two recorded, timed events, and copies go from CPU to CUDA") {
  need_emulated_device();
  kc::Event plain, timed(true), unrecorded(true);
  plain.record();
  timed.record();
  REQUIRE_THROWS_AS(plain.elapsed_time(timed), kd::ValueError);
  REQUIRE_THROWS_WITH(timed.elapsed_time(plain), Contains("enable_timing"));
  REQUIRE_THROWS_WITH(timed.elapsed_time(unrecorded), Contains("recorded"));
  CHECK(unrecorded.query());  // nothing recorded: nothing to wait for
  kc::Stream s;
  const kd::Tensor on_device = kd::randn({2}).to(kCuda);
  REQUIRE_THROWS_WITH(kc::to_device_async(on_device, kCuda, s), Contains("must be a CPU tensor"));
  REQUIRE_THROWS_WITH(kc::to_device_async(kd::randn({2}), kd::kCPU, s), Contains("must be a CUDA device"));
}

TEST_CASE("streams: the DataLoader's pin_memory hands out pinned batches, with and without workers") {
  need_emulated_device();
  kd::data::TensorDataset ds(kd::randn({10, 3}), kd::arange(10));
  for (std::int64_t workers : {0, 2}) {
    kd::data::DataLoader loader(ds, {.batch_size = 4, .num_workers = workers, .pin_memory = true});
    std::int64_t rows = 0;
    for (auto& batch : loader) {
      CHECK(kd::is_pinned(batch.data));
      CHECK(kd::is_pinned(batch.target));
      rows += batch.data.size(0);
      CHECK(kc::to_device_async(batch.data, kCuda, kc::Stream::default_stream()).device() == kCuda);
    }
    CHECK(rows == 10);
  }
  kd::data::DataLoader unpinned(ds, {.batch_size = 4});
  for (auto& batch : unpinned) CHECK_FALSE(kd::is_pinned(batch.data));
}

TEST_CASE("streams: on a GPU a copy from pinned memory is queued on its stream") {
  if (!kc::is_available()) skip("no usable CUDA device: " + kc::unavailable_reason());
  const kd::Tensor x = kd::pin_memory(kd::randn({1 << 20}));
  REQUIRE(kd::is_pinned(x));
  kc::Stream stream;
  REQUIRE(stream.native_handle() != nullptr);
  kc::Event start(true), stop(true);
  start.record(stream);
  const kd::Tensor d = kc::to_device_async(x, kCuda, stream);
  stop.record(stream);
  stream.synchronize();
  CHECK(stop.query());
  CHECK(start.elapsed_time(stop) > 0.0);
  CHECK(d.cpu().to_vector<float>() == x.to_vector<float>());
}
