// ch01.ex4 — HWC -> CHW: a view that shares memory, and the float copy a data pipeline starts with.
#include "ch01_grading.hpp"

using namespace ch01_grading;

namespace {
// A batch of random uint8 "images" [N, H, W, C], as decoded image files are laid out.
kd::Tensor image_batch(const kd::Shape& nhwc, std::uint64_t seed) {
  kd::Generator gen(seed);
  return random_of(nhwc, kd::kUInt8, gen);
}
}  // namespace

TEST_CASE("ch01.ex4: hwc_to_chw is a permuted view of the same memory", "[ch01][ex4][pts=5]") {
  for (const kd::Shape& shape : std::vector<kd::Shape>{{2, 5, 4, 3}, {1, 3, 7, 1}, {4, 2, 2, 4}, {0, 2, 2, 3}}) {
    INFO("images " << kd::shape_str(shape));
    const kd::Tensor images = image_batch(shape, 5);
    const kd::Tensor chw = ex::hwc_to_chw(images);
    const kd::Tensor expected = images.permute({0, 3, 1, 2});
    REQUIRE(chw.shape() == expected.shape());
    CHECK(chw.strides() == expected.strides());
    CHECK(chw.shares_storage(images));  // no copy
    CHECK(kd::equal(chw, expected));
  }
  // One image [H, W, C] -> [C, H, W].
  const kd::Tensor one = image_batch({6, 5, 3}, 6);
  const kd::Tensor chw = ex::hwc_to_chw(one);
  REQUIRE(chw.shape() == one.permute({2, 0, 1}).shape());
  CHECK(chw.shares_storage(one));
  CHECK(kd::equal(chw, one.permute({2, 0, 1})));
}

TEST_CASE("ch01.ex4: writing through the CHW view changes the HWC images", "[ch01][ex4][pts=2]") {
  kd::Tensor images = image_batch({2, 4, 3, 3}, 7);
  kd::Tensor chw = ex::hwc_to_chw(images);
  chw.select(1, 0).fill_(0);  // zero the first channel in CHW terms ...
  const kd::Tensor channel0 = images.select(3, 0);  // ... which is the last index in HWC terms
  CHECK(kd::equal(channel0, kd::zeros_like(channel0)));
}

TEST_CASE("ch01.ex4: hwc_to_chw rejects tensors that are not images", "[ch01][ex4][pts=1]") {
  CHECK_THROWS_AS(ex::hwc_to_chw(kd::zeros({4, 4}, {.dtype = kd::kUInt8})), kd::ShapeError);
  CHECK_THROWS_AS(ex::hwc_to_chw(kd::zeros({1, 2, 3, 4, 5}, {.dtype = kd::kUInt8})), kd::ShapeError);
}

TEST_CASE("ch01.ex4: images_to_tensor gives contiguous float32 CHW in [0, 1]", "[ch01][ex4][pts=6]") {
  for (const kd::Shape& shape : std::vector<kd::Shape>{{2, 5, 4, 3}, {3, 8, 8, 1}, {5, 4, 3}}) {
    INFO("images " << kd::shape_str(shape));
    const kd::Tensor images = image_batch(shape, 8);
    const kd::Tensor x = ex::images_to_tensor(images);
    const kd::Tensor chw = shape.size() == 4 ? images.permute({0, 3, 1, 2}) : images.permute({2, 0, 1});
    const kd::Tensor expected = (chw.to(kd::kFloat32) / 255.0).contiguous();
    REQUIRE(x.dtype() == kd::kFloat32);
    REQUIRE(x.shape() == expected.shape());
    CHECK(x.is_contiguous());  // what a convolution wants, and what a batch is copied in once
    CHECK_FALSE(x.shares_storage(images));
    CHECK(kd::allclose(x, expected, 1e-6, 1e-7));
    CHECK(x.min().item<double>() >= 0.0);
    CHECK(x.max().item<double>() <= 1.0);
  }
  // The input may itself be a view (a crop of a bigger image).
  const kd::Tensor big = image_batch({2, 9, 9, 3}, 9);
  const kd::Tensor crop = big.slice(1, 2, 7).slice(2, 1, 9, 2);
  CHECK(kd::allclose(ex::images_to_tensor(crop),
                     (crop.permute({0, 3, 1, 2}).to(kd::kFloat32) / 255.0).contiguous(), 1e-6, 1e-7));
}

TEST_CASE("ch01.ex4: images_to_tensor wants uint8 pixels", "[ch01][ex4][pts=1]") {
  CHECK_THROWS_AS(ex::images_to_tensor(kd::zeros({1, 2, 2, 3})), kd::DTypeError);
  CHECK_THROWS_AS(ex::images_to_tensor(kd::zeros({2, 3}, {.dtype = kd::kUInt8})), kd::ShapeError);
}
