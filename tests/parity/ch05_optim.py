# Chapter 5 parity: optimizers (trajectories over 12 steps from the same weights and gradients),
# LR schedulers (lr sequences) and losses (forward + backward).
import torch.nn.functional as F

STEPS = 12


def trajectory(make_opt):
    """Runs `make_opt([w, b])` for STEPS steps feeding gradients gw[k], gb[k]; returns the stacked
    parameters after every step ([STEPS, ...] each) — every intermediate value is compared."""
    def run(w, b, gw, gb):
        w = w.clone().requires_grad_(True)
        b = b.clone().requires_grad_(True)
        opt = make_opt([w, b])
        ws, bs = [], []
        for k in range(STEPS):
            opt.zero_grad()
            w.grad = gw[k].clone()
            b.grad = gb[k].clone()
            opt.step()
            ws.append(w.detach().clone())
            bs.append(b.detach().clone())
        return torch.stack(ws), torch.stack(bs)
    return run


def opt_case(name, make_opt, dtype="float32"):
    case(f"optim/{name}", trajectory(make_opt), w=randn(4, 3, dtype=dtype), b=randn(3, dtype=dtype),
         gw=randn(STEPS, 4, 3, dtype=dtype), gb=randn(STEPS, 3, dtype=dtype))


opt_case("sgd/plain", lambda p: torch.optim.SGD(p, lr=0.1))
opt_case("sgd/momentum", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9))
opt_case("sgd/dampening", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.3))
opt_case("sgd/nesterov", lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True))
opt_case("sgd/weight-decay", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.5, weight_decay=0.01))
opt_case("sgd/maximize", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, maximize=True))
opt_case("sgd/float64", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9), dtype="float64")
opt_case("adam/default", lambda p: torch.optim.Adam(p, lr=1e-3))
opt_case("adam/betas-eps", lambda p: torch.optim.Adam(p, lr=1e-2, betas=(0.8, 0.99), eps=1e-6))
opt_case("adam/weight-decay", lambda p: torch.optim.Adam(p, lr=1e-2, weight_decay=0.1))
opt_case("adam/amsgrad", lambda p: torch.optim.Adam(p, lr=1e-2, amsgrad=True))
opt_case("adam/maximize", lambda p: torch.optim.Adam(p, lr=1e-2, maximize=True))
opt_case("adam/float64", lambda p: torch.optim.Adam(p, lr=1e-2), dtype="float64")
opt_case("adamw/default", lambda p: torch.optim.AdamW(p, lr=1e-2))
opt_case("adamw/weight-decay", lambda p: torch.optim.AdamW(p, lr=1e-2, weight_decay=0.5))
opt_case("adamw/amsgrad", lambda p: torch.optim.AdamW(p, lr=1e-2, weight_decay=0.1, amsgrad=True))
# issue 18: every option check torch.optim makes (the parameters are real leaves that require grad, so
# only the option can be what is refused); and the edges it accepts.
def opt_error_case(name, make_opt):
    case(f"optim/{name}", trajectory(make_opt), w=randn(4, 3), b=randn(3), gw=randn(STEPS, 4, 3),
         gb=randn(STEPS, 3), expect_error=True)


opt_error_case("sgd/negative-lr", lambda p: torch.optim.SGD(p, lr=-0.1))
opt_error_case("sgd/negative-momentum", lambda p: torch.optim.SGD(p, lr=0.1, momentum=-0.5))
opt_error_case("sgd/negative-weight-decay", lambda p: torch.optim.SGD(p, lr=0.1, weight_decay=-0.1))
opt_error_case("sgd/nesterov-without-momentum", lambda p: torch.optim.SGD(p, lr=0.1, nesterov=True))
opt_error_case("sgd/nesterov-with-dampening",
               lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1, nesterov=True))
# A parameter in two groups would be updated twice a step: refused.
opt_error_case("sgd/param-in-two-groups", lambda p: torch.optim.SGD([{"params": p}, {"params": [p[0]]}], lr=0.1))
opt_error_case("adam/param-in-two-groups", lambda p: torch.optim.Adam([{"params": [p[1]]}, {"params": p}], lr=0.1))
opt_error_case("adam/negative-lr", lambda p: torch.optim.Adam(p, lr=-1e-3))
opt_error_case("adam/negative-eps", lambda p: torch.optim.Adam(p, eps=-1e-8))
opt_error_case("adam/beta1-one", lambda p: torch.optim.Adam(p, betas=(1.0, 0.999)))
opt_error_case("adam/beta2-negative", lambda p: torch.optim.Adam(p, betas=(0.9, -0.1)))
opt_error_case("adam/negative-weight-decay", lambda p: torch.optim.Adam(p, weight_decay=-0.1))
opt_error_case("adamw/negative-weight-decay", lambda p: torch.optim.AdamW(p, weight_decay=-0.1))
opt_error_case("adamw/beta2-one", lambda p: torch.optim.AdamW(p, betas=(0.9, 1.0)))
opt_case("sgd/zero-lr", lambda p: torch.optim.SGD(p, lr=0.0, momentum=0.9))
opt_case("adam/zero-betas", lambda p: torch.optim.Adam(p, lr=1e-2, betas=(0.0, 0.0)))

