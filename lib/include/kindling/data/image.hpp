#pragma once
/// @file
/// Reading and writing image files with stb_image (PNG, JPEG, BMP, GIF, TGA, PNM...). Images come
/// back as they are stored on disk and in NumPy: uint8 HWC [H, W, C]. ToTensor turns that into
/// CHW float32 — the "normalise the layout at the first step of data loading" rule.
#include <string>

#include "kindling/tensor/tensor.hpp"

namespace kindling::data {

/// Decodes an image file into uint8 [H, W, C]. `channels` = 0 keeps the file's channels; 1, 3 or 4
/// converts (3 = RGB, like PIL's .convert("RGB") that torchvision's ImageFolder applies). The
/// tensor owns stb's buffer: no copy. Throws IOError naming the file and stb's reason.
Tensor load_image(const std::string& path, int channels = 0);

/// Writes a uint8 [H, W, C] (C = 1..4) or [H, W] image as PNG (atomically). Throws IOError.
void save_png(const Tensor& image, const std::string& path);

}  // namespace kindling::data
