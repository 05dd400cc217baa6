#pragma once
// Helpers shared by the data layer's tests: a temporary folder and small synthetic datasets.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

#include <kindling/data.hpp>

namespace kdtest {
namespace kd = kindling;

/// A fresh folder under the system temp dir, removed (recursively) at the end of the test.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::random_device rd;
    path = std::filesystem::temp_directory_path() /
           ("kindling-data-test-" + std::to_string(rd()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

/// Sample i: data = float32 [2] {i, noise} where noise comes from current_generator() (so it
/// tests per-sample seeding), target = int64 0-d i. Counts get() calls; can sleep and throw.
struct ProbeDataset {
  std::int64_t n = 10;
  std::int64_t throw_at = -1;           // index whose get() throws std::runtime_error
  int sleep_us = 0;                     // per get()
  std::shared_ptr<std::atomic<std::int64_t>> calls = std::make_shared<std::atomic<std::int64_t>>(0);

  std::int64_t size() const { return n; }
  kd::data::Example get(std::int64_t i) const {
    calls->fetch_add(1);
    if (sleep_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
    if (i == throw_at) throw std::runtime_error("probe: cannot read sample " + std::to_string(i));
    kd::Tensor data = kd::empty({2});
    data.data_ptr<float>()[0] = static_cast<float>(i);
    data.data_ptr<float>()[1] = static_cast<float>(kd::data::current_generator().uniform());
    return {data, kd::scalar_tensor(i, {.dtype = kd::kInt64})};
  }
};

}  // namespace kdtest
