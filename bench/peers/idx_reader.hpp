#pragma once
// A minimal Fashion-MNIST IDX (.gz) reader for the *peer* benchmark programs (LibTorch), so that they
// train on exactly the bytes Kindling trains on without linking Kindling.
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace peers {

/// The whole decompressed file. The IDX header says how big the payload is (`item_bytes` per item
/// after `header` bytes: dims then count), so the buffer is allocated once at its final size, as
/// Kindling's reader does: no doubling vector to inflate the peak memory that M1 compares.
inline std::vector<std::uint8_t> read_gz(const std::string& path, std::size_t header, std::size_t item_bytes) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  std::vector<std::uint8_t> out(header);
  if (gzread(f, out.data(), static_cast<unsigned>(header)) != static_cast<int>(header))
    throw std::runtime_error("short file " + path);
  const std::size_t n = (std::size_t(out[4]) << 24) | (out[5] << 16) | (out[6] << 8) | out[7];
  out.resize(header + n * item_bytes);
  std::size_t at = header;
  int got;
  while (at < out.size() &&
         (got = gzread(f, out.data() + at, static_cast<unsigned>(std::min<std::size_t>(out.size() - at, 1 << 20)))) > 0)
    at += static_cast<std::size_t>(got);
  gzclose(f);
  if (at != out.size()) throw std::runtime_error("short file " + path);
  return out;
}

/// Images as the file stores them (uint8, row-major [n, 784], as a Dataset holds them); labels as int64.
inline void load_fashion_mnist_u8(const std::string& dir, std::vector<std::uint8_t>& images,
                                  std::vector<std::int64_t>& labels, std::int64_t& n) {
  images = read_gz(dir + "/train-images-idx3-ubyte.gz", 16, 784);
  images.erase(images.begin(), images.begin() + 16);  // in place: no second copy
  auto lab = read_gz(dir + "/train-labels-idx1-ubyte.gz", 8, 1);
  n = static_cast<std::int64_t>(images.size() / 784);
  labels.resize(n);
  for (std::int64_t i = 0; i < n; ++i) labels[i] = lab[8 + i];
}

/// Images as floats in [0, 1], row-major [n, 784]; labels as int64.
inline void load_fashion_mnist(const std::string& dir, std::vector<float>& images, std::vector<std::int64_t>& labels,
                               std::int64_t& n) {
  auto img = read_gz(dir + "/train-images-idx3-ubyte.gz", 16, 784);
  auto lab = read_gz(dir + "/train-labels-idx1-ubyte.gz", 8, 1);
  n = (std::int64_t(img[4]) << 24) | (img[5] << 16) | (img[6] << 8) | img[7];
  images.resize(n * 784);
  for (std::int64_t i = 0; i < n * 784; ++i) images[i] = img[16 + i] / 255.0f;
  labels.resize(n);
  for (std::int64_t i = 0; i < n; ++i) labels[i] = lab[8 + i];
}

}  // namespace peers
