// Creation: dtype inference, shapes and bit-exact values against real PyTorch, plus the errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <kindling/tensor.hpp>

#include "torch_oracle.hpp"

namespace kd = kindling;
using Catch::Contains;
using kd::testing::join;

namespace {

// "dtype|shape|bits of every value as float64" — bit-exact, whatever the dtype.
std::string bits(const kd::Tensor& t) {
  std::vector<std::int64_t> b;
  for (double v : t.to_vector<double>()) {
    std::int64_t i;
    std::memcpy(&i, &v, sizeof(i));
    b.push_back(i);
  }
  return std::string(kd::dtype_name(t.dtype())) + "|" + join(t.shape()) + "|" + join(b);
}

const char* kSetup = R"(
def b(t):
    return '|'.join([str(t.dtype)[6:], ' '.join(map(str, t.shape)),
                     ' '.join(map(str, t.double().numpy().view(np.int64).reshape(-1).tolist()))])
)";

struct Case {
  std::string py;
  kd::Tensor kd;
};

void check_against_torch(const std::vector<Case>& cases) {
  std::vector<std::string> exprs;
  for (const auto& c : cases) exprs.push_back("b(" + c.py + ")");
  const auto expected = kd::testing::python_eval(exprs, kSetup);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].py);
    CHECK(bits(cases[i].kd) == expected[i]);
  }
}

}  // namespace

TEST_CASE("tensor: nested lists give PyTorch's dtypes, shapes and values") {
  check_against_torch({
      {"torch.tensor([[1, 2], [3, 4]])", kd::tensor({{1, 2}, {3, 4}})},
      {"torch.tensor([1, 2.5])", kd::tensor({1, 2.5})},
      {"torch.tensor([0.1, 0.7, -1e-8, 3e38])", kd::tensor({0.1, 0.7, -1e-8, 3e38})},
      {"torch.tensor([True, False])", kd::tensor({true, false})},
      {"torch.tensor([True, 2])", kd::tensor({true, 2})},
      {"torch.tensor([True, 2.5])", kd::tensor({true, 2.5})},
      {"torch.tensor(3.5)", kd::tensor(3.5)},
      {"torch.tensor(7)", kd::tensor(7)},
      {"torch.tensor(False)", kd::tensor(false)},
      {"torch.tensor([])", kd::tensor({})},
      {"torch.tensor([[], []])", kd::tensor({{}, {}})},
      {"torch.tensor([[[1], [2]], [[3], [4]], [[5], [6]]])", kd::tensor({{{1}, {2}}, {{3}, {4}}, {{5}, {6}}})},
      {"torch.tensor([[0.1, 0.2], [0.3, 1e-300]], dtype=torch.float64)",
       kd::tensor({{0.1, 0.2}, {0.3, 1e-300}}, {.dtype = kd::kFloat64})},
      {"torch.tensor([1.7, -2.2], dtype=torch.int64)", kd::tensor({1.7, -2.2}, {.dtype = kd::kInt64})},
      {"torch.tensor([1, 2, 255], dtype=torch.uint8)", kd::tensor({1, 2, 255}, {.dtype = kd::kUInt8})},
      {"torch.tensor([0, 2, 0], dtype=torch.bool)", kd::tensor({0, 2, 0}, {.dtype = kd::kBool})},
      {"torch.tensor([1, 2], dtype=torch.float32)", kd::tensor({1, 2}, {.dtype = kd::kFloat32})},
      {"torch.tensor([2**40, -3])", kd::tensor({1LL << 40, -3})},
  });
}

TEST_CASE("tensor: from a vector and a shape") {
  check_against_torch({
      {"torch.tensor([1.5, 2, 3, 4, 5, 6]).reshape(2, 3)", kd::tensor(std::vector<float>{1.5, 2, 3, 4, 5, 6}, {2, 3})},
      {"torch.tensor([0.1, 0.2], dtype=torch.float64)", kd::tensor(std::vector<double>{0.1, 0.2}, {2})},
      {"torch.tensor([[-5], [9]])", kd::tensor(std::vector<std::int64_t>{-5, 9}, {2, 1})},
      {"torch.tensor([200], dtype=torch.uint8)", kd::tensor(std::vector<std::uint8_t>{200}, {1})},
      {"torch.tensor([True, False, True])", kd::tensor(std::vector<bool>{true, false, true}, {3})},
      {"torch.tensor(4.)", kd::tensor(std::vector<float>{4}, {})},
      {"torch.zeros(0, 2)", kd::tensor(std::vector<float>{}, {0, 2})},
  });
  CHECK_THROWS_AS(kd::tensor(std::vector<float>{1, 2, 3}, {2, 2}), kd::ShapeError);
  CHECK_THROWS_WITH(kd::tensor(std::vector<float>{1, 2, 3}, {2, 2}), Contains("3 values") && Contains("[2, 2]"));
}

