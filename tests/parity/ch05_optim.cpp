// Chapter 5 parity: the Kindling twin of every case in ch05_optim.py.
#include <kindling/train.hpp>

#include <algorithm>
#include <cmath>
#include <memory>

#include "parity.hpp"

namespace kd = kindling;

namespace {
constexpr int kSteps = 12;
namespace optim = kindling::optim;
namespace F = kindling::nn::functional;
using kd::Tensor;

// Same protocol as trajectory() in the .py: feed gradients gw[k], gb[k]; collect params after each step.
template <class MakeOpt>
parity::Outputs trajectory(parity::Inputs& in, MakeOpt make_opt) {
  Tensor w = in["w"].clone().requires_grad_(), b = in["b"].clone().requires_grad_();
  auto opt = make_opt(std::vector<Tensor>{w, b});
  std::vector<Tensor> ws, bs;
  for (int k = 0; k < kSteps; ++k) {
    opt.zero_grad();
    w.set_grad(in["gw"][k].clone());
    b.set_grad(in["gb"][k].clone());
    opt.step();
    ws.push_back(w.detach().clone());
    bs.push_back(b.detach().clone());
  }
  return {kd::stack(ws), kd::stack(bs)};
}

#define OPT_CASE(name, expr) \
  PARITY_CASE("optim/" name) { return trajectory(in, [](std::vector<Tensor> p) { return expr; }); }

template <class MakeSched, class Step>
parity::Outputs lr_sequence(MakeSched make_sched, Step step, int epochs = 30) {
  Tensor p = kd::zeros({1}).requires_grad_();
  optim::SGD opt({p}, {.lr = 0.1});
  auto sched = make_sched(opt);
  std::vector<double> lrs;
  for (int e = 0; e < epochs; ++e) {
    opt.step();
    step(sched, e);
    lrs.push_back(opt.lr());
  }
  return kd::tensor(lrs, {epochs});
}
const std::vector<double> kPlateau = {1.0, 0.9, 0.8, 0.8, 0.81, 0.79, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.7, 0.7, 0.7,
                                      0.7, 0.7, 0.7, 0.7, 0.7, 0.69999, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7};
auto epoch_step = [](auto& s, int) { s.step(); };
}  // namespace

