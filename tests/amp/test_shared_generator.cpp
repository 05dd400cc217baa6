// The default generator shared by threads: nn::init, dropout, kd::rand and activation
// checkpointing's save/restore of its state all go through the generator's own lock, so draws
// from several threads never tear its state. Run under ThreadSanitizer by `make tsan` ([threads]);
// without it, a torn or lost draw shows as a number drawn twice or a stream that went on from the
// wrong place. The fills are large so that the threads' draws overlap for long: before the
// generator had its own lock, 5 runs in 6 of the first test failed even without TSan (2 cores).
#include <catch2/catch.hpp>
#include <kindling/amp.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

namespace kd = kindling;
namespace F = kindling::nn::functional;
using kd::Tensor;

namespace {
std::vector<double> values_of(const Tensor& t) {
  const Tensor c = t.contiguous();
  return {c.data_ptr<double>(), c.data_ptr<double>() + c.numel()};
}
}  // namespace

TEST_CASE("generator: init, dropout and rand on several threads draw each number of the stream once",
          "[threads]") {
  constexpr int kThreads = 4, kRounds = 10;
  constexpr std::int64_t kInit = 20000, kRand = 2000, kDropout = 10000;
  kd::manual_seed(2024);
  std::vector<std::vector<double>> seen(kThreads);
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ++ready;
      while (ready.load() < kThreads) std::this_thread::yield();  // all start drawing together
      for (int r = 0; r < kRounds; ++r) {
        // Each draws one uniform per element from the default generator.
        Tensor w = kd::empty({kInit}, {.dtype = kd::kFloat64});
        kd::nn::init::uniform_(w);
        const Tensor u = kd::rand({kRand}, {.dtype = kd::kFloat64});
        F::dropout(kd::ones({kDropout}, {.dtype = kd::kFloat64}), 0.5, true);
        for (const Tensor& x : {w, u}) {
          const auto v = values_of(x);
          seen[t].insert(seen[t].end(), v.begin(), v.end());
        }
      }
    });
  }
  for (auto& th : threads) th.join();

  // Every draw took one word of the stream, and no word went to two draws: the values seen are
  // distinct words of the first `total`, and the generator went on from exactly there.
  const std::int64_t total = std::int64_t{kThreads} * kRounds * (kInit + kRand + kDropout);
  kd::Generator reference(2024);
  std::vector<double> stream(static_cast<std::size_t>(total));
  for (double& x : stream) x = reference.uniform();
  std::vector<double> all;
  for (const auto& v : seen) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());  // nothing drawn twice
  std::sort(stream.begin(), stream.end());
  CHECK(std::includes(stream.begin(), stream.end(), all.begin(), all.end()));
  CHECK(kd::default_generator().uniform() == reference.uniform());
}

TEST_CASE("generator: checkpointed segments with dropout trained on several threads at once", "[threads]") {
  // Each checkpoint saves the default generator's state in forward and sets it twice in backward;
  // other threads draw meanwhile. Which numbers each thread gets is up to the scheduler (as with
  // PyTorch's checkpoint), but no get_state/set_state may see a half-written state.
  constexpr int kThreads = 4, kSteps = 25;
  std::vector<int> finite(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      kd::Generator own(static_cast<std::uint64_t>(t));
      const Tensor w = kd::randn({16, 16}, {}, &own).requires_grad_();
      const Tensor x = kd::randn({8, 16}, {}, &own).requires_grad_();
      for (int s = 0; s < kSteps; ++s) {
        Tensor out = kd::utils::checkpoint(
            [&](const Tensor& h) { return F::dropout(h.matmul(w), 0.3, true).tanh(); }, x);
        kd::randn({32});  // a draw between the forward's save and the backward's restore
        out.sum().backward();
        finite[t] += std::isfinite(w.grad().sum().item<double>()) ? 1 : 0;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) CHECK(finite[t] == kSteps);
}
