// Chapter 4 — data augmentation: the classic ImageNet pipeline on Fashion-MNIST (a grid
// picture of random variants), why flips are wrong for digits (a picture), no
// randomness on validation data, and reproducible augmented batches for any number of
// workers.
#include <kindling/data.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace kd = kindling;
namespace T = kd::data::transforms;
namespace F = kd::data::transforms::functional;

namespace {
constexpr double kMean = 0.2860, kStd = 0.3530;  // training set's (ch04_fashion_mnist)

// A normalised float image [1, H, W] back to uint8 [H, W] for a picture.
kd::Tensor to_pixels(const kd::Tensor& x) {
  return ((x[0] * kStd + kMean).clamp(0.0, 1.0) * 255.0).to(kd::kUInt8);
}

// Pastes uint8 [h, w] tiles into one grid image, `cols` per row, 2 px of grey between.
kd::Tensor grid(const std::vector<kd::Tensor>& tiles, std::int64_t cols) {
  const std::int64_t h = tiles[0].size(0), w = tiles[0].size(1), gap = 2;
  const std::int64_t rows = (static_cast<std::int64_t>(tiles.size()) + cols - 1) / cols;
  kd::Tensor out = kd::full({rows * (h + gap) + gap, cols * (w + gap) + gap}, 128,
                            {.dtype = kd::kUInt8});
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    const std::int64_t r = static_cast<std::int64_t>(i) / cols,
                       c = static_cast<std::int64_t>(i) % cols;
    out.narrow(0, gap + r * (h + gap), h)
        .narrow(1, gap + c * (w + gap), w)
        .copy_(tiles[i]);
  }
  return out;
}

// Nearest-neighbour 2x upscaling of a uint8 [h, w] image: a pixel becomes a 2x2 block.
kd::Tensor twice_as_large(const kd::Tensor& img) {
  const std::int64_t h = img.size(0), w = img.size(1);
  kd::Tensor rows = img.unsqueeze(1).expand({h, 2, w}).reshape({2 * h, w});
  return rows.unsqueeze(2).expand({2 * h, w, 2}).reshape({2 * h, 2 * w});
}

// Handwriting stand-in: digits from a 5x7 bitmap font, drawn 3x larger into a
// 27x27 uint8 image.
kd::Tensor digit(char d) {
  static const std::vector<std::pair<char, std::vector<std::string>>> font = {
      {'2', {"01110", "10001", "00001", "00010", "00100", "01000", "11111"}},
      {'3', {"11111", "00010", "00100", "00010", "00001", "10001", "01110"}},
      {'4', {"00010", "00110", "01010", "10010", "11111", "00010", "00010"}},
      {'5', {"11111", "10000", "11110", "00001", "00001", "10001", "01110"}},
      {'6', {"00110", "01000", "10000", "11110", "10001", "10001", "01110"}},
      {'7', {"11111", "00001", "00010", "00100", "01000", "01000", "01000"}},
      {'9', {"01110", "10001", "10001", "01111", "00001", "00010", "01100"}},
  };
  // odd size: the glyph sits exactly centred
  kd::Tensor img = kd::zeros({27, 27}, {.dtype = kd::kUInt8});
  for (const auto& [c, rows] : font) {
    if (c != d) continue;
    for (std::int64_t y = 0; y < 7; ++y)
      for (std::int64_t x = 0; x < 5; ++x)
        if (rows[static_cast<std::size_t>(y)][static_cast<std::size_t>(x)] == '1')
          img.narrow(0, 3 + 3 * y, 3).narrow(1, 6 + 3 * x, 3).fill_(255);
  }
  return img;
}
}  // namespace

