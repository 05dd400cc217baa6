// Views: shape/strides/offset against real PyTorch, storage sharing, and the error messages.
#include <catch2/catch.hpp>

#include "math_helpers.hpp"
#include <functional>
#include <kindling/tensor.hpp>
#include <kindling/tensor/autograd_hooks.hpp>

#include "torch_oracle.hpp"

namespace kd = kindling;
using namespace kd::indexing;
using Catch::Contains;
using kd::testing::join;

namespace {

// "shape|strides|offset|contiguous|values" — the same line Python prints for the same view.
std::string geometry(const kd::Tensor& y) {
  return join(y.shape()) + "|" + join(y.strides()) + "|" + std::to_string(y.storage_offset()) + "|" +
         std::to_string(int(y.is_contiguous())) + "|" + join(y.to_vector<std::int64_t>());
}

struct ViewCase {
  std::string py;                                // PyTorch expression over x (and s, e)
  std::function<kd::Tensor(const kd::Tensor&)> kd;  // the same view in Kindling
};

const char* kSetup = R"(
x = torch.arange(24).reshape(2, 3, 4)
s = torch.tensor(5)
e = torch.zeros(2, 0, 3, dtype=torch.int64)
def g(y):
    return '|'.join([' '.join(map(str, y.shape)), ' '.join(map(str, y.stride())), str(y.storage_offset()),
                     str(int(y.is_contiguous())), ' '.join(str(int(v)) for v in y.reshape(-1).tolist())])
)";

}  // namespace

