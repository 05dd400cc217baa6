// Binary elementwise ops: values against naive loops, PyTorch's promotion table (asked from real
// PyTorch), broadcasting, non-contiguous inputs, in-place rules and error messages.
#include <catch2/catch.hpp>
#include <cmath>
#include <kindling/tensor.hpp>

#include "math_helpers.hpp"
#include "torch_oracle.hpp"

namespace kd = kindling;
using Catch::Contains;
using kd::testing::close;
using kd::testing::naive_binary;
using kd::testing::sample;
using kd::testing::values;

namespace {
const std::vector<std::pair<kd::DType, std::string>> kDTypes = {{kd::kBool, "torch.bool"},
                                                                 {kd::kUInt8, "torch.uint8"},
                                                                 {kd::kInt64, "torch.int64"},
                                                                 {kd::kFloat32, "torch.float32"},
                                                                 {kd::kFloat64, "torch.float64"}};
std::string torch_name(kd::DType d) { return std::string("torch.") + kd::dtype_name(d); }
}  // namespace

TEST_CASE("binary ops: result dtypes follow PyTorch's promotion table, with 0-d tensors and scalars") {
  using Fn = kd::Tensor (*)(const kd::Tensor&, const kd::Tensor&);
  const std::vector<std::pair<std::string, Fn>> ops = {
      {"mul", [](const kd::Tensor& a, const kd::Tensor& b) { return kd::mul(a, b); }},
      {"div", [](const kd::Tensor& a, const kd::Tensor& b) { return kd::div(a, b); }},
      {"add", [](const kd::Tensor& a, const kd::Tensor& b) { return kd::add(a, b); }},
      {"maximum", [](const kd::Tensor& a, const kd::Tensor& b) { return kd::maximum(a, b); }}};
  const std::vector<std::pair<kd::Shape, std::string>> shapes = {{{2}, "2"}, {{}, "()"}};
  std::vector<std::string> exprs, ours;
  for (const auto& [op, fn] : ops)
    for (const auto& [da, na] : kDTypes)
      for (const auto& [db, nb] : kDTypes)
        for (const auto& [sa, pa] : shapes)
          for (const auto& [sb, pb] : shapes) {
            exprs.push_back("str(torch." + op + "(torch.ones(" + pa + ", dtype=" + na + "), torch.ones(" + pb +
                            ", dtype=" + nb + ")).dtype)");
            ours.push_back(torch_name(fn(kd::ones(sa, {.dtype = da}), kd::ones(sb, {.dtype = db})).dtype()));
          }
  // Python numbers ("wrapped numbers") on either side.
  const std::vector<std::pair<kd::Scalar, std::string>> scalars = {{2, "2"}, {2.5, "2.5"}, {true, "True"}};
  for (const auto& [da, na] : kDTypes)
    for (const auto& [s, ps] : scalars)
      for (const auto& [sa, pa] : shapes) {
        const kd::Tensor t = kd::ones(sa, {.dtype = da});
        exprs.push_back("str((torch.ones(" + pa + ", dtype=" + na + ") * " + ps + ").dtype)");
        ours.push_back(torch_name((t * s).dtype()));
        exprs.push_back("str((" + ps + " / torch.ones(" + pa + ", dtype=" + na + ")).dtype)");
        ours.push_back(torch_name((s / t).dtype()));
        exprs.push_back("str((torch.ones(" + pa + ", dtype=" + na + ") + " + ps + ").dtype)");
        ours.push_back(torch_name((t + s).dtype()));
      }
  const auto expected = kd::testing::python_eval(exprs);
  REQUIRE(expected.size() == ours.size());
  for (std::size_t i = 0; i < ours.size(); ++i) {
    INFO(exprs[i]);
    CHECK(ours[i] == expected[i]);
  }
}