# issue 18: RMSprop and Adagrad, every option, and torch.optim's checks.
opt_case("rmsprop/default", lambda p: torch.optim.RMSprop(p))
opt_case("rmsprop/alpha-eps", lambda p: torch.optim.RMSprop(p, lr=1e-3, alpha=0.9, eps=1e-4))
opt_case("rmsprop/momentum", lambda p: torch.optim.RMSprop(p, lr=1e-3, momentum=0.9))
opt_case("rmsprop/centered", lambda p: torch.optim.RMSprop(p, lr=1e-3, centered=True))
opt_case("rmsprop/centered-momentum-wd", lambda p: torch.optim.RMSprop(p, lr=1e-3, centered=True, momentum=0.5,
                                                                           weight_decay=0.1))
opt_case("rmsprop/maximize", lambda p: torch.optim.RMSprop(p, lr=1e-3, momentum=0.9, maximize=True))
opt_case("rmsprop/float64", lambda p: torch.optim.RMSprop(p, lr=1e-2, centered=True, momentum=0.9), dtype="float64")
opt_case("rmsprop/zero-alpha", lambda p: torch.optim.RMSprop(p, lr=1e-3, alpha=0.0))
opt_error_case("rmsprop/negative-lr", lambda p: torch.optim.RMSprop(p, lr=-1e-3))
opt_error_case("rmsprop/negative-eps", lambda p: torch.optim.RMSprop(p, eps=-1e-8))
opt_error_case("rmsprop/negative-momentum", lambda p: torch.optim.RMSprop(p, momentum=-0.1))
opt_error_case("rmsprop/negative-weight-decay", lambda p: torch.optim.RMSprop(p, weight_decay=-0.1))
opt_error_case("rmsprop/negative-alpha", lambda p: torch.optim.RMSprop(p, alpha=-0.5))
opt_case("adagrad/default", lambda p: torch.optim.Adagrad(p))
opt_case("adagrad/lr-decay", lambda p: torch.optim.Adagrad(p, lr=0.1, lr_decay=0.05))
opt_case("adagrad/initial-accumulator-eps", lambda p: torch.optim.Adagrad(p, lr=0.1, initial_accumulator_value=0.5,
                                                                             eps=1e-3))
opt_case("adagrad/weight-decay", lambda p: torch.optim.Adagrad(p, lr=0.1, weight_decay=0.2))
opt_case("adagrad/maximize", lambda p: torch.optim.Adagrad(p, lr=0.1, lr_decay=0.01, maximize=True))
opt_case("adagrad/float64", lambda p: torch.optim.Adagrad(p, lr=0.1, lr_decay=0.05, weight_decay=0.1),
         dtype="float64")
opt_error_case("adagrad/negative-lr", lambda p: torch.optim.Adagrad(p, lr=-0.1))
opt_error_case("adagrad/negative-lr-decay", lambda p: torch.optim.Adagrad(p, lr_decay=-0.1))
opt_error_case("adagrad/negative-weight-decay", lambda p: torch.optim.Adagrad(p, weight_decay=-0.1))
opt_error_case("adagrad/negative-initial-accumulator", lambda p: torch.optim.Adagrad(p, initial_accumulator_value=-1))
opt_error_case("adagrad/negative-eps", lambda p: torch.optim.Adagrad(p, eps=-1e-10))


# ---- LR schedulers: the lr after each of 30 epochs --------------------------------------------
def lr_sequence(make_sched, epochs=30, metrics=None):
    def run(*_):
        p = torch.zeros(1, requires_grad=True)
        opt = torch.optim.SGD([p], lr=0.1)
        sched = make_sched(opt)
        lrs = []
        for e in range(epochs):
            opt.step()
            if metrics is None:
                sched.step()
            else:
                sched.step(metrics[e])
            lrs.append(opt.param_groups[0]["lr"])
        return torch.tensor(lrs, dtype=torch.float64)
    return run


S = torch.optim.lr_scheduler
case("sched/step", lr_sequence(lambda o: S.StepLR(o, step_size=7, gamma=0.5)), rtol=1e-12, atol=0)
case("sched/multistep", lr_sequence(lambda o: S.MultiStepLR(o, milestones=[3, 10, 10, 20], gamma=0.3)),
     rtol=1e-12, atol=0)
