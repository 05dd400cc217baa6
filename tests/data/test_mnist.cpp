// IDX parsing (raw and gzip, corrupt files) and the MNIST/FashionMNIST datasets.
#include <catch2/catch.hpp>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "data/data_test_utils.hpp"

namespace kd = kindling;
using kdtest::TempDir;

namespace {
std::vector<unsigned char> idx_bytes(const std::vector<std::uint32_t>& dims, const std::vector<unsigned char>& payload,
                                     unsigned char type = 0x08) {
  std::vector<unsigned char> b = {0, 0, type, static_cast<unsigned char>(dims.size())};
  for (std::uint32_t d : dims) {
    b.push_back(static_cast<unsigned char>(d >> 24));
    b.push_back(static_cast<unsigned char>(d >> 16));
    b.push_back(static_cast<unsigned char>(d >> 8));
    b.push_back(static_cast<unsigned char>(d));
  }
  b.insert(b.end(), payload.begin(), payload.end());
  return b;
}
void write_raw(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}
void write_gz(const std::string& path, const std::vector<unsigned char>& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
}
std::vector<unsigned char> pixels(std::size_t n) {
  std::vector<unsigned char> p(n);
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<unsigned char>((i * 7 + 3) % 256);
  return p;
}
// A tiny MNIST-format folder: `n` images of 4x3 and labels 0..n-1 (mod 10).
void write_mnist_folder(const TempDir& dir, const std::string& prefix, std::uint32_t n, bool gz) {
  std::vector<unsigned char> labels(n);
  for (std::uint32_t i = 0; i < n; ++i) labels[i] = static_cast<unsigned char>(i % 10);
  auto write = gz ? write_gz : write_raw;
  const std::string ext = gz ? ".gz" : "";
  write(dir / (prefix + "-images-idx3-ubyte" + ext), idx_bytes({n, 4, 3}, pixels(n * 12)));
  write(dir / (prefix + "-labels-idx1-ubyte" + ext), idx_bytes({n}, labels));
}
}  // namespace

TEST_CASE("read_idx: raw and gzip files give the same tensor") {
  TempDir dir;
  auto bytes = idx_bytes({2, 4, 3}, pixels(24));
  write_raw(dir / "a.idx", bytes);
  write_gz(dir / "a.idx.gz", bytes);
  kd::Tensor raw = kd::data::read_idx(dir / "a.idx");
  kd::Tensor gz = kd::data::read_idx(dir / "a.idx.gz");
  CHECK(raw.shape() == kd::Shape{2, 4, 3});
  CHECK(raw.dtype() == kd::kUInt8);
  CHECK(kd::equal(raw, gz));
  auto expected = pixels(24);
  CHECK(raw.to_vector<std::uint8_t>() == std::vector<std::uint8_t>(expected.begin(), expected.end()));
}