TEST_CASE("add: values match a naive loop with broadcasting and non-contiguous inputs") {
  const kd::Tensor a = sample({4, 3}).t();              // [3, 4], transposed view
  const kd::Tensor b = sample({8}).slice(0, 0, 8, 2);   // [4], stride 2
  const kd::Tensor c = sample({3, 1});                  // [3, 1] broadcast along columns
  const kd::Tensor e = sample({1}).expand({3, 4});      // expanded, stride 0
  CHECK(close(values(a + b), naive_binary(a, b, [](double x, double y) { return x + y; })));
  CHECK(close(values(a - c), naive_binary(a, c, [](double x, double y) { return x - y; })));
  CHECK(close(values(a * e), naive_binary(a, e, [](double x, double y) { return x * y; })));
  CHECK(close(values(c / b), naive_binary(c, b, [](double x, double y) { return x / y; })));
  CHECK(close(values(kd::add(a, b, 2.5)), naive_binary(a, b, [](double x, double y) { return x + 2.5 * y; })));
  CHECK(close(values(kd::sub(a, c, -3)), naive_binary(a, c, [](double x, double y) { return x + 3 * y; })));
  CHECK((a + b).shape() == kd::Shape{3, 4});
  CHECK((c * b).shape() == kd::Shape{3, 4});
  CHECK((a + b).is_contiguous());
}

TEST_CASE("add: contiguous float64 and int64 match a naive loop") {
  const kd::Tensor a = sample({5, 7}, kd::kFloat64), b = sample({5, 7}, kd::kFloat64);
  CHECK(close(values(a * b), naive_binary(a, b, [](double x, double y) { return x * y; }), 1e-15, 0));
  const kd::Tensor i = kd::arange(35).reshape({5, 7}), j = kd::arange(7) - 3;
  CHECK(values(i * j) == naive_binary(i, j, [](double x, double y) { return x * y; }));
  CHECK(values(i - j) == naive_binary(i, j, [](double x, double y) { return x - y; }));
  CHECK((i * j).dtype() == kd::kInt64);
}

TEST_CASE("div: integer inputs give float32 true division") {
  const kd::Tensor a = kd::arange(-6, 6), b = kd::full({12}, 4, {.dtype = kd::kInt64});
  const kd::Tensor q = a / b;
  CHECK(q.dtype() == kd::kFloat32);
  CHECK(values(q) == naive_binary(a, b, [](double x, double y) { return static_cast<float>(x / y); }));
  const kd::Tensor u = kd::arange(1, 5).to(kd::kUInt8);
  CHECK((u / u).dtype() == kd::kFloat32);
  CHECK((1 / u).dtype() == kd::kFloat32);
  CHECK(values(1 / u) == std::vector<double>{1.0, 0.5, static_cast<float>(1.0 / 3), 0.25});
}

TEST_CASE("binary ops: scalars on either side") {
  const kd::Tensor x = sample({2, 3});
  CHECK(close(values(2 - x), naive_binary(kd::full({}, 2.0), x, [](double a, double b) { return a - b; })));
  CHECK(close(values(x - 2), naive_binary(x, kd::full({}, 2.0), [](double a, double b) { return a - b; })));
  CHECK(close(values(3 * x), naive_binary(x, kd::full({}, 3.0), [](double a, double b) { return a * b; })));
  CHECK(close(values(1 / x), naive_binary(kd::full({}, 1.0), x, [](double a, double b) { return a / b; })));
  CHECK(close(values(x + 0.5), naive_binary(x, kd::full({}, 0.5), [](double a, double b) { return a + b; })));
  const kd::Tensor i = kd::arange(4);
  CHECK((i * 2).dtype() == kd::kInt64);
  CHECK((i * 2.5).dtype() == kd::kFloat32);
  CHECK(values(i * 2.5) == std::vector<double>{0, 2.5, 5, 7.5});
  // uint8 + int keeps uint8 and wraps around like PyTorch (the scalar is converted to uint8).
  const kd::Tensor u = kd::full({2}, 250, {.dtype = kd::kUInt8});
  CHECK((u + 10).dtype() == kd::kUInt8);
  CHECK(values(u + 10) == std::vector<double>{4, 4});
}