TEST_CASE("creation: constants, scalar_tensor and eye match PyTorch") {
  check_against_torch({
      {"torch.zeros(2, 3)", kd::zeros({2, 3})},
      {"torch.zeros(())", kd::zeros({})},
      {"torch.ones(4, dtype=torch.float64)", kd::ones({4}, {.dtype = kd::kFloat64})},
      {"torch.ones(2, 2, dtype=torch.bool)", kd::ones({2, 2}, {.dtype = kd::kBool})},
      {"torch.full((2, 2), 7.)", kd::full({2, 2}, 7.0)},
      {"torch.full((2, 2), 7)", kd::full({2, 2}, 7)},  // an integer value infers int64, as in PyTorch
      {"torch.full((2,), True)", kd::full({2}, true)},
      {"torch.full((2,), 7, dtype=torch.float32)", kd::full({2}, 7, {})},
      {"torch.full((3,), 0.1, dtype=torch.float64)", kd::full({3}, 0.1, {.dtype = kd::kFloat64})},
      {"torch.full((3,), 2, dtype=torch.uint8)", kd::full({3}, 2, {.dtype = kd::kUInt8})},
      {"torch.full((2,), -9, dtype=torch.int64)", kd::full({2}, -9, {.dtype = kd::kInt64})},
      {"torch.scalar_tensor(3)", kd::scalar_tensor(3)},
      {"torch.scalar_tensor(2.5, dtype=torch.float64)", kd::scalar_tensor(2.5, {.dtype = kd::kFloat64})},
      {"torch.scalar_tensor(5, dtype=torch.int64)", kd::scalar_tensor(5, {.dtype = kd::kInt64})},
      {"torch.eye(3)", kd::eye(3)},
      {"torch.eye(2, 4)", kd::eye(2, 4)},
      {"torch.eye(4, 2, dtype=torch.int64)", kd::eye(4, 2, {.dtype = kd::kInt64})},
      {"torch.eye(0)", kd::eye(0)},
      {"torch.empty(0, 3)", kd::empty({0, 3})},
  });
}

TEST_CASE("creation: arange follows torch.arange's dtype, length and value rules") {
  check_against_torch({
      {"torch.arange(5)", kd::arange(5)},
      {"torch.arange(0)", kd::arange(0)},
      {"torch.arange(1, 10, 3)", kd::arange(1, 10, 3)},
      {"torch.arange(10, 0, -3)", kd::arange(10, 0, -3)},
      {"torch.arange(5.)", kd::arange(5.0)},
      {"torch.arange(0, 1, 0.1)", kd::arange(0, 1, 0.1)},
      {"torch.arange(0.5, 3)", kd::arange(0.5, 3)},
      {"torch.arange(-1.5, 2.25, 0.25)", kd::arange(-1.5, 2.25, 0.25)},
      {"torch.arange(0, 1, 1/3)", kd::arange(0, 1, 1.0 / 3)},
      {"torch.arange(1, 1)", kd::arange(1, 1)},
      {"torch.arange(0, 10, 3, dtype=torch.float64)", kd::arange(0, 10, 3, {.dtype = kd::kFloat64})},
      {"torch.arange(0, 5, 1.5, dtype=torch.int64)", kd::arange(0, 5, 1.5, {.dtype = kd::kInt64})},
      {"torch.arange(-3, 5, 2.5, dtype=torch.int64)", kd::arange(-3, 5, 2.5, {.dtype = kd::kInt64})},
      {"torch.arange(0, 5, 1.5, dtype=torch.uint8)", kd::arange(0, 5, 1.5, {.dtype = kd::kUInt8})},
      {"torch.arange(0.1, 1.3, 0.3, dtype=torch.float64)", kd::arange(0.1, 1.3, 0.3, {.dtype = kd::kFloat64})},
  });
  CHECK_THROWS_AS(kd::arange(0, 5, 0), kd::ValueError);
  CHECK_THROWS_WITH(kd::arange(0, 5, 0), Contains("step must be nonzero"));
  CHECK_THROWS_AS(kd::arange(5, 0, 1), kd::ValueError);
  CHECK_THROWS_WITH(kd::arange(5, 0, 1), Contains("sign of step"));
  CHECK_THROWS_AS(kd::arange(0, 5, 0.5, {.dtype = kd::kInt64}), kd::ValueError);
}

