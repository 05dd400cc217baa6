// Chapter 6 parity: the Kindling twin of every case in ch06_amp.py.
#include <kindling/amp.hpp>

#include "parity.hpp"

namespace {
namespace amp = kindling::amp;
using kd::Tensor;
constexpr int kSteps = 16;

parity::Outputs scaled_run(parity::Inputs& in, amp::GradScalerOptions options, double lr = 0.1) {
  Tensor w = in["w"].clone().requires_grad_();
  const Tensor x = in["x"], y = in["y"], f = in["f"];
  kd::optim::SGD opt({w}, {.lr = lr});
  amp::GradScaler scaler(options);
  std::vector<double> scales;
  std::vector<std::int64_t> trackers;
  std::vector<bool> stepped;
  std::vector<Tensor> ws;
  for (int k = 0; k < kSteps; ++k) {
    opt.zero_grad();
    Tensor loss = (x.matmul(w) - y).pow(2).mean() * f[k];
    scaler.scale(loss).backward();
    stepped.push_back(scaler.step(opt));
    scaler.update();
    scales.push_back(scaler.get_scale());
    trackers.push_back(scaler.growth_tracker());
    ws.push_back(w.detach().clone());
  }
  const auto sd = scaler.state_dict();
  std::vector<double> state;
  for (const char* k : {"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"})
    state.push_back(sd.at(k).item<double>());
  std::vector<std::uint8_t> ran(stepped.begin(), stepped.end());
  return {kd::tensor(scales, {kSteps}).to(kd::kFloat64), kd::tensor(trackers, {kSteps}),
          kd::tensor(ran, {kSteps}).to(kd::kBool), kd::stack(ws), kd::tensor(state, {5}).to(kd::kFloat64)};
}

}  // namespace

PARITY_CASE("grad-scaler/overflow-backoff-growth") { return scaled_run(in, {.growth_interval = 3}); }
PARITY_CASE("grad-scaler/default-interval") { return scaled_run(in, {}); }
PARITY_CASE("grad-scaler/custom-factors") {
  return scaled_run(in, {.init_scale = 0x1p120, .growth_factor = 4.0, .backoff_factor = 0.25,
                         .growth_interval = 2});
}
PARITY_CASE("grad-scaler/no-growth-to-inf") {
  return scaled_run(in, {.init_scale = 0x1p127, .growth_interval = 1});
}

PARITY_CASE("grad-scaler/unscale-then-step") {
  Tensor w = in["w"].clone().requires_grad_();
  kd::optim::SGD opt({w}, {.lr = 0.5});
  amp::GradScaler scaler({.init_scale = 1024.0});
  scaler.scale((in["x"].matmul(w) - in["y"]).pow(2).mean()).backward();
  const Tensor scaled = w.grad().clone();
  scaler.unscale_(opt);
  const Tensor unscaled = w.grad().clone();
  scaler.step(opt);
  scaler.update();
  return {scaled, unscaled, w.detach()};
}

PARITY_CASE("grad-scaler/scale-dtype-shape") {
  amp::GradScaler s1, s2;
  return {s1.scale(in["a"]), s2.scale(in["b"])};
}

// ---- autocast -------------------------------------------------------------------------------------
namespace {
namespace F = kindling::nn::functional;
template <class Fn> parity::Outputs autocast(Fn fn) {
  amp::AutocastGuard guard;
  return fn();
}
}  // namespace

