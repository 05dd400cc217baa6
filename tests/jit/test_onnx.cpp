// kd::onnx::load on files that are not ONNX models: a clear kd::Error, never a crash.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "kindling/jit.hpp"

namespace kd = kindling;

namespace {
std::filesystem::path write_bytes(const std::string& name, const std::string& bytes) {
  auto p = std::filesystem::temp_directory_path() / name;
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}
}  // namespace

TEST_CASE("onnx::load refuses a missing file, garbage and a truncated protobuf with kd::Error") {
  CHECK_THROWS_WITH(kd::onnx::load("/nonexistent/model.onnx"), Catch::Contains("cannot open"));
  // 0x0a = field 1 (ir_version is field 1 as a varint: this declares a length-delimited field 1) of
  // length 0x7f with 2 bytes behind it: truncated.
  auto truncated = write_bytes("kd_onnx_truncated.onnx", std::string("\x0a\x7f\x01\x02", 4));
  CHECK_THROWS_WITH(kd::onnx::load(truncated), Catch::Contains("not a valid ModelProto"));
  // A valid empty message has no graph.
  auto empty = write_bytes("kd_onnx_empty.onnx", "");
  CHECK_THROWS_WITH(kd::onnx::load(empty), Catch::Contains("field graph is missing"));
  std::filesystem::remove(truncated);
  std::filesystem::remove(empty);
}
