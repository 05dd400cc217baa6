// Printing: every expected string is produced by real PyTorch's repr() at test time. The data
// reaches PyTorch either as the same Python expression or through a .npy file that we write.
#include <catch2/catch.hpp>
#include <kindling/tensor.hpp>
#include <kindling/tensor/autograd_hooks.hpp>
#include <sstream>

#include "torch_oracle.hpp"

namespace kd = kindling;
using namespace kd::indexing;

namespace {

struct Case {
  kd::Tensor kd;        // what we print
  std::string py = "";  // PyTorch expression; empty = load the contiguous copy of `kd` from .npy
  std::string py_suffix = "";  // appended to the Python expression (e.g. ".requires_grad_()")
};

// Prints every case both ways and compares; `py_setup` runs first (print options, ...).
void check_reprs(const std::vector<Case>& cases, const std::string& py_setup = "") {
  kd::testing::TempDir dir;
  std::vector<std::string> exprs;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::string py = cases[i].py;
    if (py.empty()) {
      const std::string file = dir.file("case" + std::to_string(i) + ".npy");
      kd::save_npy(cases[i].kd, file);
      py = "torch.from_numpy(np.load('" + file + "'))";
    }
    exprs.push_back("repr(" + py + cases[i].py_suffix + ")");
  }
  const auto expected = kd::testing::python_eval(exprs, py_setup);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    INFO("case " << i << ": " << exprs[i]);
    CHECK(cases[i].kd.to_string() == expected[i]);
    std::ostringstream os;
    os << cases[i].kd;
    CHECK(os.str() == expected[i]);
  }
}

kd::Tensor scaled(kd::Tensor t, double factor) {
  // Multiplies through double without needing the math ops (written elsewhere in the layer).
  auto v = t.to_vector<double>();
  for (auto& x : v) x *= factor;
  return kd::tensor(v, t.shape()).to(t.dtype());
}

kd::Tensor with_grad(kd::Tensor t) {
  kd::detail::set_requires_grad(*t.impl());  // what requires_grad_() does (that method belongs to chapter 2)
  return t;
}

struct RestoreOptions {
  kd::PrintOptions saved = kd::get_printoptions();
  ~RestoreOptions() { kd::set_printoptions(saved); }
};

}  // namespace

TEST_CASE("print: matches PyTorch's repr for written-out tensors") {
  check_reprs({
      {kd::tensor({{1., 2.}, {3., 4.}}), "torch.tensor([[1., 2.], [3., 4.]])"},
      {kd::tensor({{1, 2}, {3, 4}}), "torch.tensor([[1, 2], [3, 4]])"},
      {kd::tensor({1.5, -2.25, 1000.125}), "torch.tensor([1.5, -2.25, 1000.125])"},
      {kd::tensor({true, false}), "torch.tensor([True, False])"},
      {kd::tensor({1., 2.}, {.dtype = kd::kFloat64}), "torch.tensor([1., 2.], dtype=torch.float64)"},
      {kd::tensor({1, 200}, {.dtype = kd::kUInt8}), "torch.tensor([1, 200], dtype=torch.uint8)"},
      {kd::tensor(3.5), "torch.tensor(3.5)"},
      {kd::tensor(-7), "torch.tensor(-7)"},
      {kd::tensor(true), "torch.tensor(True)"},
      {kd::tensor(0.0), "torch.tensor(0.)"},
      {kd::tensor(1e-10), "torch.tensor(1e-10)"},
      {kd::tensor({0., -0.0, 0.5}), "torch.tensor([0., -0.0, 0.5])"},
      {kd::tensor({0., 0., 0.}), "torch.zeros(3)"},
      {kd::zeros({0}), "torch.zeros(0)"},
      {kd::zeros({0, 3}), "torch.zeros(0, 3)"},
      {kd::zeros({2, 0, 1}, {.dtype = kd::kInt64}), "torch.zeros(2, 0, 1, dtype=torch.int64)"},
      {kd::zeros({0}, {.dtype = kd::kBool}), "torch.zeros(0, dtype=torch.bool)"},
      {kd::zeros({0}, {.dtype = kd::kFloat64}), "torch.zeros(0, dtype=torch.float64)"},
      {kd::tensor({1., 2.}, {.requires_grad = true}), "torch.tensor([1., 2.], requires_grad=True)"},
      {kd::tensor({1., 2.}, {.dtype = kd::kFloat64, .requires_grad = true}),
       "torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)"},
      {kd::arange(100), "torch.arange(100)"},
      {kd::arange(-50, 1000, 37), "torch.arange(-50, 1000, 37)"},
      {kd::arange(1001), "torch.arange(1001)"},
      {kd::arange(0, 3, 0.1), "torch.arange(0, 3, 0.1)"},
      {kd::linspace(-1, 1, 40, {.dtype = kd::kFloat64}), "torch.linspace(-1, 1, 40, dtype=torch.float64)"},
      {kd::eye(3), "torch.eye(3)"},
      {kd::arange(2000).reshape({10, 20, 10}), "torch.arange(2000).reshape(10, 20, 10)"},
      {kd::arange(24).reshape({2, 3, 4}).permute({2, 0, 1}), "torch.arange(24).reshape(2, 3, 4).permute(2, 0, 1)"},
      {kd::arange(16).reshape({2, 2, 2, 2}), "torch.arange(16).reshape(2, 2, 2, 2)"},
      {kd::arange(12).reshape({3, 4}).to(kd::kFloat32).t(), "torch.arange(12.).reshape(3, 4).t()"},
      {kd::tensor({1, 2}).reshape({2, 1}).expand({2, 1500}), "torch.tensor([[1], [2]]).expand(2, 1500)"},
  });
}