TEST_CASE("binary ops: bool arithmetic is logical, and bool subtraction is refused") {
  const kd::Tensor t = kd::tensor({true, false, true}), f = kd::tensor({true, true, false});
  CHECK((t + f).dtype() == kd::kBool);
  CHECK(values(t + f) == std::vector<double>{1, 1, 1});
  CHECK(values(t * f) == std::vector<double>{1, 0, 0});
  CHECK_THROWS_AS(t - f, kd::DTypeError);
  CHECK_THROWS_WITH(t - f, Contains("sub") && Contains("bool"));
  CHECK((t + 1).dtype() == kd::kInt64);  // an int scalar lifts bool to int64
  // PyTorch refuses `-` whenever a bool takes part, tensor or number, on either side (issue 18).
  const kd::Tensor x = sample({3}), b0 = kd::scalar_tensor(true, {.dtype = kd::kBool});
  CHECK_THROWS_WITH(t - 1, Contains("sub") && Contains("bool") && Contains("logical_not"));
  CHECK_THROWS_AS(x - b0, kd::DTypeError);
  CHECK_THROWS_AS(x - true, kd::DTypeError);
  CHECK_THROWS_AS(true - x, kd::DTypeError);
  CHECK_THROWS_AS(kd::rsub(x, true), kd::DTypeError);
  kd::Tensor i = kd::arange(3);
  CHECK_THROWS_AS(i -= true, kd::DTypeError);
  CHECK_THROWS_AS(kd::pow(t, f), kd::DTypeError);
  CHECK_THROWS_WITH(t.pow(true), Contains("pow") && Contains("bool"));
  CHECK(t.pow(2).dtype() == kd::kInt64);
}

TEST_CASE("binary ops: a number takes part in type promotion before it is converted (issue 18)") {
  // uint8 / -1 is a true division by -1.0: converting -1 to uint8 first would divide by 255.
  const kd::Tensor u = kd::tensor(std::vector<std::uint8_t>{0, 1, 2, 200}, {4});
  const kd::Tensor uf = u.to(kd::kFloat32);
  CHECK(values(u / -1) == values(-uf));
  CHECK(values(u / 300) == values(uf / 300.0));
  CHECK(values(-1 / u) == values(-1.0 / uf));
  CHECK(values(u[1] / -1) == std::vector<double>{-1});  // a 0-d uint8 too
  // An integer result wraps the number into its dtype, as PyTorch does: uint8 + 300 adds 44.
  CHECK(values(u + 300) == values(u + 44));
  CHECK((u + 300).dtype() == kd::kUInt8);
}

TEST_CASE("binary ops: a value stored in a dtype must fit it (issue 18)") {
  const kd::Tensor u = kd::tensor(std::vector<std::uint8_t>{0, 1, 2}, {3});
  CHECK_THROWS_AS(kd::add(u, u, 300), kd::ValueError);
  CHECK_THROWS_WITH(kd::add(u, u, 300), Contains("add") && Contains("300") && Contains("uint8"));
  CHECK_THROWS_AS(kd::add(sample({2}), sample({2}), 1e40), kd::ValueError);
  CHECK_THROWS_WITH(u.pow(256), Contains("pow") && Contains("256") && Contains("uint8"));
  CHECK(values(u.pow(255)) == values(u.pow(255)));  // in range: computes (wrapping like PyTorch)
  CHECK(std::isinf(values(kd::full({1}, 2.0).pow(1e40))[0]));  // a float result keeps the exponent in double
}

TEST_CASE("add: alpha rules") {
  const kd::Tensor i = kd::arange(3);
  CHECK_THROWS_AS(kd::add(i, i, 0.5), kd::DTypeError);
  CHECK_THROWS_WITH(kd::add(i, i, 0.5), Contains("alpha") && Contains("int64"));
  CHECK(values(kd::add(i, i, 3)) == std::vector<double>{0, 4, 8});
  CHECK(values(kd::sub(i, i, 2)) == std::vector<double>{0, -1, -2});
  CHECK_THROWS_AS(kd::add(sample({2}), sample({2}), true), kd::DTypeError);
}

TEST_CASE("binary ops: broadcasting errors name the op and both shapes") {
  const kd::Tensor a = kd::zeros({2, 3}), b = kd::zeros({4});
  CHECK_THROWS_AS(a + b, kd::ShapeError);
  CHECK_THROWS_WITH(a * b, Contains("mul") && Contains("[2, 3]") && Contains("[4]"));
  CHECK_THROWS_WITH(kd::maximum(a, b), Contains("maximum"));
}

TEST_CASE("binary ops: empty and 0-d tensors") {
  const kd::Tensor e = kd::zeros({0, 3});
  CHECK((e + kd::ones({3})).shape() == kd::Shape{0, 3});
  CHECK((e * 2).numel() == 0);
  const kd::Tensor s = kd::full({}, 3.0), t = kd::full({}, 4.0);
  CHECK((s * t).dim() == 0);
  CHECK((s * t).item<double>() == 12.0);
  CHECK((s + kd::ones({2, 2})).shape() == kd::Shape{2, 2});
}

