// Instructor-only tests for chapter 2 (not in a handout): random shapes and random graphs, so that an
// answer tuned to the visible tests does not pass by luck. Twins: pytorch.py next to this file.
#include "ch02_grading.hpp"

using namespace ch02_grading;

namespace {
kd::Shape ints(const std::string& line) {
  kd::Shape out;
  std::istringstream in(line);
  for (std::string w; in >> w;)
    if (w != "-") out.push_back(std::stoll(w));
  return out;
}
}  // namespace

TEST_CASE("sum_to: 150 random broadcasts in float64 (hidden)", "[ch02][ex2][pts=2][hidden]") {
  std::istringstream lines(grading::input_text("shapes"));
  int i = 0;
  for (std::string line; std::getline(lines, line); ++i) {
    const kd::Tensor g = grading::input("g_" + std::to_string(i));
    grading::expect("case " + std::to_string(i), kd::autograd::sum_to(g, ints(line)));
  }
}

TEST_CASE("matmul: 30 random batched products (hidden)", "[ch02][ex3][pts=2][hidden]") {
  for (int i = 0; i < 30; ++i) {
    const std::string k = std::to_string(i);
    const kd::Tensor a = leaf("a_" + k), b = leaf("b_" + k);
    a.matmul(b).backward(grading::input("g_" + k));
    expect_grad("case " + k + ": a.grad", a);
    expect_grad("case " + k + ": b.grad", b);
  }
}

TEST_CASE("backward: 40 random graphs with shared subexpressions (hidden)", "[ch02][ex4][pts=2][hidden]") {
  // Each line: "op i j" -- a new value from values i and j of the pool (0, 1: leaves; 2: data).
  std::istringstream programs(grading::input_text("programs"));
  int g = 0;
  for (std::string program; std::getline(programs, program); ++g) {
    std::vector<kd::Tensor> pool{leaf("p"), leaf("q"), grading::input("r")};
    std::istringstream steps(program);
    for (std::string step; std::getline(steps, step, ';');) {
      std::istringstream in(step);
      int op = 0, i = 0, j = 0;
      in >> op >> i >> j;
      const kd::Tensor &x = pool[i], &y = pool[j];
      switch (op) {
        case 0: pool.push_back(x * y); break;
        case 1: pool.push_back(x + y.tanh()); break;
        case 2: pool.push_back((x / (y * y + 1.0)).exp() - 1.0); break;
        default: pool.push_back(x.sigmoid() * y); break;
      }
    }
    kd::Tensor root = pool.back();
    for (std::size_t i = 3; i < pool.size(); i += 3) root = root + pool[i];
    if (root.requires_grad()) root.sum().backward();
    expect_grad("graph " + std::to_string(g) + ": p.grad", pool[0]);
    expect_grad("graph " + std::to_string(g) + ": q.grad", pool[1]);
  }
}
