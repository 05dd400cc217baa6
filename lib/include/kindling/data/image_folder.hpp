#pragma once
/// @file
/// torchvision.datasets.ImageFolder: one sub-folder per class,
///
///     root/cat/001.png  root/cat/002.jpg  root/dog/001.png ...
///
/// Classes are the sub-folder names sorted alphabetically (label = position in that order);
/// images are decoded in get(), so the decoding runs in the DataLoader's workers.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kindling/data/dataset.hpp"
#include "kindling/data/transforms.hpp"

namespace kindling::data {

/// Options of ImageFolder.
struct ImageFolderOptions {
  /// Channels of every decoded image: 3 = RGB (torchvision converts to RGB too), 1 = gray,
  /// 4 = RGBA, 0 = as stored in each file.
  int channels = 3;
  /// File extensions accepted (lower case, with the dot); others are skipped.
  /// (PNG and JPEG: the formats load_image decodes.)
  std::vector<std::string> extensions = {".png", ".jpg", ".jpeg"};
};

class ImageFolder {
 public:
  /// Scans `root`. Throws IOError if it is missing, has no class folders, or a class folder holds
  /// no image file with a supported extension.
  ImageFolder(const std::string& root, transforms::Transform transform = {}, ImageFolderOptions options = {},
              transforms::Transform target_transform = {});
  std::int64_t size() const { return static_cast<std::int64_t>(samples_.size()); }
  /// {transform(image uint8 [H, W, C]), label int64 0-d}.
  Example get(std::int64_t index) const;
  /// Class names, sorted; classes()[label] is the name.
  const std::vector<std::string>& classes() const { return classes_; }
  const std::map<std::string, std::int64_t>& class_to_idx() const { return class_to_idx_; }
  /// (path, label) of every image, in order.
  const std::vector<std::pair<std::string, std::int64_t>>& samples() const { return samples_; }

 private:
  std::vector<std::string> classes_;
  std::map<std::string, std::int64_t> class_to_idx_;
  std::vector<std::pair<std::string, std::int64_t>> samples_;
  transforms::Transform transform_, target_transform_;
  ImageFolderOptions options_;
};

}  // namespace kindling::data