# A milestone at 0 decays the lr when the scheduler is made (its constructor steps to epoch 0).
case("sched/multistep-milestone-0", lr_sequence(lambda o: S.MultiStepLR(o, milestones=[0, 5, 0], gamma=0.5)),
     rtol=1e-12, atol=0)
case("sched/exponential", lr_sequence(lambda o: S.ExponentialLR(o, gamma=0.9)), rtol=1e-12, atol=0)
case("sched/cosine", lr_sequence(lambda o: S.CosineAnnealingLR(o, T_max=10, eta_min=0.001)), rtol=1e-12,
     atol=1e-15)
PLATEAU = [1.0, 0.9, 0.8, 0.8, 0.81, 0.79, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7,
           0.7, 0.69999, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7]
case("sched/plateau-min", lr_sequence(lambda o: S.ReduceLROnPlateau(o, mode="min", factor=0.1, patience=2),
                                      metrics=PLATEAU), rtol=1e-12, atol=0)
case("sched/plateau-cooldown-abs", lr_sequence(
    lambda o: S.ReduceLROnPlateau(o, mode="min", factor=0.5, patience=1, cooldown=2, threshold=0.05,
                                  threshold_mode="abs", min_lr=0.01), metrics=PLATEAU), rtol=1e-12, atol=0)
case("sched/plateau-max", lr_sequence(lambda o: S.ReduceLROnPlateau(o, mode="max", factor=0.5, patience=3),
                                      metrics=[-m for m in PLATEAU]), rtol=1e-12, atol=0)

# issue 18: LambdaLR, LinearLR, CosineAnnealingWarmRestarts, OneCycleLR (lr and the momentum it cycles),
# SequentialLR, and their argument checks.
case("sched/lambda", lr_sequence(lambda o: S.LambdaLR(o, lambda e: 0.95 ** e)), rtol=1e-12, atol=0)
case("sched/lambda-warmup", lr_sequence(lambda o: S.LambdaLR(o, lambda e: min(1.0, (e + 1) / 5))), rtol=1e-12, atol=0)
case("sched/linear-default", lr_sequence(lambda o: S.LinearLR(o)), rtol=1e-12, atol=0)
case("sched/linear-warmup", lr_sequence(lambda o: S.LinearLR(o, start_factor=0.25, total_iters=8)), rtol=1e-12,
     atol=0)
case("sched/linear-decay", lr_sequence(lambda o: S.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=10)),
     rtol=1e-12, atol=0)
case("sched/warm-restarts", lr_sequence(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=7)), rtol=1e-12, atol=1e-15)
case("sched/warm-restarts-mult", lr_sequence(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2,
                                                                                      eta_min=0.01)),
     rtol=1e-12, atol=1e-15)


def one_cycle(make_sched, make_opt=lambda p: torch.optim.SGD([p], lr=0.1), steps=30):
    """The lr and the momentum (SGD's momentum or Adam's beta1) after each step."""
    def run(*_):
        p = torch.zeros(1, requires_grad=True)
        opt = make_opt(p)
        sched = make_sched(opt)
        lrs, moms = [], []
        for _ in range(steps):
            opt.step()
            sched.step()
            g = opt.param_groups[0]
            lrs.append(g["lr"])
            moms.append(g["betas"][0] if "betas" in g else g["momentum"])
        return torch.tensor(lrs, dtype=torch.float64), torch.tensor(moms, dtype=torch.float64)
    return run


case("sched/onecycle-cos", one_cycle(lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=30)), rtol=1e-12, atol=1e-15)
case("sched/onecycle-linear-three-phase", one_cycle(lambda o: S.OneCycleLR(
    o, max_lr=0.5, epochs=3, steps_per_epoch=10, pct_start=0.25, anneal_strategy="linear", three_phase=True,
    div_factor=10, final_div_factor=100, base_momentum=0.8, max_momentum=0.9)), rtol=1e-12, atol=1e-15)
case("sched/onecycle-adam", one_cycle(lambda o: S.OneCycleLR(o, max_lr=0.01, total_steps=40, pct_start=0.4),
                                      make_opt=lambda p: torch.optim.Adam([p], lr=1e-3)), rtol=1e-12, atol=1e-15)
case("sched/onecycle-no-momentum", one_cycle(lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=31,
                                                                    cycle_momentum=False)), rtol=1e-12, atol=1e-15)
case("sched/onecycle-too-many-steps", one_cycle(lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=29)),
     expect_error=True)
case("sched/onecycle-adagrad-momentum", one_cycle(lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=30),
                                                  make_opt=lambda p: torch.optim.Adagrad([p])), expect_error=True)
case("sched/onecycle-no-total", one_cycle(lambda o: S.OneCycleLR(o, max_lr=1.0)), expect_error=True)
case("sched/sequential-warmup-cosine", lr_sequence(lambda o: S.SequentialLR(
    o, [S.LinearLR(o, start_factor=0.1, total_iters=5), S.CosineAnnealingLR(o, T_max=20)], milestones=[5])),
     rtol=1e-12, atol=1e-15)