int main() {
  // [snippet: pipelines]
  // Kindling's transforms work on CHW tensors, so ToTensor comes first; the 28x28
  // images grow to 56x56.
  auto train_tf = T::Compose({T::ToTensor(), T::Resize({56, 56}),
                              T::RandomHorizontalFlip(0.5), T::RandomRotation(10),
                              T::ColorJitter(0.2, 0.2), T::Normalize({kMean}, {kStd})});
  // Validation: the same deterministic steps, no random ones.
  auto val_tf =
      T::Compose({T::ToTensor(), T::Resize({56, 56}), T::Normalize({kMean}, {kStd})});
  // [end]

  // One image of each class; 7 epochs over them show 7 random variants of each.
  kd::data::FashionMNIST raw(kd::data::Split::Train);
  std::vector<std::int64_t> one_per_class(10, -1);
  for (std::int64_t i = 0, found = 0; found < 10; ++i) {
    auto& slot =
        one_per_class[static_cast<std::size_t>(raw.targets()[i].item<std::int64_t>())];
    if (slot < 0) slot = i, ++found;
  }
  // [snippet: epochs]
  kd::data::FashionMNIST train(kd::data::Split::Train, train_tf);
  kd::data::Subset ten(train, one_per_class);
  kd::data::DataLoader loader(ten, {.batch_size = 10, .seed = 0});
  std::vector<kd::Tensor> epochs;  // each [10, 1, 56, 56]: new variants every epoch
  for (int epoch = 0; epoch < 7; ++epoch)
    for (auto& [x, y] : loader) epochs.push_back(x);
  // [end]
  std::vector<kd::Tensor> tiles;
  for (std::int64_t c = 0; c < 10; ++c) {
    const auto original = raw.get(one_per_class[static_cast<std::size_t>(c)]).data;
    tiles.push_back(to_pixels(val_tf(original)));
    for (const kd::Tensor& batch : epochs) tiles.push_back(to_pixels(batch[c]));
  }
  kd::data::save_png(grid(tiles, 8), "ch04_augment.png");
  std::printf(
      "ch04_augment.png: 10 classes x (original + 7 epochs of augmentation), 56x56 "
      "each\n");

  // [snippet: digits]
  // Flipping is wrong for digits and letters: a mirrored 2 is no digit at all, and a 6
  // turned upside down is a 9. Keep rotations small (RandomRotation(10)).
  std::vector<kd::Tensor> digits;
  const std::string shown = "2345679";
  for (char d : shown) digits.push_back(digit(d));               // row 1: as written
  for (char d : shown) digits.push_back(F::hflip(digit(d)));     // row 2: flipped
  for (char d : shown) digits.push_back(F::rotate(digit(d), 180));  // 3: upside down
  for (char d : shown)  // row 4: rotated by 10 degrees
    digits.push_back(F::rotate(digit(d).unsqueeze(0), 10)[0]);
  for (auto& d : digits) d = twice_as_large(d);
  kd::data::save_png(grid(digits, 7), "ch04_augment_digits.png");
  // [end]
  std::printf("ch04_augment_digits.png: rotate(6, 180) == 9: %s\n",
              kd::equal(F::rotate(digit('6'), 180), digit('9')) ? "true" : "false");

  // [snippet: validation]
  kd::data::FashionMNIST val(kd::data::Split::Test, val_tf);
  kd::data::DataLoader val_loader(val, {.batch_size = 64});  // shuffle = false
  kd::data::DataLoader train_loader(train, {.batch_size = 64, .seed = 0});  // in order
  auto first_batch = [](auto& l) { return (*l.begin()).data; };
  const bool val_same = kd::equal(first_batch(val_loader), first_batch(val_loader));
  const bool train_same =
      kd::equal(first_batch(train_loader), first_batch(train_loader));
  // [end]
  std::printf("validation: first batch identical in two epochs: %s\n",
              val_same ? "true" : "false");
  std::printf("training:   first batch identical in two epochs: %s\n",
              train_same ? "true" : "false");

  // [snippet: workers]
  // Random transforms draw from a generator seeded per sample from (loader seed,
  // position in the epoch): the same seed gives the same augmented batches with 0, 1, 2
  // or 4 worker threads.
  kd::data::Subset first512(train, [] {
    std::vector<std::int64_t> v(512);
    for (std::int64_t i = 0; i < 512; ++i) v[static_cast<std::size_t>(i)] = i;
    return v;
  }());
  for (std::int64_t workers : {0, 1, 2, 4}) {
    kd::data::DataLoader l(
        first512,
        {.batch_size = 32, .shuffle = true, .num_workers = workers, .seed = 3});
    double checksum = 0;
    for (auto& [x, y] : l)
      checksum += (x * x).sum().item<double>();  // every pixel of the epoch
    std::printf("num_workers=%lld: checksum of the augmented epoch %.6f\n",
                static_cast<long long>(workers), checksum);
  }
  // [end]
}
