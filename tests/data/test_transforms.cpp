// Transforms: shapes, dtypes, ranges and identities. Values against torchvision live in
// tests/parity/ (the expected values come from torchvision itself).
#include <catch2/catch.hpp>

#include "data/data_test_utils.hpp"

namespace kd = kindling;
namespace T = kd::data::transforms;
namespace F = kd::data::transforms::functional;

namespace {
// uint8 HWC image with varied pixel values (no two neighbours equal).
kd::Tensor hwc_image(std::int64_t h, std::int64_t w, std::int64_t c) {
  std::vector<std::uint8_t> v(static_cast<std::size_t>(h * w * c));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint8_t>((i * 37) % 256);
  return kd::tensor(v, {h, w, c});
}
}  // namespace

TEST_CASE("ToTensor: HWC uint8 -> CHW float32 in 0..1, HW -> 1HW") {
  kd::Tensor img = hwc_image(5, 4, 3);
  kd::Tensor x = T::ToTensor()(img);
  CHECK(x.shape() == kd::Shape{3, 5, 4});
  CHECK(x.dtype() == kd::kFloat32);
  CHECK(kd::allclose(x, img.permute({2, 0, 1}).to(kd::kFloat32) / 255.0));
  CHECK(x.min().item<float>() >= 0.0f);
  CHECK(x.max().item<float>() <= 1.0f);
  kd::Tensor gray = T::ToTensor()(kd::full({28, 28}, 255, {.dtype = kd::kUInt8}));
  CHECK(gray.shape() == kd::Shape{1, 28, 28});
  CHECK(gray.max().item<float>() == 1.0f);
  CHECK_THROWS_AS(T::ToTensor()(kd::zeros({1, 2, 3, 4})), kd::ShapeError);
  CHECK(T::PILToTensor()(img).dtype() == kd::kUInt8);
  CHECK(kd::equal(T::PILToTensor()(img), img.permute({2, 0, 1})));
}

TEST_CASE("Normalize: per-channel (x - mean) / std, errors") {
  kd::Tensor x = kd::rand({3, 4, 5});
  kd::Tensor y = T::Normalize({0.1, 0.2, 0.3}, {0.5, 0.25, 2.0})(x);
  kd::Tensor mean = kd::tensor({0.1, 0.2, 0.3}).reshape({3, 1, 1});
  kd::Tensor std = kd::tensor({0.5, 0.25, 2.0}).reshape({3, 1, 1});
  CHECK(kd::allclose(y, (x - mean) / std));
  CHECK_THROWS_AS(T::Normalize({0.5, 0.5}, {0.5, 0.5})(x), kd::ValueError);  // 2 values, 3 channels
  CHECK_THROWS_AS(T::Normalize({0.5}, {0.0})(x), kd::ValueError);
  CHECK_THROWS_AS(T::Normalize({0.5}, {0.5})(kd::zeros({3, 4, 5}, {.dtype = kd::kUInt8})), kd::DTypeError);
  CHECK_THROWS_AS(T::Normalize({0.5}, {0.5})(kd::zeros({4, 5})), kd::ShapeError);
}

TEST_CASE("Resize: output sizes, constant images stay constant, identity at the same size") {
  kd::Tensor x = kd::rand({3, 20, 30});
  CHECK(T::Resize({10, 12})(x).shape() == kd::Shape{3, 10, 12});
  CHECK(T::Resize(10)(x).shape() == kd::Shape{3, 10, 15});  // smaller edge 20 -> 10, aspect kept
  CHECK(T::Resize(10, {.max_size = 12})(x).shape() == kd::Shape{3, 8, 12});  // longer edge capped at max_size
  CHECK(kd::equal(T::Resize({20, 30})(x), x));
  kd::Tensor c = kd::full({1, 7, 9}, 0.25);
  CHECK(kd::allclose(T::Resize({13, 4})(c), kd::full({1, 13, 4}, 0.25)));
  kd::Tensor u = T::Resize({14, 14})(kd::full({28, 28}, 200, {.dtype = kd::kUInt8}));
  CHECK(u.dtype() == kd::kUInt8);
  CHECK(kd::equal(u, kd::full({14, 14}, 200, {.dtype = kd::kUInt8})));
  // Downscaling by exactly 2 averages each 2x2 block (bilinear, align_corners=False).
  kd::Tensor r = F::resize(x, 10, 15);
  kd::Tensor block = (x.slice(1, 0, 20, 2).slice(2, 0, 30, 2) + x.slice(1, 1, 20, 2).slice(2, 0, 30, 2) +
                      x.slice(1, 0, 20, 2).slice(2, 1, 30, 2) + x.slice(1, 1, 20, 2).slice(2, 1, 30, 2)) / 4.0;
  CHECK(kd::allclose(r, block, 1e-5, 1e-6));
}