TEST_CASE("views: geometry and values match PyTorch for a catalogue of views") {
  const kd::Tensor x = kd::arange(24).reshape({2, 3, 4});
  const kd::Tensor s = kd::tensor(5);
  const kd::Tensor e = kd::zeros({2, 0, 3}, {.dtype = kd::kInt64});
  std::vector<ViewCase> cases = {
      {"x", [](auto x) { return x; }},
      {"x.view(6, 4)", [](auto x) { return x.view({6, 4}); }},
      {"x.view(-1)", [](auto x) { return x.view({-1}); }},
      {"x.view(4, -1, 3)", [](auto x) { return x.view({4, -1, 3}); }},
      {"x.transpose(0, 1).view(3, 2, 2, 2)", [](auto x) { return x.transpose(0, 1).view({3, 2, 2, 2}); }},
      {"x[:, 1].view(2, 2, 2)", [](auto x) { return x.select(1, 1).view({2, 2, 2}); }},
      {"x[:, :, 1:3].view(2, 3, 2, 1)", [](auto x) { return x.slice(2, 1, 3).view({2, 3, 2, 1}); }},
      {"x[:, 0:1].expand(2, 5, 4).view(2, 5, 2, 2)",
       [](auto x) { return x.slice(1, 0, 1).expand({2, 5, 4}).view({2, 5, 2, 2}); }},
      {"x.reshape(4, 6)", [](auto x) { return x.reshape({4, 6}); }},
      {"x.transpose(0, 2).reshape(-1)", [](auto x) { return x.transpose(0, 2).reshape({-1}); }},
      {"x.transpose(1, 2).reshape(2, 4, 3)", [](auto x) { return x.transpose(1, 2).reshape({2, 4, 3}); }},
      {"x.permute(2, 0, 1)", [](auto x) { return x.permute({2, 0, 1}); }},
      {"x.permute(-1, -3, -2)", [](auto x) { return x.permute({-1, -3, -2}); }},
      {"x.transpose(-1, 0)", [](auto x) { return x.transpose(-1, 0); }},
      {"x[0].t()", [](auto x) { return x[0].t(); }},
      {"x[0, 0].t()", [](auto x) { return x[0][0].t(); }},
      {"x[:, 0:1].expand(2, 3, 4)", [](auto x) { return x.slice(1, 0, 1).expand({2, 3, 4}); }},
      {"x[:, 0:1].expand(-1, 3, -1)", [](auto x) { return x.slice(1, 0, 1).expand({-1, 3, -1}); }},
      {"x[0, 0].expand(5, 2, 4)", [](auto x) { return x[0][0].expand({5, 2, 4}); }},
      {"x[:, 0:1].expand_as(x)", [](auto x) { return x.slice(1, 0, 1).expand_as(x); }},
      {"x[:, 0:1].squeeze()", [](auto x) { return x.slice(1, 0, 1).squeeze(); }},
      {"x[:, 0:1].squeeze(1)", [](auto x) { return x.slice(1, 0, 1).squeeze(1); }},
      {"x[:, 0:1].squeeze(-2)", [](auto x) { return x.slice(1, 0, 1).squeeze(-2); }},
      {"x.squeeze(0)", [](auto x) { return x.squeeze(0); }},
      {"x.unsqueeze(0)", [](auto x) { return x.unsqueeze(0); }},
      {"x.unsqueeze(-1)", [](auto x) { return x.unsqueeze(-1); }},
      {"x.unsqueeze(2)", [](auto x) { return x.unsqueeze(2); }},
      {"x.transpose(0, 2).unsqueeze(1)", [](auto x) { return x.transpose(0, 2).unsqueeze(1); }},
      {"x.flatten()", [](auto x) { return x.flatten(); }},
      {"x.flatten(1)", [](auto x) { return x.flatten(1); }},
      {"x.flatten(0, 1)", [](auto x) { return x.flatten(0, 1); }},
      {"x.flatten(-1)", [](auto x) { return x.flatten(-1); }},
      {"x.transpose(0, 2).flatten(1)", [](auto x) { return x.transpose(0, 2).flatten(1); }},
      {"x.narrow(2, 1, 2)", [](auto x) { return x.narrow(2, 1, 2); }},
      {"x.narrow(1, -2, 2)", [](auto x) { return x.narrow(1, -2, 2); }},
      {"x.narrow(1, 3, 0)", [](auto x) { return x.narrow(1, 3, 0); }},
      {"x[:, 1:, ::2]", [](auto x) { return x.index({Slice(), Slice(1, None), Slice(None, None, 2)}); }},
      {"x[..., 1]", [](auto x) { return x.index({Ellipsis, 1}); }},
      {"x[None, 0, ..., None]", [](auto x) { return x.index({None, 0, Ellipsis, None}); }},
      {"x[:, -1]", [](auto x) { return x.index({Slice(), -1}); }},
      {"x[:, -5:100]", [](auto x) { return x.index({Slice(), Slice(-5, 100)}); }},
      {"x[1:1]", [](auto x) { return x.index({Slice(1, 1)}); }},
      {"x[:, 2:0]", [](auto x) { return x.index({Slice(), Slice(2, 0)}); }},
      {"x[1, :, 1::3]", [](auto x) { return x.index({1, Slice(), Slice(1, None, 3)}); }},
      {"x[-1][-2][-3]", [](auto x) { return x[-1][-2][-3]; }},
      {"x[...]", [](auto x) { return x.index({Ellipsis}); }},
      {"x.select(1, -1)", [](auto x) { return x.select(1, -1); }},
      {"x.contiguous()", [](auto x) { return x.contiguous(); }},
      {"x.transpose(0, 2).contiguous()", [](auto x) { return x.transpose(0, 2).contiguous(); }},
      {"x.transpose(0, 2).clone()", [](auto x) { return x.transpose(0, 2).clone(); }},
      {"x.permute(1, 2, 0).to(torch.float64)", [](auto x) { return x.permute({1, 2, 0}).to(kd::kFloat64); }},
      {"x[:, ::2].clone()", [](auto x) { return x.index({Slice(), Slice(None, None, 2)}).clone(); }},
      {"x[:, 0:1].expand(2, 3, 4).clone()", [](auto x) { return x.slice(1, 0, 1).expand({2, 3, 4}).clone(); }},
      {"torch.empty_like(x.transpose(0, 1)).fill_(1)",
       [](auto x) { return kd::empty_like(x.transpose(0, 1)).fill_(1); }},
  };
  // Views of a 0-d and an empty tensor.
  std::vector<ViewCase> scalar_cases = {
      {"s.unsqueeze(0)", [](auto s) { return s.unsqueeze(0); }},
      {"s.view(1, 1)", [](auto s) { return s.view({1, 1}); }},
      {"s.view(-1)", [](auto s) { return s.view({-1}); }},
      {"s.reshape(())", [](auto s) { return s.reshape({}); }},
      {"s.expand(3, 2)", [](auto s) { return s.expand({3, 2}); }},
      {"s.squeeze()", [](auto s) { return s.squeeze(); }},
      {"s.squeeze(0)", [](auto s) { return s.squeeze(0); }},
      {"s.flatten()", [](auto s) { return s.flatten(); }},
      {"s.t()", [](auto s) { return s.t(); }},
      {"s.transpose(0, -1)", [](auto s) { return s.transpose(0, -1); }},
      {"s[None]", [](auto s) { return s.index({None}); }},
  };
  std::vector<ViewCase> empty_cases = {
      {"e.transpose(0, 1)", [](auto e) { return e.transpose(0, 1); }},
      {"e.transpose(0, 1).view(0, 6)", [](auto e) { return e.transpose(0, 1).view({0, 6}); }},
      {"e.reshape(3, 0, 1, 2)", [](auto e) { return e.reshape({3, 0, 1, 2}); }},
      {"e.view(0)", [](auto e) { return e.view({0}); }},
      {"e.view(2, 0, 3)", [](auto e) { return e.view({2, 0, 3}); }},
      {"e.flatten()", [](auto e) { return e.flatten(); }},
      {"e.unsqueeze(1).expand(2, 4, 0, 3)", [](auto e) { return e.unsqueeze(1).expand({2, 4, 0, 3}); }},
      {"e[:, :, 1:]", [](auto e) { return e.index({Slice(), Slice(), Slice(1, None)}); }},
      {"e.squeeze()", [](auto e) { return e.squeeze(); }},
  };
  std::vector<std::string> exprs;
  std::vector<std::string> mine;
  auto add = [&](const std::vector<ViewCase>& cs, const kd::Tensor& t) {
    for (const auto& c : cs) {
      exprs.push_back("g(" + c.py + ")");
      mine.push_back(geometry(c.kd(t)));
    }
  };
  add(cases, x);
  add(scalar_cases, s);
  add(empty_cases, e);
  const auto expected = kd::testing::python_eval(exprs, kSetup);
  for (std::size_t i = 0; i < exprs.size(); ++i) {
    INFO(exprs[i]);
    CHECK(mine[i] == expected[i]);
  }
}