case("sched/sequential-three", lr_sequence(lambda o: S.SequentialLR(
    o, [S.LambdaLR(o, lambda e: 0.5 + 0.1 * e), S.StepLR(o, step_size=3, gamma=0.5),
        S.CosineAnnealingWarmRestarts(o, T_0=4)], milestones=[4, 12])), rtol=1e-12, atol=1e-15)
case("sched/sequential-bad-milestones", lr_sequence(lambda o: S.SequentialLR(
    o, [S.LinearLR(o), S.ExponentialLR(o, gamma=0.9)], milestones=[3, 6])), expect_error=True)
case("sched/linear-bad-start", lr_sequence(lambda o: S.LinearLR(o, start_factor=0.0)), expect_error=True)
case("sched/linear-bad-end", lr_sequence(lambda o: S.LinearLR(o, end_factor=1.5)), expect_error=True)
# total_iters=0: start_factor at once, and kept (epoch 1 is already past total_iters: no division by 0)
case("sched/linear-zero-iters", lr_sequence(lambda o: S.LinearLR(o, start_factor=0.5, total_iters=0)),
     rtol=1e-12, atol=0)
case("sched/warm-restarts-bad-t0", lr_sequence(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=0)), expect_error=True)
case("sched/warm-restarts-bad-tmult", lr_sequence(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0)),
     expect_error=True)

# ---- losses: forward and backward ---------------------------------------------------------------
case("loss/cross-entropy", lambda x, t: F.cross_entropy(x, t), grad=True, x=randn(8, 5), t=randint(0, 5, 8))
case("loss/cross-entropy-sum", lambda x, t: F.cross_entropy(x, t, reduction="sum"), grad=True,
     x=randn(8, 5), t=randint(0, 5, 8))
case("loss/cross-entropy-none", lambda x, t: F.cross_entropy(x, t, reduction="none"), grad=True,
     x=randn(8, 5), t=randint(0, 5, 8))
case("loss/cross-entropy-large-logits", lambda x, t: F.cross_entropy(x, t), grad=True,
     x=randn(8, 5, scale=500), t=randint(0, 5, 8))
case("loss/cross-entropy-large-offset", lambda x, t: F.cross_entropy(x + 10000.0, t), grad=True,
     x=randn(8, 5), t=randint(0, 5, 8))
case("loss/cross-entropy-weight", lambda x, t, w: F.cross_entropy(x, t, weight=w), grad=True, nograd=["w"],
     x=randn(8, 5), t=randint(0, 5, 8), w=rand(5, low=0.5, high=2))
case("loss/cross-entropy-ignore-index", lambda x, t: F.cross_entropy(x, t, ignore_index=2), grad=True,
     x=randn(8, 5), t=randint(0, 5, 8))
case("loss/cross-entropy-label-smoothing", lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1), grad=True,
     x=randn(8, 5), t=randint(0, 5, 8))
case("loss/cross-entropy-smoothing-weight", lambda x, t, w: F.cross_entropy(x, t, weight=w, label_smoothing=0.2),
     grad=True, nograd=["w"], x=randn(8, 5), t=randint(0, 5, 8), w=rand(5, low=0.5, high=2))
case("loss/cross-entropy-smoothing-ignore", lambda x, t: F.cross_entropy(x, t, ignore_index=1, label_smoothing=0.3),
     grad=True, x=randn(8, 5), t=value([0, 1, 2, 1, 4, 3, 1, 0], dtype="int64"))
case("loss/cross-entropy-1d", lambda x, t: F.cross_entropy(x, t), grad=True, x=randn(5), t=value(3, dtype="int64"))
case("loss/cross-entropy-float64", lambda x, t: F.cross_entropy(x, t), grad=True, x=randn(8, 5, dtype="float64"),
     t=randint(0, 5, 8))
case("loss/cross-entropy-label-out-of-range", lambda x, t: F.cross_entropy(x, t), x=randn(4, 3),
     t=value([0, 1, 3, 2], dtype="int64"), expect_error=True)
case("loss/nll", lambda x, t: F.nll_loss(x, t), grad=True, x=randn(6, 4), t=randint(0, 4, 6))
case("loss/nll-weight-sum", lambda x, t, w: F.nll_loss(x, t, weight=w, reduction="sum"), grad=True, nograd=["w"],
     x=randn(6, 4), t=randint(0, 4, 6), w=rand(4))
