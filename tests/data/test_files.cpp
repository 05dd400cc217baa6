// Images (libpng, libjpeg-turbo), ImageFolder, CsvDataset and CachedDataset.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "data/data_test_utils.hpp"

namespace kd = kindling;
using kdtest::TempDir;

namespace {
kd::Tensor test_image(std::int64_t h, std::int64_t w, std::int64_t c, std::int64_t seed) {
  std::vector<std::uint8_t> v(static_cast<std::size_t>(h * w * c));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint8_t>((i * 31 + static_cast<std::size_t>(seed) * 17) % 256);
  return kd::tensor(v, {h, w, c});
}
void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }
}  // namespace

TEST_CASE("load_image/save_png: a PNG round trip is lossless") {
  TempDir dir;
  for (std::int64_t c : {1, 3, 4}) {
    kd::Tensor img = test_image(7, 5, c, c);
    kd::data::save_png(img, dir / "x.png");
    kd::Tensor back = kd::data::load_image(dir / "x.png");
    CHECK(back.shape() == kd::Shape{7, 5, c});
    CHECK(kd::equal(back, img));
  }
  kd::data::save_png(test_image(4, 4, 1, 0), dir / "gray.png");
  CHECK(kd::data::load_image(dir / "gray.png", 3).shape() == kd::Shape{4, 4, 3});  // gray → RGB
  write_text(dir / "bad.png", "this is not a png");
  CHECK_THROWS_WITH(kd::data::load_image(dir / "bad.png"), Catch::Contains("cannot decode") && Catch::Contains("bad.png"));
  CHECK_THROWS_AS(kd::data::load_image(dir / "none.png"), kd::IOError);
  CHECK_THROWS_AS(kd::data::save_png(kd::zeros({3, 4, 4}), dir / "f.png"), kd::ValueError);
}

TEST_CASE("ImageFolder: sorted classes, class_to_idx, decoded samples", "[threads]") {
  TempDir dir;
  const std::vector<std::string> names = {"zebra", "cat", "dog"};
  for (std::size_t k = 0; k < names.size(); ++k) {
    std::filesystem::create_directories(dir.path / names[k]);
    for (int i = 0; i < 2 + static_cast<int>(k); ++i) {
      kd::data::save_png(test_image(6, 8, 3, static_cast<std::int64_t>(10 * k + i)),
                         dir / (names[k] + "/img" + std::to_string(i) + ".png"));
    }
  }
  write_text(dir / "cat/notes.txt", "not an image");  // skipped: unsupported extension
  kd::data::ImageFolder folder(dir.path.string(), kd::data::transforms::ToTensor());
  CHECK(folder.classes() == std::vector<std::string>{"cat", "dog", "zebra"});
  CHECK(folder.class_to_idx().at("zebra") == 2);
  CHECK(folder.size() == 3 + 4 + 2);
  auto [x, y] = folder.get(0);
  CHECK(x.shape() == kd::Shape{3, 6, 8});
  CHECK(y.item<std::int64_t>() == 0);
  CHECK(kd::allclose(x, kd::data::transforms::ToTensor()(test_image(6, 8, 3, 10))));  // cat/img0.png
  CHECK(folder.get(folder.size() - 1).target.item<std::int64_t>() == 2);
  kd::data::DataLoader loader(folder, {.batch_size = 4, .shuffle = true, .num_workers = 2, .seed = 1});
  std::int64_t rows = 0;
  for (auto& [images, labels] : loader) {
    CHECK(images.size(1) == 3);
    rows += images.size(0);
  }
  CHECK(rows == 9);
}

TEST_CASE("ImageFolder: sub-folders in torchvision's order; a link back up the tree is walked once") {
  TempDir dir;
  namespace fs = std::filesystem;
  fs::create_directories(dir.path / "cls/b/c");
  fs::create_directories(dir.path / "cls/b-c");
  for (const char* f : {"cls/z.png", "cls/b/x.png", "cls/b/c/w.png", "cls/b-c/y.png", "cls/b/.PNG"})
    kd::data::save_png(test_image(2, 2, 3, 0), dir / f);
  fs::create_directory_symlink(dir.path / "cls", dir.path / "cls/b/up");  // a loop
  kd::data::ImageFolder folder(dir.path.string());
  std::vector<std::string> got;
  for (const auto& [path, label] : folder.samples()) got.push_back(fs::relative(path, dir.path).string());
  // sorted(os.walk(...)): each folder's files (sorted) before its sub-folders', folders by path
  // ("cls/b" < "cls/b-c" < "cls/b/c": '-' sorts before '/'); a name that is only ".PNG" counts, as
  // torchvision's lower(name).endswith(".png") takes it.
  CHECK(got == std::vector<std::string>{"cls/z.png", "cls/b/.PNG", "cls/b/x.png", "cls/b-c/y.png", "cls/b/c/w.png"});
}

