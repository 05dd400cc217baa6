// decode_image on arbitrary bytes (PNG through libpng, JPEG through libjpeg-turbo, anything else
// refused), at each channel count. Small caps keep each run fast; the cap logic is what is tested.
#include <kindling/data.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace kdd = kindling::data;
  const kdd::ImageLimits limits{.max_pixels = 1 << 22, .max_side = 1 << 14, .max_file_bytes = 1 << 24};
  const int channels = size > 0 ? data[size - 1] % 5 : 0;  // the last byte picks 0..4
  return kdfuzz::run([&] {
    kindling::Tensor img = kdd::decode_image(data, size, channels, limits, "fuzz input");
    if (img.dim() != 3 || img.dtype() != kindling::kUInt8) std::abort();
    if (channels != 0 && img.size(2) != channels) std::abort();
    (void)img.to(kindling::kInt64).sum().item<std::int64_t>();
  });
}