case("loss/mse", lambda x, y: F.mse_loss(x, y), grad=True, x=randn(4, 3), y=randn(4, 3))
case("loss/mse-none", lambda x, y: F.mse_loss(x, y, reduction="none"), grad=True, x=randn(4, 3), y=randn(4, 3))
case("loss/l1", lambda x, y: F.l1_loss(x, y), grad=True, x=randn(4, 3), y=randn(4, 3))
case("loss/l1-sum", lambda x, y: F.l1_loss(x, y, reduction="sum"), grad=True, x=randn(4, 3), y=randn(4, 3))
case("loss/smooth-l1", lambda x, y: F.smooth_l1_loss(x, y), grad=True, x=randn(4, 3, scale=2), y=randn(4, 3))
case("loss/smooth-l1-beta", lambda x, y: F.smooth_l1_loss(x, y, beta=0.5), grad=True, x=randn(4, 3, scale=2),
     y=randn(4, 3))
case("loss/smooth-l1-beta0", lambda x, y: F.smooth_l1_loss(x, y, beta=0.0), grad=True, x=randn(4, 3), y=randn(4, 3))
case("loss/bce-with-logits", lambda x, y: F.binary_cross_entropy_with_logits(x, y), grad=True,
     x=randn(4, 3, scale=5), y=rand(4, 3))
case("loss/bce-with-logits-extreme", lambda x, y: F.binary_cross_entropy_with_logits(x, y), grad=True,
     x=value([[-200.0, 200.0, 0.0]]), y=value([[1.0, 0.0, 0.5]]))
case("loss/bce-with-logits-pos-weight", lambda x, y, pw: F.binary_cross_entropy_with_logits(x, y, pos_weight=pw),
     grad=True, nograd=["pw"], x=randn(4, 3), y=rand(4, 3), pw=rand(3, low=0.5, high=3))
case("loss/bce-with-logits-weight-none", lambda x, y, w: F.binary_cross_entropy_with_logits(
    x, y, weight=w, reduction="none"), grad=True, nograd=["w"], x=randn(4, 3), y=rand(4, 3), w=rand(4, 3))
# issue 18: weights broadcast to the input's shape, never beyond it; an empty batch gives nan and backward
# (twice, the second accumulating) works.
case("loss/bce-with-logits-weight-per-class", lambda x, y, w: F.binary_cross_entropy_with_logits(x, y, weight=w),
     grad=True, nograd=["w"], x=randn(4, 3), y=rand(4, 3), w=rand(3))
case("loss/bce-with-logits-weight-beyond-input", lambda x, y, w: F.binary_cross_entropy_with_logits(x, y, weight=w),
     grad=True, nograd=["w"], x=randn(4, 3), y=rand(4, 3), w=rand(2, 4, 3), expect_error=True)
case("loss/bce-with-logits-pos-weight-beyond-input",
     lambda x, y, pw: F.binary_cross_entropy_with_logits(x, y, pos_weight=pw), grad=True, nograd=["pw"],
     x=randn(4, 3), y=rand(4, 3), pw=rand(2, 1, 3), expect_error=True)
case("loss/bce-with-logits-empty-batch", lambda x, y: F.binary_cross_entropy_with_logits(x, y), grad=True,
     nograd=["y"], x=randn(0, 4), y=rand(0, 4))
# Infinities and NaN through the losses' gradients: PyTorch's backward formulas, not a composition's
# 0 * inf; weights are constants (requires_grad refused) of the input's dtype for the class-index losses.
NAN, INF = float("nan"), float("inf")
EDGY = [NAN, 0.0, 1.0, -2.0, INF, -INF, 0.3]
case("loss/bce-with-logits-infinite", lambda x, y: F.binary_cross_entropy_with_logits(x, y, reduction="sum"),
     grad=True, x=value([-INF, 2.0, INF, -INF]), y=value([0.0, 1.0, 1.0, 0.5]))
case("loss/bce-with-logits-infinite-pos-weight", lambda x, y, pw: F.binary_cross_entropy_with_logits(
    x, y, pos_weight=pw, reduction="sum"), grad=True, nograd=["pw"], x=value([-INF, 2.0, INF]),
     y=value([1.0, 1.0, 0.0]), pw=value([2.0, 2.0, 2.0]))
case("loss/bce-with-logits-weight-requires-grad", lambda x, y, w: F.binary_cross_entropy_with_logits(x, y, weight=w),
     grad=True, x=randn(4, 3), y=rand(4, 3), w=rand(3), expect_error=True)
case("loss/bce-weight-requires-grad", lambda x, y, w: F.binary_cross_entropy(x, y, weight=w), grad=True,
     x=rand(4, 3), y=rand(4, 3), w=rand(3), expect_error=True)
case("loss/huber-nan-and-infinite", lambda x, y: F.huber_loss(x, y, delta=0.5, reduction="sum"), grad=True,
     x=value(EDGY), y=value([0.0] * 7))
case("loss/smooth-l1-nan-and-infinite", lambda x, y: F.smooth_l1_loss(x, y), grad=True, x=value(EDGY),
     y=value([0.0] * 7))
