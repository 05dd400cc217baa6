// MNIST-format datasets, loaded into memory once.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "kindling/data/mnist.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling::data {
namespace fs = std::filesystem;

namespace {
constexpr int kNumClasses = 10;  // MNIST's digits, Fashion-MNIST's kinds of clothing

// "<root>/<name>.gz" if it exists, else "<root>/<name>"; empty when neither does.
std::string find_file(const std::string& root, const std::string& name) {
  for (const std::string& candidate : {root + "/" + name + ".gz", root + "/" + name}) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  return {};
}

std::string generic_hint() {
  return "Hint: point it at a folder holding the four MNIST-format files (train-images-idx3-ubyte.gz, "
         "train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz; gzipped or not).";
}
}  // namespace

MNIST::MNIST(const std::string& root, Split split, transforms::Transform transform, transforms::Transform target_transform)
    : MNIST(root, split, std::move(transform), std::move(target_transform), "MNIST", generic_hint()) {}

MNIST::MNIST(const std::string& root, Split split, transforms::Transform transform, transforms::Transform target_transform,
             const std::string& name, const std::string& hint)
    : root_(root), transform_(std::move(transform)), target_transform_(std::move(target_transform)) {
  const std::string prefix = split == Split::Train ? "train" : "t10k";
  const std::string images_name = prefix + "-images-idx3-ubyte", labels_name = prefix + "-labels-idx1-ubyte";
  const std::string images_path = find_file(root, images_name), labels_path = find_file(root, labels_name);
  for (const auto& [path, file] : {std::pair{images_path, images_name}, std::pair{labels_path, labels_name}}) {
    if (path.empty()) {
      throw IOError(name + ": cannot find " + file + ".gz (or " + file + ") in " + root + ". " + hint);
    }
  }
  Tensor images, labels;
  try {
    images = read_idx(images_path);
    labels = read_idx(labels_path);
  } catch (const IOError& e) {
    throw IOError(name + ": " + e.what() + ". " + hint);
  }
  if (images.dim() != 3) {
    throw IOError(name + ": " + images_path + " holds a " + shape_str(images.shape()) +
                  " array; expected images [N, H, W]. " + hint);
  }
  if (labels.dim() != 1 || labels.size(0) != images.size(0)) {
    throw IOError(name + ": " + labels_path + " holds " + shape_str(labels.shape()) + " labels for " +
                  std::to_string(images.size(0)) + " images in " + images_path + "; expected one label per image. " + hint);
  }
  // A label outside 0..9 would index past the 10 logits of the loss (or a classes() table) much later;
  // refuse it here, where the file can be named.
  const auto* l = static_cast<const std::uint8_t*>(labels.raw_data_ptr());
  for (std::int64_t i = 0; i < labels.numel(); ++i) {
    if (l[i] >= kNumClasses) {
      throw IOError(name + ": " + labels_path + ": label " + std::to_string(l[i]) + " at index " + std::to_string(i) +
                    " is not a class index 0.." + std::to_string(kNumClasses - 1) +
                    " (corrupt file, or not an MNIST-format label file). " + hint);
    }
  }
  images_ = images;
  labels_ = labels.to(kInt64);  // class indices are int64, as CrossEntropyLoss expects
}

Example MNIST::get(std::int64_t index) const {
  check_index(index, size(), "MNIST");
  Tensor image = images_.select(0, index);  // uint8 [28, 28], a view
  Tensor label = labels_.select(0, index);  // int64 0-d, a view
  return Example{transform_ ? transform_(image) : image, target_transform_ ? target_transform_(label) : label};
}

FashionMNIST::FashionMNIST(Split split, transforms::Transform transform, const std::string& root,
                           transforms::Transform target_transform)
    : MNIST(root, split, std::move(transform), std::move(target_transform), "FashionMNIST",
            "Install it with `sudo apt-get install dataset-fashion-mnist` (files in "
            "/usr/share/datasets/fashion-mnist), set KINDLING_FASHION_MNIST to a folder that holds the "
            "four IDX files, or pass that folder as FashionMNIST(split, transform, \"/path/to/folder\").") {}

std::string FashionMNIST::default_root() {
  if (const char* env = std::getenv("KINDLING_FASHION_MNIST"); env && *env) return env;
  return "/usr/share/datasets/fashion-mnist";
}

const std::vector<std::string>& FashionMNIST::classes() {
  static const std::vector<std::string> names = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                                  "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
  return names;
}

}  // namespace kindling::data
