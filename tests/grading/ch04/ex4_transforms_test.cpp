// ch04.ex4 — RandomHorizontalFlip(p) and normalize, against the library's transforms.
#include "ch04_grading.hpp"

using namespace ch04_grading;
namespace F = kd::data::transforms::functional;

TEST_CASE("ch04.ex4: flip with p = 1 mirrors like hflip; the input is untouched", "[ch04][ex4][pts=5]") {
  kd::Generator gen(51);
  const ex::RandomHorizontalFlip always(1.0);
  std::vector<kd::Tensor> images = {
      random_image({1, 28, 28}, kd::kFloat32, gen), random_image({3, 5, 7}, kd::kUInt8, gen),
      random_image({4, 3, 6, 6}, kd::kFloat64, gen),  // a batch
      random_image({9, 4, 3}, kd::kUInt8, gen).permute({2, 0, 1}),   // a non-contiguous CHW view
      random_image({6, 5}, kd::kFloat32, gen),        // a plain [H, W] image
  };
  for (const kd::Tensor& image : images) {
    INFO("image " << kd::shape_str(image.shape()) << " " << kd::dtype_name(image.dtype()));
    const kd::Tensor copy = image.clone();
    const kd::Tensor flipped = always(image);
    REQUIRE(flipped.shape() == image.shape());
    REQUIRE(flipped.dtype() == image.dtype());
    CHECK(kd::equal(flipped, F::hflip(image)));
    CHECK(kd::equal(image, copy));  // never modify the input
    CHECK(kd::equal(always(flipped), image));  // flipping twice gives the image back
  }
  const kd::Tensor image = random_image({1, 4, 4}, kd::kFloat32, gen);
  CHECK(kd::equal(ex::RandomHorizontalFlip(0.0)(image), image));
}

TEST_CASE("ch04.ex4: flip decisions match the library's under the same per-sample seed", "[ch04][ex4][pts=5]") {
  kd::Generator gen(52);
  const kd::Tensor image = random_image({1, 6, 6}, kd::kFloat32, gen);
  int flips = 0;
  for (double p : {0.5, 0.1, 0.9}) {
    const ex::RandomHorizontalFlip mine(p);
    const kd::data::transforms::RandomHorizontalFlip library(p);
    for (std::uint64_t seed = 0; seed < 200; ++seed) {
      INFO("p " << p << ", seed " << seed);
      kd::Tensor got, expected;
      double after_mine, after_library;
      {
        kd::data::SampleGeneratorGuard guard(seed);
        got = mine(image);
        after_mine = kd::data::current_generator().uniform();  // exactly one draw per call?
      }
      {
        kd::data::SampleGeneratorGuard guard(seed);
        expected = library(image);
        after_library = kd::data::current_generator().uniform();
      }
      REQUIRE(kd::equal(got, expected));
      REQUIRE(after_mine == after_library);
      if (p == 0.5 && !kd::equal(got, image)) ++flips;
    }
  }
  CHECK(flips > 60);   // p = 0.5 flips about half of 200 images
  CHECK(flips < 140);
  CHECK_THROWS_AS(ex::RandomHorizontalFlip(1.5), kd::ValueError);
  CHECK_THROWS_AS(ex::RandomHorizontalFlip(-0.1), kd::ValueError);
  CHECK_THROWS_AS(ex::RandomHorizontalFlip(1.0)(kd::zeros({5})), kd::ShapeError);
}

TEST_CASE("ch04.ex4: normalize equals the library's for images and batches", "[ch04][ex4][pts=7]") {
  kd::Generator gen(53);
  struct Case {
    kd::Tensor image;
    std::vector<double> mean, std;
  };
  const std::vector<Case> cases = {
      {random_image({3, 8, 8}, kd::kFloat32, gen), {0.485, 0.456, 0.406}, {0.229, 0.224, 0.225}},
      {random_image({1, 28, 28}, kd::kFloat32, gen), {0.2860}, {0.3530}},
      {random_image({5, 3, 4, 4}, kd::kFloat32, gen), {0.5, 0.25, 0.75}, {0.5, 0.125, 2.0}},
      {random_image({3, 6, 5}, kd::kFloat64, gen), {0.1}, {0.3}},
      {random_image({6, 5, 3}, kd::kFloat32, gen).permute({2, 0, 1}), {0.4, 0.5, 0.6}, {0.2, 0.3, 0.4}},
  };
  for (const Case& c : cases) {
    INFO("image " << kd::shape_str(c.image.shape()) << " " << kd::dtype_name(c.image.dtype()));
    const kd::Tensor copy = c.image.clone();
    const kd::Tensor got = ex::normalize(c.image, c.mean, c.std);
    const kd::Tensor expected = F::normalize(c.image, c.mean, c.std);
    REQUIRE(got.shape() == expected.shape());
    REQUIRE(got.dtype() == expected.dtype());
    CHECK(kd::allclose(got, expected, 1e-6, 1e-6));
    CHECK(kd::equal(c.image, copy));
  }
}

TEST_CASE("ch04.ex4: normalize errors: dims, dtype, channel count, zero std", "[ch04][ex4][pts=3]") {
  kd::Generator gen(54);
  const kd::Tensor rgb = random_image({3, 4, 4}, kd::kFloat32, gen);
  CHECK_THROWS_AS(ex::normalize(random_image({3, 4, 4}, kd::kUInt8, gen), {0.5}, {0.5}), kd::DTypeError);
  CHECK_THROWS_AS(ex::normalize(random_image({4, 4}, kd::kFloat32, gen), {0.5}, {0.5}), kd::ShapeError);
  CHECK_THROWS_AS(ex::normalize(rgb, {0.5, 0.5}, {0.5, 0.5, 0.5}), kd::ValueError);
  CHECK_THROWS_AS(ex::normalize(rgb, {0.5, 0.5, 0.5}, {0.5, 0.0, 0.5}), kd::ValueError);
}