TEST_CASE("ImageFolder: missing root, no classes, empty class") {
  TempDir dir;
  CHECK_THROWS_WITH(kd::data::ImageFolder(dir / "nope"), Catch::Contains("is not a folder"));
  CHECK_THROWS_WITH(kd::data::ImageFolder(dir.path.string()), Catch::Contains("no sub-folders"));
  std::filesystem::create_directories(dir.path / "empty");
  CHECK_THROWS_WITH(kd::data::ImageFolder(dir.path.string()), Catch::Contains("class 'empty'"));
}

TEST_CASE("CsvDataset: features, labels, label column by name") {
  TempDir dir;
  write_text(dir / "t.csv", "age, income ,label,height\n31,2.5,1,180\n\n45,3.25,0,165.5\r\n22,1,2,170\n");
  kd::data::CsvDataset ds(dir / "t.csv", {.label_column = "label"});
  CHECK(ds.size() == 3);
  CHECK(ds.features().shape() == kd::Shape{3, 3});
  CHECK(ds.feature_names() == std::vector<std::string>{"age", "income", "height"});
  CHECK(ds.labels().to_vector<std::int64_t>() == std::vector<std::int64_t>{1, 0, 2});
  auto [x, y] = ds.get(1);
  CHECK(x.to_vector<float>() == std::vector<float>{45.f, 3.25f, 165.5f});
  kd::data::CsvDataset last(dir / "t.csv", {.label_dtype = kd::kFloat32});  // last column = height
  CHECK(last.labels().dtype() == kd::kFloat32);
  CHECK(last.labels().to_vector<float>() == std::vector<float>{180.f, 165.5f, 170.f});
}

TEST_CASE("CsvDataset: errors name the line and column") {
  TempDir dir;
  write_text(dir / "fields.csv", "a,b,label\n1,2,0\n3,4\n");
  CHECK_THROWS_WITH(kd::data::CsvDataset(dir / "fields.csv"), Catch::Contains("line 3") && Catch::Contains("expected 3 fields"));
  write_text(dir / "nan.csv", "a,b,label\n1,2,0\n3,x7,1\n");
  CHECK_THROWS_WITH(kd::data::CsvDataset(dir / "nan.csv"),
                    Catch::Contains("line 3") && Catch::Contains("column 'b'") && Catch::Contains("'x7'"));
  write_text(dir / "frac.csv", "a,label\n1,0.5\n");
  CHECK_THROWS_WITH(kd::data::CsvDataset(dir / "frac.csv"), Catch::Contains("not a whole number"));
  CHECK_THROWS_WITH(kd::data::CsvDataset(dir / "frac.csv", {.label_column = "y"}), Catch::Contains("no column named 'y'"));
  write_text(dir / "empty.csv", "");
  CHECK_THROWS_WITH(kd::data::CsvDataset(dir / "empty.csv"), Catch::Contains("is empty"));
  write_text(dir / "header.csv", "a,label\n");
  CHECK_THROWS_WITH(kd::data::CsvDataset(dir / "header.csv"), Catch::Contains("no data rows"));
  CHECK_THROWS_AS(kd::data::CsvDataset(dir / "missing.csv"), kd::IOError);
}

TEST_CASE("CachedDataset: builds .npy files once, then serves from them", "[threads]") {
  TempDir dir;
  struct Slow {
    std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
    std::int64_t size() const { return 10; }
    kd::data::Example get(std::int64_t i) const {
      calls->fetch_add(1);
      return {kd::full({2, 3}, static_cast<double>(i)), kd::scalar_tensor(i % 3, {.dtype = kd::kInt64})};
    }
  } slow;
  kd::data::CachedDataset first(slow, dir / "cache", {.num_workers = 2, .batch_size = 4});
  CHECK(!first.loaded_from_cache());
  CHECK(slow.calls->load() == 10);
  CHECK(std::filesystem::exists(dir / "cache.data.npy"));
  kd::data::CachedDataset second(slow, dir / "cache");
  CHECK(second.loaded_from_cache());
  CHECK(slow.calls->load() == 10);  // not recomputed
  CHECK(second.size() == 10);
  for (std::int64_t i = 0; i < 10; ++i) {
    auto [x, y] = second.get(i);
    auto [ex, ey] = slow.get(i);
    CHECK(kd::equal(x, ex));
    CHECK(kd::equal(y, ey));
  }
  kd::data::CachedDataset rebuilt(slow, dir / "cache", {.rebuild = true});
  CHECK(!rebuilt.loaded_from_cache());
}
