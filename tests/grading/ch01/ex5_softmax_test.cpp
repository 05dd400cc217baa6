// ch01.ex5 — softmax and log_softmax that never overflow (detail::softmax_forward).
#include "ch01_grading.hpp"

#include <cmath>

using namespace ch01_grading;

namespace {
bool all_finite(const kd::Tensor& t) {
  for (double v : t.to(kd::kFloat64).contiguous().to_vector<double>())
    if (!std::isfinite(v)) return false;
  return true;
}
}  // namespace

TEST_CASE("softmax: every dim, float32 and float64", "[ch01][ex5][pts=3]") {
  for (const std::string name : {"x", "y", "z"}) {
    const kd::Tensor t = grading::input(name);
    for (std::int64_t d = -t.dim(); d < t.dim(); ++d) {
      grading::expect("softmax(" + name + ", " + std::to_string(d) + ")", kd::softmax(t, d));
    }
  }
}

TEST_CASE("log_softmax: every dim, float32 and float64", "[ch01][ex5][pts=2]") {
  for (const std::string name : {"x", "y"}) {
    const kd::Tensor t = grading::input(name);
    for (std::int64_t d = -t.dim(); d < t.dim(); ++d) {
      grading::expect("log_softmax(" + name + ", " + std::to_string(d) + ")", kd::log_softmax(t, d));
    }
  }
}

TEST_CASE("softmax: non-contiguous inputs", "[ch01][ex5][pts=2]") {
  const kd::Tensor a = grading::input("a"), b = grading::input("b"), c = grading::input("c"), e = grading::input("e");
  grading::expect("softmax(a.t(), 1)", kd::softmax(a.t(), 1));
  grading::expect("softmax(b.permute(2, 0, 1), 0)", kd::softmax(b.permute({2, 0, 1}), 0));
  grading::expect("softmax(c[:, ::2], -1)", kd::softmax(c.slice(1, 0, 9, 2), -1));
  grading::expect("softmax(e.expand(4, 5), 1)", kd::softmax(e.expand({4, 5}), 1));
  grading::expect("log_softmax(b.permute(2, 0, 1), 1)", kd::log_softmax(b.permute({2, 0, 1}), 1));
}

TEST_CASE("softmax: logits around 1000 stay finite", "[ch01][ex5][pts=3]") {
  for (const std::string name : {"x", "y"}) {
    const kd::Tensor t = grading::input(name);
    REQUIRE_FALSE(all_finite(t.exp()));  // the trap is real: exp(1000) is inf in float32 and float64
    for (std::int64_t d : {0, 1, -1}) {
      const kd::Tensor p = kd::softmax(t, d);
      INFO("softmax(" << name << ", " << d << ") must be finite");
      CHECK(all_finite(p));
      grading::expect("softmax(" + name + ", " + std::to_string(d) + ")", p);
    }
  }
}

TEST_CASE("log_softmax: finite where softmax underflows", "[ch01][ex5][pts=2]") {
  const kd::Tensor x = grading::input("x"), y = grading::input("y");
  grading::expect("log_softmax(x, 1)", kd::log_softmax(x, 1));
  grading::expect("log_softmax(y, 1)", kd::log_softmax(y, 1));
  grading::expect("log_softmax(x, 0)", kd::log_softmax(x, 0));
  grading::expect("softmax(x, 1)", kd::softmax(x, 1));
  INFO("log_softmax is x - max - log(sum(exp(x - max))), never log(softmax(x)), which is -inf where softmax underflows");
  CHECK(all_finite(kd::log_softmax(x, 1)));
}

TEST_CASE("softmax: 0-d and empty tensors", "[ch01][ex5][pts=1]") {
  const kd::Tensor z = grading::input("z"), e = grading::input("e"), f = grading::input("f");
  grading::expect("softmax(z, 0)", kd::softmax(z, 0));
  grading::expect("log_softmax(z, -1)", kd::log_softmax(z, -1));
  grading::expect("softmax(e, 1)", kd::softmax(e, 1));
  grading::expect("softmax(e, 0)", kd::softmax(e, 0));
  grading::expect("softmax(f, 1)", kd::softmax(f, 1));
}