TEST_CASE("views: share storage with their base (writes show through)") {
  kd::Tensor x = kd::zeros({2, 3, 4});
  const auto allocations = kd::memory::allocation_count();
  std::vector<kd::Tensor> views = {
      x.view({6, 4}),     x.reshape({24}),      x.permute({2, 0, 1}), x.transpose(0, 1),
      x[1].t(),           x.unsqueeze(0).squeeze(),
      x.flatten(),        x.narrow(2, 1, 2),    x.select(2, 3),       x.index({Ellipsis, None, Slice(1, 3)}),
      x.detach(),
  };
  CHECK(kd::memory::allocation_count() == allocations);  // no view allocated storage
  float value = 1;
  for (std::size_t i = 0; i < views.size(); ++i) {
    kd::Tensor& v = views[i];
    INFO("view " << i << " of shape " << kd::shape_str(v.shape()));
    CHECK(v.shares_storage(x));
    v.fill_(value);  // every element of the view now holds `value` ...
    for (float f : v.to_vector<float>()) CHECK(f == value);
    // ... and so do exactly the base elements it covers.
    auto xs = x.to_vector<float>();
    CHECK(std::count(xs.begin(), xs.end(), value) == v.numel());
    value += 1;
  }
}

TEST_CASE("expand: a write to the base shows in every expanded copy; only fill_ and zero_ write into it") {
  kd::Tensor x = kd::zeros({3, 1});
  kd::Tensor y = x.expand({2, 3, 4});
  CHECK(y.shares_storage(x));
  x.select(0, 1).fill_(5);
  auto v = y.to_vector<float>();
  for (std::size_t i = 0; i < v.size(); ++i) CHECK(v[i] == ((i / 4) % 3 == 1 ? 5.f : 0.f));
  // PyTorch 1.13's rule, one check for every in-place op: an op computing each element refuses;
  // fill_ and zero_ (one value everywhere) are allowed.
  CHECK_THROWS_WITH(y.copy_(kd::ones({4})), Contains("stride 0") && Contains("clone()"));
  CHECK_THROWS_WITH(y.add_(1), Contains("add_") && Contains("single memory location"));
  CHECK_THROWS_WITH(y.clamp_(0, 1), Contains("clamp_") && Contains("single memory location"));
  CHECK_THROWS_WITH(y.index_put_({kd::tensor(std::vector<std::int64_t>{0}, {1})}, kd::Scalar(1.0)),
                    Contains("single memory location"));
  y.fill_(7);
  CHECK(x.to_vector<float>() == std::vector<float>{7, 7, 7});
  y.zero_();
  CHECK(x.to_vector<float>() == std::vector<float>{0, 0, 0});
}