TEST_CASE("CenterCrop and crop: windows of the image, zero padding outside") {
  kd::Tensor x = kd::rand({2, 9, 10});
  kd::Tensor c = T::CenterCrop(4, 6)(x);
  CHECK(c.shape() == kd::Shape{2, 4, 6});
  // torchvision: top = round((9 - 4) / 2) = round(2.5) = 2 (half to even), left = 2
  CHECK(kd::equal(c, x.slice(1, 2, 6).slice(2, 2, 8)));
  kd::Tensor big = T::CenterCrop(12)(x);
  CHECK(big.shape() == kd::Shape{2, 12, 12});
  CHECK(kd::equal(big.slice(1, 1, 10).slice(2, 1, 11), x));  // padded (1, 1) before, (2, 1) after
  CHECK(big.slice(1, 0, 1).abs().sum().item<float>() == 0.0f);
  kd::Tensor outside = F::crop(x, -2, 8, 4, 4);
  CHECK(kd::equal(outside.slice(1, 2, 4).slice(2, 0, 2), x.slice(1, 0, 2).slice(2, 8, 10)));
  CHECK(outside.slice(1, 0, 2).abs().sum().item<float>() == 0.0f);
}

TEST_CASE("RandomCrop: size, padding, the window is part of the padded image") {
  kd::data::SampleGeneratorGuard seeded(42);
  kd::Tensor x = kd::rand({1, 8, 8}) + 1.0;  // all > 0, so padding zeros are recognisable
  for (int k = 0; k < 20; ++k) {
    kd::Tensor c = T::RandomCrop(8, {.padding = 2})(x);
    CHECK(c.shape() == kd::Shape{1, 8, 8});
    CHECK(c.max().item<float>() > 0);
  }
  CHECK_THROWS_AS(T::RandomCrop(10)(x), kd::ValueError);
  CHECK(T::RandomCrop(10, {.pad_if_needed = true})(x).shape() == kd::Shape{1, 10, 10});
}

TEST_CASE("RandomHorizontalFlip: p = 1 mirrors, p = 0 keeps, p = 0.5 does both") {
  kd::Tensor x = kd::rand({3, 4, 5});
  kd::Tensor flipped = T::RandomHorizontalFlip(1.0)(x);
  for (std::int64_t j = 0; j < 5; ++j) CHECK(kd::equal(flipped.select(2, j), x.select(2, 4 - j)));
  CHECK(kd::equal(T::RandomHorizontalFlip(0.0)(x), x));
  kd::data::SampleGeneratorGuard seeded(1);
  int flips = 0;
  for (int k = 0; k < 200; ++k) flips += !kd::equal(T::RandomHorizontalFlip(0.5)(x), x);
  CHECK(flips > 60);
  CHECK(flips < 140);
  CHECK_THROWS_AS(T::RandomHorizontalFlip(1.5), kd::ValueError);
  CHECK(kd::equal(F::vflip(F::vflip(x)), x));
}

TEST_CASE("RandomRotation: 0 degrees is the identity, 90 degrees a transpose + flip, shape kept") {
  kd::Tensor x = kd::rand({2, 6, 6});
  CHECK(kd::equal(F::rotate(x, 0.0), x));
  // counter-clockwise by 90: out[i][j] = in[j][W-1-i]
  kd::Tensor r = F::rotate(x, 90.0);
  CHECK(kd::equal(r, F::hflip(x).transpose(1, 2).contiguous()));
  kd::data::SampleGeneratorGuard seeded(3);
  kd::Tensor u = T::RandomRotation(10)(kd::full({3, 16, 16}, 255, {.dtype = kd::kUInt8}));
  CHECK(u.shape() == kd::Shape{3, 16, 16});
  CHECK(u.dtype() == kd::kUInt8);
}