OPT_CASE("sgd/plain", optim::SGD(p, {.lr = 0.1}))
OPT_CASE("sgd/momentum", optim::SGD(p, {.lr = 0.1, .momentum = 0.9}))
OPT_CASE("sgd/dampening", optim::SGD(p, {.lr = 0.1, .momentum = 0.9, .dampening = 0.3}))
OPT_CASE("sgd/nesterov", optim::SGD(p, {.lr = 0.05, .momentum = 0.9, .nesterov = true}))
OPT_CASE("sgd/weight-decay", optim::SGD(p, {.lr = 0.1, .momentum = 0.5, .weight_decay = 0.01}))
OPT_CASE("sgd/maximize", optim::SGD(p, {.lr = 0.1, .momentum = 0.9, .maximize = true}))
OPT_CASE("sgd/float64", optim::SGD(p, {.lr = 0.1, .momentum = 0.9}))
OPT_CASE("adam/default", optim::Adam(p, {.lr = 1e-3}))
OPT_CASE("adam/betas-eps", optim::Adam(p, {.lr = 1e-2, .betas = {0.8, 0.99}, .eps = 1e-6}))
OPT_CASE("adam/weight-decay", optim::Adam(p, {.lr = 1e-2, .weight_decay = 0.1}))
OPT_CASE("adam/amsgrad", optim::Adam(p, {.lr = 1e-2, .amsgrad = true}))
OPT_CASE("adam/maximize", optim::Adam(p, {.lr = 1e-2, .maximize = true}))
OPT_CASE("adam/float64", optim::Adam(p, {.lr = 1e-2}))
OPT_CASE("adamw/default", optim::AdamW(p, {.lr = 1e-2}))
OPT_CASE("adamw/weight-decay", optim::AdamW(p, {.lr = 1e-2, .weight_decay = 0.5}))
OPT_CASE("adamw/amsgrad", optim::AdamW(p, {.lr = 1e-2, .weight_decay = 0.1, .amsgrad = true}))
// issue 18: the option checks of torch.optim
OPT_CASE("sgd/negative-lr", optim::SGD(p, {.lr = -0.1}))
OPT_CASE("sgd/negative-momentum", optim::SGD(p, {.lr = 0.1, .momentum = -0.5}))
OPT_CASE("sgd/negative-weight-decay", optim::SGD(p, {.lr = 0.1, .weight_decay = -0.1}))
OPT_CASE("sgd/nesterov-without-momentum", optim::SGD(p, {.lr = 0.1, .nesterov = true}))
OPT_CASE("sgd/nesterov-with-dampening", optim::SGD(p, {.lr = 0.1, .momentum = 0.9, .dampening = 0.1, .nesterov = true}))
PARITY_CASE("optim/sgd/param-in-two-groups") {
  return trajectory(in, [](std::vector<Tensor> p) {
    auto opt = std::make_unique<optim::SGD>(p, optim::SGDOptions{.lr = 0.1});
    opt->add_param_group({p[0]}, {.lr = 0.1});
    return std::move(*opt);
  });
}
PARITY_CASE("optim/adam/param-in-two-groups") {
  return trajectory(in, [](std::vector<Tensor> p) {
    auto opt = std::make_unique<optim::Adam>(std::vector<Tensor>{p[1]}, optim::AdamOptions{.lr = 0.1});
    opt->add_param_group(p, {.lr = 0.1});
    return std::move(*opt);
  });
}
OPT_CASE("adam/negative-lr", optim::Adam(p, {.lr = -1e-3}))
OPT_CASE("adam/negative-eps", optim::Adam(p, {.eps = -1e-8}))
OPT_CASE("adam/beta1-one", optim::Adam(p, {.betas = {1.0, 0.999}}))
OPT_CASE("adam/beta2-negative", optim::Adam(p, {.betas = {0.9, -0.1}}))
OPT_CASE("adam/negative-weight-decay", optim::Adam(p, {.weight_decay = -0.1}))
OPT_CASE("adamw/negative-weight-decay", optim::AdamW(p, {.weight_decay = -0.1}))
OPT_CASE("adamw/beta2-one", optim::AdamW(p, {.betas = {0.9, 1.0}}))
OPT_CASE("sgd/zero-lr", optim::SGD(p, {.lr = 0.0, .momentum = 0.9}))
OPT_CASE("adam/zero-betas", optim::Adam(p, {.lr = 1e-2, .betas = {0.0, 0.0}}))
// issue 18: RMSprop and Adagrad
OPT_CASE("rmsprop/default", optim::RMSprop(p))
OPT_CASE("rmsprop/alpha-eps", optim::RMSprop(p, {.lr = 1e-3, .alpha = 0.9, .eps = 1e-4}))
OPT_CASE("rmsprop/momentum", optim::RMSprop(p, {.lr = 1e-3, .momentum = 0.9}))
OPT_CASE("rmsprop/centered", optim::RMSprop(p, {.lr = 1e-3, .centered = true}))
OPT_CASE("rmsprop/centered-momentum-wd",
         optim::RMSprop(p, {.lr = 1e-3, .weight_decay = 0.1, .momentum = 0.5, .centered = true}))
OPT_CASE("rmsprop/maximize", optim::RMSprop(p, {.lr = 1e-3, .momentum = 0.9, .maximize = true}))
OPT_CASE("rmsprop/float64", optim::RMSprop(p, {.lr = 1e-2, .momentum = 0.9, .centered = true}))
OPT_CASE("rmsprop/zero-alpha", optim::RMSprop(p, {.lr = 1e-3, .alpha = 0.0}))
OPT_CASE("rmsprop/negative-lr", optim::RMSprop(p, {.lr = -1e-3}))
OPT_CASE("rmsprop/negative-eps", optim::RMSprop(p, {.eps = -1e-8}))
OPT_CASE("rmsprop/negative-momentum", optim::RMSprop(p, {.momentum = -0.1}))
OPT_CASE("rmsprop/negative-weight-decay", optim::RMSprop(p, {.weight_decay = -0.1}))
OPT_CASE("rmsprop/negative-alpha", optim::RMSprop(p, {.alpha = -0.5}))
OPT_CASE("adagrad/default", optim::Adagrad(p))
OPT_CASE("adagrad/lr-decay", optim::Adagrad(p, {.lr = 0.1, .lr_decay = 0.05}))
OPT_CASE("adagrad/initial-accumulator-eps",
         optim::Adagrad(p, {.lr = 0.1, .initial_accumulator_value = 0.5, .eps = 1e-3}))
