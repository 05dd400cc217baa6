// Hostile and sloppy files for the data loaders (IDX, MNIST, CSV, images) and hostile options for
// the DataLoader. Each input here once crashed, allocated gigabytes, or was accepted as garbage;
// now each gets a clear kindling::Error. The fuzzers' regression inputs are checked here too.
#include <catch2/catch.hpp>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "data/data_test_utils.hpp"
#include "fuzz/fuzz_inputs.hpp"

namespace kd = kindling;
namespace kdd = kindling::data;
using Catch::Contains;
using kdtest::TempDir;

namespace {
void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}
constexpr auto* message_of = &kdtest::error_message;
}  // namespace

TEST_CASE("read_idx: every fuzz seed loads, every regression input is refused naming the file") {
  for (const auto& path : kdtest::fuzz_inputs("corpus", "idx")) {
    INFO(path);
    CHECK_NOTHROW(kdd::read_idx(path));
  }
  const auto bad = kdtest::fuzz_inputs("regressions", "idx");
  REQUIRE(bad.size() >= 3);
  for (const auto& path : bad) {
    INFO(path);
    CHECK_THROWS_AS(kdd::read_idx(path), kd::IOError);
    CHECK_THROWS_WITH(kdd::read_idx(path), Contains(path));
  }
}

TEST_CASE("read_idx: size claims beyond the file are refused before allocating") {
  TempDir dir;
  // 20 bytes claiming [65536, 65536, 65536, 65536] (the signed product overflowed, the tensor had 0 bytes)
  write_bytes(dir / "dims", std::string("\0\0\x08\x04", 4) + std::string("\0\x01\0\0", 4) + std::string("\0\x01\0\0", 4) +
                                std::string("\0\x01\0\0", 4) + std::string("\0\x01\0\0", 4));
  CHECK_THAT(message_of([&] { kdd::read_idx(dir / "dims"); }), Contains("[65536, 65536, 65536, 65536]") && Contains("too many"));
  // 8 bytes claiming 2.87 GB: refused from the file size, nothing allocated
  const std::size_t before = kd::memory::peak_allocated_bytes();
  write_bytes(dir / "short", std::string("\0\0\x08\x01\xab\0\0\x08", 8));
  CHECK_THAT(message_of([&] { kdd::read_idx(dir / "short"); }), Contains("2868903944") && Contains("has only 0"));
  CHECK(kd::memory::peak_allocated_bytes() == before);
  // gzip: a claim beyond what deflate can expand the file to
  const std::string header("\0\0\x08\x01\xff\xff\xff\xf0", 8);
  gzFile f = gzopen((dir / "bomb.gz").c_str(), "wb");
  REQUIRE(f);
  gzwrite(f, header.data(), static_cast<unsigned>(header.size()));
  gzclose(f);
  CHECK_THAT(message_of([&] { kdd::read_idx(dir / "bomb.gz"); }), Contains("more than a") && Contains("gzip file can hold"));
  CHECK(kd::memory::peak_allocated_bytes() == before);
  // a folder
  CHECK_THAT(message_of([&] { kdd::read_idx(dir.path.string()); }), Contains("is a directory"));
}

TEST_CASE("FashionMNIST: a label outside 0..9 is refused naming the file and the index") {
  TempDir dir;
  auto idx = [](std::vector<std::uint32_t> dims, std::string payload) {
    std::string b = {0, 0, 8, static_cast<char>(dims.size())};
    for (auto d : dims) b += {static_cast<char>(d >> 24), static_cast<char>(d >> 16), static_cast<char>(d >> 8), static_cast<char>(d)};
    return b + payload;
  };
  write_bytes(dir / "train-images-idx3-ubyte", idx({3, 2, 2}, std::string(12, '\x10')));
  write_bytes(dir / "train-labels-idx1-ubyte", idx({3}, std::string("\x01\xc8\x02", 3)));  // 200 at index 1
  CHECK_THAT(message_of([&] { kdd::FashionMNIST(kdd::Split::Train, {}, dir.path.string()); }),
             Contains("label 200 at index 1") && Contains("train-labels-idx1-ubyte"));
}

