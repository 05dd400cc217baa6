// Chapter 4 — what makes loading fast or slow, measured on this machine: num_workers
// with a slow get(), too many workers, a .npy cache of preprocessed samples, batch_size
// and shuffle.
#include <kindling/data.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <vector>

namespace kd = kindling;
namespace T = kd::data::transforms;

namespace {
// Samples per second of one full pass of `loader` (the loop body does nothing: this is
// pure loading).
template <class Loader>
double samples_per_second(Loader& loader) {
  const auto t0 = std::chrono::steady_clock::now();
  std::int64_t n = 0;
  for (auto& [x, y] : loader) n += x.size(0);
  return static_cast<double>(n) /
         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// [snippet: slow-io-dataset]
// A get() that waits instead of computing, like reading each sample from a network
// disk: 1 ms per sample.
struct SlowDisk {
  kd::data::FashionMNIST images{kd::data::Split::Train,
                                kd::data::transforms::ToTensor()};
  std::int64_t size() const { return 512; }
  kd::data::Example get(std::int64_t i) const {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the "disk"
    return images.get(i);
  }
};
// [end]

std::vector<std::int64_t> first(std::int64_t n) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
  return v;
}
}  // namespace

int main() {
  std::printf("this machine: %u hardware threads\n\n",
              std::thread::hardware_concurrency());

  // [snippet: slow-get]
  // A deliberately slow get(): every sample is blown up to 448x448 and shrunk back,
  // standing in for decoding a large JPEG. All of it runs inside get(), so worker
  // threads share the work.
  auto heavy = T::Compose({T::ToTensor(), T::Resize({448, 448}), T::Resize({28, 28}),
                           T::Normalize({0.2860}, {0.3530})});
  kd::data::Subset slow(kd::data::FashionMNIST(kd::data::Split::Train, heavy),
                        first(1536));
  for (std::int64_t workers : {0, 1, 2, 4, 8}) {
    kd::data::DataLoader loader(
        slow, {.batch_size = 32, .shuffle = true, .num_workers = workers, .seed = 0});
    std::printf("slow get(), num_workers=%lld: %8.0f samples/s\n",
                static_cast<long long>(workers), samples_per_second(loader));
  }
  // [end]

  // [snippet: slow-io]
  SlowDisk disk;
  std::printf("\n");
  for (std::int64_t workers : {0, 1, 2, 4, 8}) {
    kd::data::DataLoader loader(
        disk, {.batch_size = 32, .shuffle = true, .num_workers = workers, .seed = 0});
    std::printf("waiting get(), num_workers=%lld: %5.0f samples/s\n",
                static_cast<long long>(workers), samples_per_second(loader));
  }
  // [end]

  // [snippet: cache]
  // Preprocess once, save as .npy, then serve rows from memory (only for deterministic
  // preprocessing: random augmentation must stay in get(), or every epoch would see the
  // same "random" variant).
  auto t0 = std::chrono::steady_clock::now();
  kd::data::CachedDataset cached(slow, "ch04_throughput_cache",
                                 {.rebuild = true, .num_workers = 2});
  const double build_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t0 = std::chrono::steady_clock::now();
  // the files exist: just load them
  kd::data::CachedDataset reloaded(slow, "ch04_throughput_cache");
  const double load_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  kd::data::DataLoader from_cache(reloaded,
                                  {.batch_size = 32, .shuffle = true, .seed = 0});
  // [end]
  std::printf(
      "\ncache: built in %.2f s (2 workers), %.1f MB of .npy; reloaded in %.3f s (from "
      "files: %s)\n",
      build_s,
      static_cast<double>(
          std::filesystem::file_size("ch04_throughput_cache.data.npy")) /
          1e6,
      load_s, reloaded.loaded_from_cache() ? "yes" : "no");
  std::printf("cached, num_workers=0:        %8.0f samples/s\n",
              samples_per_second(from_cache));
  std::printf("same samples as the slow get(): %s\n",
              kd::equal(cached.data(), reloaded.data()) ? "yes" : "no");
  std::filesystem::remove("ch04_throughput_cache.data.npy");
  std::filesystem::remove("ch04_throughput_cache.targets.npy");

  // [snippet: batch-size]
  // A cheap get() (ToTensor of an in-memory image): now the per-batch overhead shows.
  kd::data::Subset cheap(kd::data::FashionMNIST(kd::data::Split::Train, T::ToTensor()),
                         first(20000));
  for (std::int64_t batch_size : {1, 16, 64, 256}) {
    kd::data::DataLoader loader(cheap,
                                {.batch_size = batch_size, .shuffle = true, .seed = 0});
    std::printf("cheap get(), batch_size=%-4lld %9.0f samples/s\n",
                static_cast<long long>(batch_size), samples_per_second(loader));
  }
  for (bool shuffle : {false, true}) {
    kd::data::DataLoader loader(cheap,
                                {.batch_size = 64, .shuffle = shuffle, .seed = 0});
    std::printf("cheap get(), shuffle=%-5s    %9.0f samples/s\n",
                shuffle ? "true" : "false", samples_per_second(loader));
  }
  // [end]
}
