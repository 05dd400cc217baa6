// Chapter 4 — Fashion-MNIST from Debian's dataset-fashion-mnist package: raw samples
// (uint8 HW), ToTensor (float CHW in [0, 1]), Normalize with the training set's
// statistics, an HWC colour image from a file, and the error you get when the data is
// missing.
#include <kindling/data.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>

namespace kd = kindling;
namespace T = kd::data::transforms;

int main() {
  // [snippet: raw]
  // From /usr/share/datasets/fashion-mnist (Debian's dataset-fashion-mnist).
  kd::data::FashionMNIST train(kd::data::Split::Train);
  kd::data::FashionMNIST test(kd::data::Split::Test);
  auto [image, label] = train.get(0);  // no transform: as stored, uint8 [28, 28]
  // [end]
  std::cout << "train: " << train.size() << " images, test: " << test.size()
            << " images (from " << train.root() << ")\n";
  const auto k = static_cast<std::size_t>(label.item<std::int64_t>());
  std::cout << "train[0]: image " << kd::shape_str(image.shape()) << " "
            << kd::dtype_name(image.dtype()) << ", pixel range "
            << image.min().item<std::int64_t>() << ".."
            << image.max().item<std::int64_t>() << ", label " << k << " = "
            << kd::data::FashionMNIST::classes()[k] << "\n";

  // [snippet: to-tensor]
  kd::data::FashionMNIST as_tensors(kd::data::Split::Train, T::ToTensor());
  kd::Tensor x = as_tensors.get(0).data;  // float32 [1, 28, 28] in [0, 1]
  // [end]
  std::printf("ToTensor: %s %s, range %.3f..%.3f\n", kd::shape_str(x.shape()).c_str(),
              kd::dtype_name(x.dtype()), x.min().item<double>(),
              x.max().item<double>());

  // [snippet: stats]
  // Normalize needs the training set's mean and std (never the test set's).
  kd::Tensor pixels = train.data().to(kd::kFloat32) / 255.0;  // [60000, 28, 28]
  const double mean = pixels.mean().item<double>();
  const double stdev = pixels.std().item<double>();
  auto normalize = T::Compose({T::ToTensor(), T::Normalize({mean}, {stdev})});
  kd::Tensor z = normalize(image);  // (x - mean) / std: centred near 0, spread near 1
  // [end]
  std::printf("training set: mean %.4f, std %.4f\n", mean, stdev);
  std::printf("Normalize: %s, range %.3f..%.3f, mean %.3f\n",
              kd::shape_str(z.shape()).c_str(), z.min().item<double>(),
              z.max().item<double>(), z.mean().item<double>());

  // [snippet: hwc]
  // Image files (and NumPy arrays) are HWC: save a yellow version as PNG, read it back.
  kd::Tensor rgb = kd::stack({image, image, kd::zeros_like(image)}, 2);  // [28, 28, 3]
  kd::data::save_png(rgb, "ch04_fashion_mnist_rgb.png");
  kd::Tensor loaded = kd::data::load_image("ch04_fashion_mnist_rgb.png");  // [H, W, C]
  kd::Tensor chw = T::ToTensor()(loaded);  // [C, H, W] float32
  // [end]
  std::cout << "load_image: " << kd::shape_str(loaded.shape()) << " "
            << kd::dtype_name(loaded.dtype())
            << " -> ToTensor: " << kd::shape_str(chw.shape()) << " "
            << kd::dtype_name(chw.dtype()) << "\n";

  // [snippet: missing]
  std::filesystem::create_directories("ch04_empty_folder");
  try {
    kd::data::FashionMNIST missing(kd::data::Split::Train, {}, "ch04_empty_folder");
  } catch (const kd::IOError& e) {
    std::cout << "IOError: " << e.what() << "\n";
  }
  // [end]
  std::filesystem::remove("ch04_empty_folder");
}