case("loss/smooth-l1-beta0-nan-and-zero", lambda x, y: F.smooth_l1_loss(x, y, beta=0.0, reduction="sum"),
     grad=True, x=value(EDGY), y=value([0.0] * 7))
case("loss/smooth-l1-double-backward", lambda x, y: torch.autograd.grad(F.smooth_l1_loss(x, y, beta=0.5), x,
                                                                           create_graph=True)[0],
     grad=True, x=randn(4, 3), y=randn(4, 3))
case("loss/cross-entropy-zero-total-weight", lambda x, t, w: F.cross_entropy(x, t, weight=w), grad=True,
     nograd=["w"], x=randn(4, 3), t=value([1, 0, 1, 0], dtype="int64"), w=value([0.0, 0.0, 2.0]))
case("loss/cross-entropy-zero-total-weight-ignored", lambda x, t, w: F.cross_entropy(x, t, weight=w, ignore_index=1),
     grad=True, nograd=["w"], x=randn(4, 3), t=value([1, 0, 1, 0], dtype="int64"), w=value([0.0, 0.0, 2.0]))
case("loss/cross-entropy-weight-float64", lambda x, t, w: F.cross_entropy(x, t, weight=w), grad=True, nograd=["w"],
     x=randn(4, 3), t=value([1, 0, 2, 0], dtype="int64"), w=rand(3, dtype="float64"), expect_error=True)
case("loss/cross-entropy-weight-requires-grad", lambda x, t, w: F.cross_entropy(x, t, weight=w), grad=True,
     x=randn(4, 3), t=value([1, 0, 2, 0], dtype="int64"), w=rand(3), expect_error=True)


def _bce_twice(x, y):
    loss = F.binary_cross_entropy_with_logits(x, y, reduction="sum")
    loss.backward(retain_graph=True)
    return loss


case("loss/bce-with-logits-empty-batch-backward-twice", _bce_twice, grad=True, nograd=["y"], x=randn(0, 4),
     y=rand(0, 4))


# ---- a whole training loop: SimpleNet-like 20 -> 16 -> 5 MLP, identical initial weights and batches ---
# zero_grad -> forward -> loss -> backward -> step, STEPS_TRAIN times; the per-step losses and the final
# weights are compared, so the forward, every backward formula, gradient accumulation into .grad and
# the optimizer must all agree.
STEPS_TRAIN = 10


def train_loop(make_opt):
    def run(w1, b1, w2, b2, x, y):
        model = torch.nn.Sequential(torch.nn.Linear(20, 16), torch.nn.ReLU(), torch.nn.Linear(16, 5))
        with torch.no_grad():
            for p, v in zip(model.parameters(), (w1, b1, w2, b2)):
                p.copy_(v)
        opt = make_opt(model.parameters())
        criterion = torch.nn.CrossEntropyLoss()
        losses = []
        for k in range(STEPS_TRAIN):
            opt.zero_grad()
            loss = criterion(model(x[k]), y[k])
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return (torch.tensor(losses, dtype=torch.float32), *[p.detach().clone() for p in model.parameters()])
    return run


def train_case(name, make_opt):
    bound1, bound2 = 1 / 20 ** 0.5, 1 / 16 ** 0.5
    case(f"train/{name}", train_loop(make_opt), w1=rand(16, 20, low=-bound1, high=bound1),
         b1=rand(16, low=-bound1, high=bound1), w2=rand(5, 16, low=-bound2, high=bound2),
         b2=rand(5, low=-bound2, high=bound2), x=randn(STEPS_TRAIN, 8, 20), y=randint(0, 5, STEPS_TRAIN, 8))


train_case("mlp-adam", lambda p: torch.optim.Adam(p, lr=1e-2))
train_case("mlp-sgd-momentum", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9))
train_case("mlp-adamw", lambda p: torch.optim.AdamW(p, lr=1e-2, weight_decay=0.1))


# ---- issue 18's losses: BCE, KL divergence, Huber, K-dimensional and soft-label cross-entropy ---------
case("loss/bce", lambda x, y: F.binary_cross_entropy(x, y), grad=True, x=rand(4, 3, low=0.05, high=0.95), y=rand(4, 3))
case("loss/bce-weight-sum", lambda x, y, w: F.binary_cross_entropy(x, y, weight=w, reduction="sum"), grad=True,
     nograd=["w"], x=rand(4, 3, low=0.05, high=0.95), y=rand(4, 3), w=rand(3, low=0.5, high=2))
case("loss/bce-none-float64", lambda x, y: F.binary_cross_entropy(x, y, reduction="none"), grad=True,
     x=rand(2, 5, low=0.05, high=0.95, dtype="float64"), y=rand(2, 5, dtype="float64"))
