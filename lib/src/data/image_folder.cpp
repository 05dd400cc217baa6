// ImageFolder: scan once in the constructor, decode lazily in get().
#include "kindling/data/image_folder.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "kindling/data/image.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling::data {
namespace fs = std::filesystem;

ImageFolder::ImageFolder(const std::string& root, transforms::Transform transform, ImageFolderOptions options,
                         transforms::Transform target_transform)
    : transform_(std::move(transform)), target_transform_(std::move(target_transform)), options_(std::move(options)) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    throw IOError("ImageFolder: " + root + " is not a folder. Expected root/<class name>/<image files>.");
  }
  for (const auto& entry : fs::directory_iterator(root)) {
    if (entry.is_directory()) classes_.push_back(entry.path().filename().string());
  }
  std::sort(classes_.begin(), classes_.end());
  if (classes_.empty()) {
    throw IOError("ImageFolder: " + root + " has no sub-folders. Expected one folder per class: "
                  "root/<class name>/<image files>.");
  }
  auto supported = [&](const fs::path& p) {
    std::string ext = p.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return std::find(options_.extensions.begin(), options_.extensions.end(), ext) != options_.extensions.end();
  };
  for (std::size_t label = 0; label < classes_.size(); ++label) {
    class_to_idx_[classes_[label]] = static_cast<std::int64_t>(label);
    std::vector<std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(root) / classes_[label])) {
      if (entry.is_regular_file() && supported(entry.path())) files.push_back(entry.path().string());
    }
    if (files.empty()) {
      std::string exts;
      for (const auto& e : options_.extensions) exts += (exts.empty() ? "" : " ") + e;
      throw IOError("ImageFolder: found no valid image file for class '" + classes_[label] + "' in " + root + "/" +
                    classes_[label] + ". Supported extensions are: " + exts);
    }
    std::sort(files.begin(), files.end());
    for (auto& f : files) samples_.emplace_back(std::move(f), static_cast<std::int64_t>(label));
  }
}

Example ImageFolder::get(std::int64_t index) const {
  check_index(index, size(), "ImageFolder");
  const auto& [path, label] = samples_[static_cast<std::size_t>(index)];
  Tensor image = load_image(path, options_.channels);  // uint8 [H, W, C]
  Tensor target = scalar_tensor(label, {.dtype = kInt64});
  return Example{transform_ ? transform_(image) : image, target_transform_ ? target_transform_(target) : target};
}

}  // namespace kindling::data
