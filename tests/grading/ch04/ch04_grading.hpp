#pragma once
// Shared by chapter 4's graded tests: temporary files, random images and small datasets.
// Expected values always come from the library (kindling::data is tested against torchvision) or from
// invariants, never from numbers typed in here.
#include <catch2/catch.hpp>
#include <kindling/data.hpp>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "ch04/data_exercises.hpp"

namespace ch04_grading {
namespace kd = kindling;
namespace ex = kindling::exercises::ch04;
namespace fs = std::filesystem;

/// A fresh, empty folder for this test process; removed when the object dies.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("kindling-ch04-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  /// Writes `text` to a file in the folder and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = path / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
};

/// A random image of `shape`: uint8 in 0..255, or float in [0, 1).
inline kd::Tensor random_image(const kd::Shape& shape, kd::DType dtype, kd::Generator& gen) {
  if (dtype == kd::kUInt8) return kd::randint(0, 256, shape, {.dtype = kd::kInt64}, &gen).to(kd::kUInt8);
  return kd::rand(shape, {.dtype = dtype}, &gen);
}

/// "what() contains `part`" with the message in the failure report.
inline bool message_has(const std::exception& e, const std::string& part) {
  return std::string(e.what()).find(part) != std::string::npos;
}

/// Milliseconds since `t0`.
inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// An atomic running maximum.
inline void update_max(std::atomic<std::int64_t>& m, std::int64_t v) {
  std::int64_t cur = m.load();
  while (v > cur && !m.compare_exchange_weak(cur, v)) {
  }
}

}  // namespace ch04_grading