TEST_CASE("creation: linspace matches torch.linspace bit for bit") {
  check_against_torch({
      {"torch.linspace(0, 1, 5)", kd::linspace(0, 1, 5)},
      {"torch.linspace(-1, 1, 7)", kd::linspace(-1, 1, 7)},
      {"torch.linspace(0.1, 0.9, 33)", kd::linspace(0.1, 0.9, 33)},
      {"torch.linspace(3, -2, 4, dtype=torch.float64)", kd::linspace(3, -2, 4, {.dtype = kd::kFloat64})},
      {"torch.linspace(0, 1, 1)", kd::linspace(0, 1, 1)},
      {"torch.linspace(0, 1, 0)", kd::linspace(0, 1, 0)},
      {"torch.linspace(0, 10, 4, dtype=torch.int64)", kd::linspace(0, 10, 4, {.dtype = kd::kInt64})},
      {"torch.linspace(-1.5, 10, 5, dtype=torch.int64)", kd::linspace(-1.5, 10, 5, {.dtype = kd::kInt64})},
      {"torch.linspace(-7, 3.3, 1000, dtype=torch.float64)", kd::linspace(-7, 3.3, 1000, {.dtype = kd::kFloat64})},
      {"torch.linspace(-7, 300, 77, dtype=torch.int64)", kd::linspace(-7, 300, 77, {.dtype = kd::kInt64})},
      {"torch.linspace(0, 255, 101, dtype=torch.uint8)", kd::linspace(0, 255, 101, {.dtype = kd::kUInt8})},
  });
  CHECK_THROWS_AS(kd::linspace(0, 1, -1), kd::ValueError);
  CHECK_THROWS_AS(kd::linspace(0, 1, 3, {.dtype = kd::kBool}), kd::DTypeError);
}

TEST_CASE("creation: *_like keep shape, dtype and (dense) strides like PyTorch") {
  const kd::Tensor x = kd::arange(24).reshape({2, 3, 4}).permute({2, 0, 1}).to(kd::kFloat64);
  std::vector<std::pair<std::string, kd::Tensor>> cases = {
      {"torch.zeros_like(x)", kd::zeros_like(x)},
      {"torch.ones_like(x)", kd::ones_like(x)},
      {"torch.full_like(x, 2.5)", kd::full_like(x, 2.5)},
      {"torch.empty_like(x)", kd::empty_like(x)},
      {"torch.zeros_like(x, dtype=torch.int64)", kd::zeros_like(x, {.dtype = kd::kInt64})},
      {"torch.ones_like(x[:, ::2])", kd::ones_like(x.slice(1, 0, 2, 2))},
      {"torch.ones_like(x[:1].expand(3, 2, 3))", kd::ones_like(x.slice(0, 0, 1).expand({3, 2, 3}))},
  };
  std::vector<std::string> exprs;
  for (auto& [py, t] : cases) exprs.push_back("g(" + py + ")");
  const auto expected = kd::testing::python_eval(exprs, R"(
x = torch.arange(24).reshape(2, 3, 4).permute(2, 0, 1).double()
def g(y):
    return '|'.join([str(y.dtype)[6:], ' '.join(map(str, y.shape)), ' '.join(map(str, y.stride()))])
)");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& t = cases[i].second;
    INFO(cases[i].first);
    CHECK(std::string(kd::dtype_name(t.dtype())) + "|" + join(t.shape()) + "|" + join(t.strides()) == expected[i]);
    CHECK_FALSE(t.shares_storage(x));
  }
  CHECK(kd::full_like(x, 2.5).to_vector<double>() == std::vector<double>(24, 2.5));
}

TEST_CASE("creation: ragged lists and bad sizes are refused") {
  CHECK_THROWS_AS(kd::tensor({{1, 2}, {3}}), kd::ShapeError);
  CHECK_THROWS_WITH(kd::tensor({{1, 2}, {3}}), Contains("ragged") && Contains("1 elements") && Contains("2"));
  CHECK_THROWS_AS(kd::tensor({{1}, 2}), kd::ShapeError);
  CHECK_THROWS_AS(kd::tensor({1, {2}}), kd::ShapeError);
  CHECK_THROWS_AS(kd::tensor({{{1, 2}}, {{3, 4}, {5, 6}}}), kd::ShapeError);
  CHECK_THROWS_AS(kd::zeros({2, -1}), kd::ValueError);
  CHECK_THROWS_WITH(kd::zeros({2, -1}), Contains("negative") && Contains("[2, -1]"));
  CHECK_THROWS_AS(kd::eye(-1), kd::ValueError);
  CHECK_THROWS_AS(kd::zeros({2}, {.dtype = kd::kInt64, .requires_grad = true}), kd::DTypeError);
  CHECK_THROWS_WITH(kd::tensor({1, 2}, {.dtype = kd::kInt64, .requires_grad = true}), Contains("floating-point"));
  CHECK_THROWS_AS(kd::zeros({2}, {.device = kd::Device::parse("cuda")}), kd::DeviceError);
}