PARITY_CASE("autocast/matmul") { return autocast([&] { return in["a"].matmul(in["b"]); }); }
PARITY_CASE("autocast/matmul-batched") { return autocast([&] { return in["a"].matmul(in["b"]); }); }
PARITY_CASE("autocast/mm") { return autocast([&] { return kd::mm(in["a"], in["b"]); }); }
PARITY_CASE("autocast/mv-dot-stay-float32") {
  return autocast([&] { return parity::Outputs{kd::mv(in["a"], in["v"]), kd::dot(in["v"], in["v"])}; });
}
PARITY_CASE("autocast/linear") { return autocast([&] { return F::linear(in["x"], in["w"], in["b"]); }); }
PARITY_CASE("autocast/linear-grad") { return autocast([&] { return F::linear(in["x"], in["w"], in["b"]); }); }
PARITY_CASE("autocast/conv2d") { return autocast([&] { return F::conv2d(in["x"], in["w"], in["b"]); }); }
PARITY_CASE("autocast/conv2d-grad") { return autocast([&] { return F::conv2d(in["x"], in["w"], in["b"]); }); }
PARITY_CASE("autocast/other-ops-keep-bfloat16") {
  return autocast([&] {
    const Tensor h = in["x"].matmul(in["w"]);
    return parity::Outputs{h.relu(), h.sum(), h.mean(1), h.softmax(-1), h.log_softmax(-1), h.exp(), h.tanh()};
  });
}
PARITY_CASE("autocast/norm-and-pool-follow-bfloat16") {
  return autocast([&] {
    const Tensor h = in["h"], w = in["w"], b = in["b"];
    const Tensor rm = in["rm"].clone(), rv = in["rv"].clone();
    const Tensor train = F::batch_norm(h, rm, rv, w, b, true);
    return parity::Outputs{train, rm, rv, F::batch_norm(h, rm, rv, w, b, false), F::layer_norm(h, {4, 4}),
                           F::max_pool2d(h, 2), F::max_pool2d(h, 3, 1, 1), F::avg_pool2d(h, 2),
                           F::adaptive_avg_pool2d(h, 1)};
  });
}
PARITY_CASE("autocast/norm-and-pool-grad") {
  return autocast([&] {
    const Tensor h = in["h"];
    return parity::Outputs{F::batch_norm(h, Tensor(), Tensor(), in["w"], in["b"], true), F::layer_norm(h, {4, 4}),
                           F::max_pool2d(h, 2), F::avg_pool2d(h, 3, 1, 1), F::adaptive_avg_pool2d(h, 1)};
  });
}
PARITY_CASE("autocast/half-pooling-refused") { return F::max_pool2d(in["h"], 2); }
PARITY_CASE("autocast/layer-norm-float32-weight-refused") { return F::layer_norm(in["h"], {4}, in["w"]); }
PARITY_CASE("autocast/float32-operand-promotes") {
  return autocast([&] { return in["x"].matmul(in["w"]) + in["b"]; });
}
PARITY_CASE("autocast/losses-run-in-float32") {
  return autocast([&] {
    const Tensor h = in["x"].matmul(in["w"]);
    return parity::Outputs{F::cross_entropy(h, in["y"]), F::mse_loss(h, in["t"]), F::l1_loss(h, in["t"]),
                           F::nll_loss(h.log_softmax(1), in["y"])};
  });
}
PARITY_CASE("autocast/conv-transpose2d-runs-in-float32") {
  return autocast([&] { return F::conv_transpose2d(in["x"], in["w"], in["b"]); });
}
PARITY_CASE("autocast/conv-transpose2d-bfloat16-inputs-widened") {
  return autocast([&] { return F::conv_transpose2d(in["x"], in["w"], in["b"]); });
}
PARITY_CASE("autocast/prod-runs-in-float32") {
  return autocast([&] {
    const Tensor& h = in["h"];
    return parity::Outputs{h.prod(), h.prod(1), h.prod(0, true)};
  });
}
PARITY_CASE("autocast/float64-untouched") { return autocast([&] { return in["a"].matmul(in["b"]); }); }
PARITY_CASE("autocast/float16-input-cast-to-bfloat16") {
  return autocast([&] { return in["a"].matmul(in["b"]); });
}
PARITY_CASE("autocast/nested-disable") {
  const Tensor a = in["a"], b = in["b"];
  Tensor inner_on, off, after;
  {
    amp::AutocastGuard on;
    inner_on = a.matmul(b);
    {
      amp::AutocastGuard disabled({.enabled = false});
      off = a.matmul(b);
    }
    after = a.matmul(b);
  }
  return {inner_on, off, after, a.matmul(b)};
}
PARITY_CASE("autocast/mlp-step-grad") {
  Tensor loss, logits;
  {
    amp::AutocastGuard guard;
    const Tensor h = F::linear(in["x"], in["w1"], in["b1"]).relu();
    logits = F::linear(h, in["w2"], in["b2"]);
    loss = F::cross_entropy(logits, in["y"]);
  }
  return {loss, logits};
}

