// ch08.ex1 — the elementwise kernel with broadcasting and strides (emulated::binary).
#include "ch08_grading.hpp"

using namespace ch08_grading;
using kc::BinaryOp;

namespace {
// Every op of a and b, reported as "<name>: a op b"; and the launches did write every output.
void report_all(const std::string& name, const kd::Tensor& a, const kd::Tensor& b) {
  const std::pair<const char*, BinaryOp> ops[] = {
      {"+", BinaryOp::Add}, {"-", BinaryOp::Sub}, {"*", BinaryOp::Mul}, {"/", BinaryOp::Div}};
  for (const auto& entry : ops) {  // (not a structured binding: clang 14 cannot capture one)
    const char* sym = entry.first;
    const BinaryOp op = entry.second;
    kd::Tensor out;
    const auto log = launches_of([&] { out = binary(op, a, b); });
    std::uint64_t written = 0;
    for (const auto& r : log) written += r.global_accesses;
    INFO("the launches: " << (log.empty() ? std::string("none") : describe(log.back())));
    REQUIRE(!log.empty());                                   // the work happens in a kernel,
    REQUIRE(written >= static_cast<std::uint64_t>(out.numel()));  // which writes every output
    grading::expect(name + ": a " + sym + " b", out);
  }
}
}  // namespace

TEST_CASE("binary kernel: two vectors of the same length; an empty one launches nothing",
          "[ch08][ex1][pts=6]") {
  report_all("[37]", grading::input("a"), grading::input("b"));
  const auto log = launches_of([] {
    emu::binary(BinaryOp::Add, nullptr, 0, nullptr, 0, nullptr, 0, kc::BinaryLayout{});
  });
  CHECK(log.empty());  // a launch needs at least one block: a GPU refuses grid 0
}

TEST_CASE("binary kernel: broadcasting a column, a row and a scalar", "[ch08][ex1][pts=5]") {
  const kd::Tensor col = grading::input("col"), row = grading::input("row"), s = grading::input("s");
  report_all("[5, 1] with [1, 7]", col, row);
  report_all("[5, 1] with 0-d", col, s);
}

TEST_CASE("binary kernel: transposed and sliced inputs (strides, an offset)", "[ch08][ex1][pts=5]") {
  const kd::Tensor a = grading::input("a"), big = grading::input("big");
  const kd::Tensor b = big.slice(1, 1, 4).t();  // [3, 6], non-contiguous, storage offset 1
  REQUIRE(!b.is_contiguous());
  REQUIRE(b.storage_offset() == 1);
  report_all("[4, 1, 6] with big[:, 1:4].t()", a, b);
}

TEST_CASE("binary kernel: many blocks", "[ch08][ex1][pts=4]") {
  report_all("[3, 700] with [700]", grading::input("a"), grading::input("b"));
}
