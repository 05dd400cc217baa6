# Chapter 5's graded tests, PyTorch's side (see tests/grading/twins.py): torch.optim and
# torch.optim.lr_scheduler on the same parameters, gradients and metrics as the C++ tests.
STEPS = 4


def run_optimizer(make, p, grads, name="p"):
    """p after each of the steps, with grads[k] as the gradient of step k."""
    p = p.clone().requires_grad_(True)
    opt = make([p])
    out = {}
    for k, g in enumerate(grads):
        p.grad = g.clone()
        opt.step()
        out[f"{name} after step {k + 1}"] = p.detach().clone()
    return out


def grads_inputs(shape, dtype="float32"):
    d = {"p": randn(*shape, dtype=dtype)}
    for k in range(STEPS):
        d[f"g{k}"] = randn(*shape, dtype=dtype)
    return d


def grads_of(kw):
    return [kw[f"g{k}"] for k in range(STEPS)]


SGD_CASES = {
    "plain": dict(lr=0.1),
    "momentum 0.9": dict(lr=0.05, momentum=0.9),
    "momentum 0.9, dampening 0.3": dict(lr=0.05, momentum=0.9, dampening=0.3),
    "nesterov": dict(lr=0.05, momentum=0.8, nesterov=True),
    "weight decay 0.1": dict(lr=0.1, weight_decay=0.1),
    "momentum + weight decay + maximize": dict(lr=0.05, momentum=0.5, weight_decay=0.01, maximize=True),
}


@case("SGD: steps with and without momentum", **grads_inputs((4, 3)))
def _(p, **kw):
    out = {}
    for label, opts in list(SGD_CASES.items())[:3]:
        out |= run_optimizer(lambda ps, o=opts: torch.optim.SGD(ps, **o), p, grads_of(kw), f"{label}: p")
    return out


@case("SGD: Nesterov, weight decay and maximize", **grads_inputs((5,)))
def _(p, **kw):
    out = {}
    for label, opts in list(SGD_CASES.items())[3:]:
        out |= run_optimizer(lambda ps, o=opts: torch.optim.SGD(ps, **o), p, grads_of(kw), f"{label}: p")
    return out


@case("SGD: float64 parameters", **grads_inputs((3, 2), "float64"))
def _(p, **kw):
    return run_optimizer(lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9), p, grads_of(kw))


ADAM_CASES = {
    "default": (torch.optim.Adam, dict()),
    "lr 0.01, betas (0.8, 0.9), eps 1e-6": (torch.optim.Adam, dict(lr=0.01, betas=(0.8, 0.9), eps=1e-6)),
    "weight decay 0.1": (torch.optim.Adam, dict(lr=0.01, weight_decay=0.1)),
    "amsgrad": (torch.optim.Adam, dict(lr=0.01, amsgrad=True)),
    "maximize": (torch.optim.Adam, dict(lr=0.01, maximize=True)),
    "AdamW weight decay 0.1": (torch.optim.AdamW, dict(lr=0.01, weight_decay=0.1)),
    "AdamW amsgrad": (torch.optim.AdamW, dict(lr=0.01, amsgrad=True)),
}


@case("Adam: steps with PyTorch's defaults and other betas", **grads_inputs((4, 3)))
def _(p, **kw):
    out = {}
    for label in ("default", "lr 0.01, betas (0.8, 0.9), eps 1e-6"):
        cls, opts = ADAM_CASES[label]
        out |= run_optimizer(lambda ps, c=cls, o=opts: c(ps, **o), p, grads_of(kw), f"{label}: p")
    return out


@case("Adam: weight decay, amsgrad and maximize", **grads_inputs((6,)))
def _(p, **kw):
    out = {}
    for label in ("weight decay 0.1", "amsgrad", "maximize"):
        cls, opts = ADAM_CASES[label]
        out |= run_optimizer(lambda ps, c=cls, o=opts: c(ps, **o), p, grads_of(kw), f"{label}: p")
    return out


@case("AdamW: decoupled weight decay", **grads_inputs((3, 3)))
def _(p, **kw):
    out = {}
    for label in ("AdamW weight decay 0.1", "AdamW amsgrad"):
        cls, opts = ADAM_CASES[label]
        out |= run_optimizer(lambda ps, c=cls, o=opts: c(ps, **o), p, grads_of(kw), f"{label}: p")
    return out