// ---- the 16-bit GEMM -------------------------------------------------------------------------------
PARITY_CASE("bf16-gemm/x-wt-simplenet-fc1") { return in["x"].matmul(in["w"].t()); }
PARITY_CASE("bf16-gemm/gt-x-weight-grad") { return in["g"].t().matmul(in["x"]); }
PARITY_CASE("bf16-gemm/g-w-input-grad") { return in["g"].matmul(in["w"]); }
PARITY_CASE("bf16-gemm/bmm-broadcast") { return in["a"].matmul(in["b"]); }
PARITY_CASE("bf16-gemm/strided-views") {
  using kd::indexing::Slice;
  using kd::indexing::None;
  const Tensor a = in["a"].index({Slice(), Slice(None, None, 2)}), b = in["b"].index({Slice(None, None, 3)});
  return a.matmul(b.t());
}
PARITY_CASE("bf16-gemm/vector-and-0d-sizes") {
  const Tensor v = in["v"], a = in["a"], e = in["e"], z = in["z"];
  return {v.matmul(a), a.t().matmul(v.slice(0, 0, 6)), e.matmul(a), z.matmul(z.t())};
}
PARITY_CASE("bf16-gemm/large-values") { return (in["a"] * 1e18).matmul(in["b"] * 1e18); }
PARITY_CASE("bf16-gemm/float16-rounded-once") { return in["a"].matmul(in["b"].t()); }
PARITY_CASE("bf16-gemm/autocast-linear-k784") {
  amp::AutocastGuard guard;
  return F::linear(in["x"], in["w"]);
}
PARITY_CASE("bf16-gemm/addmm-bias-rounded-once") {
  const Tensor b = in["b"] / 8, x = in["x"], w = in["w"];
  return {kd::addmm(b, x, w.t()), kd::addmm(b.reshape({1, -1}), x, w.t()), kd::addmm(b, in["e"], in["f"].t())};
}
PARITY_CASE("bf16-gemm/float16-addmm-bias-rounded-once") { return kd::addmm(in["b"] / 8, in["x"], in["w"].t()); }
PARITY_CASE("bf16-gemm/autocast-linear-bias") {
  amp::AutocastGuard guard;
  return F::linear(in["x"], in["w"], in["b"] / 8);
}

// ---- gradient accumulation -------------------------------------------------------------------------
namespace {
constexpr int kAccumulationSteps = 4, kMicroBatches = 8;

// The accumulation loop of ch06_amp.py: the parameters after each optimizer step.
template <class Optimizer, class Options>
Tensor accumulation(parity::Inputs& in, bool divide, Options options) {
  std::vector<Tensor> params;
  for (const char* name : {"w1", "b1", "w2", "b2"}) params.push_back(in[name].clone().requires_grad_());
  Optimizer opt(params, options);
  std::vector<Tensor> trajectory;
  opt.zero_grad();
  for (int i = 0; i < kMicroBatches; ++i) {
    const Tensor h = F::linear(in["x"][i], params[0], params[1]).relu();
    Tensor loss = F::cross_entropy(F::linear(h, params[2], params[3]), in["y"][i]);
    if (divide) loss = loss / kAccumulationSteps;
    loss.backward();
    if ((i + 1) % kAccumulationSteps == 0) {
      opt.step();
      opt.zero_grad();
      std::vector<Tensor> flat;
      for (const Tensor& p : params) flat.push_back(p.detach().flatten());
      trajectory.push_back(kd::cat(flat));
    }
  }
  return kd::stack(trajectory);
}
}  // namespace

PARITY_CASE("accumulation/sgd-divided") {
  return accumulation<kd::optim::SGD>(in, true, kd::optim::SGDOptions{.lr = 0.1, .momentum = 0.9});
}
PARITY_CASE("accumulation/sgd-undivided") {
  return accumulation<kd::optim::SGD>(in, false, kd::optim::SGDOptions{.lr = 0.1, .momentum = 0.9});
}
PARITY_CASE("accumulation/adam-divided") {
  return accumulation<kd::optim::Adam>(in, true, kd::optim::AdamOptions{.lr = 0.01});
}
PARITY_CASE("accumulation/adam-undivided") {
  return accumulation<kd::optim::Adam>(in, false, kd::optim::AdamOptions{.lr = 0.01});
}

// ---- activation checkpointing ---------------------------------------------------------------------
namespace utils = kindling::utils;

PARITY_CASE("checkpoint/mlp-grad") {
  // The segments run again in backward, after this function returned: capture by value.
  const Tensor w1 = in["w1"], b1 = in["b1"], w2 = in["w2"], b2 = in["b2"];
  Tensor h = utils::checkpoint([=](const Tensor& t) { return F::linear(t, w1, b1).tanh(); }, in["x"]);
  h = utils::checkpoint([=](const Tensor& t) { return F::linear(t, w2, b2).relu(); }, h);
  return F::linear(h, in["w3"], in["b3"]);
}
PARITY_CASE("checkpoint/shared-weight-grad") {
  const Tensor w = in["w"];
  auto seg = [w](const Tensor& t) { return t.matmul(w).sigmoid(); };
  const Tensor h = utils::checkpoint(seg, utils::checkpoint(seg, in["x"]));
  return h.matmul(in["v"]).sum() + (w * w).sum();
}
PARITY_CASE("checkpoint/two-in-two-out-grad") {
  auto seg = [](const std::vector<Tensor>& t) { return std::vector<Tensor>{t[0] * t[1], (t[0] + t[1]).exp()}; };
  const auto out = utils::checkpoint(seg, {in["a"], in["b"]});
  return {out[0], out[1]};
}