TEST_CASE("pow: tensor and scalar exponents") {
  const kd::Tensor x = sample({2, 3}).abs() + 0.1;
  const kd::Tensor e = sample({3});
  CHECK(close(values(x.pow(e)), naive_binary(x, e, [](double a, double b) { return std::pow(a, b); }), 1e-5));
  for (double p : {2.0, 3.0, 0.5, -0.5, -1.0, -2.0, 1.7}) {
    INFO("exponent " << p);
    CHECK(close(values(x.pow(p)), naive_binary(x, kd::full({}, p), [](double a, double b) { return std::pow(a, b); }),
                1e-5));
  }
  const kd::Tensor i = kd::arange(-2, 4);
  CHECK(i.pow(3).dtype() == kd::kInt64);
  CHECK(values(i.pow(3)) == naive_binary(i, kd::full({}, 3), [](double a, double b) { return std::pow(a, b); }));
  CHECK(i.pow(2.0).dtype() == kd::kFloat32);
  CHECK_THROWS_AS(i.pow(-1), kd::ValueError);
  CHECK_THROWS_WITH(i.pow(-1), Contains("negative integer powers"));
}

TEST_CASE("pow: integer tensors to integer tensor powers match PyTorch") {
  const auto expected = kd::testing::python_eval(
      {"' '.join(map(str, torch.tensor([-1, 1, 2, 0, 3, -2]).pow(torch.tensor([-1, -1, -1, -3, 4, 3])).tolist()))"});
  const kd::Tensor r = kd::tensor({-1, 1, 2, 0, 3, -2}).pow(kd::tensor({-1, -1, -1, -3, 4, 3}));
  CHECK(kd::testing::join(r.to_vector<std::int64_t>()) == expected[0]);
}

TEST_CASE("maximum: values, NaN propagation and promotion") {
  const kd::Tensor a = sample({3, 4}), b = sample({4, 3}).t();
  CHECK(values(kd::maximum(a, b)) == naive_binary(a, b, [](double x, double y) { return std::max(x, y); }));
  CHECK(values(kd::minimum(a, b)) == naive_binary(a, b, [](double x, double y) { return std::min(x, y); }));
  const kd::Tensor n = kd::tensor({1.0f, NAN, 3.0f}), m = kd::tensor({NAN, 0.0f, 4.0f});
  const auto mx = values(kd::maximum(n, m)), mn = values(kd::minimum(n, m));
  CHECK(std::isnan(mx[0]));
  CHECK(std::isnan(mx[1]));
  CHECK(mx[2] == 4.0);
  CHECK(std::isnan(mn[0]));
  CHECK(std::isnan(mn[1]));
  CHECK(mn[2] == 3.0);
  CHECK(kd::maximum(kd::arange(3), kd::ones({3})).dtype() == kd::kFloat32);
}

TEST_CASE("add_: in place writes self's memory and bumps the version") {
  kd::Tensor x = sample({3, 4});
  const kd::Tensor before = x.clone();
  const void* ptr = x.raw_data_ptr();
  const auto v0 = x.version();
  x.add_(sample({4}), 2);
  CHECK(x.raw_data_ptr() == ptr);
  CHECK(x.version() > v0);
  CHECK(close(values(x), naive_binary(before, sample({4}), [](double a, double b) { return a + 2 * b; })));
  x += 1;
  x *= 2;
  x -= kd::ones({3, 1});
  x /= 4;
  CHECK(x.version() >= v0 + 5);
  kd::Tensor y = before.clone();
  y = ((y + 2 * sample({4}) + 1) * 2 - 1) / 4;
  CHECK(close(values(x), values(y)));
}

TEST_CASE("add_: through a view changes the base tensor") {
  kd::Tensor base = kd::zeros({3, 4});
  kd::Tensor col = base.select(1, 2);  // [3], stride 4
  col.add_(kd::tensor({1.0f, 2.0f, 3.0f}));
  CHECK(values(base.select(1, 2)) == std::vector<double>{1, 2, 3});
  CHECK(base.sum().item<double>() == 6.0);
  CHECK(base.version() == col.version());
}

TEST_CASE("add_: an operand overlapping self in another layout is read before it is overwritten") {
  kd::Tensor x = sample({3, 3});
  const kd::Tensor expected = x + x.t();
  x.add_(x.t());
  CHECK(values(x) == values(expected));
  kd::Tensor y = sample({4});
  y.mul_(y);
  CHECK(close(values(y), naive_binary(sample({4}), sample({4}), [](double a, double b) { return a * b; })));
}

