// ch02.ex2 — unbroadcast (kd::autograd::sum_to): called directly, and by the engine for the gradient
// of every input that was broadcast in the forward pass.
#include "ch02_grading.hpp"

using namespace ch02_grading;

namespace {
// "shape | grad shape" pairs, one per line ("-" for a 0-d shape), as the twin writes them.
struct Pair {
  kd::Shape shape, full;
};
std::vector<Pair> pairs(const std::string& text) {
  std::vector<Pair> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto bar = line.find('|');
    if (bar == std::string::npos) continue;
    auto parse = [](const std::string& s) {
      kd::Shape shape;
      std::istringstream in(s);
      for (std::string w; in >> w;)
        if (w != "-") shape.push_back(std::stoll(w));
      return shape;
    };
    out.push_back({parse(line.substr(0, bar)), parse(line.substr(bar + 1))});
  }
  return out;
}
}  // namespace

TEST_CASE("sum_to: a gradient summed back to every shape that broadcasts to it", "[ch02][ex2][pts=5]") {
  const auto ps = pairs(grading::input_text("pairs"));
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const kd::Tensor g = grading::input("g_" + std::to_string(i));
    grading::expect("sum_to(" + kd::shape_str(ps[i].full) + " -> " + kd::shape_str(ps[i].shape) + ")",
                    kd::autograd::sum_to(g, ps[i].shape));
  }
}

TEST_CASE("sum_to: empty dimensions, 0-d shapes, float64 and non-contiguous gradients", "[ch02][ex2][pts=3]") {
  const kd::Tensor e = grading::input("e"), z = grading::input("z"), d = grading::input("d");
  grading::expect("sum_to(e [0, 3], [3])", kd::autograd::sum_to(e, {3}));
  grading::expect("sum_to(e [0, 3], [1, 3])", kd::autograd::sum_to(e, {1, 3}));
  grading::expect("sum_to(e [0, 3], [])", kd::autograd::sum_to(e, {}));
  grading::expect("sum_to(z [], [])", kd::autograd::sum_to(z, {}));
  grading::expect("sum_to(d.t() [5, 4], [5, 1])", kd::autograd::sum_to(d.t(), {5, 1}));
  grading::expect("sum_to(d.t() [5, 4], [4])", kd::autograd::sum_to(d.t(), {4}));
  grading::expect("sum_to(d.t() [5, 4], [])", kd::autograd::sum_to(d.t(), {}));
}

TEST_CASE("broadcast ops: the gradient of each input has the input's shape", "[ch02][ex2][pts=5]") {
  {
    const kd::Tensor a = leaf("a"), b = leaf("b");  // [3, 1] + [4]
    ((a + b) * grading::input("g")).sum().backward();
    expect_grad("(a + b): a.grad", a);
    expect_grad("(a + b): b.grad", b);
  }
  {
    const kd::Tensor x = leaf("x"), bias = leaf("bias");  // logits [32, 10] + a bias [10]
    ((x + bias).tanh()).sum().backward();
    expect_grad("tanh(x + bias): bias.grad", bias);
    expect_grad("tanh(x + bias): x.grad", x);
  }
  {
    const kd::Tensor p = leaf("p"), q = leaf("q"), s = leaf("s");  // [2, 1, 3] * [4, 1] / 0-d
    ((p * q - s) / (s * s + 1.0)).sum().backward();
    expect_grad("p.grad", p);
    expect_grad("q.grad", q);
    expect_grad("s.grad", s);
  }
}

TEST_CASE("broadcast ops: expand, and an input broadcast twice", "[ch02][ex2][pts=2]") {
  const kd::Tensor c = leaf("c");  // [3, 1]
  (c.expand({2, 3, 5}) * grading::input("h")).sum().backward();
  expect_grad("c.expand(2, 3, 5): c.grad", c);
  const kd::Tensor u = leaf("u");  // [1, 4]: broadcast along dim 0 in u * v, along a new dim in u + w
  ((u * grading::input("v")).sum() + (u + grading::input("w")).exp().sum()).backward();
  expect_grad("u.grad", u);
}
