// ch02.ex5 — gradcheck's finite differences and comparison (compare_with_finite_differences), through
// kd::autograd::gradcheck: right formulas pass, wrong ones are caught at the entry PyTorch's numbers
// say is worst, tolerances and eps are honoured, and the inputs come back unchanged.
#include "ch02_grading.hpp"

using namespace ch02_grading;
namespace ag = kd::autograd;

namespace {

// y = x³ with its right derivative, and with a wrong one (the derivative of x²).
template <bool Right>
struct CubeT : ag::Function<CubeT<Right>> {
  kd::Tensor forward(ag::Context& ctx, const kd::Tensor& x) {
    ctx.save_for_backward({x});
    return x * x * x;
  }
  ag::Grads backward(ag::Context& ctx, const ag::Grads& grad) {
    const kd::Tensor x = ctx.saved(0);
    return {Right ? grad[0] * (x * x * 3.0) : grad[0] * (x * 2.0)};
  }
};
using Cube = CubeT<true>;
using WrongCube = CubeT<false>;

// out = a * b whose gradient for b is wrong (g * b instead of g * a).
struct WrongMul : ag::Function<WrongMul> {
  kd::Tensor forward(ag::Context& ctx, const kd::Tensor& a, const kd::Tensor& b) {
    ctx.save_for_backward({a, b});
    return a * b;
  }
  ag::Grads backward(ag::Context& ctx, const ag::Grads& grad) {
    return {grad[0] * ctx.saved(1), grad[0] * ctx.saved(1)};
  }
};

// y = 2x whose derivative is off by one part in 10,000.
struct SlightlyOff : ag::Function<SlightlyOff> {
  kd::Tensor forward(ag::Context&, const kd::Tensor& x) { return x * 2.0; }
  ag::Grads backward(ag::Context&, const ag::Grads& grad) { return {grad[0] * 2.0002}; }
};

std::vector<kd::Tensor> leaves(std::initializer_list<const char*> names) {
  std::vector<kd::Tensor> out;
  for (const char* n : names) out.push_back(leaf(n));
  return out;
}

void report_worst(const std::string& what, const ag::GradcheckResult& r) {
  grading::expect(what + ": ok", r.ok);
  grading::expect(what + ": input_index", r.input_index);
  grading::expect(what + ": output_index", r.output_index);
  grading::expect(what + ": input_element", r.input_element);
  grading::expect(what + ": output_element", r.output_element);
  grading::expect(what + ": analytical", r.analytical);
  grading::expect(what + ": numerical", r.numerical);
  grading::expect(what + ": max_abs_error", r.max_abs_error);
}

}  // namespace

TEST_CASE("gradcheck: right backward formulas pass", "[ch02][ex5][pts=4]") {
  const auto xs = leaves({"x", "y", "w"});  // float64: x, y [3, 4] (y > 0), w [4, 2]
  const std::vector<std::pair<std::string, ag::GradcheckFn1>> fns = {
      {"Cube(x)", [](const std::vector<kd::Tensor>& v) { return Cube::apply(v[0]); }},
      {"x.tanh() * y", [](const std::vector<kd::Tensor>& v) { return v[0].tanh() * v[1]; }},
      {"(x / y).exp()", [](const std::vector<kd::Tensor>& v) { return (v[0] / v[1]).exp(); }},
      {"x.matmul(w)", [](const std::vector<kd::Tensor>& v) { return v[0].matmul(v[2]); }},
      {"softmax(x * y, 1)", [](const std::vector<kd::Tensor>& v) { return kd::softmax(v[0] * v[1], 1); }},
  };
  for (const auto& [name, fn] : fns) {
    const ag::GradcheckResult r = ag::gradcheck(fn, xs);
    grading::expect(name + ": ok", r.ok);
    grading::expect(name + ": max_abs_error", r.max_abs_error);
  }
}