TEST_CASE("ColorJitter: brightness and contrast factors, ranges kept") {
  kd::Tensor x = kd::rand({3, 8, 8});
  CHECK(kd::equal(F::adjust_brightness(x, 1.0), x));
  CHECK(F::adjust_brightness(x, 0.0).abs().sum().item<float>() == 0.0f);
  CHECK(kd::allclose(F::adjust_brightness(x, 0.5), x * 0.5));
  CHECK(F::adjust_brightness(x, 3.0).max().item<float>() <= 1.0f);  // clamped
  // contrast 0: every pixel becomes the grayscale mean
  kd::Tensor gray = F::rgb_to_grayscale(x);
  CHECK(gray.shape() == kd::Shape{1, 8, 8});
  kd::Tensor flat = F::adjust_contrast(x, 0.0);
  CHECK(kd::allclose(flat, kd::full({3, 8, 8}, gray.mean().item<double>()), 1e-5, 1e-6));
  CHECK(kd::allclose(F::adjust_contrast(x, 1.0), x));
  kd::data::SampleGeneratorGuard seeded(5);
  kd::Tensor u8 = (kd::rand({3, 8, 8}) * 255).to(kd::kUInt8);
  kd::Tensor j = T::ColorJitter({.brightness = 0.2, .contrast = 0.2})(u8);
  CHECK(j.dtype() == kd::kUInt8);
  CHECK(j.shape() == u8.shape());
  kd::Tensor jf = T::ColorJitter(0.2, 0.2)(x);
  CHECK(jf.min().item<float>() >= 0.0f);
  CHECK(jf.max().item<float>() <= 1.0f);
  CHECK(!kd::equal(jf, x));
}

TEST_CASE("Compose and Lambda: the seed's augmentation pipeline end to end") {
  kd::data::SampleGeneratorGuard seeded(11);
  T::Compose pipeline({T::ToTensor(), T::Resize({32, 32}), T::RandomHorizontalFlip(0.5), T::RandomRotation(10),
                       T::ColorJitter({.brightness = 0.2, .contrast = 0.2}),
                       T::Normalize({0.485, 0.456, 0.406}, {0.229, 0.224, 0.225}),
                       T::Lambda([](const kd::Tensor& t) { return t * 2.0; })});
  kd::Tensor out = pipeline(hwc_image(40, 50, 3));
  CHECK(out.shape() == kd::Shape{3, 32, 32});
  CHECK(out.dtype() == kd::kFloat32);
}

TEST_CASE("ConvertImageDtype: uint8 <-> float") {
  kd::Tensor u = hwc_image(4, 4, 1);
  kd::Tensor f = T::ConvertImageDtype(kd::kFloat32)(u);
  CHECK(kd::allclose(f, u.to(kd::kFloat32) / 255.0));
  CHECK(kd::equal(T::ConvertImageDtype(kd::kUInt8)(f), u));
}

TEST_CASE("transforms: random transforms replay under the same per-sample seed") {
  T::Compose aug({T::RandomCrop(5, {.padding = 2}), T::RandomHorizontalFlip(), T::RandomRotation(20),
                  T::ColorJitter(0.3, 0.3)});
  kd::Tensor x = kd::rand({3, 7, 7});
  kd::Tensor a, b, c;
  {
    kd::data::SampleGeneratorGuard g(kd::data::sample_seed(10, 3));
    a = aug(x);
  }
  {
    kd::data::SampleGeneratorGuard g(kd::data::sample_seed(10, 3));
    b = aug(x);
  }
  {
    kd::data::SampleGeneratorGuard g(kd::data::sample_seed(10, 4));
    c = aug(x);
  }
  CHECK(kd::equal(a, b));
  CHECK(!kd::equal(a, c));
}