TEST_CASE("expand: a tensor with no elements has nothing to overlap, so in-place writes work (issue 18)") {
  kd::Tensor e = kd::zeros({1, 0, 4}).expand({3, 0, 4});
  CHECK(e.stride(0) == 0);
  CHECK_NOTHROW(e.add_(1));
  CHECK_NOTHROW(e.mul_(e));
  CHECK_NOTHROW(e.zero_());
  CHECK_NOTHROW(e.fill_(2));
  CHECK_NOTHROW(e.copy_(kd::ones({0, 4})));
  CHECK(e.shape() == kd::Shape{3, 0, 4});
}

TEST_CASE("views: a write through a select reaches the exact base element") {
  kd::Tensor x = kd::zeros({3, 4}, {.dtype = kd::kInt64});
  x.t()[2][1].fill_(7);  // x[1][2]
  auto v = x.to_vector<std::int64_t>();
  for (std::size_t i = 0; i < v.size(); ++i) CHECK(v[i] == (i == 1 * 4 + 2 ? 7 : 0));
}

TEST_CASE("view: incompatible strides throw ShapeError with a hint") {
  kd::Tensor x = kd::zeros({2, 3});
  CHECK_THROWS_AS(x.t().view({6}), kd::ShapeError);
  CHECK_THROWS_WITH(x.t().view({6}), Contains("view") && Contains("[3, 2]") && Contains(".reshape()") &&
                                         Contains("contiguous()"));
  // reshape copies instead
  kd::Tensor r = x.t().reshape({6});
  CHECK_FALSE(r.shares_storage(x));
  CHECK(r.is_contiguous());
}

TEST_CASE("view/reshape: invalid shapes") {
  kd::Tensor x = kd::zeros({2, 3});
  CHECK_THROWS_AS(x.view({4, 2}), kd::ShapeError);
  CHECK_THROWS_WITH(x.view({4, 2}), Contains("[4, 2]") && Contains("6 elements"));
  CHECK_THROWS_WITH(x.view({-1, -1}), Contains("only one dimension can be inferred"));
  CHECK_THROWS_WITH(x.reshape({-1, 4}), Contains("invalid for a tensor of 6 elements"));
  CHECK_THROWS_AS(x.reshape({-2, 3}), kd::ShapeError);
  CHECK_THROWS_WITH(kd::zeros({0, 3}).reshape({0, -1}), Contains("could be any value"));
}

