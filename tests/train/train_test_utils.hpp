#pragma once
// Helpers shared by the training layer's tests: a temporary folder, a small model with Dropout (so
// training consumes random numbers) and a synthetic classification dataset.
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <kindling/train.hpp>

namespace kdtest {
namespace kd = kindling;

/// A fresh folder under the system temp dir, removed (recursively) at the end of the test.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::random_device rd;
    path = std::filesystem::temp_directory_path() /
           ("kindling-train-test-" + std::to_string(rd()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

/// 20 → 16 → 5 with Dropout: its forward draws random numbers in train() mode.
struct SmallNet : kd::nn::Module {
  kd::nn::Linear fc1{20, 16};
  kd::nn::ReLU relu;
  kd::nn::Dropout drop{0.2};
  kd::nn::Linear fc2{16, 5};
  SmallNet() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("drop", drop);
    register_module("fc2", fc2);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return fc2(drop(relu(fc1(x)))); }
};

/// n samples of 20 features, labels 0..4 from a fixed linear rule (learnable), from its own generator.
inline kd::data::TensorDataset make_dataset(std::int64_t n = 96, std::uint64_t seed = 7) {
  kd::Generator gen(seed);
  kd::Tensor x = kd::randn({n, 20}, {}, &gen);
  kd::Tensor w = kd::randn({20, 5}, {}, &gen);
  kd::Tensor y = x.matmul(w).argmax(1);
  return kd::data::TensorDataset(x, y);
}

/// Exact copies of every parameter's values (for bit-for-bit comparisons).
inline std::vector<std::vector<float>> snapshot(const kd::nn::Module& m) {
  std::vector<std::vector<float>> out;
  for (const auto& p : m.parameters()) out.push_back(p.detach().contiguous().to_vector<float>());
  return out;
}

}  // namespace kdtest
