// index() / index_put_: LibTorch-style indexing, checked against Python's x[...] in real PyTorch.
#include <catch2/catch.hpp>
#include <functional>
#include <kindling/tensor.hpp>

#include "torch_oracle.hpp"

namespace kd = kindling;
using namespace kd::indexing;
using Catch::Contains;
using kd::testing::join;

TEST_CASE("index: results match Python indexing in PyTorch") {
  const kd::Tensor x = kd::arange(60).reshape({3, 4, 5});
  struct Case {
    std::string py;
    std::vector<TensorIndex> idx;
  };
  std::vector<Case> cases = {
      {"x[1]", {1}},
      {"x[-1, 2]", {-1, 2}},
      {"x[1, 2, 3]", {1, 2, 3}},
      {"x[:, 1]", {Slice(), 1}},
      {"x[::2, 1:3, -2:]", {Slice(None, None, 2), Slice(1, 3), Slice(-2, None)}},
      {"x[..., 0]", {Ellipsis, 0}},
      {"x[0, ...]", {0, Ellipsis}},
      {"x[0, ..., 4]", {0, Ellipsis, 4}},
      {"x[None]", {None}},
      {"x[:, None, :, None]", {Slice(), None, Slice(), None}},
      {"x[..., None]", {Ellipsis, None}},
      {"x[None, ..., None, 2]", {None, Ellipsis, None, 2}},
      {"x[1:2, ..., 3:100:7]", {Slice(1, 2), Ellipsis, Slice(3, 100, 7)}},
      {"x[-100:100, -3]", {Slice(-100, 100), -3}},
      {"x[3:]", {Slice(3, None)}},
      {"x[:, :, :0]", {Slice(), Slice(), Slice(None, 0)}},
      {"x[()]", {}},
  };
  std::vector<std::string> exprs, mine;
  for (const auto& c : cases) {
    const kd::Tensor y = x.index(c.idx);
    CHECK(y.shares_storage(x));
    exprs.push_back("g(" + c.py + ")");
    mine.push_back(join(y.shape()) + "|" + join(y.strides()) + "|" + std::to_string(y.storage_offset()) + "|" +
                   join(y.to_vector<std::int64_t>()));
  }
  const auto expected = kd::testing::python_eval(exprs, R"(
x = torch.arange(60).reshape(3, 4, 5)
def g(y):
    return '|'.join([' '.join(map(str, y.shape)), ' '.join(map(str, y.stride())), str(y.storage_offset()),
                     ' '.join(map(str, y.reshape(-1).tolist()))])
)");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].py);
    CHECK(mine[i] == expected[i]);
  }
}

TEST_CASE("index_put_: writes into the selected elements like assignment to x.index in Python") {
  // Each case starts from x = arange(60).reshape(3, 4, 5) (as float) and assigns one value.
  struct Case {
    std::string py;
    std::function<void(kd::Tensor&)> kd;
  };
  std::vector<Case> cases = {
      {"x[1] = 7", [](kd::Tensor& x) { x.index_put_({1}, 7); }},
      {"x[:, 1:3, ::2] = -1.5", [](kd::Tensor& x) { x.index_put_({Slice(), Slice(1, 3), Slice(None, None, 2)}, -1.5); }},
      {"x[..., -1] = torch.arange(4.)",
       [](kd::Tensor& x) { x.index_put_({Ellipsis, -1}, kd::arange(4).to(kd::kFloat32)); }},
      {"x[0, None] = torch.ones(1, 4, 1) * 3",
       [](kd::Tensor& x) { x.index_put_({0, None}, kd::full({1, 4, 1}, 3)); }},
      {"x[2, 3, 4] = 100", [](kd::Tensor& x) { x.index_put_({2, 3, 4}, 100); }},
      {"x[1:2] = torch.tensor([[1], [2], [3], [4]], dtype=torch.float64)",
       [](kd::Tensor& x) { x.index_put_({Slice(1, 2)}, kd::tensor({{1}, {2}, {3}, {4}}).to(kd::kFloat64)); }},
  };
  std::string setup = "def run(stmt):\n  x = torch.arange(60.).reshape(3, 4, 5)\n  exec(stmt)\n"
                      "  return ' '.join(map(str, x.reshape(-1).tolist()))\n";
  std::vector<std::string> exprs;
  for (const auto& c : cases) exprs.push_back("run('" + c.py + "')");
  const auto expected = kd::testing::python_eval(exprs, setup);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].py);
    kd::Tensor x = kd::arange(60).reshape({3, 4, 5}).to(kd::kFloat32);
    const auto v0 = x.version();
    cases[i].kd(x);
    CHECK(x.version() > v0);
    // Python prints floats as 7.0 / -1.5; print ours the same way.
    std::string got;
    for (float f : x.to_vector<float>()) {
      std::ostringstream os;
      os << f;
      std::string s = os.str();
      if (s.find('.') == std::string::npos) s += ".0";
      got += (got.empty() ? "" : " ") + s;
    }
    CHECK(got == expected[i]);
  }
}