OPT_CASE("adagrad/weight-decay", optim::Adagrad(p, {.lr = 0.1, .weight_decay = 0.2}))
OPT_CASE("adagrad/maximize", optim::Adagrad(p, {.lr = 0.1, .lr_decay = 0.01, .maximize = true}))
OPT_CASE("adagrad/float64", optim::Adagrad(p, {.lr = 0.1, .lr_decay = 0.05, .weight_decay = 0.1}))
OPT_CASE("adagrad/negative-lr", optim::Adagrad(p, {.lr = -0.1}))
OPT_CASE("adagrad/negative-lr-decay", optim::Adagrad(p, {.lr_decay = -0.1}))
OPT_CASE("adagrad/negative-weight-decay", optim::Adagrad(p, {.weight_decay = -0.1}))
OPT_CASE("adagrad/negative-initial-accumulator", optim::Adagrad(p, {.initial_accumulator_value = -1}))
OPT_CASE("adagrad/negative-eps", optim::Adagrad(p, {.eps = -1e-10}))

PARITY_CASE("sched/step") {
  return lr_sequence([](optim::Optimizer& o) { return optim::StepLR(o, 7, 0.5); }, epoch_step);
}
PARITY_CASE("sched/multistep") {
  return lr_sequence([](optim::Optimizer& o) { return optim::MultiStepLR(o, {3, 10, 10, 20}, 0.3); }, epoch_step);
}
PARITY_CASE("sched/multistep-milestone-0") {
  return lr_sequence([](optim::Optimizer& o) { return optim::MultiStepLR(o, {0, 5, 0}, 0.5); }, epoch_step);
}
PARITY_CASE("sched/exponential") {
  return lr_sequence([](optim::Optimizer& o) { return optim::ExponentialLR(o, 0.9); }, epoch_step);
}
PARITY_CASE("sched/cosine") {
  return lr_sequence([](optim::Optimizer& o) { return optim::CosineAnnealingLR(o, 10, 0.001); }, epoch_step);
}
PARITY_CASE("sched/plateau-min") {
  return lr_sequence([](optim::Optimizer& o) { return optim::ReduceLROnPlateau(o, {.factor = 0.1, .patience = 2}); },
                     [](auto& s, int e) { s.step(kPlateau[e]); });
}
PARITY_CASE("sched/plateau-cooldown-abs") {
  using O = optim::ReduceLROnPlateauOptions;
  return lr_sequence(
      [](optim::Optimizer& o) {
        return optim::ReduceLROnPlateau(o, {.factor = 0.5, .patience = 1, .threshold = 0.05,
                                            .threshold_mode = O::ThresholdMode::Abs, .cooldown = 2, .min_lr = 0.01});
      },
      [](auto& s, int e) { s.step(kPlateau[e]); });
}
PARITY_CASE("sched/plateau-max") {
  using O = optim::ReduceLROnPlateauOptions;
  return lr_sequence(
      [](optim::Optimizer& o) { return optim::ReduceLROnPlateau(o, {.mode = O::Mode::Max, .factor = 0.5, .patience = 3}); },
      [](auto& s, int e) { s.step(-kPlateau[e]); });
}

// issue 18's schedulers
PARITY_CASE("sched/lambda") {
  return lr_sequence([](optim::Optimizer& o) { return optim::LambdaLR(o, [](std::int64_t e) { return std::pow(0.95, e); }); },
                     epoch_step);
}
PARITY_CASE("sched/lambda-warmup") {
  return lr_sequence(
      [](optim::Optimizer& o) {
        return optim::LambdaLR(o, [](std::int64_t e) { return std::min(1.0, static_cast<double>(e + 1) / 5); });
      },
      epoch_step);
}
PARITY_CASE("sched/linear-default") {
  return lr_sequence([](optim::Optimizer& o) { return optim::LinearLR(o); }, epoch_step);
}
PARITY_CASE("sched/linear-warmup") {
  return lr_sequence([](optim::Optimizer& o) { return optim::LinearLR(o, 0.25, 1.0, 8); }, epoch_step);
}
PARITY_CASE("sched/linear-decay") {
  return lr_sequence([](optim::Optimizer& o) { return optim::LinearLR(o, 1.0, 0.1, 10); }, epoch_step);
}
PARITY_CASE("sched/warm-restarts") {
  return lr_sequence([](optim::Optimizer& o) { return optim::CosineAnnealingWarmRestarts(o, 7); }, epoch_step);
}
PARITY_CASE("sched/warm-restarts-mult") {
  return lr_sequence([](optim::Optimizer& o) { return optim::CosineAnnealingWarmRestarts(o, 3, 2, 0.01); }, epoch_step);
}

