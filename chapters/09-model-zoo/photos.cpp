// Real photographs through a zoo model's input pipeline: Tux Paint's animal
// photos (Debian's tuxpaint-stamps-default, GPL-2) read by ImageFolder, augmented
// the way ImageNet models are trained, batched, and run through ResNet-18. Writes
// ch09_photos.png: photos and their random variants.
#include <map>

#include "common.hpp"

namespace T = kd::data::transforms;

namespace {
const std::vector<double> kMean = {0.485, 0.456, 0.406}, kStd = {0.229, 0.224, 0.225};

// A normalised [3, H, W] image back to uint8 [H, W, 3] for a picture.
kd::Tensor to_pixels(const kd::Tensor& x) {
  const kd::Tensor mean = kd::tensor(kMean, {3, 1, 1});
  const kd::Tensor stdev = kd::tensor(kStd, {3, 1, 1});
  const kd::Tensor unit = (x * stdev + mean).clamp(0.0, 1.0);
  return (unit * 255.0).round().to(kd::kUInt8).permute({1, 2, 0});
}

// Pastes uint8 [h, w, 3] tiles into one image, `cols` per row, 4 px of white
// between.
kd::Tensor grid(const std::vector<kd::Tensor>& tiles, std::int64_t cols) {
  const std::int64_t h = tiles[0].size(0), w = tiles[0].size(1), gap = 4;
  const auto n = static_cast<std::int64_t>(tiles.size());
  const std::int64_t rows = (n + cols - 1) / cols;
  kd::Tensor out = kd::full({rows * (h + gap) + gap, cols * (w + gap) + gap, 3}, 255,
                            {.dtype = kd::kUInt8});
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t r = i / cols, c = i % cols;
    out.narrow(0, gap + r * (h + gap), h)
        .narrow(1, gap + c * (w + gap), w)
        .copy_(tiles[static_cast<std::size_t>(i)]);
  }
  return out;
}
}  // namespace

int main() {
  kd::manual_seed(0);
  // [snippet: folder]
  // One folder per class: animals/birds/*.png, animals/mammals/bears/*.png, ...
  const std::string root = "/usr/share/tuxpaint/stamps/animals";
  // ImageNet's training pipeline. Kindling's transforms work on tensors:
  // ToTensor comes first.
  auto train_tf = T::Compose({T::ToTensor(), T::Resize({224, 224}),
                              T::RandomHorizontalFlip(), T::RandomRotation(10),
                              T::ColorJitter(0.2, 0.2), T::Normalize(kMean, kStd)});
  kd::data::ImageFolder photos(root, train_tf);
  // [end]
  std::map<std::int64_t, int> count;
  for (const auto& [path, label] : photos.samples()) ++count[label];
  std::printf("%lld photos in %zu classes:\n", static_cast<long long>(photos.size()),
              photos.classes().size());
  for (std::size_t c = 0; c < photos.classes().size(); ++c) {
    std::printf("  %zu %-10s %3d\n", c, photos.classes()[c].c_str(),
                count[static_cast<std::int64_t>(c)]);
  }

  // [snippet: batch]
  kd::data::DataLoader loader(photos, {.batch_size = 8, .shuffle = true, .seed = 0});
  auto [x, y] = *loader.begin();  // x: [8, 3, 224, 224] float32, y: [8] int64
  auto model = models::resnet18({.num_classes = 9});  // a new head: 9 classes
  model->eval();
  kd::NoGradGuard no_grad;
  const kd::Tensor logits = (*model)(x);  // [8, 9]
  // [end]
  std::printf("batch: x %s %s, y %s; logits %s\n", kd::shape_str(x.shape()).c_str(),
              kd::dtype_name(x.dtype()), kd::shape_str(y.shape()).c_str(),
              kd::shape_str(logits.shape()).c_str());

  // Four photos, each as the validation pipeline shows it, then four random
  // variants: a flamingo, a clownfish, a mantis, a tiger.
  auto val_tf = T::Compose({T::ToTensor(), T::Resize({224, 224}),
                            T::Normalize(kMean, kStd)});
  kd::data::ImageFolder plain(root);  // uint8 [H, W, 3], as decoded
  std::vector<kd::Tensor> tiles;
  for (std::int64_t i : {28, 43, 59, 118}) {
    const kd::Tensor image = plain.get(i).data;
    tiles.push_back(to_pixels(val_tf(image)));
    for (int v = 0; v < 4; ++v) tiles.push_back(to_pixels(train_tf(image)));
  }
  kd::data::save_png(grid(tiles, 5), "ch09_photos.png");
  std::printf("ch09_photos.png: 4 photos x (as validated + 4 training variants), "
              "224x224 each\n");
}