TEST_CASE("CsvDataset: labels that cannot be class indices are refused, not cast") {
  TempDir dir;
  for (const char* label : {"1e300", "inf", "-inf", "nan", "-1e19", "1e17", "2.5"}) {
    INFO(label);
    write_bytes(dir / "l.csv", std::string("x,label\n1,0\n2,") + label + "\n");
    const std::string m = message_of([&] { kdd::CsvDataset ds(dir / "l.csv"); });
    CHECK_THAT(m, Contains("line 3") && Contains("label") && Contains(label));
  }
  // The same files are fine as regression targets where the value is finite.
  write_bytes(dir / "r.csv", "x,y\n1,1e300\n");
  CHECK(kdd::CsvDataset(dir / "r.csv", {.label_dtype = kd::kFloat64}).labels().item<double>() == 1e300);
  // The helpers the dataset is made of, on their own.
  CHECK(kdd::csv::to_class_label(3.0, "t") == 3);
  CHECK_THROWS_AS(kdd::csv::to_class_label(1e300, "t"), kd::ValueError);
  CHECK_FALSE(kdd::csv::parse_number("1e999").has_value());
  CHECK_FALSE(kdd::csv::parse_number("12abc").has_value());
  CHECK(kdd::csv::split_fields(" a ,b,, c\r", ',').size() == 4);
}

TEST_CASE("CsvDataset: NaN and infinite features are refused by default, and can be allowed or warned about") {
  TempDir dir;
  write_bytes(dir / "f.csv", "a,b,label\n1,2,0\nnan,3,1\n4,inf,0\n5,1e300,1\n");
  // Error, the default (issue 28; was: a warning): the first bad value, with its line and column
  CHECK_THAT(message_of([&] { kdd::CsvDataset ds(dir / "f.csv"); }),
             Contains("line 3") && Contains("column 'a'") && Contains("nan") && Contains("NonFinite::Allow"));
  CHECK_THAT(message_of([&] { kdd::CsvDataset ds(dir / "f.csv", {.non_finite = kdd::NonFinite::Error}); }),
             Contains("line 3") && Contains("column 'a'") && Contains("nan"));
  // Allow and Warn keep the values (1e300 overflows float32 to inf)
  const kdd::CsvDataset allowed(dir / "f.csv", {.non_finite = kdd::NonFinite::Allow});
  CHECK(std::isnan(allowed.features()[1][0].item<float>()));
  CHECK(std::isinf(allowed.features()[3][1].item<float>()));
  CHECK_NOTHROW(kdd::CsvDataset(dir / "f.csv", {.non_finite = kdd::NonFinite::Warn}));  // warns on stderr
  for (const auto& path : kdtest::fuzz_inputs("regressions", "csv")) {
    INFO(path);
    CHECK_THROWS_WITH(kdd::CsvDataset(path, {.non_finite = kdd::NonFinite::Error}), Contains(path));
  }
  for (const auto& path : kdtest::fuzz_inputs("corpus", "csv")) {
    INFO(path);
    CHECK_NOTHROW(kdd::CsvDataset(path, {.delimiter = path.find("regression") != std::string::npos ? ';' : ',',
                                         .label_dtype = path.find("regression") != std::string::npos ? kd::kFloat32 : kd::kInt64}));
  }
  CHECK_THAT(message_of([&] { kdd::CsvDataset ds(dir.path.string()); }), Contains("is a directory"));
}

TEST_CASE("load_image: every fuzz seed decodes, every regression input is refused naming the file") {
  for (const auto& path : kdtest::fuzz_inputs("corpus", "image")) {
    INFO(path);
    kd::Tensor img;
    REQUIRE_NOTHROW(img = kdd::load_image(path));
    CHECK(img.dim() == 3);
    CHECK(kdd::load_image(path, 3).size(2) == 3);
  }
  const auto bad = kdtest::fuzz_inputs("regressions", "image");
  REQUIRE(bad.size() >= 5);
  for (const auto& path : bad) {
    INFO(path);
    CHECK_THROWS_AS(kdd::load_image(path), kd::IOError);
    CHECK_THROWS_WITH(kdd::load_image(path), Contains(path) && Contains("cannot decode"));
  }
}