namespace {
// one_cycle() in the .py: the lr and the momentum (SGD's, or Adam's beta1) after each step.
template <class Opt, class MakeSched, class Momentum>
parity::Outputs one_cycle(Opt opt, MakeSched make_sched, Momentum momentum, int steps = 30) {
  auto sched = make_sched(opt);
  std::vector<double> lrs, moms;
  for (int k = 0; k < steps; ++k) {
    opt.step();
    sched.step();
    lrs.push_back(opt.lr());
    moms.push_back(momentum(opt));
  }
  return {kd::tensor(lrs, {steps}), kd::tensor(moms, {steps})};
}
Tensor leaf() { return kd::zeros({1}).requires_grad_(); }
auto sgd_momentum = [](optim::SGD& o) { return o.options().momentum; };
using OC = optim::OneCycleLROptions;
}  // namespace

PARITY_CASE("sched/onecycle-cos") {
  return one_cycle(optim::SGD({leaf()}, {.lr = 0.1}),
                   [](optim::Optimizer& o) { return optim::OneCycleLR(o, 1.0, {.total_steps = 30}); }, sgd_momentum);
}
PARITY_CASE("sched/onecycle-linear-three-phase") {
  return one_cycle(optim::SGD({leaf()}, {.lr = 0.1}),
                   [](optim::Optimizer& o) {
                     return optim::OneCycleLR(o, 0.5, {.epochs = 3, .steps_per_epoch = 10, .pct_start = 0.25,
                                                       .anneal_strategy = OC::Anneal::Linear, .base_momentum = 0.8,
                                                       .max_momentum = 0.9, .div_factor = 10,
                                                       .final_div_factor = 100, .three_phase = true});
                   },
                   sgd_momentum);
}
PARITY_CASE("sched/onecycle-adam") {
  return one_cycle(optim::Adam({leaf()}, {.lr = 1e-3}),
                   [](optim::Optimizer& o) { return optim::OneCycleLR(o, 0.01, {.total_steps = 40, .pct_start = 0.4}); },
                   [](optim::Adam& o) { return o.options().betas.first; });
}
PARITY_CASE("sched/onecycle-no-momentum") {
  return one_cycle(optim::SGD({leaf()}, {.lr = 0.1}),
                   [](optim::Optimizer& o) { return optim::OneCycleLR(o, 1.0, {.total_steps = 31, .cycle_momentum = false}); },
                   sgd_momentum);
}
PARITY_CASE("sched/onecycle-too-many-steps") {
  return one_cycle(optim::SGD({leaf()}, {.lr = 0.1}),
                   [](optim::Optimizer& o) { return optim::OneCycleLR(o, 1.0, {.total_steps = 29}); }, sgd_momentum);
}
PARITY_CASE("sched/onecycle-adagrad-momentum") {
  return one_cycle(optim::Adagrad({leaf()}),
                   [](optim::Optimizer& o) { return optim::OneCycleLR(o, 1.0, {.total_steps = 30}); },
                   [](optim::Adagrad&) { return 0.0; });
}
PARITY_CASE("sched/onecycle-no-total") {
  return one_cycle(optim::SGD({leaf()}, {.lr = 0.1}), [](optim::Optimizer& o) { return optim::OneCycleLR(o, 1.0, {}); },
                   sgd_momentum);
}

namespace {
// lr_sequence() for a SequentialLR, whose parts must outlive it: they live in `parts`.
template <class MakeParts>
parity::Outputs sequential(MakeParts make_parts, std::vector<std::int64_t> milestones, int epochs = 30) {
  Tensor p = leaf();
  optim::SGD opt({p}, {.lr = 0.1});
  std::vector<std::unique_ptr<optim::LRScheduler>> parts = make_parts(opt);
  std::vector<optim::LRScheduler*> ptrs;
  for (auto& s : parts) ptrs.push_back(s.get());
  optim::SequentialLR seq(opt, ptrs, std::move(milestones));
  std::vector<double> lrs;
  for (int e = 0; e < epochs; ++e) {
    opt.step();
    seq.step();
    lrs.push_back(opt.lr());
  }
  return kd::tensor(lrs, {epochs});
}
using Parts = std::vector<std::unique_ptr<optim::LRScheduler>>;
}  // namespace

