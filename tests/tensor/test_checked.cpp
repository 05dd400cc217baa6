// Sizes that overflow and numbers that cannot become integers: each is a regression test for an input
// that once crashed or silently misbehaved, and now gets a clear kindling::Error.
#include <catch2/catch.hpp>
#include <cmath>
#include <kindling/tensor.hpp>
#include <kindling/tensor/checked.hpp>
#include <limits>

namespace kd = kindling;
using Catch::Contains;

TEST_CASE("checked: numel overflow is a ShapeError, not a wrapped size") {
  // 2^32 * 2^32 = 2^64 wrapped to 0 elements: sum() then read a 0-byte buffer (segfault).
  CHECK_THROWS_AS(kd::zeros({1LL << 32, 1LL << 32}), kd::ShapeError);
  CHECK_THROWS_WITH(kd::zeros({1LL << 32, 1LL << 32}), Contains("[4294967296, 4294967296]") && Contains("overflow"));
  CHECK_THROWS_AS(kd::numel_of({1LL << 32, 1LL << 32}), kd::ShapeError);
  // A zero size makes the tensor empty whatever the other sizes say.
  CHECK(kd::numel_of({0, 1LL << 62, 1LL << 62}) == 0);
  CHECK(kd::checked::numel({3, 0, 1LL << 62}, "test") == 0);
  CHECK_THROWS_AS(kd::checked::numel({2, -1}, "test"), kd::ShapeError);
}

TEST_CASE("checked: an empty tensor whose other sizes overflow 64-bit offsets is refused, not indexed") {
  const std::int64_t big = std::int64_t{1} << 40;
  // Made directly, or as a view of an empty tensor: select(1, i).select(1, j) on it computed
  // (2^40 - 1) * 2^40 + ... and wrapped (undefined behaviour) before.
  CHECK_THROWS_WITH(kd::empty({0, big, big}), Catch::Contains("cannot be addressed with 64-bit offsets"));
  CHECK_THROWS_AS(kd::empty({0}).view({0, big, big}), kd::ShapeError);
  CHECK_THROWS_AS(kd::empty({0}).reshape({big, big, 0}), kd::ShapeError);
  // Sizes whose offsets fit stay usable, as in PyTorch.
  const kd::Tensor ok = kd::empty({0, std::int64_t{1} << 31, std::int64_t{1} << 31});
  CHECK(ok.select(1, (std::int64_t{1} << 31) - 1).select(1, 5).storage_offset() ==
        ((std::int64_t{1} << 31) - 1) * (std::int64_t{1} << 31) + 5);
  CHECK(kd::empty({0}).expand({big, 0}).numel() == 0);  // stride 0: nothing to overflow
}

TEST_CASE("checked: storage bytes overflow is a ShapeError") {
  // 2^61 float64 elements = 2^64 bytes wrapped to 0: fill_(1) wrote into nothing (segfault).
  CHECK_THROWS_AS(kd::empty({1LL << 61}, {.dtype = kd::kFloat64}), kd::ShapeError);
  CHECK_THROWS_WITH(kd::empty({1LL << 61}, {.dtype = kd::kFloat64}), Contains("float64") && Contains("overflow"));
  CHECK(kd::checked::storage_nbytes({2, 3}, kd::kFloat32, "t") == 24);
}

TEST_CASE("checked: an allocation too large for the machine is an OutOfMemoryError") {
  // 2^40 float32 = 4 TiB: std::bad_alloc escaped before.
  CHECK_THROWS_AS(kd::ones({1LL << 40}), kd::OutOfMemoryError);
  CHECK_THROWS_WITH(kd::ones({1LL << 40}), Contains("[1099511627776]") && Contains("4.0 TiB"));
  CHECK_THROWS_AS(kd::ones({1LL << 40}), kd::Error);
}

TEST_CASE("checked: arange with more elements than int64 is a ValueError") {
  // The length 1e19 went through an undefined double -> int64 cast and came out as an empty tensor.
  CHECK_THROWS_AS(kd::arange(0, 1e19), kd::ValueError);
  CHECK_THROWS_WITH(kd::arange(0, 1e19), Contains("arange") && Contains("elements"));
  CHECK_THROWS_AS(kd::arange(-1e19, 1e19, 1, {.dtype = kd::kInt64}), kd::ValueError);
  CHECK(kd::arange(0, 4).numel() == 4);  // the ordinary case still works
}

TEST_CASE("checked: to_int64 refuses NaN, infinities, fractions and out-of-range values") {
  CHECK(kd::checked::to_int64(42.0, "x") == 42);
  CHECK(kd::checked::to_int64(-3.0, "x") == -3);
  CHECK_THROWS_AS(kd::checked::to_int64(1e300, "epoch"), kd::ValueError);
  CHECK_THROWS_WITH(kd::checked::to_int64(1e300, "epoch"), Contains("epoch") && Contains("1.0000000000000001e+300"));
  CHECK_THROWS_AS(kd::checked::to_int64(std::nan(""), "x"), kd::ValueError);
  CHECK_THROWS_AS(kd::checked::to_int64(INFINITY, "x"), kd::ValueError);
  CHECK_THROWS_AS(kd::checked::to_int64(9223372036854775808.0, "x"), kd::ValueError);  // 2^63
  CHECK_THROWS_WITH(kd::checked::to_int64(2.5, "epoch"), Contains("fraction"));
  CHECK_THROWS_AS(kd::checked::to_int64(-1.0, "x", 0), kd::ValueError);
  CHECK(kd::checked::fits_int64(-9223372036854775808.0));
  CHECK_FALSE(kd::checked::fits_int64(std::nan("")));
  CHECK_THROWS_AS(kd::checked::finite(std::nan(""), "lr"), kd::ValueError);
}

TEST_CASE("checked: a huge float Scalar converts to an integer without undefined behaviour") {
  // Scalar(1e19) once cast 1e19 to int64 in its constructor (UBSan: outside the representable range).
  const kd::Scalar big(1e19), nan(std::nan(""));
  CHECK(big.to<std::int64_t>() == std::numeric_limits<std::int64_t>::max());
  CHECK(nan.to<std::int64_t>() == 0);
  CHECK(kd::Scalar(-1e300).to_int() == std::numeric_limits<std::int64_t>::min());
}

// ---- hostile files ----------------------------------------------------------------------------------
#include <filesystem>

#include "fuzz/fuzz_inputs.hpp"

TEST_CASE("npy: every fuzz seed loads, every regression input is refused naming the file") {
  for (const auto& path : kdtest::fuzz_inputs("corpus", "npy")) {
    INFO(path);
    CHECK_NOTHROW(kd::load_npy(path));
  }
  const auto bad = kdtest::fuzz_inputs("regressions", "npy");
  REQUIRE(!bad.empty());
  for (const auto& path : bad) {
    INFO(path);
    CHECK_THROWS_AS(kd::load_npy(path), kd::IOError);
    CHECK_THROWS_WITH(kd::load_npy(path), Contains(path));
  }
}

TEST_CASE("npy: a directory given as the file is named as a directory") {
  const std::string dir = std::filesystem::temp_directory_path().string();
  CHECK_THROWS_AS(kd::load_npy(dir), kd::IOError);
  CHECK_THROWS_WITH(kd::load_npy(dir), Contains("is a directory"));
  CHECK_THROWS_WITH(kd::save_npy(kd::zeros({2}), dir), Contains("is a directory"));
}
