#pragma once
/// @file
/// Reading and writing image files: PNG (libpng) and JPEG (libjpeg-turbo), the two formats datasets
/// ship in. Images come back as they are stored on disk and in NumPy: uint8 HWC [H, W, C]. ToTensor
/// turns that into CHW float32 — the "normalise the layout at the first step of data loading" rule.
///
/// Image files are untrusted input (a downloaded dataset, a folder a user points at), so they are
/// decoded by hardened, fuzzed libraries, and sizes are capped *before* anything is allocated: a
/// 100-byte file that claims 100,000 x 100,000 pixels is refused, not decoded. Other formats (GIF,
/// BMP, TGA, HDR, ...) are refused with a hint to convert them.
#include <cstddef>
#include <cstdint>
#include <string>

#include "kindling/tensor/tensor.hpp"

namespace kindling::data {

/// Caps applied before decoding. The defaults follow PIL's decompression-bomb limit.
struct ImageLimits {
  /// Largest width * height accepted (PIL: Image.MAX_IMAGE_PIXELS * 2 raises an error).
  std::int64_t max_pixels = 178'956'970;
  /// Largest width or height accepted.
  std::int64_t max_side = 65'535;
  /// Largest file read into memory.
  std::uint64_t max_file_bytes = std::uint64_t{256} << 20;
};

/// Decodes an image file into uint8 [H, W, C]. `channels` = 0 keeps the file's channels; 1, 3 or 4
/// converts (3 = RGB, like PIL's .convert("RGB") that torchvision's ImageFolder applies; 1 = luma
/// (r*77 + g*150 + b*29) / 256; an alpha channel is dropped or added as 255). Throws IOError naming
/// the file and the decoder's reason, or the limit a file exceeds.
Tensor load_image(const std::string& path, int channels = 0, const ImageLimits& limits = {});

/// The same from bytes in memory (`name` is used in error messages).
Tensor decode_image(const void* data, std::size_t size, int channels = 0, const ImageLimits& limits = {},
                    const std::string& name = "<memory>");

/// Writes a uint8 [H, W, C] (C = 1..4) or [H, W] image as PNG (libpng), atomically: every write is
/// checked, so a full disk throws IOError and leaves the previous file untouched.
void save_png(const Tensor& image, const std::string& path);

/// The PNG file's bytes (what save_png writes).
std::string encode_png(const Tensor& image);

}  // namespace kindling::data