PARITY_CASE("sched/sequential-warmup-cosine") {
  return sequential(
      [](optim::Optimizer& o) {
        Parts v;
        v.push_back(std::make_unique<optim::LinearLR>(o, 0.1, 1.0, 5));
        v.push_back(std::make_unique<optim::CosineAnnealingLR>(o, 20));
        return v;
      },
      {5});
}
PARITY_CASE("sched/sequential-three") {
  return sequential(
      [](optim::Optimizer& o) {
        Parts v;
        v.push_back(std::make_unique<optim::LambdaLR>(o, [](std::int64_t e) { return 0.5 + 0.1 * static_cast<double>(e); }));
        v.push_back(std::make_unique<optim::StepLR>(o, 3, 0.5));
        v.push_back(std::make_unique<optim::CosineAnnealingWarmRestarts>(o, 4));
        return v;
      },
      {4, 12});
}
PARITY_CASE("sched/sequential-bad-milestones") {
  return sequential(
      [](optim::Optimizer& o) {
        Parts v;
        v.push_back(std::make_unique<optim::LinearLR>(o));
        v.push_back(std::make_unique<optim::ExponentialLR>(o, 0.9));
        return v;
      },
      {3, 6});
}
PARITY_CASE("sched/linear-bad-start") {
  return lr_sequence([](optim::Optimizer& o) { return optim::LinearLR(o, 0.0); }, epoch_step);
}
PARITY_CASE("sched/linear-bad-end") {
  return lr_sequence([](optim::Optimizer& o) { return optim::LinearLR(o, 1.0 / 3, 1.5); }, epoch_step);
}
PARITY_CASE("sched/linear-zero-iters") {
  return lr_sequence([](optim::Optimizer& o) { return optim::LinearLR(o, 0.5, 1.0, 0); }, epoch_step);
}
PARITY_CASE("sched/warm-restarts-bad-t0") {
  return lr_sequence([](optim::Optimizer& o) { return optim::CosineAnnealingWarmRestarts(o, 0); }, epoch_step);
}
PARITY_CASE("sched/warm-restarts-bad-tmult") {
  return lr_sequence([](optim::Optimizer& o) { return optim::CosineAnnealingWarmRestarts(o, 2, 0); }, epoch_step);
}

