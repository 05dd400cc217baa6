// A loader that starves the model: get() does heavy work (a blur repeated many times,
// the stand-in for decoding a large image) on every sample. profile_loader splits the
// time into waiting for data and computing, and each loading thread's time into get()
// and idle; workers share the waiting, a cache removes it.
#include <filesystem>

#include "common.hpp"

namespace {

// [snippet: heavy-get]
// Fashion-MNIST images passed through a costly, deterministic preprocessing step.
struct HeavyDataset {
  FashionSubset base;
  std::int64_t size() const { return base.size(); }
  kd::data::Example get(std::int64_t i) const {
    kd::data::Example ex = base.get(i);
    kd::Tensor img = ex.data.contiguous().clone();  // [1, 28, 28]
    float* p = img.data_ptr<float>();
    std::vector<float> out(784);
    for (int pass = 0; pass < 40; ++pass) {  // 40 passes of a 3x3 box blur
      for (int r = 0; r < 28; ++r)
        for (int c = 0; c < 28; ++c) {
          float s = 0;
          int n = 0;
          for (int dr = -1; dr <= 1; ++dr)
            for (int dc = -1; dc <= 1; ++dc) {
              const int rr = r + dr, cc = c + dc;
              if (rr >= 0 && rr < 28 && cc >= 0 && cc < 28) s += p[rr * 28 + cc], ++n;
            }
          out[r * 28 + c] = s / n;
        }
      std::copy(out.begin(), out.end(), p);
    }
    return {img, ex.target};
  }
};
// [end]

kd::nn::CrossEntropyLoss criterion;

}  // namespace

int main() {
  HeavyDataset heavy{fashion_subset(kd::data::Split::Train, 2048)};
  kd::manual_seed(0);
  SimpleNet model;
  kd::optim::Adam opt(model.parameters(), {.lr = 1e-3});
  auto step = [&](kd::data::Example& batch) {
    opt.zero_grad();
    criterion(model(batch.data), batch.target).backward();
    opt.step();
  };
  // [snippet: timed]
  // every get() timed, by the worker thread that makes it
  auto timer = std::make_shared<dbg::GetTimer>();
  dbg::TimedDataset<HeavyDataset> timed(heavy, timer);
  // [end]
  for (std::int64_t workers : {0, 2}) {
    // [snippet: profile]
    kd::data::DataLoader loader(timed, {.batch_size = 64, .num_workers = workers});
    auto profile = dbg::profile_loader(loader, step, -1, timer.get());
    std::printf("num_workers=%lld: %s\n", static_cast<long long>(workers),
                profile.to_string().c_str());
    // [end]
  }
  // [snippet: cache]
  // do the heavy work once, keep the result as .npy files, train from memory
  std::filesystem::remove("ch07_heavy.data.npy");
  std::filesystem::remove("ch07_heavy.targets.npy");
  kd::data::CachedDataset cached(heavy, "ch07_heavy");
  kd::data::DataLoader fast(cached, {.batch_size = 64});
  std::printf("cached:        %s\n",
              dbg::profile_loader(fast, step).to_string().c_str());
  // [end]
}