TEST_CASE("index: errors name the problem") {
  kd::Tensor x = kd::zeros({2, 3});
  CHECK_THROWS_AS(x.index({0, 0, 0}), kd::IndexError);
  CHECK_THROWS_WITH(x.index({0, 0, 0}), Contains("too many indices") && Contains("[2, 3]"));
  CHECK_THROWS_WITH(x.index({Ellipsis, 0, Ellipsis}), Contains("single ellipsis"));
  CHECK_THROWS_AS(x.index({Slice(), 3}), kd::IndexError);
  CHECK_THROWS_WITH(x.index({Slice(), 3}), Contains("index 3 is out of range"));
  CHECK_THROWS_AS(x.index({Slice(None, None, -1)}), kd::ValueError);
  CHECK_THROWS_AS(x.index_put_({0}, kd::ones({4})), kd::ShapeError);
  CHECK_THROWS_WITH(x.index_put_({0}, kd::ones({4})), Contains("copy_") && Contains("[4]") && Contains("[3]"));
  // A 0-d tensor accepts only None / Ellipsis.
  kd::Tensor s = kd::scalar_tensor(2);
  CHECK(s.index({None}).shape() == kd::Shape{1});
  CHECK(s.index({Ellipsis}).dim() == 0);
  CHECK_THROWS_AS(s.index({0}), kd::IndexError);
}

TEST_CASE("index: integer entries give 0-d views that read and write single elements") {
  kd::Tensor x = kd::arange(6).reshape({2, 3});
  kd::Tensor e = x.index({1, -1});
  CHECK(e.dim() == 0);
  CHECK(e.item<std::int64_t>() == x.to_vector<std::int64_t>()[5]);
  x.index_put_({1, -1}, 42);
  CHECK(e.item<std::int64_t>() == 42);
}

TEST_CASE("index: x[...] is a new view of x, not x itself (issue 18)") {
  const kd::Tensor x = kd::arange(6).reshape({2, 3});
  for (const kd::Tensor& y : {x.index({Ellipsis}), x.index({})}) {
    CHECK_FALSE(y.is_same(x));
    CHECK(y.shares_storage(x));
    CHECK(y.shape() == x.shape());
    CHECK(y.strides() == x.strides());
    CHECK(y.storage_offset() == x.storage_offset());
  }
  CHECK_FALSE(x.index({Ellipsis, None}).is_same(x));
  CHECK(kd::scalar_tensor(2).index({Ellipsis}).dim() == 0);
}

TEST_CASE("gather/scatter/index_select/masked_fill: bad positions and shapes are clear errors (issue 18)") {
  const kd::Tensor x = kd::zeros({2, 3});
  const auto idx = [](std::vector<std::int64_t> v, kd::Shape s) { return kd::tensor(v, s); };
  CHECK_THROWS_AS(x.gather(1, idx({3}, {1, 1})), kd::IndexError);
  CHECK_THROWS_WITH(x.gather(1, idx({-1}, {1, 1})), Contains("gather") && Contains("index -1") && Contains("size 3"));
  CHECK_THROWS_WITH(x.gather(1, idx({0}, {1})), Contains("gather") && Contains("dimensions") && Contains("unsqueeze"));
  CHECK_THROWS_AS(x.gather(1, idx({0, 0, 0}, {3, 1})), kd::ShapeError);
  CHECK_THROWS_AS(x.gather(1, kd::zeros({1, 1})), kd::DTypeError);
  CHECK_THROWS_WITH(x.index_select(0, idx({2}, {1})), Contains("index_select") && Contains("[2, 3]"));
  CHECK_THROWS_AS(x.index_select(0, idx({0}, {1, 1})), kd::ShapeError);
  CHECK_THROWS_AS(x.scatter_add(0, idx({0}, {1, 1}), kd::zeros({1, 1}, {.dtype = kd::kFloat64})), kd::DTypeError);
  CHECK_THROWS_WITH(x.masked_fill(kd::ones({3}), 1.0), Contains("masked_fill") && Contains("bool"));
  CHECK_THROWS_WITH(x.masked_fill(kd::ones({3}, {.dtype = kd::kBool}), 1e40), Contains("masked_fill") && Contains("1e+40"));
  // The results are copies, never views of x.
  const kd::Tensor g = x.gather(0, idx({0, 1, 0}, {1, 3}));
  CHECK_FALSE(g.shares_storage(x));
  CHECK_FALSE(x.masked_fill(kd::zeros({3}, {.dtype = kd::kBool}), 1.0).shares_storage(x));
}