@case("Adam: 100 steps on a least-squares problem, float64", a=randn(20, 5, dtype="float64"), b=randn(20, dtype="float64"))
def _(a, b):
    w = torch.zeros(5, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([w], lr=0.05)
    losses = []
    for _ in range(100):
        opt.zero_grad()
        loss = ((a @ w - b) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"w after 100 steps": approx(w.detach(), rtol=1e-7, atol=1e-9),
            "the 100 losses": approx(torch.tensor(losses, dtype=torch.float64), rtol=1e-7, atol=1e-9)}


def plateau_lrs(metrics, **opts):
    p = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([p], lr=1.0)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, **opts)
    lrs = []
    for m in metrics:
        sched.step(float(m))
        lrs.append(opt.param_groups[0]["lr"])
    return torch.tensor(lrs, dtype=torch.float64)


FLAT = [1.0, 0.9, 0.95, 0.93, 0.92, 0.91, 0.95, 0.96, 0.99, 0.97, 0.98, 0.99, 1.0, 0.5, 0.6, 0.7, 0.8, 0.9]


def metric_walk(n):
    """A validation loss drawn for this run: small steps down and up, and repeats (plateaus), three
    decimals; the lr sequences it gives are not known in advance."""
    out, m = [], 1.0
    for _ in range(n):
        r = vary(0, 4)
        if r:  # r == 0 repeats the last value: a plateau
            m = round(max(0.05, m + (vary(-100, 81) / 1000.0)), 3)
        out.append(m)
    return out


FLAT = FLAT + metric_walk(14)  # the fixed sequence's edge cases, then this run's own steps


@case("ReduceLROnPlateau: the lr sequence with patience 2", metrics=value(FLAT, dtype="float64"))
def _(metrics):
    return {"lr after each step": plateau_lrs(metrics.tolist(), patience=2),
            "factor 0.5": plateau_lrs(metrics.tolist(), patience=2, factor=0.5)}


@case("ReduceLROnPlateau: cooldown, min_lr and threshold", metrics=value(FLAT, dtype="float64"))
def _(metrics):
    m = metrics.tolist()
    return {"cooldown 3": plateau_lrs(m, patience=1, cooldown=3),
            "min_lr 0.05": plateau_lrs(m, patience=1, factor=0.5, min_lr=0.05),
            "threshold 0.1 (rel)": plateau_lrs(m, patience=1, threshold=0.1),
            "threshold 0.05 (abs)": plateau_lrs(m, patience=1, threshold=0.05, threshold_mode="abs")}


@case("ReduceLROnPlateau: mode max", metrics=value(FLAT, dtype="float64"))
def _(metrics):
    m = metrics.tolist()
    return {"max, patience 1": plateau_lrs(m, mode="max", patience=1),
            "max, abs threshold 0.02": plateau_lrs(m, mode="max", patience=1, threshold=0.02, threshold_mode="abs")}


@case("ReduceLROnPlateau: cuts smaller than eps are skipped", metrics=value([1.0] * 12, dtype="float64"))
def _(metrics):
    m = metrics.tolist()
    return {"min_lr 0.9999999999, factor 0.5": plateau_lrs(m, patience=0, factor=0.5, min_lr=0.9999999999),
            "eps 0.6": plateau_lrs(m, patience=0, factor=0.5, eps=0.6)}


@case("count_correct: batches of logits", logits=randn(50, 10), labels=randint(0, 10, 50), big=randn(200, 3),
      big_labels=randint(0, 3, 200))
def _(logits, labels, big, big_labels):
    return {"count_correct(logits, labels)": int((logits.argmax(1) == labels).sum()),
            "count_correct(big, big_labels)": int((big.argmax(1) == big_labels).sum()),
            "count_correct(logits, logits.argmax(1))": 50}


@case("count_correct: ties go to the first largest logit", logits=value([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0], [0.0, -1.0, 0.0]]),
      labels=value([1, 0, 2], dtype="int64"))
def _(logits, labels):
    return {"count_correct": int((logits.argmax(1) == labels).sum())}


@case("count_correct: wrong shapes and dtypes are refused", logits=randn(4, 3), labels=randint(0, 3, 4))
def _(logits, labels):
    return {"logits [4, 3], labels [5]": raises("ShapeError"), "logits [12], labels [4]": raises("ShapeError"),
            "float labels": raises("DTypeError")}
