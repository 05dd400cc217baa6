// ch04.ex3 — transforms::functional::to_tensor, normalize and hflip, against the same formulas in PyTorch.
#include "ch04_grading.hpp"

using namespace ch04_grading;
namespace T = kindling::data::transforms;

TEST_CASE("to_tensor: HWC uint8 images become CHW float32 in [0, 1]", "[ch04][ex3][pts=4]") {
  grading::expect("to_tensor(rgb [5, 7, 3])", F::to_tensor(grading::input("rgb")));
  grading::expect("to_tensor(gray [28, 28])", F::to_tensor(grading::input("gray")));
  grading::expect("to_tensor(one [4, 6, 1])", F::to_tensor(grading::input("one")));
}

TEST_CASE("to_tensor: float images are only moved to CHW", "[ch04][ex3][pts=2]") {
  grading::expect("to_tensor(f [5, 4, 3] float32)", F::to_tensor(grading::input("f")));
  grading::expect("to_tensor(g [3, 2] float64)", F::to_tensor(grading::input("g")));
  grading::expect_error("to_tensor of a [2, 3, 4, 5] tensor", [] { (void)F::to_tensor(kd::zeros({2, 3, 4, 5})); });
}

TEST_CASE("normalize: per-channel mean and std", "[ch04][ex3][pts=5]") {
  const kd::Tensor img = grading::input("img"), batch = grading::input("batch"), gray = grading::input("gray");
  grading::expect("normalize(img, {0.5, 0.4, 0.3}, {0.2, 0.25, 0.3})", F::normalize(img, {0.5, 0.4, 0.3}, {0.2, 0.25, 0.3}));
  grading::expect("normalize(batch, {0.5, 0.4, 0.3}, {0.2, 0.25, 0.3})", F::normalize(batch, {0.5, 0.4, 0.3}, {0.2, 0.25, 0.3}));
  grading::expect("normalize(img, {0.5}, {0.25})", F::normalize(img, {0.5}, {0.25}));
  grading::expect("normalize(gray, {0.2860}, {0.3530})", F::normalize(gray, {0.2860}, {0.3530}));
}

TEST_CASE("normalize: what it refuses", "[ch04][ex3][pts=2]") {
  const kd::Tensor img = grading::input("img"), u = grading::input("u"), flat = grading::input("flat");
  grading::expect_error("uint8 image", [&] { (void)F::normalize(u, {0.5}, {0.5}); });
  grading::expect_error("2 means for 3 channels", [&] { (void)F::normalize(img, {0.5, 0.5}, {0.5}); });
  grading::expect_error("std 0", [&] { (void)F::normalize(img, {0.5}, {0.0}); });
  grading::expect_error("a [5, 6] tensor", [&] { (void)F::normalize(flat, {0.5}, {0.5}); });
}

TEST_CASE("hflip: images, batches and every dtype", "[ch04][ex3][pts=5]") {
  const kd::Tensor img = grading::input("img");
  grading::expect("hflip(img)", F::hflip(img));
  grading::expect("hflip(batch)", F::hflip(grading::input("batch")));
  grading::expect("hflip(d)", F::hflip(grading::input("d")));
  grading::expect("hflip(img.permute(0, 2, 1))", F::hflip(img.permute({0, 2, 1})));
  CHECK_FALSE(F::hflip(img).shares_storage(img));  // a new image, not a view
}

TEST_CASE("RandomHorizontalFlip and Normalize in a pipeline", "[ch04][ex3][pts=2]") {
  const kd::Tensor img = grading::input("img");
  T::Compose flipped({T::ToTensor(), T::RandomHorizontalFlip(1.0), T::Normalize({0.5}, {0.5})});
  T::Compose kept({T::ToTensor(), T::RandomHorizontalFlip(0.0), T::Normalize({0.5}, {0.5})});
  grading::expect("ToTensor, flip p=1, Normalize", flipped(img));
  grading::expect("ToTensor, flip p=0, Normalize", kept(img));
}