TEST_CASE("add_: dtype rules follow PyTorch's can-cast") {
  kd::Tensor i = kd::arange(3);
  CHECK_THROWS_AS(i.add_(kd::ones({3})), kd::DTypeError);
  CHECK_THROWS_WITH(i.add_(kd::ones({3})), Contains("result type Float can't be cast to the desired output type Long"));
  CHECK_THROWS_WITH(i.mul_(2.5), Contains("result type Float can't be cast to the desired output type Long"));
  CHECK_THROWS_WITH(i.div_(2), Contains("can't be cast"));
  kd::Tensor b = kd::tensor({true, false});
  CHECK_THROWS_WITH(b.add_(kd::arange(2)), Contains("result type Long can't be cast to the desired output type Bool"));
  // Lower-precision targets of the same category are fine: computed in float64, stored as float32.
  kd::Tensor f = kd::zeros({2});
  f.add_(kd::full({2}, 0.25, {.dtype = kd::kFloat64}));
  CHECK(f.dtype() == kd::kFloat32);
  CHECK(values(f) == std::vector<double>{0.25, 0.25});
  kd::Tensor u = kd::full({2}, 3, {.dtype = kd::kUInt8});
  u.add_(kd::arange(2));
  CHECK(u.dtype() == kd::kUInt8);
  CHECK(values(u) == std::vector<double>{3, 4});
  CHECK(values(i.add_(5)) == std::vector<double>{5, 6, 7});
}

TEST_CASE("add_: self's shape cannot grow, and expanded self is refused") {
  kd::Tensor x = kd::zeros({3});
  CHECK_THROWS_AS(x.add_(kd::ones({2, 3})), kd::ShapeError);
  CHECK_THROWS_WITH(x.add_(kd::ones({2, 3})),
                    Contains("add_") && Contains("[3]") && Contains("[2, 3]") && Contains("x = x + y"));
  const auto v = x.version();
  kd::Tensor e = kd::zeros({1}).expand({3});
  CHECK_THROWS_AS(e.add_(1), kd::ValueError);
  CHECK_THROWS_WITH(e.mul_(2), Contains("clone()"));
  CHECK(x.version() == v);  // failed in-place ops do not count as writes
}

TEST_CASE("add_: refuses leaves that require grad") {
  kd::Tensor w = kd::testing::needs_grad(kd::zeros({3}));
  CHECK_THROWS_AS(w.add_(1), kd::AutogradError);
  CHECK_THROWS_AS(w.mul_(kd::ones({3})), kd::AutogradError);
}

TEST_CASE("binary ops: record their keys with their own arguments") {
  using kd::testing::ref;
  kd::testing::RecordCapture cap;
  const kd::Tensor a = kd::testing::needs_grad(sample({2, 3})), b = sample({3});
  (void)kd::add(a, b, 2);
  CHECK(cap.last().op == "add");
  CHECK(cap.last().args == ref(a) + ", " + ref(b) + ", 2");
  (void)(a - b);
  CHECK(cap.last().op == "sub");
  CHECK(cap.last().args == ref(a) + ", " + ref(b) + ", 1");
  (void)(a * 2);  // scalar forms record the tensor form with a 0-d input
  CHECK(cap.last().op == "mul");
  CHECK(cap.last().args.find(ref(a) + ", Tensor[]@") == 0);
  (void)(1 / a);  // PyTorch 1.13: reciprocal(a) * 1, so two records
  REQUIRE(cap.records.size() >= 2);
  CHECK(cap.records[cap.records.size() - 2].op == "reciprocal");
  CHECK(cap.records[cap.records.size() - 2].args == ref(a));
  CHECK(cap.last().op == "mul");
  (void)a.pow(3);
  CHECK(cap.last().op == "pow_scalar");
  CHECK(cap.last().args == ref(a) + ", 3");
  (void)a.pow(b);
  CHECK(cap.last().op == "pow");
  (void)kd::maximum(b, a);
  CHECK(cap.last().op == "maximum");
  CHECK(cap.last().args == ref(b) + ", " + ref(a));
  const std::size_t n = cap.records.size();
  (void)(b * b);  // nothing requires grad: nothing recorded
  CHECK(cap.records.size() == n);
}
