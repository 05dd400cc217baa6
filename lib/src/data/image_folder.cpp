// ImageFolder: scan once in the constructor, decode lazily in get().
#include "kindling/data/image_folder.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sys/stat.h>
#include <utility>
#include <vector>

#include "kindling/data/image.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling::data {
namespace fs = std::filesystem;

namespace {

/// `top` and every folder below it, following links to folders (os.walk(followlinks=True), as
/// torchvision walks), each real folder once (a link that leads back up the tree is walked once, not
/// forever; torchvision would list its files again), sorted by path:
/// torchvision's order is sorted(os.walk(...)), the files of each folder then sorted by name. (Sorting
/// all paths at once would put a/b/x.png before a/z.png; torchvision lists a/z.png first.)
std::vector<fs::path> folders_under(const fs::path& top) {
  std::vector<fs::path> out, todo{top};
  std::vector<std::pair<std::uintmax_t, std::uintmax_t>> seen;  // (device, inode) of folders walked
  std::error_code ec;
  while (!todo.empty()) {
    fs::path dir = std::move(todo.back());
    todo.pop_back();
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) continue;
    const std::pair<std::uintmax_t, std::uintmax_t> id{st.st_dev, st.st_ino};
    if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
    seen.push_back(id);
    out.push_back(dir);
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.is_directory(ec)) todo.push_back(entry.path());
  }
  std::sort(out.begin(), out.end(), [](const fs::path& a, const fs::path& b) { return a.string() < b.string(); });
  return out;
}

}  // namespace

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
  // torchvision's test: the lower-cased file name ends with one of the extensions.
  auto supported = [&](const fs::path& p) {
    std::string name = p.filename().string();
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    return std::any_of(options_.extensions.begin(), options_.extensions.end(), [&](const std::string& e) {
      return name.size() >= e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0;
    });
  };
  for (std::size_t label = 0; label < classes_.size(); ++label) {
    class_to_idx_[classes_[label]] = static_cast<std::int64_t>(label);
    std::vector<std::string> files;
    for (const fs::path& dir : folders_under(fs::path(root) / classes_[label])) {
      std::vector<std::string> names;
      for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (entry.is_regular_file(ec) && supported(entry.path())) names.push_back(entry.path().filename().string());
      }
      std::sort(names.begin(), names.end());
      for (const auto& n : names) files.push_back((dir / n).string());
    }
    if (files.empty()) {
      std::string exts;
      for (const auto& e : options_.extensions) exts += (exts.empty() ? "" : " ") + e;
      throw IOError("ImageFolder: found no valid image file for class '" + classes_[label] + "' in " + root + "/" +
                    classes_[label] + ". Supported extensions are: " + exts);
    }
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
