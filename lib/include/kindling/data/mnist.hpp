#pragma once
/// @file
/// MNIST-format datasets: the IDX file format, MNIST from any folder, and Fashion-MNIST from
/// Debian's `dataset-fashion-mnist` package (/usr/share/datasets/fashion-mnist).
///
/// The whole file is read into memory once (60,000 × 28 × 28 bytes = 47 MB): a sample is then a
/// view of one image, and the only per-sample work is the transform.
#include <cstdint>
#include <string>
#include <vector>

#include "kindling/data/dataset.hpp"
#include "kindling/data/transforms.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling::data {

/// Which part of a dataset: the training set or the held-out test set.
enum class Split { Train, Test };

/// Reads an IDX file (the MNIST format: magic `0x0000 08 <ndim>`, big-endian uint32 sizes, then the
/// unsigned bytes), compressed with gzip or not. Returns a uint8 tensor with the file's shape.
/// Throws IOError naming the file and what is wrong (missing, bad magic, truncated, extra bytes).
Tensor read_idx(const std::string& path);

/// MNIST-format images and labels from a folder holding train-images-idx3-ubyte[.gz],
/// train-labels-idx1-ubyte[.gz], t10k-images-idx3-ubyte[.gz] and t10k-labels-idx1-ubyte[.gz].
/// A sample is {transform(image), label}: image uint8 [28, 28] (or what the transform makes of it,
/// e.g. ToTensor → float32 [1, 28, 28]), label a 0-d int64 tensor.
class MNIST {
 public:
  MNIST(const std::string& root, Split split, transforms::Transform transform = {},
        transforms::Transform target_transform = {});
  std::int64_t size() const { return images_.size(0); }
  Example get(std::int64_t index) const;
  /// All images, uint8 [N, 28, 28] (torchvision's .data).
  const Tensor& data() const { return images_; }
  /// All labels, int64 [N] (torchvision's .targets).
  const Tensor& targets() const { return labels_; }
  const std::string& root() const { return root_; }

 protected:
  /// `dataset_name` and `install_hint` go into error messages.
  MNIST(const std::string& root, Split split, transforms::Transform transform, transforms::Transform target_transform,
        const std::string& dataset_name, const std::string& install_hint);

 private:
  std::string root_;
  Tensor images_, labels_;
  transforms::Transform transform_, target_transform_;
};

/// Fashion-MNIST (Zalando): 60,000 training and 10,000 test images of 10 kinds of clothing.
///
///     namespace T = kd::data::transforms;
///     auto train = kd::data::FashionMNIST(kd::data::Split::Train, T::ToTensor());
///
/// The folder defaults to $KINDLING_FASHION_MNIST if set, else /usr/share/datasets/fashion-mnist
/// (`sudo apt-get install dataset-fashion-mnist`).
class FashionMNIST : public MNIST {
 public:
  explicit FashionMNIST(Split split = Split::Train, transforms::Transform transform = {},
                        const std::string& root = default_root(), transforms::Transform target_transform = {});
  /// $KINDLING_FASHION_MNIST, or /usr/share/datasets/fashion-mnist.
  static std::string default_root();
  /// "T-shirt/top", "Trouser", ... indexed by label.
  static const std::vector<std::string>& classes();
};

}  // namespace kindling::data