using R = kindling::nn::Reduction;
PARITY_CASE("loss/cross-entropy") { return F::cross_entropy(in["x"], in["t"]); }
PARITY_CASE("loss/cross-entropy-sum") { return F::cross_entropy(in["x"], in["t"], {.reduction = R::Sum}); }
PARITY_CASE("loss/cross-entropy-none") { return F::cross_entropy(in["x"], in["t"], {.reduction = R::None}); }
PARITY_CASE("loss/cross-entropy-large-logits") { return F::cross_entropy(in["x"], in["t"]); }
PARITY_CASE("loss/cross-entropy-large-offset") { return F::cross_entropy(in["x"] + 10000.0, in["t"]); }
PARITY_CASE("loss/cross-entropy-weight") { return F::cross_entropy(in["x"], in["t"], {.weight = in["w"]}); }
PARITY_CASE("loss/cross-entropy-ignore-index") { return F::cross_entropy(in["x"], in["t"], {.ignore_index = 2}); }
PARITY_CASE("loss/cross-entropy-label-smoothing") {
  return F::cross_entropy(in["x"], in["t"], {.label_smoothing = 0.1});
}
PARITY_CASE("loss/cross-entropy-smoothing-weight") {
  return F::cross_entropy(in["x"], in["t"], {.label_smoothing = 0.2, .weight = in["w"]});
}
PARITY_CASE("loss/cross-entropy-smoothing-ignore") {
  return F::cross_entropy(in["x"], in["t"], {.ignore_index = 1, .label_smoothing = 0.3});
}
PARITY_CASE("loss/cross-entropy-1d") { return kd::nn::CrossEntropyLoss()(in["x"], in["t"]); }
PARITY_CASE("loss/cross-entropy-float64") { return kd::nn::CrossEntropyLoss()(in["x"], in["t"]); }
PARITY_CASE("loss/cross-entropy-label-out-of-range") { return kd::nn::CrossEntropyLoss()(in["x"], in["t"]); }
PARITY_CASE("loss/nll") { return kd::nn::NLLLoss()(in["x"], in["t"]); }
PARITY_CASE("loss/nll-weight-sum") { return F::nll_loss(in["x"], in["t"], {.reduction = R::Sum, .weight = in["w"]}); }
PARITY_CASE("loss/mse") { return kd::nn::MSELoss()(in["x"], in["y"]); }
PARITY_CASE("loss/mse-none") { return kd::nn::MSELoss(R::None)(in["x"], in["y"]); }
PARITY_CASE("loss/l1") { return kd::nn::L1Loss()(in["x"], in["y"]); }
PARITY_CASE("loss/l1-sum") { return kd::nn::L1Loss(R::Sum)(in["x"], in["y"]); }
PARITY_CASE("loss/smooth-l1") { return kd::nn::SmoothL1Loss()(in["x"], in["y"]); }
PARITY_CASE("loss/smooth-l1-beta") { return kd::nn::SmoothL1Loss({.beta = 0.5})(in["x"], in["y"]); }
PARITY_CASE("loss/smooth-l1-beta0") { return kd::nn::SmoothL1Loss({.beta = 0.0})(in["x"], in["y"]); }
PARITY_CASE("loss/bce-with-logits") { return kd::nn::BCEWithLogitsLoss()(in["x"], in["y"]); }
PARITY_CASE("loss/bce-with-logits-extreme") { return kd::nn::BCEWithLogitsLoss()(in["x"], in["y"]); }
PARITY_CASE("loss/bce-with-logits-pos-weight") {
  return kd::nn::BCEWithLogitsLoss({.pos_weight = in["pw"]})(in["x"], in["y"]);
}
PARITY_CASE("loss/bce-with-logits-weight-none") {
  return kd::nn::BCEWithLogitsLoss({.reduction = R::None, .weight = in["w"]})(in["x"], in["y"]);
}
PARITY_CASE("loss/bce-with-logits-weight-per-class") {
  return kd::nn::BCEWithLogitsLoss({.weight = in["w"]})(in["x"], in["y"]);
}
PARITY_CASE("loss/bce-with-logits-infinite") { return F::binary_cross_entropy_with_logits(in["x"], in["y"], {.reduction = R::Sum}); }
PARITY_CASE("loss/bce-with-logits-infinite-pos-weight") {
  return F::binary_cross_entropy_with_logits(in["x"], in["y"], {.reduction = R::Sum, .pos_weight = in["pw"]});
}
PARITY_CASE("loss/bce-with-logits-weight-requires-grad") {
  return F::binary_cross_entropy_with_logits(in["x"], in["y"], {.weight = in["w"]});
}
PARITY_CASE("loss/bce-weight-requires-grad") { return F::binary_cross_entropy(in["x"], in["y"], {.weight = in["w"]}); }
PARITY_CASE("loss/huber-nan-and-infinite") { return F::huber_loss(in["x"], in["y"], {.reduction = R::Sum, .delta = 0.5}); }
PARITY_CASE("loss/smooth-l1-nan-and-infinite") { return F::smooth_l1_loss(in["x"], in["y"]); }
PARITY_CASE("loss/smooth-l1-beta0-nan-and-zero") {
  return F::smooth_l1_loss(in["x"], in["y"], {.reduction = R::Sum, .beta = 0.0});
}
PARITY_CASE("loss/smooth-l1-double-backward") {
  return kd::autograd::grad({F::smooth_l1_loss(in["x"], in["y"], {.beta = 0.5})}, {in["x"]}, {}, {.create_graph = true})[0];
}
PARITY_CASE("loss/cross-entropy-zero-total-weight") { return F::cross_entropy(in["x"], in["t"], {.weight = in["w"]}); }
PARITY_CASE("loss/cross-entropy-zero-total-weight-ignored") {
  return F::cross_entropy(in["x"], in["t"], {.ignore_index = 1, .weight = in["w"]});
}
PARITY_CASE("loss/cross-entropy-weight-float64") { return F::cross_entropy(in["x"], in["t"], {.weight = in["w"]}); }
PARITY_CASE("loss/cross-entropy-weight-requires-grad") { return F::cross_entropy(in["x"], in["t"], {.weight = in["w"]}); }
PARITY_CASE("loss/bce-with-logits-weight-beyond-input") {
  return kd::nn::BCEWithLogitsLoss({.weight = in["w"]})(in["x"], in["y"]);
}
PARITY_CASE("loss/bce-with-logits-pos-weight-beyond-input") {
  return kd::nn::BCEWithLogitsLoss({.pos_weight = in["pw"]})(in["x"], in["y"]);
}
PARITY_CASE("loss/bce-with-logits-empty-batch") { return kd::nn::BCEWithLogitsLoss()(in["x"], in["y"]); }
PARITY_CASE("loss/bce-with-logits-empty-batch-backward-twice") {
  kd::Tensor loss = kd::nn::BCEWithLogitsLoss({.reduction = R::Sum})(in["x"], in["y"]);
  loss.backward({}, /*retain_graph=*/true);
  return loss;
}

