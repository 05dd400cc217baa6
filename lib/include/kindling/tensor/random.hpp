#pragma once
/// @file
/// Random tensors from one seedable global generator (torch.manual_seed ↔ kd::manual_seed).
#include <cstdint>
#include <random>

#include "kindling/tensor/tensor.hpp"

namespace kindling {

/// A pseudo-random generator (64-bit Mersenne Twister) whose state can be saved and restored,
/// which checkpoints need to resume a run bit for bit.
class Generator {
 public:
  explicit Generator(std::uint64_t seed = 5489u) : engine_(seed), seed_(seed) {}
  void manual_seed(std::uint64_t seed);
  std::uint64_t initial_seed() const { return seed_; }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform();
  /// Standard normal (Box–Muller; deterministic on every platform, unlike std::normal_distribution).
  double normal();
  /// Uniform integer in [low, high).
  std::int64_t randint(std::int64_t low, std::int64_t high);
  std::uint64_t next_u64() { return engine_(); }
  /// The whole state as text (save) / restore from it.
  std::string get_state() const;
  void set_state(const std::string& state);

 private:
  std::mt19937_64 engine_;
  std::uint64_t seed_;
  bool has_spare_normal_ = false;
  double spare_normal_ = 0;
};

/// The generator every random op uses unless given another one.
Generator& default_generator();
/// Seeds the default generator: the same seed gives the same random tensors.
void manual_seed(std::uint64_t seed);

/// Uniform in [0, 1).
Tensor rand(const Shape& shape, TensorOptions options = {}, Generator* gen = nullptr);
/// Standard normal.
Tensor randn(const Shape& shape, TensorOptions options = {}, Generator* gen = nullptr);
/// Integers uniform in [low, high) (int64 unless options say otherwise).
Tensor randint(std::int64_t low, std::int64_t high, const Shape& shape,
               TensorOptions options = {.dtype = kInt64}, Generator* gen = nullptr);
/// A random permutation of 0..n-1 (int64).
Tensor randperm(std::int64_t n, Generator* gen = nullptr);
Tensor rand_like(const Tensor& other, Generator* gen = nullptr);
Tensor randn_like(const Tensor& other, Generator* gen = nullptr);

}  // namespace kindling