TEST_CASE("gradcheck: a wrong backward is caught, at its worst entry", "[ch02][ex5][pts=5]") {
  const auto xs = leaves({"x"});  // float64 [6]
  report_worst("WrongCube(x)", ag::gradcheck([](const std::vector<kd::Tensor>& v) { return WrongCube::apply(v[0]); }, xs));
  const auto ys = leaves({"m"});  // float64 [2, 3]: a Jacobian with off-diagonal entries
  report_worst("WrongCube(m).sum(1)",
               ag::gradcheck([](const std::vector<kd::Tensor>& v) { return WrongCube::apply(v[0]).sum(1); }, ys));
}

TEST_CASE("gradcheck: several inputs and outputs, one gradient wrong", "[ch02][ex5][pts=4]") {
  // inputs: a (checked), c (no grad: passed through), b (checked); outputs: tanh(a) * c, WrongMul(a, b)
  const std::vector<kd::Tensor> xs{leaf("a"), grading::input("c"), leaf("b")};
  const ag::GradcheckFn fn = [](const std::vector<kd::Tensor>& v) {
    return std::vector<kd::Tensor>{v[0].tanh() * v[1], WrongMul::apply(v[0], v[2])};
  };
  report_worst("two outputs", ag::gradcheck(fn, xs));
  const ag::GradcheckFn right = [](const std::vector<kd::Tensor>& v) {
    return std::vector<kd::Tensor>{v[0].tanh() * v[1], v[0] * v[2]};
  };
  grading::expect("two outputs, right: ok", ag::gradcheck(right, xs).ok);
}

TEST_CASE("gradcheck: inputs come back unchanged, and no .grad is touched", "[ch02][ex5][pts=3]") {
  const kd::Tensor x = leaf("x");  // float64 [3, 4]; checked through the non-contiguous x.t()
  const ag::GradcheckResult r =
      ag::gradcheck([](const std::vector<kd::Tensor>& v) { return v[0].exp() * v[0]; }, {x.t()});
  grading::expect("ok", r.ok);
  grading::expect("x after gradcheck", x.detach());
  grading::expect("x.grad defined", x.grad().defined());
}

TEST_CASE("gradcheck: outputs that are views of the input, and nan", "[ch02][ex5][pts=2]") {
  const auto xs = leaves({"x"});  // float64 [3, 4], some entries negative
  grading::expect("x.t(): ok", ag::gradcheck([](const std::vector<kd::Tensor>& v) { return v[0].t(); }, xs).ok);
  grading::expect("x[1]: ok", ag::gradcheck([](const std::vector<kd::Tensor>& v) { return v[0][1]; }, xs).ok);
  grading::expect("x.sqrt(): ok", ag::gradcheck([](const std::vector<kd::Tensor>& v) { return v[0].sqrt(); }, xs).ok);
}

TEST_CASE("gradcheck: eps, atol and rtol are the ones asked for", "[ch02][ex5][pts=2]") {
  const auto xs = leaves({"x"});  // float64 [5]
  const ag::GradcheckFn1 off = [](const std::vector<kd::Tensor>& v) { return SlightlyOff::apply(v[0]); };
  const ag::GradcheckFn1 cube = [](const std::vector<kd::Tensor>& v) { return Cube::apply(v[0]); };
  grading::expect("SlightlyOff, defaults: ok", ag::gradcheck(off, xs).ok);
  grading::expect("SlightlyOff, atol 1e-7 rtol 1e-5: ok", ag::gradcheck(off, xs, {.atol = 1e-7, .rtol = 1e-5}).ok);
  grading::expect("SlightlyOff, atol 1e-3 rtol 0: ok", ag::gradcheck(off, xs, {.atol = 1e-3, .rtol = 0}).ok);
  grading::expect("Cube, eps 0.1: ok", ag::gradcheck(cube, xs, {.eps = 0.1}).ok);
  grading::expect("Cube, eps 0.1 atol 0.02: ok", ag::gradcheck(cube, xs, {.eps = 0.1, .atol = 0.02}).ok);
}
