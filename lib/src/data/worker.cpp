// Per-thread, per-sample generators: deterministic augmentation with any number of workers.
#include "kindling/data/worker.hpp"

namespace kindling::data {
namespace {
thread_local SampleGeneratorGuard* t_current = nullptr;
thread_local std::optional<WorkerInfo> t_worker_info;

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
}  // namespace

std::uint64_t sample_seed(std::uint64_t base_seed, std::uint64_t position) {
  return splitmix64(base_seed ^ splitmix64(position));
}

SampleGeneratorGuard::SampleGeneratorGuard(std::uint64_t seed) : seed_(seed), previous_(t_current) {
  t_current = this;
}

SampleGeneratorGuard::~SampleGeneratorGuard() { t_current = previous_; }

Generator& current_generator() {
  if (t_current == nullptr) return default_generator();
  if (!t_current->generator_) t_current->generator_.emplace(t_current->seed_);
  return *t_current->generator_;
}

std::optional<WorkerInfo> get_worker_info() { return t_worker_info; }

namespace detail {
void set_worker_info(std::optional<WorkerInfo> info) { t_worker_info = info; }
}  // namespace detail

}  // namespace kindling::data