case("loss/bce-module-transposed", lambda x, y: torch.nn.BCELoss()(x.t(), y), grad=True,
     x=rand(3, 4, low=0.05, high=0.95), y=rand(4, 3))
# exactly 0 and 1: the logs are clamped at -100 (a finite loss), the gradient's denominator at 1e-12
case("loss/bce-saturated", lambda x, y: F.binary_cross_entropy(x, y, reduction="none"), grad=True, nograd=["y"],
     x=value([0.0, 1.0, 0.0, 1.0, 0.5]), y=value([0.0, 1.0, 1.0, 0.0, 0.5]), rtol=1e-6, atol=1e-3)
case("loss/bce-empty", lambda x, y: F.binary_cross_entropy(x, y), grad=True, x=rand(0, 3), y=rand(0, 3))
case("loss/bce-input-out-of-range", lambda x, y: F.binary_cross_entropy(x, y), x=value([0.5, 1.5]),
     y=value([0.0, 1.0]), expect_error=True)
case("loss/bce-shape-mismatch", lambda x, y: F.binary_cross_entropy(x, y), x=rand(4, 1), y=rand(4),
     expect_error=True)
case("loss/bce-weight-beyond-input", lambda x, y, w: F.binary_cross_entropy(x, y, weight=w), nograd=["w"],
     x=rand(4, 3), y=rand(4, 3), w=rand(2, 4, 3), expect_error=True)
case("loss/kl-div-mean", lambda x, y: F.kl_div(x, y), grad=True, x=randn(4, 5), y=rand(4, 5, low=0.1, high=1))
case("loss/kl-div-batchmean", lambda x, y: F.kl_div(x.log_softmax(1), y.softmax(1), reduction="batchmean"),
     grad=True, x=randn(6, 5), y=randn(6, 5))
case("loss/kl-div-sum-zero-target", lambda x, y: F.kl_div(x, y, reduction="sum"), grad=True, nograd=["y"],
     x=randn(2, 3), y=value([[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]]))
# the target's gradient where target == 0 is nan in PyTorch 1.13 (xlogy's 0 / 0); so is ours
case("loss/kl-div-target-grad-at-zero", lambda x, y: F.kl_div(x, y, reduction="sum"), grad=True,
     x=randn(2, 3), y=value([[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]]))
case("loss/kl-div-none-log-target", lambda x, y: torch.nn.KLDivLoss(reduction="none", log_target=True)(x, y),
     grad=True, x=randn(3, 4), y=randn(3, 4))
case("loss/kl-div-batchmean-log-target-float64", lambda x, y: F.kl_div(x, y, reduction="batchmean", log_target=True),
     grad=True, x=randn(4, 2, 3, dtype="float64"), y=randn(4, 2, 3, dtype="float64"))
case("loss/kl-div-batchmean-0d", lambda x, y: F.kl_div(x, y, reduction="batchmean"), grad=True, x=value(-0.7),
     y=value(0.4))
case("loss/huber", lambda x, y: F.huber_loss(x, y), grad=True, x=randn(4, 3, scale=2), y=randn(4, 3))
case("loss/huber-delta-sum", lambda x, y: torch.nn.HuberLoss(reduction="sum", delta=0.5)(x, y), grad=True,
     x=randn(5, 3, scale=2), y=randn(5, 3))
case("loss/huber-none-float64", lambda x, y: F.huber_loss(x, y, reduction="none", delta=2.0), grad=True,
     x=randn(3, 4, scale=3, dtype="float64"), y=randn(3, 4, dtype="float64"))
case("loss/huber-at-delta", lambda x, y: F.huber_loss(x, y, reduction="none", delta=0.5), grad=True,
     x=value([0.5, -0.5, 0.0, 1.5]), y=value([0.0, 0.0, 0.0, 0.0]))
case("loss/huber-zero-delta", lambda x, y: F.huber_loss(x, y, delta=0.0), x=randn(3), y=randn(3), expect_error=True)
case("loss/cross-entropy-kdim", lambda x, t: F.cross_entropy(x, t), grad=True, x=randn(2, 4, 3, 5),
     t=randint(0, 4, 2, 3, 5))
case("loss/cross-entropy-kdim-none", lambda x, t: F.cross_entropy(x, t, reduction="none"), grad=True,
     x=randn(3, 4, 6), t=randint(0, 4, 3, 6))
case("loss/cross-entropy-kdim-weight-ignore", lambda x, t, w: F.cross_entropy(x, t, weight=w, ignore_index=0),
     grad=True, nograd=["w"], x=randn(2, 3, 4, 2), t=randint(0, 3, 2, 4, 2), w=rand(3, low=0.5, high=2))
case("loss/cross-entropy-kdim-smoothing-weight-ignore",
     lambda x, t, w: F.cross_entropy(x, t, weight=w, ignore_index=2, label_smoothing=0.2), grad=True, nograd=["w"],
     x=randn(2, 4, 5), t=randint(0, 4, 2, 5), w=rand(4, low=0.5, high=2))