TEST_CASE("permute/transpose/t: errors") {
  kd::Tensor x = kd::zeros({2, 3, 4});
  CHECK_THROWS_AS(x.permute({0, 1}), kd::ShapeError);
  CHECK_THROWS_WITH(x.permute({0, 1}), Contains("permute") && Contains("[2, 3, 4]"));
  CHECK_THROWS_WITH(x.permute({0, 1, 1}), Contains("appears twice"));
  CHECK_THROWS_AS(x.permute({0, 1, 3}), kd::IndexError);
  CHECK_THROWS_AS(x.transpose(0, 3), kd::IndexError);
  CHECK_THROWS_WITH(x.transpose(0, 3), Contains("transpose") && Contains("out of range"));
  CHECK_THROWS_AS(x.t(), kd::ShapeError);
  CHECK_THROWS_WITH(x.t(), Contains("<= 2 dimensions") && Contains("permute"));
}

TEST_CASE("size(d) and stride(d) of a 0-d tensor are refused, as in PyTorch (there is no dim to read)") {
  const kd::Tensor s = kd::tensor(1.5);
  for (std::int64_t d : {0, -1}) {
    CHECK_THROWS_AS(s.size(d), kd::IndexError);
    CHECK_THROWS_AS(s.stride(d), kd::IndexError);
  }
  CHECK_THROWS_WITH(s.size(0), Contains("size") && Contains("no dimensions") && Contains("item()"));
  // dims 0 and -1 still name the one "dim" of a 0-d tensor where PyTorch's ops take them
  CHECK(s.sum(0).item<float>() == 1.5f);
  CHECK(kd::zeros({2, 3}).size(-1) == 3);
}

TEST_CASE("expand: errors") {
  kd::Tensor x = kd::zeros({3, 1});
  CHECK_THROWS_AS(x.expand({4, 2}), kd::ShapeError);
  CHECK_THROWS_WITH(x.expand({4, 2}), Contains("non-singleton dimension 0") && Contains("[3, 1]"));
  CHECK_THROWS_WITH(x.expand({3}), Contains("fewer dimensions"));
  CHECK_THROWS_WITH(x.expand({-1, 3, 4}), Contains("-1 is not allowed"));
  CHECK_THROWS_AS(x.expand({3, -2}), kd::ShapeError);
  kd::Tensor y = x.expand({2, 3, 5});
  CHECK(y.strides() == kd::Strides{0, 1, 0});
  CHECK_FALSE(y.is_contiguous());
}

TEST_CASE("squeeze/unsqueeze/flatten/narrow/select/slice: errors") {
  kd::Tensor x = kd::zeros({2, 3});
  CHECK_THROWS_AS(x.squeeze(2), kd::IndexError);
  CHECK_THROWS_AS(x.unsqueeze(3), kd::IndexError);
  CHECK_NOTHROW(x.unsqueeze(2));
  CHECK_NOTHROW(x.unsqueeze(-3));
  CHECK_THROWS_AS(x.flatten(1, 0), kd::IndexError);
  CHECK_THROWS_WITH(x.flatten(1, 0), Contains("start_dim"));
  CHECK_THROWS_AS(x.narrow(1, 2, 2), kd::IndexError);
  CHECK_THROWS_WITH(x.narrow(1, 2, 2), Contains("narrow") && Contains("[2, 3]"));
  CHECK_THROWS_AS(x.narrow(1, 4, 0), kd::IndexError);
  CHECK_THROWS_AS(x.narrow(1, 0, -1), kd::IndexError);
  CHECK_THROWS_AS(x.select(0, 2), kd::IndexError);
  CHECK_THROWS_WITH(x.select(0, -3), Contains("index -3 is out of range") && Contains("[2, 3]"));
  CHECK_THROWS_AS(x[5], kd::IndexError);
  CHECK_THROWS_AS(x.slice(1, 0, 2, 0), kd::ValueError);
  CHECK_THROWS_WITH(x.slice(1, 0, 2, -1), Contains("step must be positive"));
  kd::Tensor s = kd::scalar_tensor(1);
  CHECK_THROWS_AS(s.select(0, 0), kd::IndexError);
  CHECK_THROWS_AS(s[0], kd::IndexError);
  CHECK_THROWS_AS(s.slice(0, 0, 1), kd::IndexError);
  CHECK_THROWS_AS(s.narrow(0, 0, 1), kd::IndexError);
  // A 0-d tensor flattens to [1], with dims in [-1, 0] like PyTorch (issue 18).
  CHECK(s.flatten(-1, 0).shape() == kd::Shape{1});
  CHECK_THROWS_AS(s.flatten(1), kd::IndexError);
  CHECK_THROWS_WITH(s.flatten(0, -2), Contains("flatten") && Contains("-2"));
  CHECK_THROWS_AS(kd::Tensor().view({1}), kd::ValueError);
}

