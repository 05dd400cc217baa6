// Every row of the derivative table, checked against central differences in float64
// (kd::autograd::gradcheck). Broadcast shapes and non-contiguous inputs are included: a formula
// that forgets to unbroadcast, or assumes contiguous memory, fails here.
#include <catch2/catch.hpp>
#include <kindling/autograd.hpp>

namespace kd = kindling;
using kd::Tensor;
using Inputs = std::vector<Tensor>;

namespace {
Tensor rnd(const kd::Shape& s) { return kd::randn(s, {.dtype = kd::kFloat64}).requires_grad_(); }
// Values in [0.5, 2): safe for log, sqrt, pow, division.
Tensor pos(const kd::Shape& s) {
  return (kd::rand(s, {.dtype = kd::kFloat64}) * 1.5 + 0.5).detach().requires_grad_();
}
// A non-contiguous leaf with the given shape: the transpose of a fresh [cols, rows] tensor.
Tensor rnd_t(std::int64_t rows, std::int64_t cols) {
  Tensor t = kd::randn({cols, rows}, {.dtype = kd::kFloat64}).t().detach().requires_grad_();
  REQUIRE_FALSE(t.is_contiguous());
  return t;
}

void check(const kd::autograd::GradcheckFn1& fn, const Inputs& inputs) {
  auto r = kd::autograd::gradcheck(fn, inputs);
  INFO(r.message);
  CHECK(r.ok);
}
void check_multi(const kd::autograd::GradcheckFn& fn, const Inputs& inputs) {
  auto r = kd::autograd::gradcheck(fn, inputs);
  INFO(r.message);
  CHECK(r.ok);
}
}  // namespace

TEST_CASE("gradcheck: add and sub, with alpha and broadcasting") {
  check([](const Inputs& v) { return v[0] + v[1]; }, {rnd({2, 3}), rnd({2, 3})});
  check([](const Inputs& v) { return v[0] + v[1]; }, {rnd({3, 1}), rnd({4})});
  check([](const Inputs& v) { return kd::add(v[0], v[1], 2.5); }, {rnd({2, 3}), rnd({3})});
  check([](const Inputs& v) { return kd::sub(v[0], v[1], 0.5); }, {rnd({2, 1, 3}), rnd({4, 1})});
  check([](const Inputs& v) { return v[0] - 2.0; }, {rnd({3})});
  check([](const Inputs& v) { return 2.0 - v[0]; }, {rnd({3})});
  check([](const Inputs& v) { return v[0] + v[1]; }, {rnd_t(3, 4), rnd({4})});
}

TEST_CASE("gradcheck: mul and div, with broadcasting and non-contiguous inputs") {
  check([](const Inputs& v) { return v[0] * v[1]; }, {rnd({2, 3}), rnd({2, 3})});
  check([](const Inputs& v) { return v[0] * v[1]; }, {rnd({4, 1, 3}), rnd({2, 1})});
  check([](const Inputs& v) { return v[0] * v[1]; }, {rnd_t(3, 2), rnd({})});
  check([](const Inputs& v) { return v[0] / v[1]; }, {rnd({2, 3}), pos({3})});
  check([](const Inputs& v) { return v[0] / v[1]; }, {rnd_t(2, 3), pos({2, 1})});
  check([](const Inputs& v) { return 3.0 / v[0]; }, {pos({4})});
  check([](const Inputs& v) { return v[0] * v[0]; }, {rnd({3})});  // same tensor twice
}

TEST_CASE("gradcheck: pow with a scalar and with a tensor exponent") {
  check([](const Inputs& v) { return v[0].pow(3.0); }, {rnd({2, 3})});
  check([](const Inputs& v) { return v[0].pow(0.5); }, {pos({4})});
  check([](const Inputs& v) { return v[0].pow(-1.5); }, {pos({4})});
  check([](const Inputs& v) { return v[0].pow(v[1]); }, {pos({2, 3}), rnd({2, 3})});
  check([](const Inputs& v) { return v[0].pow(v[1]); }, {pos({2, 3}), rnd({3})});
  check([](const Inputs& v) { return v[0].pow(v[1]); }, {pos({4, 1}), rnd_t(4, 3)});
}

TEST_CASE("gradcheck: unary ops") {
  check([](const Inputs& v) { return -v[0]; }, {rnd({2, 3})});
  check([](const Inputs& v) { return v[0].abs(); }, {rnd({2, 3})});
  check([](const Inputs& v) { return v[0].exp(); }, {rnd_t(2, 3)});
  check([](const Inputs& v) { return v[0].log(); }, {pos({2, 3})});
  check([](const Inputs& v) { return v[0].sqrt(); }, {pos({2, 3})});
  check([](const Inputs& v) { return v[0].tanh(); }, {rnd_t(3, 2)});
  check([](const Inputs& v) { return v[0].sigmoid(); }, {rnd({5})});
  check([](const Inputs& v) { return v[0].relu(); }, {rnd({3, 4})});
}

