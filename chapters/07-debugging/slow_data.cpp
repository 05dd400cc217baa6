// A loader that starves the model, as an image dataset on disk does: every get()
// reads a photo-sized PNG file, decodes it and shrinks it to 28x28 (ImageFolder with
// ToTensor, Resize and Normalize). profile_loader splits the time into waiting for
// data and computing, and each loading thread's time into get() and idle; workers share
// the decoding, and a cache of the decoded tensors removes it.
#include <filesystem>
#include <string>

#include "common.hpp"

namespace {

namespace fs = std::filesystem;
namespace T = kd::data::transforms;

// [snippet: photo-folder]
// The first `n` Fashion-MNIST training images, written once as 224x224 RGB PNG files in
// one folder per class: the layout, and the decoding cost, of a folder of photographs.
void write_photo_folder(const std::string& root, std::int64_t n) {
  Fashion raw(kd::data::Split::Train);
  for (std::int64_t i = 0; i < n; ++i) {
    // uint8 [28, 28] -> each pixel an 8x8 square, three equal channels: [224, 224, 3]
    kd::Tensor photo = raw.data()[i]
                           .view({28, 1, 28, 1, 1})
                           .expand({28, 8, 28, 8, 3})
                           .reshape({224, 224, 3});
    const std::string dir = root + "/" + std::to_string(raw.targets()[i].item<int>());
    fs::create_directories(dir);
    kd::data::save_png(photo, dir + "/" + std::to_string(i) + ".png");
  }
}
// [end]

kd::nn::CrossEntropyLoss criterion;

}  // namespace

int main() {
  const std::int64_t n = 512;
  const std::string root = "ch07_photos";
  fs::remove_all(root);  // written afresh: the folder is this program's own
  write_photo_folder(root, n);
  // [snippet: decode-get]
  // get(i): read the file, decode it to gray uint8 [224, 224, 1], then
  // float [1, 224, 224] -> [1, 28, 28] -> normalised
  kd::data::ImageFolder photos(root,
                               T::Compose({T::ToTensor(), T::Resize({28, 28}),
                                           T::Normalize({0.2860}, {0.3530})}),
                               {.channels = 1});
  // [end]
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
  dbg::TimedDataset<kd::data::ImageFolder> timed(photos, timer);
  // [end]
  std::printf("%lld PNG files of 224x224 pixels, one get() each per epoch\n",
              static_cast<long long>(photos.size()));
  for (std::int64_t workers : {0, 2}) {
    // [snippet: profile]
    kd::data::DataLoader loader(timed, {.batch_size = 64, .num_workers = workers});
    auto profile = dbg::profile_loader(loader, step, -1, timer.get());
    std::printf("num_workers=%lld: %s\n", static_cast<long long>(workers),
                profile.to_string().c_str());
    // [end]
  }
  // [snippet: cache]
  // decode once, keep the tensors as .npy files, train from memory
  std::filesystem::remove("ch07_photos.data.npy");
  std::filesystem::remove("ch07_photos.targets.npy");
  kd::data::CachedDataset cached(photos, "ch07_photos");
  kd::data::DataLoader fast(cached, {.batch_size = 64});
  std::printf("cached:        %s\n",
              dbg::profile_loader(fast, step).to_string().c_str());
  // [end]
}