case("loss/cross-entropy-kdim-smoothing-sum", lambda x, t: F.cross_entropy(x.transpose(2, 3), t, label_smoothing=0.1,
                                                                                 reduction="sum"),
     grad=True, x=randn(2, 3, 2, 2), t=randint(0, 3, 2, 2, 2))
case("loss/cross-entropy-kdim-bad-target", lambda x, t: F.cross_entropy(x, t), x=randn(2, 3, 4),
     t=randint(0, 3, 2, 5), expect_error=True)
case("loss/nll-kdim", lambda x, t: F.nll_loss(x, t), grad=True, x=randn(2, 3, 4), t=randint(0, 3, 2, 4))
case("loss/cross-entropy-soft", lambda x, p: F.cross_entropy(x, p / p.sum(1, keepdim=True)), grad=True, x=randn(6, 4),
     p=rand(6, 4))
case("loss/cross-entropy-soft-smoothing-weight",
     lambda x, p, w: F.cross_entropy(x, p.softmax(1), weight=w, label_smoothing=0.25), grad=True, nograd=["w"],
     x=randn(5, 3), p=randn(5, 3), w=rand(3, low=0.5, high=2))
case("loss/cross-entropy-soft-none", lambda x, p: F.cross_entropy(x, p.softmax(1), reduction="none"), grad=True,
     x=randn(5, 3), p=randn(5, 3))
case("loss/cross-entropy-soft-kdim-sum", lambda x, p: F.cross_entropy(x, p.softmax(1), reduction="sum"), grad=True,
     x=randn(2, 3, 4), p=randn(2, 3, 4))
case("loss/cross-entropy-soft-1d-float64", lambda x, p: F.cross_entropy(x, p.softmax(0)), grad=True,
     x=randn(4, dtype="float64"), p=randn(4, dtype="float64"))
case("loss/cross-entropy-soft-empty", lambda x, p: F.cross_entropy(x, p), grad=True, x=randn(0, 4), p=rand(0, 4))
case("loss/cross-entropy-soft-ignore-index", lambda x, p: F.cross_entropy(x, p, ignore_index=1), x=randn(3, 4),
     p=rand(3, 4), expect_error=True)
case("loss/cross-entropy-soft-int-target", lambda x, p: F.cross_entropy(x, p), x=randn(3, 4),
     p=randint(0, 2, 3, 4), expect_error=True)
case("loss/cross-entropy-smoothing-above-one", lambda x, t: F.cross_entropy(x, t, label_smoothing=1.5),
     x=randn(3, 4), t=randint(0, 4, 3), expect_error=True)
case("loss/cross-entropy-bad-weight-shape", lambda x, p, w: F.cross_entropy(x, p, weight=w), nograd=["w"],
     x=randn(3, 4), p=rand(3, 4), w=rand(3), expect_error=True)

# Double backward through the losses (issue 28): each case returns d loss / d x computed with
# create_graph=True, squared and summed (double backprop, an input-gradient penalty); the harness
# backpropagates through it, so the second derivatives are compared with PyTorch's. float64.
def _penalty(loss, x):
    return (torch.autograd.grad(loss, x, create_graph=True)[0] ** 2).sum()


case("double/cross-entropy", lambda x, w, t: _penalty(F.cross_entropy(x @ w, t), x), grad=True,
     x=randn(6, 4, dtype="float64"), w=randn(4, 5, dtype="float64"), t=randint(0, 5, 6))
case("double/nll-weight-ignore-none", lambda x, t, cw: _penalty(
     (F.nll_loss(F.log_softmax(x, 1), t, weight=cw, ignore_index=2, reduction="none") ** 2).sum(), x),
     grad=True, nograd=["cw"], x=randn(7, 4, dtype="float64"), t=randint(0, 4, 7),
     cw=rand(4, low=0.5, high=2, dtype="float64"))
case("double/bce", lambda x, y, w: _penalty(F.binary_cross_entropy(torch.sigmoid(x * w), y, reduction="sum"), x),
     grad=True, x=randn(4, 3, dtype="float64"), y=rand(4, 3, dtype="float64"), w=randn(4, 3, dtype="float64"))
case("double/bce-weight-target", lambda x, y, cw: torch.autograd.grad(
     F.binary_cross_entropy(x, y, weight=cw), y, create_graph=True)[0].pow(2).sum() + _penalty(
     F.binary_cross_entropy(x, y, weight=cw), x), grad=True, nograd=["cw"],
     x=rand(4, 3, low=0.05, high=0.95, dtype="float64"), y=rand(4, 3, dtype="float64"),
     cw=rand(3, low=0.5, high=2, dtype="float64"))