TEST_CASE("gradcheck: sin, cos, log1p, expm1, erf (issue 18)") {
  check([](const Inputs& v) { return v[0].sin(); }, {rnd_t(2, 3)});
  check([](const Inputs& v) { return v[0].cos(); }, {rnd({2, 3})});
  check([](const Inputs& v) { return v[0].log1p(); }, {pos({2, 3})});
  check([](const Inputs& v) { return v[0].expm1(); }, {rnd_t(3, 2)});
  check([](const Inputs& v) { return v[0].erf(); }, {rnd({5})});
  // Piecewise constant: a zero gradient (inputs away from the jumps: 0.25 + integers).
  Tensor x = (kd::randint(-5, 5, {6}).to(kd::kFloat64) + 0.25).detach().requires_grad_();
  for (auto f : {+[](const Tensor& t) { return t.floor(); }, +[](const Tensor& t) { return t.ceil(); },
                 +[](const Tensor& t) { return t.round(); }, +[](const Tensor& t) { return t.trunc(); },
                 +[](const Tensor& t) { return t.sign(); }}) {
    check([f](const Inputs& v) { return f(v[0]); }, {x});
  }
}

TEST_CASE("gradcheck: index_select, gather, scatter, scatter_add, masked_fill (issue 18)") {
  const Tensor idx = kd::tensor(std::vector<std::int64_t>{2, 0, 2}, {3});
  check([idx](const Inputs& v) { return v[0].index_select(1, idx); }, {rnd_t(2, 3)});
  const Tensor pos = kd::tensor(std::vector<std::int64_t>{0, 0, 3, 1, 2, 2}, {3, 2});
  check([pos](const Inputs& v) { return v[0].gather(1, pos); }, {rnd({3, 4})});
  check_multi([pos](const Inputs& v) { return Inputs{v[0].scatter_add(1, pos, v[1])}; }, {rnd({3, 4}), rnd({3, 2})});
  const Tensor uniq = kd::tensor(std::vector<std::int64_t>{0, 2, 1, 3, 3, 0}, {3, 2});  // no repeats per row
  check_multi([uniq](const Inputs& v) { return Inputs{v[0].scatter(1, uniq, v[1])}; }, {rnd({3, 4}), rnd({3, 2})});
  check([uniq](const Inputs& v) { return v[0].scatter(1, uniq, 2.0); }, {rnd({3, 4})});
  const Tensor mask = kd::tensor({true, false, true, false});
  check([mask](const Inputs& v) { return v[0].masked_fill(mask, -1.0); }, {rnd_t(3, 4)});
}

TEST_CASE("gradcheck: tril, triu, flip, outer (issue 18)") {
  check([](const Inputs& v) { return kd::tril(v[0], -1); }, {rnd_t(3, 4)});
  check([](const Inputs& v) { return kd::triu(v[0], 1); }, {rnd({2, 3, 3})});
  check([](const Inputs& v) { return v[0].flip({0, 1}); }, {rnd_t(2, 3)});
  check_multi([](const Inputs& v) { return Inputs{kd::outer(v[0], v[1])}; }, {rnd({3}), rnd({2})});
}

TEST_CASE("gradcheck: clamp, maximum, minimum, where") {
  check([](const Inputs& v) { return v[0].clamp(-0.5, 0.5); }, {rnd({3, 4})});
  check([](const Inputs& v) { return v[0].clamp(0.1); }, {rnd({3, 4})});
  check([](const Inputs& v) { return v[0].clamp(std::nullopt, 0.2); }, {rnd({3, 4})});
  check([](const Inputs& v) { return v[0].maximum(v[1]); }, {rnd({2, 3}), rnd({3})});
  check([](const Inputs& v) { return v[0].minimum(v[1]); }, {rnd_t(2, 3), rnd({2, 1})});
  check([](const Inputs& v) { return kd::where(v[0] > 0.0, v[0], v[1]); }, {rnd({2, 3}), rnd({3})});
  check([](const Inputs& v) { return kd::where(v[1] > 0.0, v[0], 2.0); }, {rnd({2, 1}), rnd({2, 3})});
  check([](const Inputs& v) { return kd::where(v[1] > 0.0, -1.0, v[0]); }, {rnd({3}), rnd({2, 3})});
}

