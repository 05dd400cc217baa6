// The one place stb_image and stb_image_write are compiled (header-only libraries from libstb-dev).
#include "kindling/data/image.hpp"

#include <cstdio>
#include <filesystem>
#include <string>

#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#endif
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace kindling::data {

Tensor load_image(const std::string& path, int channels) {
  if (channels < 0 || channels > 4) {
    throw ValueError("load_image: channels must be 0 (as stored), 1, 3 or 4, got " + std::to_string(channels));
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw IOError("load_image: " + path + ": no such file");
  int w = 0, h = 0, stored = 0;
  // stb_image 2.27 keeps its failure reason thread_local: safe to call from DataLoader workers.
  unsigned char* pixels = stbi_load(path.c_str(), &w, &h, &stored, channels);
  if (pixels == nullptr) {
    const char* reason = stbi_failure_reason();
    throw IOError("load_image: cannot decode " + path + " (stb_image: " + (reason ? reason : "unknown error") +
                  "). Supported: PNG, JPEG (not progressive/arithmetic), BMP, GIF, TGA, PSD, HDR, PNM.");
  }
  const int c = channels == 0 ? stored : channels;
  // [H, W, C] over stb's buffer, freed with stbi_image_free when the last tensor dies.
  return from_blob(pixels, {h, w, c}, kUInt8, {}, [](void* p) { stbi_image_free(p); });
}

void save_png(const Tensor& image, const std::string& path) {
  if (!image.defined() || image.dtype() != kUInt8 || (image.dim() != 2 && image.dim() != 3) ||
      (image.dim() == 3 && (image.size(2) < 1 || image.size(2) > 4))) {
    throw ValueError("save_png: expected a uint8 image [H, W, C] with C in 1..4 or [H, W], got " +
                     (image.defined() ? shape_str(image.shape()) + " " + dtype_name(image.dtype()) : "undefined") +
                     ". Hint: a CHW float image x becomes HWC uint8 with (x * 255).clamp(0, 255).to(kUInt8).permute({1, 2, 0}).");
  }
  Tensor hwc = image.contiguous();
  const int h = static_cast<int>(hwc.size(0)), w = static_cast<int>(hwc.size(1));
  const int c = hwc.dim() == 3 ? static_cast<int>(hwc.size(2)) : 1;
  const std::string tmp = path + ".tmp";
  if (!stbi_write_png(tmp.c_str(), w, h, c, hwc.raw_data_ptr(), w * c)) {
    std::remove(tmp.c_str());
    throw IOError("save_png: cannot write " + path);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw IOError("save_png: cannot move the image into place at " + path + " (" + ec.message() + ")");
  }
}

}  // namespace kindling::data