TEST_CASE("views: slice clamps like Python") {
  kd::Tensor x = kd::arange(10);
  CHECK(x.slice(0, -100, 100).numel() == 10);
  CHECK(x.slice(0, 8, 3).numel() == 0);
  CHECK(x.slice(0, 12, 20).numel() == 0);
  CHECK(x.slice(0, 12, 20).storage_offset() == 10);
  CHECK(x.slice(0, 1, 10, 4).to_vector<std::int64_t>() == std::vector<std::int64_t>{1, 5, 9});
  CHECK(x.slice(0, -3, std::numeric_limits<std::int64_t>::max()).to_vector<std::int64_t>() ==
        std::vector<std::int64_t>{7, 8, 9});
  CHECK(x.slice(0, std::numeric_limits<std::int64_t>::min(), -8).to_vector<std::int64_t>() ==
        std::vector<std::int64_t>{0, 1});
}

TEST_CASE("views: contiguous() returns the same tensor when already contiguous") {
  kd::Tensor x = kd::zeros({2, 3});
  CHECK(x.contiguous().is_same(x));
  CHECK(x.slice(0, 0, 1).is_contiguous());
  kd::Tensor t = x.t();
  CHECK_FALSE(t.is_contiguous());
  kd::Tensor c = t.contiguous();
  CHECK(c.is_contiguous());
  CHECK_FALSE(c.shares_storage(x));
  CHECK(x.flatten(0, 0).is_same(x));
}

TEST_CASE("views: record their keys with normalised arguments") {
  kd::testing::RecordCapture cap;
  kd::Tensor x = kd::testing::needs_grad(kd::zeros({2, 3, 4}));
  x.view({6, -1});
  x.reshape({4, -1});
  x.permute({-1, 0, 1});
  x.transpose(0, -1);
  x[0].t();
  x.slice(1, 0, 1).expand({-1, 5, 4});
  x.squeeze();
  x.squeeze(-2);
  x.unsqueeze(-1);
  x.narrow(2, -3, 2);
  x.slice(1, -100, 100, 2);
  x.select(1, -1);
  x.transpose(0, 1).contiguous();
  x.clone();
  x.to(kd::kFloat64);
  x.to(kd::kInt64);            // integer result: not differentiable, not recorded
  x.detach().view({24});       // detached: nothing requires grad, not recorded
  // The arguments after the input, as recorded (the input itself is "Tensor[...]@address").
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"view", "[6, 4]"},        {"reshape_alias", "[4, 6]"}, {"permute", "[2, 0, 1]"}, {"transpose", "0, 2"},
      {"select", "0, 0"},        {"t", ""},                   {"slice", "1, 0, 1, 1"},  {"expand", "[2, 5, 4]"},
      {"squeeze", ""},           {"squeeze_dim", "1"},        {"unsqueeze", "3"},       {"slice", "2, 1, 3, 1"},
      {"slice", "1, 0, 3, 2"},   {"select", "1, 2"},          {"transpose", "0, 1"},    {"clone", ""},
      {"clone", ""},             {"to_dtype", ""},
  };
  REQUIRE(cap.records.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("record " << i << ": " << cap.records[i].op << "(" << cap.records[i].args << ")");
    CHECK(cap.records[i].op == expected[i].first);
    const std::string& args = cap.records[i].args;  // "Tensor[2, 3, 4]@0x..., rest"
    const auto after_input = args.find(", ", args.find('@'));
    CHECK((after_input == std::string::npos ? "" : args.substr(after_input + 2)) == expected[i].second);
  }
}