// ---- issue 18's losses ------------------------------------------------------------------------------
PARITY_CASE("loss/bce") { return F::binary_cross_entropy(in["x"], in["y"]); }
PARITY_CASE("loss/bce-weight-sum") {
  return F::binary_cross_entropy(in["x"], in["y"], {.reduction = R::Sum, .weight = in["w"]});
}
PARITY_CASE("loss/bce-none-float64") { return F::binary_cross_entropy(in["x"], in["y"], {.reduction = R::None}); }
PARITY_CASE("loss/bce-module-transposed") { return kd::nn::BCELoss()(in["x"].t(), in["y"]); }
PARITY_CASE("loss/bce-saturated") { return F::binary_cross_entropy(in["x"], in["y"], {.reduction = R::None}); }
PARITY_CASE("loss/bce-empty") { return F::binary_cross_entropy(in["x"], in["y"]); }
PARITY_CASE("loss/bce-input-out-of-range") { return F::binary_cross_entropy(in["x"], in["y"]); }
PARITY_CASE("loss/bce-shape-mismatch") { return F::binary_cross_entropy(in["x"], in["y"]); }
PARITY_CASE("loss/bce-weight-beyond-input") { return F::binary_cross_entropy(in["x"], in["y"], {.weight = in["w"]}); }
PARITY_CASE("loss/kl-div-mean") { return F::kl_div(in["x"], in["y"]); }
PARITY_CASE("loss/kl-div-batchmean") {
  return F::kl_div(in["x"].log_softmax(1), in["y"].softmax(1), {.reduction = R::BatchMean});
}
PARITY_CASE("loss/kl-div-sum-zero-target") { return F::kl_div(in["x"], in["y"], {.reduction = R::Sum}); }
PARITY_CASE("loss/kl-div-target-grad-at-zero") { return F::kl_div(in["x"], in["y"], {.reduction = R::Sum}); }
PARITY_CASE("loss/kl-div-none-log-target") {
  return kd::nn::KLDivLoss({.reduction = R::None, .log_target = true})(in["x"], in["y"]);
}
PARITY_CASE("loss/kl-div-batchmean-log-target-float64") {
  return F::kl_div(in["x"], in["y"], {.reduction = R::BatchMean, .log_target = true});
}
PARITY_CASE("loss/kl-div-batchmean-0d") { return F::kl_div(in["x"], in["y"], {.reduction = R::BatchMean}); }
PARITY_CASE("loss/huber") { return F::huber_loss(in["x"], in["y"]); }
PARITY_CASE("loss/huber-delta-sum") { return kd::nn::HuberLoss({.reduction = R::Sum, .delta = 0.5})(in["x"], in["y"]); }
PARITY_CASE("loss/huber-none-float64") { return F::huber_loss(in["x"], in["y"], {.reduction = R::None, .delta = 2.0}); }
PARITY_CASE("loss/huber-at-delta") { return F::huber_loss(in["x"], in["y"], {.reduction = R::None, .delta = 0.5}); }
PARITY_CASE("loss/huber-zero-delta") { return F::huber_loss(in["x"], in["y"], {.delta = 0.0}); }
PARITY_CASE("loss/cross-entropy-kdim") { return F::cross_entropy(in["x"], in["t"]); }
PARITY_CASE("loss/cross-entropy-kdim-none") { return F::cross_entropy(in["x"], in["t"], {.reduction = R::None}); }
PARITY_CASE("loss/cross-entropy-kdim-weight-ignore") {
  return F::cross_entropy(in["x"], in["t"], {.ignore_index = 0, .weight = in["w"]});
}
PARITY_CASE("loss/cross-entropy-kdim-smoothing-weight-ignore") {
  return F::cross_entropy(in["x"], in["t"], {.ignore_index = 2, .label_smoothing = 0.2, .weight = in["w"]});
}
PARITY_CASE("loss/cross-entropy-kdim-smoothing-sum") {
  return F::cross_entropy(in["x"].transpose(2, 3), in["t"], {.reduction = R::Sum, .label_smoothing = 0.1});
}
PARITY_CASE("loss/cross-entropy-kdim-bad-target") { return F::cross_entropy(in["x"], in["t"]); }
PARITY_CASE("loss/nll-kdim") { return F::nll_loss(in["x"], in["t"]); }
PARITY_CASE("loss/cross-entropy-soft") { return F::cross_entropy(in["x"], in["p"] / in["p"].sum(1, true)); }
PARITY_CASE("loss/cross-entropy-soft-smoothing-weight") {
  return F::cross_entropy(in["x"], in["p"].softmax(1), {.label_smoothing = 0.25, .weight = in["w"]});
}
PARITY_CASE("loss/cross-entropy-soft-none") {
  return F::cross_entropy(in["x"], in["p"].softmax(1), {.reduction = R::None});
}
PARITY_CASE("loss/cross-entropy-soft-kdim-sum") {
  return kd::nn::CrossEntropyLoss({.reduction = R::Sum})(in["x"], in["p"].softmax(1));
}
PARITY_CASE("loss/cross-entropy-soft-1d-float64") { return F::cross_entropy(in["x"], in["p"].softmax(0)); }
PARITY_CASE("loss/cross-entropy-soft-empty") { return F::cross_entropy(in["x"], in["p"]); }
PARITY_CASE("loss/cross-entropy-soft-ignore-index") { return F::cross_entropy(in["x"], in["p"], {.ignore_index = 1}); }
PARITY_CASE("loss/cross-entropy-soft-int-target") { return F::cross_entropy(in["x"], in["p"]); }
PARITY_CASE("loss/cross-entropy-smoothing-above-one") {
  return F::cross_entropy(in["x"], in["t"], {.label_smoothing = 1.5});
}
PARITY_CASE("loss/cross-entropy-bad-weight-shape") { return F::cross_entropy(in["x"], in["p"], {.weight = in["w"]}); }