TEST_CASE("gradcheck: sum and mean, all and over dims, keepdim") {
  check([](const Inputs& v) { return v[0].sum(); }, {rnd({2, 3})});
  check([](const Inputs& v) { return v[0].sum(1); }, {rnd({2, 3, 4})});
  check([](const Inputs& v) { return v[0].sum({0, 2}, true); }, {rnd({2, 3, 4})});
  check([](const Inputs& v) { return v[0].sum(-1); }, {rnd_t(3, 4)});
  check([](const Inputs& v) { return v[0].mean(); }, {rnd({2, 3})});
  check([](const Inputs& v) { return v[0].mean({2, 0}); }, {rnd({2, 3, 4})});
  check([](const Inputs& v) { return v[0].mean(0, true); }, {rnd_t(3, 2)});
  check([](const Inputs& v) { return v[0].sum(); }, {rnd({})});
}

TEST_CASE("gradcheck: max and min, whole tensor and along a dim") {
  check([](const Inputs& v) { return v[0].max(); }, {rnd({3, 4})});
  check([](const Inputs& v) { return v[0].min(); }, {rnd_t(3, 4)});
  check([](const Inputs& v) { return v[0].max(1).first; }, {rnd({3, 4})});
  check([](const Inputs& v) { return v[0].min(0, true).first; }, {rnd({3, 4})});
  check([](const Inputs& v) { return v[0].max(-1).first; }, {rnd_t(2, 5)});
  check_multi([](const Inputs& v) { auto [val, idx] = v[0].max(1); return std::vector<Tensor>{val, idx}; },
              {rnd({3, 4})});
}

TEST_CASE("gradcheck: var and std with correction, over all and one dim") {
  check([](const Inputs& v) { return v[0].var(); }, {rnd({3, 4})});
  check([](const Inputs& v) { return v[0].var(0); }, {rnd({3, 4})});
  check([](const Inputs& v) { return v[0].var(1, true, 0); }, {rnd_t(3, 4)});
  check([](const Inputs& v) { return v[0].std(); }, {rnd({3, 4})});
  check([](const Inputs& v) { return v[0].std(0, false, 0); }, {rnd({3, 4})});
  check([](const Inputs& v) { return v[0].std(-1, true); }, {rnd_t(2, 5)});
}

TEST_CASE("gradcheck: softmax and log_softmax along every dim") {
  for (std::int64_t d : {0, 1, -1}) {
    check([d](const Inputs& v) { return v[0].softmax(d); }, {rnd({3, 4})});
    check([d](const Inputs& v) { return v[0].log_softmax(d); }, {rnd_t(3, 4)});
  }
  check([](const Inputs& v) { return v[0].softmax(1); }, {rnd({2, 3, 4})});
}

TEST_CASE("gradcheck: mm and matmul for every rank combination") {
  check([](const Inputs& v) { return v[0].mm(v[1]); }, {rnd({2, 3}), rnd({3, 4})});
  check([](const Inputs& v) { return v[0].mm(v[1]); }, {rnd_t(2, 3), rnd_t(3, 4)});
  check([](const Inputs& v) { return v[0].matmul(v[1]); }, {rnd({3}), rnd({3})});           // dot
  check([](const Inputs& v) { return v[0].matmul(v[1]); }, {rnd({2, 3}), rnd({3})});        // mv
  check([](const Inputs& v) { return v[0].matmul(v[1]); }, {rnd({3}), rnd({3, 4})});        // vm
  check([](const Inputs& v) { return v[0].matmul(v[1]); }, {rnd({2, 3}), rnd({3, 4})});     // mm
  check([](const Inputs& v) { return v[0].matmul(v[1]); }, {rnd({2, 2, 3}), rnd({3, 4})});  // batched @ matrix
  check([](const Inputs& v) { return v[0].matmul(v[1]); }, {rnd({2, 3}), rnd({2, 3, 4})});  // matrix @ batched
  check([](const Inputs& v) { return v[0].matmul(v[1]); }, {rnd({2, 1, 2, 3}), rnd({3, 3, 2})});  // broadcast batch
  check([](const Inputs& v) { return v[0].matmul(v[1]); }, {rnd({2, 2, 3}), rnd({3})});     // batched @ vector
  check([](const Inputs& v) { return v[0].matmul(v[1]); }, {rnd({3}), rnd({2, 3, 4})});     // vector @ batched
  check([](const Inputs& v) { return v[0].matmul(v[1].t()); }, {rnd({2, 3}), rnd({4, 3})});
}