TEST_CASE("creation: a stored value must fit the dtype, with PyTorch's range rules (issue 18)") {
  CHECK_THROWS_AS(kd::full({2}, 300, {.dtype = kd::kUInt8}), kd::ValueError);
  CHECK_THROWS_WITH(kd::full({2}, 300, {.dtype = kd::kUInt8}),
                    Contains("full") && Contains("300") && Contains("uint8") && Contains("0 to 255"));
  CHECK(kd::full({2}, -1, {.dtype = kd::kUInt8}).to_vector<std::uint8_t>() == std::vector<std::uint8_t>{255, 255});
  CHECK(kd::full({1}, 2.5, {.dtype = kd::kUInt8}).item<std::int64_t>() == 2);
  CHECK_THROWS_AS(kd::full({1}, -0.5, {.dtype = kd::kUInt8}), kd::ValueError);
  CHECK_THROWS_AS(kd::full({1}, -256, {.dtype = kd::kUInt8}), kd::ValueError);
  CHECK_THROWS_AS(kd::full({1}, 1e40), kd::ValueError);
  CHECK_THROWS_AS(kd::full({1}, std::nan(""), {.dtype = kd::kInt64}), kd::ValueError);
  CHECK_THROWS_AS(kd::full({1}, 1e19, {.dtype = kd::kInt64}), kd::ValueError);
  CHECK(std::isinf(kd::full({1}, INFINITY).item<float>()));
  CHECK(kd::full({1}, 256, {.dtype = kd::kBool}).item<bool>());
  CHECK_THROWS_AS(kd::scalar_tensor(300, {.dtype = kd::kUInt8}), kd::ValueError);
  const kd::Tensor u = kd::zeros({3}, {.dtype = kd::kUInt8});
  CHECK_THROWS_WITH(kd::full_like(u, 300), Contains("full_like"));
  kd::Tensor w = u.clone();
  CHECK_THROWS_WITH(w.fill_(256), Contains("fill_") && Contains("256"));
  CHECK_THROWS_WITH(kd::clamp(u, 0, 300), Contains("clamp") && Contains("300"));
  CHECK(kd::clamp(u, -1).to_vector<std::uint8_t>() == std::vector<std::uint8_t>{255, 255, 255});
  CHECK_THROWS_WITH(kd::where(u > 0, u, 300), Contains("where") && Contains("300"));
}

TEST_CASE("creation: requires_grad option marks a leaf") {
  kd::Tensor w = kd::zeros({3}, {.requires_grad = true});
  CHECK(w.impl()->requires_grad());
  CHECK(w.impl()->autograd_meta->is_leaf());
  CHECK(kd::tensor({1.0, 2.0}, {.requires_grad = true}).impl()->requires_grad());
  CHECK_FALSE(kd::zeros({3}).impl()->requires_grad());
  CHECK(kd::zeros({3}).impl()->autograd_meta == nullptr);  // no gradient involved: no autograd meta at all
}

TEST_CASE("from_blob: shares the caller's memory, honours strides, runs the deleter") {
  std::vector<float> buf = {1, 2, 3, 4, 5, 6};
  bool deleted = false;
  {
    kd::Tensor t = kd::from_blob(buf.data(), {2, 3}, kd::kFloat32, {}, [&](void* p) {
      CHECK(p == buf.data());
      deleted = true;
    });
    CHECK(t.data_ptr<float>() == buf.data());
    CHECK(t.strides() == kd::Strides{3, 1});
    buf[4] = 50;
    CHECK(t.to_vector<float>()[4] == 50);
    t.select(0, 0).fill_(-1);
    CHECK(buf[0] == -1);
    CHECK(buf[2] == -1);
    CHECK(buf[3] == 4);
    // A column-major view of the same six floats.
    kd::Tensor f = kd::from_blob(buf.data(), {3, 2}, kd::kFloat32, {1, 3});
    CHECK(f.to_vector<float>() == std::vector<float>{buf[0], buf[3], buf[1], buf[4], buf[2], buf[5]});
    CHECK_FALSE(f.storage()->owns_memory());
    CHECK_FALSE(deleted);
  }
  CHECK(deleted);
  CHECK_THROWS_AS(kd::from_blob(buf.data(), {2, 3}, kd::kFloat32, {1}), kd::ShapeError);
  CHECK_THROWS_AS(kd::from_blob(nullptr, {2}, kd::kFloat32), kd::ValueError);
  CHECK_NOTHROW(kd::from_blob(nullptr, {0}, kd::kFloat32));
}
