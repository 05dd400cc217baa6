#pragma once
/// @file
/// Random tensors from one seedable global generator (torch.manual_seed ↔ kd::manual_seed).
#include <cstdint>
#include <mutex>
#include <random>
#include <string>

#include "kindling/tensor/tensor.hpp"

namespace kindling {

/// A pseudo-random generator (64-bit Mersenne Twister) whose state can be saved and restored,
/// which checkpoints need to resume a run bit for bit.
///
/// A Generator may be shared between threads (the default one is: DataLoader workers, nn::init on
/// two threads, dropout, activation checkpointing): every call below takes the generator's own
/// lock, so concurrent draws never tear its state and every value drawn is one of its stream,
/// drawn once. For a run of draws, lock() takes the lock once and keeps it (one tensor's worth of
/// numbers in one piece, and no lock per number).
class Generator {
  // The stream itself, unsynchronised; every access goes through the lock below.
  struct Stream {
    std::mt19937_64 engine;
    std::uint64_t seed;
    bool has_spare_normal = false;
    double spare_normal = 0;
    double uniform();
    double normal();
    std::int64_t randint(std::int64_t low, std::int64_t high);
  };

 public:
  explicit Generator(std::uint64_t seed = 5489u) : stream_{std::mt19937_64(seed), seed} {}
  /// A copy continues the same stream independently (the state is copied, not the lock).
  Generator(const Generator& other) : stream_(other.locked_copy()) {}
  Generator& operator=(const Generator& other);

  void manual_seed(std::uint64_t seed);
  std::uint64_t initial_seed() const;
  /// Uniform in [0, 1) with 53 random bits.
  double uniform();
  /// Standard normal (Box–Muller; deterministic on every platform, unlike std::normal_distribution).
  double normal();
  /// Uniform integer in [low, high).
  std::int64_t randint(std::int64_t low, std::int64_t high);
  std::uint64_t next_u64();
  /// The whole state as text (save) / restore from it.
  std::string get_state() const;
  void set_state(const std::string& state);

  /// Exclusive use of the generator while it lives: the same draws as the Generator's own, without
  /// a lock per number. Do not call the Generator's own functions on this thread meanwhile (its
  /// lock is held here: that would deadlock).
  class Draws {
   public:
    double uniform() { return stream_->uniform(); }
    double normal() { return stream_->normal(); }
    std::int64_t randint(std::int64_t low, std::int64_t high) { return stream_->randint(low, high); }
    std::uint64_t next_u64() { return stream_->engine(); }

   private:
    friend class Generator;
    Draws(std::mutex& m, Stream& s) : lock_(m), stream_(&s) {}
    std::unique_lock<std::mutex> lock_;
    Stream* stream_;
  };
  [[nodiscard]] Draws lock() { return Draws(mutex_, stream_); }

 private:
  Stream locked_copy() const;
  Stream stream_;
  mutable std::mutex mutex_;
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
