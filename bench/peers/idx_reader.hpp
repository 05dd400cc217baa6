#pragma once
// A minimal Fashion-MNIST IDX (.gz) reader for the *peer* benchmark programs (LibTorch), so that they
// train on exactly the bytes Kindling trains on without linking Kindling.
#include <zlib.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace peers {

inline std::vector<std::uint8_t> read_gz(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  std::vector<std::uint8_t> out;
  std::uint8_t buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.insert(out.end(), buf, buf + n);
  gzclose(f);
  return out;
}

/// Images as floats in [0, 1], row-major [n, 784]; labels as int64.
inline void load_fashion_mnist(const std::string& dir, std::vector<float>& images, std::vector<std::int64_t>& labels,
                               std::int64_t& n) {
  auto img = read_gz(dir + "/train-images-idx3-ubyte.gz");
  auto lab = read_gz(dir + "/train-labels-idx1-ubyte.gz");
  n = (std::int64_t(img[4]) << 24) | (img[5] << 16) | (img[6] << 8) | img[7];
  images.resize(n * 784);
  for (std::int64_t i = 0; i < n * 784; ++i) images[i] = img[16 + i] / 255.0f;
  labels.resize(n);
  for (std::int64_t i = 0; i < n; ++i) labels[i] = lab[8 + i];
}

}  // namespace peers
