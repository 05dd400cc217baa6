// ch01.ex4 — the strided copy behind contiguous(), clone(), copy_(), cat and stack (detail::strided_copy).
#include "ch01_grading.hpp"

using namespace ch01_grading;

namespace {
void report_copy(const std::string& name, const kd::Tensor& v) {
  const kd::Tensor c = v.contiguous();
  grading::expect("contiguous(): " + name, c);
  grading::expect("contiguous().strides(): " + name, c.strides());
  grading::expect("contiguous().is_contiguous(): " + name, c.is_contiguous());
  grading::expect("contiguous().storage_offset(): " + name, c.storage_offset());
  if (!v.is_contiguous()) {
    INFO("contiguous() of a non-contiguous view must be a copy: " << name);
    CHECK_FALSE(c.shares_storage(v));
  }
}
}  // namespace

TEST_CASE("contiguous: float32 views in many layouts", "[ch01][ex4][pts=4]") {
  for (const auto& [name, v] : views()) report_copy(name, v);
}

TEST_CASE("contiguous: every dtype", "[ch01][ex4][pts=3]") {
  for (const std::string dt : {"float64", "int64", "uint8", "bool"}) {
    for (const auto& [name, v] : views(dt + "_")) grading::expect(dt + " contiguous(): " + name, v.contiguous());
  }
}

TEST_CASE("clone: keeps a dense layout and copies the values", "[ch01][ex4][pts=2]") {
  for (const auto& [name, v] : views()) {
    const kd::Tensor c = v.clone();
    grading::expect("clone(): " + name, c);
    grading::expect("clone().strides(): " + name, c.strides());
    INFO("clone() must copy: " << name);
    CHECK((v.numel() == 0 || !c.shares_storage(v)));
  }
}

TEST_CASE("copy_: from a view into a view", "[ch01][ex4][pts=2]") {
  const kd::Tensor src = grading::input("src"), big = grading::input("big");
  kd::Tensor dst = kd::zeros({3, 4});
  dst.t().copy_(src);
  grading::expect("dst after dst.t().copy_(src)", dst);
  kd::Tensor b = big.clone();
  b.slice(0, 1, 5, 2).slice(1, 0, 6, 2).copy_(src.slice(0, 0, 4, 2));
  grading::expect("big after big[1:5:2, ::2].copy_(src[::2])", b);
}

TEST_CASE("cat and stack of views", "[ch01][ex4][pts=2]") {
  const kd::Tensor a = grading::input("a"), b = grading::input("b"), c = grading::input("c");
  grading::expect("cat({a, b.t()}, 0)", kd::cat({a, b.t()}, 0));
  grading::expect("cat({a.t(), b}, 1)", kd::cat({a.t(), b}, 1));
  grading::expect("stack({a, b.t()}, 1)", kd::stack({a, b.t()}, 1));
  grading::expect("stack({c[:, ::2], c[:, 1::2]}, 0)", kd::stack({c.slice(1, 0, 4, 2), c.slice(1, 1, 4, 2)}, 0));
}

TEST_CASE("contiguous: 60 random views", "[ch01][ex4][pts=2]") {
  for (const auto& [name, v] : views()) grading::expect("contiguous(): " + name, v.contiguous());
}
