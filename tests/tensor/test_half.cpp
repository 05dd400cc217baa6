// float16 and bfloat16 in the tensor layer: promotion, printing, .npy, element access and the
// errors of kernels that have no 16-bit version. Expected values come from PyTorch at test time;
// the conversions themselves are checked bit for bit in tests/parity/ch02_half.*.
#include <catch2/catch.hpp>
#include <kindling/tensor.hpp>

#include <cmath>
#include <limits>
#include <sstream>

#include "torch_oracle.hpp"

namespace kd = kindling;

namespace {
const std::vector<kd::DType> kAll = {kd::kBool,    kd::kUInt8,   kd::kInt64,   kd::kFloat32,
                                     kd::kFloat64, kd::kFloat16, kd::kBFloat16};
}  // namespace

TEST_CASE("half: promote_types agrees with torch.promote_types for every pair of dtypes") {
  std::vector<std::string> exprs;
  for (auto a : kAll)
    for (auto b : kAll)
      exprs.push_back(std::string("str(torch.promote_types(torch.") + kd::dtype_name(a) + ", torch." +
                      kd::dtype_name(b) + ")).removeprefix('torch.')");
  const auto want = kd::testing::python_eval(exprs);
  std::size_t k = 0;
  for (auto a : kAll)
    for (auto b : kAll) {
      INFO(kd::dtype_name(a) << " with " << kd::dtype_name(b));
      CHECK(kd::dtype_name(kd::promote_types(a, b)) == want[k++]);
    }
}

TEST_CASE("half: element size, names, and is_floating_point") {
  CHECK(kd::element_size(kd::kFloat16) == 2);
  CHECK(kd::element_size(kd::kBFloat16) == 2);
  CHECK(std::string(kd::dtype_name(kd::kHalf)) == "float16");
  CHECK(std::string(kd::dtype_name(kd::kBFloat16)) == "bfloat16");
  CHECK(kd::is_floating_point(kd::kFloat16));
  CHECK(kd::is_reduced_floating_point(kd::kBFloat16));
  CHECK_FALSE(kd::is_reduced_floating_point(kd::kFloat32));
  const kd::Tensor h = kd::zeros({3}, {.dtype = kd::kHalf});
  CHECK(h.nbytes() == 6);
  CHECK(h.is_floating_point());
}

TEST_CASE("half: NaN, infinities and out-of-range floats convert to integers as PyTorch's do") {
  // C++ leaves these conversions undefined; PyTorch (x86) gives the truncating conversion's
  // "integer indefinite" value. Every floating source dtype, both integer targets.
  const std::vector<double> values = {std::numeric_limits<double>::quiet_NaN(),
                                      std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity(),
                                      3e9, -3e9, 3e19, -3e19, 300.7, -1.5, 70000.0, -129.5, 255.9, 0.0};
  std::string literal = "[";
  for (double v : values) {
    std::ostringstream one;
    one.precision(17);
    if (std::isnan(v)) one << "float('nan')";
    else if (std::isinf(v)) one << (v > 0 ? "float('inf')" : "-float('inf')");
    else one << v;
    literal += one.str() + ",";
  }
  literal += "]";
  std::vector<std::string> exprs, ours;
  for (kd::DType from : {kd::kFloat32, kd::kFloat64, kd::kFloat16, kd::kBFloat16})
    for (kd::DType to : {kd::kUInt8, kd::kInt64}) {
      exprs.push_back("str(torch.tensor(" + literal + ", dtype=torch.float64).to(torch." + kd::dtype_name(from) +
                      ").to(torch." + kd::dtype_name(to) + ").tolist())");
      // strided too: the conversion loop, not only a flat path
      const kd::Tensor x = kd::tensor(values, {static_cast<std::int64_t>(values.size())}).to(from).unsqueeze(1).expand({-1, 2}).select(1, 1);
      const kd::Tensor y = x.to(to);
      std::string list = "[";
      for (std::int64_t i = 0; i < y.numel(); ++i) {
        if (i) list += ", ";
        list += std::to_string(to == kd::kUInt8 ? static_cast<long long>(y.to_vector<std::uint8_t>()[i])
                                                : static_cast<long long>(y.to_vector<std::int64_t>()[i]));
      }
      ours.push_back(list + "]");
    }
  const auto want = kd::testing::python_eval(exprs);
  for (std::size_t i = 0; i < exprs.size(); ++i) {
    INFO(exprs[i]);
    CHECK(ours[i] == want[i]);
  }
}

TEST_CASE("half: repr matches PyTorch's, dtype suffix included") {
  kd::manual_seed(6);
  kd::testing::TempDir dir;
  std::vector<kd::Tensor> xs = {kd::randn({3, 4}), kd::randn({5}) * 1e4, kd::rand({4}) * 1e-5,
                                kd::arange(6).to(kd::kFloat32), kd::randn({2000}),
                                kd::tensor({70000.0, -1e-9, 0.1, std::numeric_limits<double>::quiet_NaN()})};
  std::vector<std::string> exprs;
  std::vector<std::string> ours;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const std::string f = dir.file("x" + std::to_string(i) + ".npy");
    kd::save_npy(xs[i], f);
    for (auto [dt, py] : {std::pair{kd::kHalf, "half"}, std::pair{kd::kBFloat16, "bfloat16"}}) {
      exprs.push_back("repr(torch.from_numpy(np.load('" + f + "'))." + py + "())");
      ours.push_back(xs[i].to(dt).to_string());
    }
  }
  const auto want = kd::testing::python_eval(exprs);
  for (std::size_t i = 0; i < exprs.size(); ++i) {
    INFO(exprs[i]);
    CHECK(ours[i] == want[i]);
  }
}

