// ch04.ex3 — collate: the same batch as the library's DefaultCollate, from any samples; clear errors.
#include "ch04_grading.hpp"

using namespace ch04_grading;

namespace {
using Samples = std::vector<kd::data::Example>;

void check_same_as_library(const Samples& samples) {
  const kd::data::Example got = ex::collate(samples);
  const kd::data::Example expected = kd::data::DefaultCollate{}(Samples(samples));
  INFO("B = " << samples.size() << ", sample data " << kd::shape_str(samples[0].data.shape()) << " "
              << kd::dtype_name(samples[0].data.dtype()));
  REQUIRE(got.data.defined());
  REQUIRE(got.target.defined());
  INFO("got data " << kd::shape_str(got.data.shape()) << ", expected " << kd::shape_str(expected.data.shape()));
  REQUIRE(got.data.shape() == expected.data.shape());
  REQUIRE(got.data.dtype() == expected.data.dtype());
  REQUIRE(got.target.shape() == expected.target.shape());
  REQUIRE(got.target.dtype() == expected.target.dtype());
  CHECK(kd::equal(got.data, expected.data));
  CHECK(kd::equal(got.target, expected.target));
  CHECK(got.data.is_contiguous());
}

Samples image_samples(std::int64_t batch, const kd::Shape& shape, kd::DType dtype, kd::Generator& gen) {
  Samples s;
  for (std::int64_t b = 0; b < batch; ++b)
    s.push_back({random_image(shape, dtype, gen), kd::scalar_tensor(gen.randint(0, 10), {.dtype = kd::kInt64})});
  return s;
}
}  // namespace

TEST_CASE("ch04.ex3: images [C, H, W] -> [B, C, H, W], labels -> int64 [B]", "[ch04][ex3][pts=6]") {
  kd::Generator gen(31);
  check_same_as_library(image_samples(32, {1, 28, 28}, kd::kFloat32, gen));
  check_same_as_library(image_samples(5, {3, 8, 6}, kd::kFloat32, gen));
  check_same_as_library(image_samples(1, {1, 4, 4}, kd::kFloat32, gen));
  check_same_as_library(image_samples(7, {3, 5, 5}, kd::kUInt8, gen));
  check_same_as_library(image_samples(4, {2, 3}, kd::kFloat64, gen));
  const kd::data::Example batch = ex::collate(image_samples(6, {1, 28, 28}, kd::kFloat32, gen));
  CHECK(batch.data.shape() == kd::Shape{6, 1, 28, 28});
  CHECK(batch.target.shape() == kd::Shape{6});
  CHECK(batch.target.dtype() == kd::kInt64);
}

TEST_CASE("ch04.ex3: non-contiguous samples (permuted HWC images, sliced rows)", "[ch04][ex3][pts=5]") {
  kd::Generator gen(32);
  Samples permuted, sliced;
  for (int b = 0; b < 6; ++b) {
    // [H, W, C] seen as [C, H, W]: strides (1, W*C, C), not row-major
    permuted.push_back({random_image({5, 7, 3}, kd::kUInt8, gen).permute({2, 0, 1}),
                        kd::scalar_tensor(b, {.dtype = kd::kInt64})});
    // every other column of a wider image, float labels
    sliced.push_back({random_image({2, 4, 9}, kd::kFloat32, gen).slice(2, 0, 9, 2),
                      kd::scalar_tensor(0.5 * b, {.dtype = kd::kFloat32})});
  }
  check_same_as_library(permuted);
  check_same_as_library(sliced);
}

TEST_CASE("ch04.ex3: the batch is a copy: changing a sample later leaves it alone", "[ch04][ex3][pts=3]") {
  kd::Generator gen(33);
  Samples samples = image_samples(4, {1, 3, 3}, kd::kFloat32, gen);
  const kd::data::Example batch = ex::collate(samples);
  const kd::Tensor before = batch.data.clone();
  for (auto& s : samples) {
    CHECK_FALSE(batch.data.shares_storage(s.data));
    s.data.fill_(-1.0);
  }
  CHECK(kd::equal(batch.data, before));
}

TEST_CASE("ch04.ex3: errors: no samples, a sample of another shape or dtype", "[ch04][ex3][pts=6]") {
  kd::Generator gen(34);
  CHECK_THROWS_AS(ex::collate({}), kd::ValueError);
  // Sample 3 differs; shapes chosen without the digit 3 so the message must name the index.
  {
    Samples s = image_samples(5, {2, 4, 4}, kd::kFloat32, gen);
    s[3].data = random_image({2, 5, 5}, kd::kFloat32, gen);
    try {
      ex::collate(s);
      FAIL("no exception for samples of different shapes");
    } catch (const kd::ShapeError& e) {
      INFO("message: " << e.what());
      CHECK(message_has(e, "3"));
    }
  }
  {
    Samples s = image_samples(5, {2, 4, 4}, kd::kFloat32, gen);
    s[3].data = s[3].data.to(kd::kFloat64);
    CHECK_THROWS_AS(ex::collate(s), kd::ShapeError);
  }
  {
    Samples s = image_samples(5, {2, 4, 4}, kd::kFloat32, gen);
    s[4].target = kd::tensor(std::vector<std::int64_t>{1, 2}, {2});  // a label that is not 0-d
    CHECK_THROWS_AS(ex::collate(s), kd::ShapeError);
  }
}