// ---- a whole training loop (train_loop() in the .py) ---------------------------------------------
namespace {
constexpr int kTrainSteps = 10;

struct Mlp : kd::nn::Module {
  kd::nn::Linear fc1{20, 16};
  kd::nn::ReLU relu;
  kd::nn::Linear fc2{16, 5};
  Mlp() {
    register_module("0", fc1);  // PyTorch's Sequential names: "0.weight", ...
    register_module("1", relu);
    register_module("2", fc2);
  }
  Tensor forward(const Tensor& x) override { return fc2(relu(fc1(x))); }
};

template <class MakeOpt>
parity::Outputs train_loop(parity::Inputs& in, MakeOpt make_opt) {
  Mlp model;
  model.load_state_dict({{"0.weight", in["w1"]}, {"0.bias", in["b1"]}, {"2.weight", in["w2"]}, {"2.bias", in["b2"]}});
  auto opt = make_opt(model.parameters());
  kd::nn::CrossEntropyLoss criterion;
  std::vector<float> losses;
  for (int k = 0; k < kTrainSteps; ++k) {
    opt.zero_grad();
    Tensor loss = criterion(model(in["x"][k]), in["y"][k]);
    loss.backward();
    opt.step();
    losses.push_back(loss.item<float>());
  }
  std::vector<Tensor> out{kd::tensor(losses, {kTrainSteps})};
  for (const auto& p : model.parameters()) out.push_back(p.detach().clone());
  return out;
}
}  // namespace

PARITY_CASE("train/mlp-adam") {
  return train_loop(in, [](std::vector<Tensor> p) { return optim::Adam(p, {.lr = 1e-2}); });
}
PARITY_CASE("train/mlp-sgd-momentum") {
  return train_loop(in, [](std::vector<Tensor> p) { return optim::SGD(p, {.lr = 0.1, .momentum = 0.9}); });
}
PARITY_CASE("train/mlp-adamw") {
  return train_loop(in, [](std::vector<Tensor> p) { return optim::AdamW(p, {.lr = 1e-2, .weight_decay = 0.1}); });
}

// Double backward through the losses: the twins of the "double/" cases of ch05_optim.py.
namespace {
Tensor penalty(const Tensor& loss, const Tensor& x) {
  return kd::autograd::grad({loss}, {x}, {}, {.create_graph = true})[0].pow(2).sum();
}
}  // namespace
PARITY_CASE("double/cross-entropy") {
  return penalty(F::cross_entropy(in["x"].matmul(in["w"]), in["t"]), in["x"]);
}
PARITY_CASE("double/nll-weight-ignore-none") {
  const Tensor loss = F::nll_loss(F::log_softmax(in["x"], 1), in["t"],
                                  {.reduction = R::None, .ignore_index = 2, .weight = in["cw"]});
  return penalty(loss.pow(2).sum(), in["x"]);
}
PARITY_CASE("double/bce") {
  const Tensor p = (in["x"] * in["w"]).sigmoid();
  return penalty(F::binary_cross_entropy(p, in["y"], {.reduction = R::Sum}), in["x"]);
}
PARITY_CASE("double/bce-weight-target") {
  const Tensor& x = in["x"];
  const Tensor& y = in["y"];
  const Tensor loss = F::binary_cross_entropy(x, y, {.weight = in["cw"]});
  return kd::autograd::grad({loss}, {y}, {}, {.create_graph = true})[0].pow(2).sum() + penalty(loss, x);
}