TEST_CASE("half: .npy round trip and NumPy reads float16 bit for bit") {
  kd::testing::TempDir dir;
  kd::manual_seed(2);
  const kd::Tensor x = kd::randn({7, 3}) * 100;
  const kd::Tensor h = x.to(kd::kHalf).t();  // non-contiguous: saved contiguous
  const std::string f = dir.file("h.npy"), fx = dir.file("x.npy");
  kd::save_npy(h, f);
  kd::save_npy(x, fx);
  const kd::Tensor back = kd::load_npy(f);
  CHECK(back.dtype() == kd::kHalf);
  CHECK(back.shape() == h.shape());
  CHECK(kd::equal(back, h));
  const auto py = kd::testing::python_eval(
      {"str(np.load('" + f + "').dtype)",
       "bool((np.load('" + f + "').view(np.uint16) == torch.from_numpy(np.load('" + fx +
           "')).half().t().contiguous().numpy().view(np.uint16)).all())"});
  CHECK(py[0] == "float16");
  CHECK(py[1] == "True");
}

TEST_CASE("half: save_npy refuses bfloat16 with a hint (NumPy has no bfloat16)") {
  kd::testing::TempDir dir;
  const kd::Tensor b = kd::ones({2}, {.dtype = kd::kBFloat16});
  try {
    kd::save_npy(b, dir.file("b.npy"));
    FAIL("no error");
  } catch (const kd::DTypeError& e) {
    CHECK_THAT(e.what(), Catch::Contains("bfloat16") && Catch::Contains("kd::kFloat32"));
  }
  CHECK(std::filesystem::is_empty(dir.path()));  // nothing half-written
}

TEST_CASE("half: item, data_ptr and to_vector read 16-bit elements") {
  const kd::Tensor h = kd::tensor({1.5, -65504.0, 1e-7}).to(kd::kHalf);
  CHECK(h[0].item<float>() == 1.5f);
  CHECK(h[1].item<double>() == -65504.0);
  CHECK(h[2].item<float>() == static_cast<float>(kd::Half(1e-7f)));  // a subnormal float16
  CHECK(h.data_ptr<kd::Half>()[0].bits == 0x3E00);
  CHECK_THROWS_AS(h.data_ptr<float>(), kd::DTypeError);
  const kd::Tensor b = kd::full({2}, 3.0, {.dtype = kd::kBFloat16});
  CHECK(b.to_vector<float>() == std::vector<float>{3.0f, 3.0f});
  CHECK(b.data_ptr<kd::BFloat16>()[1].bits == 0x4040);
  // Converting a tensor rounds an out-of-range value to inf; storing an out-of-range number raises, as
  // PyTorch's scalar_tensor/full/fill_ do ("value cannot be converted to type at::Half without overflow").
  CHECK(kd::scalar_tensor(1e6).to(kd::kHalf).item<float>() == std::numeric_limits<float>::infinity());
  CHECK_THROWS_AS(kd::scalar_tensor(1e6, {.dtype = kd::kHalf}), kd::ValueError);
  CHECK_THROWS_AS(kd::full({2}, 1e39, {.dtype = kd::kBFloat16}), kd::ValueError);
  CHECK_THROWS_AS(kd::zeros({2}, {.dtype = kd::kHalf}).fill_(65520.0), kd::ValueError);
  CHECK(kd::full({1}, 65504.0, {.dtype = kd::kHalf}).item<float>() == 65504.0f);
  CHECK(std::isinf(kd::full({1}, std::numeric_limits<double>::infinity(), {.dtype = kd::kHalf}).item<float>()));
  CHECK(kd::full({1}, 3e38, {.dtype = kd::kBFloat16}).item<float>() > 2.9e38f);
}

TEST_CASE("half: creation functions make float16/bfloat16 tensors") {
  CHECK(kd::arange(0, 1, 0.25, {.dtype = kd::kHalf}).to_vector<float>() ==
        std::vector<float>{0.f, 0.25f, 0.5f, 0.75f});
  CHECK(kd::linspace(0, 1, 3, {.dtype = kd::kBFloat16}).dtype() == kd::kBFloat16);
  const kd::Tensor r = kd::randn({100}, {.dtype = kd::kBFloat16});
  CHECK(r.dtype() == kd::kBFloat16);
  CHECK(r.abs().max().item<float>() > 0);
  CHECK(kd::eye(2, -1, {.dtype = kd::kHalf}).sum().item<float>() == 2.f);
  CHECK(kd::tensor({{1.0, 2.0}}, {.dtype = kd::kHalf}).shape() == kd::Shape{1, 2});
}

TEST_CASE("half: in-place ops on float16 tensors round into their own storage") {
  kd::Tensor h = kd::ones({3}, {.dtype = kd::kHalf});
  h.add_(kd::tensor({1e-4, 2048.0, 1.0}));  // float32 other: the result stays float16
  CHECK(h.dtype() == kd::kHalf);
  const auto v = h.to_vector<float>();
  CHECK(v[0] == 1.0f);     // 1 + 1e-4 rounds back to 1 (float16 has 11 significant bits)
  CHECK(v[1] == 2048.0f);  // 2049 is not a float16: ties to even gives 2048
  CHECK(v[2] == 2.0f);
}