TEST_CASE("print: matches PyTorch's repr for random data of every style") {
  kd::manual_seed(11);
  check_reprs({
      {kd::randn({3, 4})},                                        // fixed point
      {scaled(kd::randn({3, 4}), 1e5)},                           // wide range → scientific
      {scaled(kd::rand({5}), 1e-5)},                              // tiny → scientific
      {scaled(kd::rand({2, 3}), 1e9)},                            // > 1e8 → scientific
      {kd::randn({4, 3}, {.dtype = kd::kFloat64})},               // dtype suffix
      {scaled(kd::arange(12).to(kd::kFloat32), 1e9).reshape({3, 4})},  // whole numbers, scientific
      {scaled(kd::arange(12).to(kd::kFloat32), 97).reshape({3, 4})},   // whole numbers "97."
      {kd::tensor({std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN(), 1.5, -2.25})},
      {kd::tensor({std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()})},
      {kd::tensor({std::numeric_limits<double>::infinity(), 3.0, 1e12})},
      {kd::tensor({123456.789, 0.5})},
      {kd::tensor({1.5e8, 2.0})},
      {kd::randint(-1000, 1000, {4, 5})},
      {kd::randint(0, 256, {2, 3, 4}, {.dtype = kd::kUInt8})},
      {kd::randint(0, 2, {3, 3}, {.dtype = kd::kBool})},
      {kd::tensor(std::vector<std::int64_t>{1000000000000000LL, -5}, {2})},
      {kd::randn({2000})},                                         // summarised 1-D
      {kd::randn({50, 40})},                                       // summarised 2-D
      {scaled(kd::randn({30, 40}), 1e-6)},                         // summarised, scientific
      {kd::randn({30})},                                           // wraps at linewidth
      {kd::randn({2, 2, 2, 2})},
      {kd::randn({3, 4}).t()},                                     // non-contiguous
      {kd::randn({4, 1}).expand({4, 700})},                        // expanded, summarised
      {kd::randn({1, 1, 1})},
      {with_grad(kd::randn({3, 10}, {.dtype = kd::kFloat64})), "", ".requires_grad_()"},  // suffix on a new line
      {with_grad(kd::randn({2, 7}, {.dtype = kd::kFloat64})), "", ".requires_grad_()"},
      {kd::randn({}), ""},
  });
}

TEST_CASE("print: set_printoptions changes precision, threshold, edgeitems and linewidth like torch") {
  RestoreOptions restore;
  kd::set_printoptions({.precision = 2, .threshold = 5, .edgeitems = 2, .linewidth = 40});
  CHECK(kd::get_printoptions().precision == 2);
  kd::manual_seed(12);
  check_reprs(
      {
          {kd::randn({3, 4})},
          {kd::arange(10)},
          {kd::randn({20})},
          {kd::randn({4, 5, 6})},
          {scaled(kd::rand({3}), 1e-5)},
          {kd::tensor({1.005, 2.675})},
          {with_grad(kd::randn({6}, {.dtype = kd::kFloat64})), "", ".requires_grad_()"},
      },
      "torch.set_printoptions(precision=2, threshold=5, edgeitems=2, linewidth=40)");
  CHECK_THROWS_AS(kd::set_printoptions({.precision = -1}), kd::ValueError);
}

namespace {
// Chapter 1 cannot make a real node; printing only asks chapter 2's hook for the name of a tensor's
// node ("" when it has none).
kd::TensorImpl* g_computed = nullptr;
std::string fake_node_name(const kd::Tensor& t) { return t.impl() == g_computed ? "MulBackward0" : ""; }
}  // namespace

TEST_CASE("print: grad_fn=<...> comes from the node-name hook chapter 2 installs") {
  kd::Tensor y = kd::tensor({2., 4.});
  kd::detail::set_requires_grad(*y.impl());
  g_computed = y.impl();
  const auto previous = kd::detail::node_name_fn();
  kd::detail::set_node_name_fn(&fake_node_name);
  check_reprs({{y, "torch.tensor([1., 2.], requires_grad=True) * 2"}});
  kd::detail::set_node_name_fn(previous);
  g_computed = nullptr;
}

TEST_CASE("print: an undefined tensor prints without throwing") {
  std::ostringstream os;
  os << kd::Tensor();
  CHECK(os.str() == "[ Tensor (undefined) ]");  // LibTorch's wording
}
