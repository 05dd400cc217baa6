// Chapter 9 parity: the Kindling twin of ch09_photos.py -- ImageFolder over Tux Paint's animal photos
// (Debian's tuxpaint-stamps-default), each photo decoded, and the chapter's transforms on nine of them.
#include <fstream>
#include <kindling/data.hpp>
#include <sstream>
#include <stdexcept>

#include "parity.hpp"

namespace F = kindling::data::transforms::functional;
using kd::Tensor;

namespace {

/// The root the oracle read, then ImageFolder over it (built once).
const kd::data::ImageFolder& dataset() {
  static const kd::data::ImageFolder ds = [] {
    std::ifstream f(parity::oracle_dir() + "/photos.txt");
    std::string root;
    if (!std::getline(f, root)) throw std::runtime_error("photos.txt: missing (run the oracle first)");
    return kd::data::ImageFolder(root);
  }();
  return ds;
}

Tensor pixels(std::int64_t i) { return dataset().get(i).data; }  // uint8 [H, W, 3]

Tensor augment(std::int64_t i, bool flip, double angle, double brightness, double contrast) {
  Tensor x = F::resize(F::to_tensor(pixels(i)), 224, 224);
  if (flip) x = F::hflip(x);
  x = F::rotate(x, angle);
  x = F::adjust_contrast(F::adjust_brightness(x, brightness), contrast);
  return F::normalize(x, {0.485, 0.456, 0.406}, {0.229, 0.224, 0.225});
}

}  // namespace

// The same classes, and the same files in the same order with the same labels, as torchvision found.
PARITY_CASE("image_folder/labels") {
  const auto& ds = dataset();
  std::ifstream f(parity::oracle_dir() + "/photos.txt");
  std::string line;
  std::getline(f, line);  // the root
  std::getline(f, line);
  std::string classes;
  for (const auto& c : ds.classes()) classes += (classes.empty() ? "" : "\t") + c;
  if (line != classes) throw std::runtime_error("classes differ: torchvision [" + line + "], kindling [" + classes + "]");
  std::vector<std::int64_t> labels;
  for (const auto& [path, label] : ds.samples()) {
    if (!std::getline(f, line)) throw std::runtime_error("kindling found more files than torchvision: " + path);
    const std::string ours = std::to_string(label) + "\t" + path;
    if (line != ours) {
      throw std::runtime_error("sample " + std::to_string(labels.size()) + ": torchvision [" + line +
                               "], kindling [" + ours + "]");
    }
    labels.push_back(label);
  }
  if (std::getline(f, line)) throw std::runtime_error("torchvision found more files: " + line);
  return kd::tensor(labels, {static_cast<std::int64_t>(labels.size())});
}

PARITY_CASE("image_folder/decoded") {
  const std::int64_t n = dataset().size();
  std::vector<std::int64_t> rows;
  for (std::int64_t i = 0; i < n; ++i) {
    const Tensor p = pixels(i);
    rows.insert(rows.end(), {p.size(0), p.size(1), p.to(kd::kInt64).sum().item<std::int64_t>()});
  }
  return kd::tensor(rows, {n, 3});
}

// Nine photos in full, at the indices the .py file picks.
namespace {
const bool photo_cases = [] {
  for (int k = 0; k < 9; ++k) {
    auto index = [k] { return k * (dataset().size() - 1) / 8; };
    const std::string p = "photo" + std::to_string(k) + "/";
    parity::register_case((p + "pixels").c_str(), [index](parity::Inputs&) { return parity::Outputs(pixels(index())); });
    parity::register_case((p + "to_tensor-resize").c_str(), [index](parity::Inputs&) {
      return parity::Outputs(F::resize(F::to_tensor(pixels(index())), 224, 224));
    });
    parity::register_case((p + "augment").c_str(), [index, k](parity::Inputs&) {
      return parity::Outputs(augment(index(), k % 2 == 0, -10.0 + 2.5 * k, 0.8 + 0.05 * k, 1.2 - 0.05 * k));
    });
  }
  return true;
}();
}  // namespace