TEST_CASE("read_idx: corrupt files give a clear IOError") {
  TempDir dir;
  auto message = [&](const std::string& path) {
    try {
      kd::data::read_idx(path);
    } catch (const kd::IOError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(message(dir / "missing.gz"), Catch::Contains("no such file"));
  write_raw(dir / "magic", {1, 2, 8, 1, 0, 0, 0, 1, 5});
  CHECK_THAT(message(dir / "magic"), Catch::Contains("not an IDX file"));
  write_raw(dir / "type", idx_bytes({1}, {0, 0, 0, 0}, 0x0D));
  CHECK_THAT(message(dir / "type"), Catch::Contains("element type 0x0d"));
  auto truncated = idx_bytes({2, 4, 3}, pixels(20));
  write_gz(dir / "trunc.gz", truncated);
  CHECK_THAT(message(dir / "trunc.gz"), Catch::Contains("truncated") && Catch::Contains("found 20"));
  write_raw(dir / "extra", idx_bytes({2}, {1, 2, 3}));
  CHECK_THAT(message(dir / "extra"), Catch::Contains("more data than its header"));
  write_raw(dir / "short", {0, 0});
  CHECK_THAT(message(dir / "short"), Catch::Contains("shorter than"));
  write_raw(dir / "header", {0, 0, 8, 3, 0, 0});
  CHECK_THAT(message(dir / "header"), Catch::Contains("ends inside its header"));
  // a gzip stream cut in the middle
  auto good = idx_bytes({64, 64}, pixels(4096));
  write_gz(dir / "cut.gz", good);
  std::filesystem::resize_file(dir / "cut.gz", std::filesystem::file_size(dir / "cut.gz") / 2);
  CHECK_THAT(message(dir / "cut.gz"), Catch::Contains("read_idx"));
}

TEST_CASE("MNIST: a folder of IDX files, samples and labels") {
  for (bool gz : {true, false}) {
    TempDir dir;
    write_mnist_folder(dir, "train", 12, gz);
    write_mnist_folder(dir, "t10k", 5, gz);
    kd::data::MNIST train(dir.path.string(), kd::data::Split::Train);
    kd::data::MNIST test(dir.path.string(), kd::data::Split::Test, kd::data::transforms::ToTensor());
    CHECK(train.size() == 12);
    CHECK(test.size() == 5);
    CHECK(train.data().shape() == kd::Shape{12, 4, 3});
    CHECK(train.targets().dtype() == kd::kInt64);
    auto [image, label] = train.get(11);
    CHECK(image.shape() == kd::Shape{4, 3});
    CHECK(image.dtype() == kd::kUInt8);
    CHECK(label.dim() == 0);
    CHECK(label.item<std::int64_t>() == 1);
    auto [x, y] = test.get(2);
    CHECK(x.shape() == kd::Shape{1, 4, 3});
    CHECK(x.dtype() == kd::kFloat32);
    CHECK_THROWS_AS(train.get(12), kd::IndexError);
  }
}

TEST_CASE("MNIST: missing files and mismatched counts explain how to get the data") {
  TempDir dir;
  try {
    kd::data::FashionMNIST(kd::data::Split::Train, {}, dir.path.string());
    FAIL("expected IOError");
  } catch (const kd::IOError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("train-images-idx3-ubyte"));
    CHECK_THAT(std::string(e.what()), Catch::Contains("sudo apt-get install dataset-fashion-mnist"));
  }
  write_raw(dir / "train-images-idx3-ubyte", idx_bytes({3, 4, 3}, pixels(36)));
  write_raw(dir / "train-labels-idx1-ubyte", idx_bytes({2}, {1, 2}));
  CHECK_THROWS_WITH(kd::data::MNIST(dir.path.string(), kd::data::Split::Train),
                    Catch::Contains("one label per image"));
  write_raw(dir / "train-labels-idx1-ubyte", idx_bytes({3}, {1, 2}));  // truncated labels
  CHECK_THROWS_WITH(kd::data::MNIST(dir.path.string(), kd::data::Split::Train),
                    Catch::Contains("truncated") && Catch::Contains("point it at a folder"));
}

TEST_CASE("FashionMNIST: the real data set (when installed)", "[threads]") {
  const std::string root = kd::data::FashionMNIST::default_root();
  if (!std::filesystem::exists(root + "/train-images-idx3-ubyte.gz")) {
    WARN("Fashion-MNIST not installed at " << root << "; sudo apt-get install dataset-fashion-mnist");
    return;
  }
  kd::data::FashionMNIST train(kd::data::Split::Train, kd::data::transforms::ToTensor());
  kd::data::FashionMNIST test(kd::data::Split::Test);
  CHECK(train.size() == 60000);
  CHECK(test.size() == 10000);
  CHECK(train.data().shape() == kd::Shape{60000, 28, 28});
  CHECK(train.targets().min().item<std::int64_t>() == 0);
  CHECK(train.targets().max().item<std::int64_t>() == 9);
  // balanced: 6000 images per class in the training set
  for (std::int64_t c = 0; c < 10; ++c) CHECK((train.targets() == c).sum().item<std::int64_t>() == 6000);
  auto [x, y] = train.get(0);
  CHECK(x.shape() == kd::Shape{1, 28, 28});
  CHECK(x.max().item<float>() <= 1.0f);
  CHECK(kd::data::FashionMNIST::classes().size() == 10);
  kd::data::DataLoader loader(train, {.batch_size = 32, .shuffle = true, .num_workers = 2, .seed = 0});
  CHECK(loader.size() == 1875);
  auto it = loader.begin();
  CHECK((*it).data.shape() == kd::Shape{32, 1, 28, 28});
  CHECK((*it).target.shape() == kd::Shape{32});
}