TEST_CASE("load_image: other formats and oversized claims get their own message") {
  const auto bad = kdtest::fuzz_inputs("regressions", "image");
  auto find = [&](const std::string& part) {
    for (const auto& p : bad)
      if (p.find(part) != std::string::npos) return p;
    FAIL("no regression input named " << part);
    return std::string();
  };
  CHECK_THAT(message_of([&] { kdd::load_image(find("gif_47")); }), Contains("is a GIF file") && Contains("PNG and JPEG only"));
  CHECK_THAT(message_of([&] { kdd::load_image(find("hdr_121")); }), Contains("is a HDR file"));
  CHECK_THAT(message_of([&] { kdd::load_image(find("tga_173")); }), Contains("not a PNG or JPEG"));
  CHECK_THAT(message_of([&] { kdd::load_image(find("png_claims")); }), Contains("100000 x 100000") && Contains("limit"));
  CHECK_THAT(message_of([&] { kdd::load_image(find("jpeg_dht")); }), Contains("libjpeg"));
  CHECK_THAT(message_of([&] { kdd::load_image(find("jpeg_truncated")); }), Contains("libjpeg"));
  // The caps are the caller's to choose.
  const std::string png = find("png_claims");
  const std::string seed = kdtest::fuzz_inputs("corpus", "image").at(0);
  CHECK_THAT(message_of([&] { kdd::load_image(seed, 0, {.max_pixels = 10}); }), Contains("above the limit"));
  CHECK_THAT(message_of([&] { kdd::load_image(seed, 0, {.max_file_bytes = 10}); }), Contains("above the limit"));
  CHECK_THAT(message_of([&] { kdd::load_image(std::filesystem::temp_directory_path().string()); }), Contains("is a directory"));
  CHECK_THROWS_AS(kdd::load_image(seed, 5), kd::ValueError);
}

TEST_CASE("load_image: JPEG pixels match PIL's decoding (the same libjpeg-turbo)") {
  for (const auto& path : kdtest::fuzz_inputs("corpus", "image")) {
    if (path.size() < 4 || path.substr(path.size() - 4) != ".jpg") continue;
    INFO(path);
    const kd::Tensor ours = kdd::load_image(path);
    TempDir dir;
    const std::string out = dir / "pil.npy";
    const std::string cmd = std::string(KINDLING_PYTHON) + " -c \"import numpy as np; from PIL import Image; "
                            "a = np.asarray(Image.open('" + path + "')); np.save('" + out + "', a.reshape(a.shape[0], a.shape[1], -1))\"";
    REQUIRE(std::system(cmd.c_str()) == 0);
    const kd::Tensor pil = kd::load_npy(out);
    REQUIRE(pil.shape() == ours.shape());
    CHECK(kd::equal(ours, pil));
  }
}

TEST_CASE("DataLoader: absurd worker counts get a clear error, not std::system_error or 1000 threads") {
  kdtest::ProbeDataset ds{.n = 8};
  CHECK_THAT(message_of([&] { kdd::DataLoader loader(ds, {.batch_size = 2, .num_workers = std::int64_t{1} << 40}); }),
             Contains("num_workers = 1099511627776") && Contains("256"));
  CHECK_THAT(message_of([&] { kdd::DataLoader loader(ds, {.batch_size = 2, .num_workers = 1000}); }), Contains("num_workers = 1000"));
  CHECK_THAT(message_of([&] { kdd::DataLoader loader(ds, {.batch_size = 2, .prefetch_factor = std::int64_t{1} << 40}); }),
             Contains("prefetch_factor"));
}
