// safetensors files that once fooled the loader (tests/fuzz/regressions/safetensors), each refused
// with an IOError naming the file; and the seeds the fuzzer starts from, each accepted.
#include <catch2/catch.hpp>
#include <filesystem>
#include <kindling/nn.hpp>

#include "fuzz/fuzz_inputs.hpp"

namespace kd = kindling;
using Catch::Contains;

TEST_CASE("safetensors: every fuzz seed loads, every regression input is refused naming the file") {
  for (const auto& path : kdtest::fuzz_inputs("corpus", "safetensors")) {
    INFO(path);
    CHECK_NOTHROW(kd::load(path));
  }
  const auto bad = kdtest::fuzz_inputs("regressions", "safetensors");
  REQUIRE(bad.size() >= 2);
  for (const auto& path : bad) {
    INFO(path);
    CHECK_THROWS_AS(kd::load(path), kd::IOError);
    CHECK_THROWS_WITH(kd::load(path), Contains(path) && Contains("too large"));
  }
}

TEST_CASE("safetensors: 2^61 float64 elements on 0 bytes no longer pass the size check") {
  // The exact header of the finding: numel * 8 wrapped to 0 = the 0 bytes the offsets claim.
  const std::string path = kdtest::fuzz_inputs("regressions", "safetensors").at(0);
  REQUIRE(path.find("f64_numel_times_8_wraps") != std::string::npos);
  CHECK_THROWS_WITH(kd::load(path), Contains("2305843009213693952") && Contains("too large"));
}

TEST_CASE("safetensors: a directory given as the file is named as a directory") {
  const std::string dir = std::filesystem::temp_directory_path().string();
  CHECK_THROWS_WITH(kd::load(dir), Contains("is a directory"));
  CHECK_THROWS_WITH(kd::load_metadata(dir), Contains("is a directory"));
  kd::StateDict sd;
  sd.insert("w", kd::zeros({2}));
  CHECK_THROWS_WITH(kd::save(sd, dir), Contains("is a directory"));
}