TEST_CASE("gradcheck: views (view, reshape, permute, transpose, t, expand, squeeze, unsqueeze)") {
  check([](const Inputs& v) { return v[0].view({3, 2}) * 2.0; }, {rnd({2, 3})});
  check([](const Inputs& v) { return v[0].reshape({6}); }, {rnd_t(2, 3)});  // a copy, not a view
  check([](const Inputs& v) { return v[0].permute({2, 0, 1}); }, {rnd({2, 3, 4})});
  check([](const Inputs& v) { return v[0].transpose(0, 2); }, {rnd({2, 3, 4})});
  check([](const Inputs& v) { return v[0].t(); }, {rnd({2, 3})});
  check([](const Inputs& v) { return v[0].expand({2, 3, 4}); }, {rnd({3, 1})});
  check([](const Inputs& v) { return v[0].expand({-1, 4}); }, {rnd({3, 1})});
  check([](const Inputs& v) { return v[0].squeeze(); }, {rnd({1, 3, 1})});
  check([](const Inputs& v) { return v[0].squeeze(-1); }, {rnd({2, 3, 1})});
  check([](const Inputs& v) { return v[0].unsqueeze(1); }, {rnd({2, 3})});
  check([](const Inputs& v) { return v[0].unsqueeze(-1); }, {rnd({2, 3})});
  check([](const Inputs& v) { return v[0].flatten(); }, {rnd({2, 3, 2})});
}

TEST_CASE("gradcheck: slice, select and indexing") {
  check([](const Inputs& v) { return v[0].slice(1, 1, 4); }, {rnd({2, 5})});
  check([](const Inputs& v) { return v[0].slice(0, 0, 5, 2); }, {rnd({5, 2})});
  check([](const Inputs& v) { return v[0].select(1, 2); }, {rnd({2, 3})});
  check([](const Inputs& v) { return v[0][1]; }, {rnd_t(3, 2)});
  check([](const Inputs& v) { return v[0].narrow(0, 1, 2) * v[0].select(0, 0); }, {rnd({3, 2})});
}

TEST_CASE("gradcheck: cat and stack") {
  check([](const Inputs& v) { return kd::cat({v[0], v[1]}, 0); }, {rnd({2, 3}), rnd({1, 3})});
  check([](const Inputs& v) { return kd::cat({v[0], v[1], v[0]}, -1); }, {rnd({2, 3}), rnd_t(2, 2)});
  check([](const Inputs& v) { return kd::stack({v[0], v[1]}, 1); }, {rnd({2, 3}), rnd({2, 3})});
  check([](const Inputs& v) { return kd::stack({v[0], v[1]}, -1); }, {rnd_t(2, 3), rnd({2, 3})});
}

TEST_CASE("gradcheck: clone, contiguous and dtype conversion") {
  check([](const Inputs& v) { return v[0].clone() * v[0]; }, {rnd({3})});
  check([](const Inputs& v) { return v[0].t().contiguous(); }, {rnd({2, 3})});
  // Through float32 the function is only float32-accurate: a bigger step and tolerance.
  auto r = kd::autograd::gradcheck([](const Inputs& v) { return v[0].to(kd::kFloat32).to(kd::kFloat64) * 1.0; },
                                   {rnd({3})}, {.eps = 1e-3, .atol = 1e-3, .rtol = 1e-3});
  INFO(r.message);
  CHECK(r.ok);
}

TEST_CASE("gradcheck: a small network (composition of many rows)") {
  check([](const Inputs& v) {
    Tensor h = (v[0].matmul(v[1]) + v[2]).relu();
    return h.log_softmax(1).mean();
  }, {rnd({4, 3}), rnd({3, 5}), rnd({5})});
}

TEST_CASE("gradcheck: reports a wrong gradient (detach hides part of the function)") {
  // f(x) = x * detach(x): backward sees only one factor, so the analytical gradient is x, not 2x.
  auto fn = [](const Inputs& v) { return v[0] * v[0].detach(); };
  auto r = kd::autograd::gradcheck(kd::autograd::GradcheckFn1(fn), {rnd({3})});
  CHECK_FALSE(r.ok);
  CHECK(r.input_index == 0);
  CHECK(r.max_abs_error > 1e-3);
  CHECK_THAT(r.message, Catch::Matchers::Contains("Jacobian mismatch"));
  CHECK_THROWS_AS(kd::autograd::gradcheck(kd::autograd::GradcheckFn1(fn), {rnd({3})},
                                          {.raise_exception = true}),
                  kd::AutogradError);
  // No input requires grad: nothing to check is an error, not a silent pass.
  CHECK_THROWS_AS(kd::autograd::gradcheck(kd::autograd::GradcheckFn1(fn), {kd::randn({3})}), kd::ValueError);
}

TEST_CASE("gradcheck: float32 inputs are checked in float64") {
  Tensor x = kd::randn({3}).requires_grad_();
  auto r = kd::autograd::gradcheck([](const Inputs& v) { return v[0].tanh(); }, {x});
  CHECK(r.ok);
  CHECK_FALSE(x.grad().defined());  // gradcheck does not touch .grad
}
