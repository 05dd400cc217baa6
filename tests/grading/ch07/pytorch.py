# Chapter 7's graded tests, PyTorch's side (see tests/grading/twins.py): torch.nn.utils.clip_grad_norm_
# on the same parameters and gradients as the C++ tests, and the find-the-bug programs' problem and
# verdicts. Those programs are judged by outcome, outside the test process: the twin draws, for each
# grading run, a problem (Gaussian points labelled by a random teacher network), hands the test its
# training set, and keeps held-out samples the test never sees; grade_compare.py evaluates the network the
# program trained and reported (judge_classifier). ex7 and ex9 judge an evaluation: the twin trains the
# network with PyTorch, the test loads it, and PyTorch's accuracy of that network is the expected answer.
from torch.nn.utils import clip_grad_norm_

INF = float("inf")


def clipped(w1, w2, g1, g2, max_norm, norm_type, prefix=""):
    w1 = w1.clone().requires_grad_(True)
    w2 = w2.clone().requires_grad_(True)
    w1.grad = g1.clone()
    w2.grad = g2.clone()
    total = clip_grad_norm_([w1, w2], max_norm, norm_type)
    return {f"{prefix}total norm": total, f"{prefix}w1.grad": w1.grad, f"{prefix}w2.grad": w2.grad}


def inputs(dtype="float32", scale=1.0):
    return dict(w1=randn(4, 3, dtype=dtype), w2=randn(5, dtype=dtype), g1=randn(4, 3, dtype=dtype),
                g2=randn(5, dtype=dtype))


@case("clip_grad_norm_: the 2-norm, clipped to 0.5", **inputs())
def _(w1, w2, g1, g2):
    return clipped(w1, w2, g1, g2, 0.5, 2.0)


@case("clip_grad_norm_: below max_norm the gradients stay", **inputs())
def _(w1, w2, g1, g2):
    return clipped(w1, w2, g1, g2, 100.0, 2.0)


@case("clip_grad_norm_: the 1-norm and the 3-norm", **inputs())
def _(w1, w2, g1, g2):
    return clipped(w1, w2, g1, g2, 1.0, 1.0, "p=1: ") | clipped(w1, w2, g1, g2, 0.7, 3.0, "p=3: ")


@case("clip_grad_norm_: the inf-norm is the largest absolute value", **inputs())
def _(w1, w2, g1, g2):
    return clipped(w1, w2, g1, g2, 0.25, INF)


@case("clip_grad_norm_: float64 gradients", **inputs("float64"))
def _(w1, w2, g1, g2):
    return clipped(w1, w2, g1, g2, 0.3, 2.0)


@case("clip_grad_norm_: a parameter without a gradient and a transposed gradient",
      w1=randn(4, 3), w2=randn(5), g1t=randn(3, 4), g2=randn(5))
def _(w1, w2, g1t, g2):
    w1 = w1.clone().requires_grad_(True)
    w2 = w2.clone().requires_grad_(True)
    w3 = w2.clone().detach().requires_grad_(True)
    w1.grad = g1t.t()
    w2.grad = g2.clone()
    total = clip_grad_norm_([w1, w3, w2], 0.5)
    return {"total norm": total, "w1.grad": w1.grad, "w2.grad": w2.grad}


@case("clip_grad_norm_: a non-finite norm with error_if_nonfinite", **inputs())
def _(w1, w2, g1, g2):
    return {"an Inf gradient, error_if_nonfinite": raises("ValueError")}


# ---- ex2-ex6, ex8: find the bug in a training program --------------------------------------------------
FEATURES, CLASSES, N_TRAIN, N_HELD_OUT = 16, 4, 512, 1024
_problem = {}


def problem():
    """This run's problem: a random linear teacher labels N(0, 1) points (y = argmax(x W + b)); a training
    set for the program and a held-out set for the grader, both float32 as the test loads them."""
    if not _problem:
        rng = case_rng("ch07 teacher")
        w = rng.standard_normal((FEATURES, CLASSES))
        b = rng.standard_normal(CLASSES) * 0.5
        for part, n in (("train", N_TRAIN), ("held_out", N_HELD_OUT)):
            x = rng.standard_normal((n, FEATURES)).astype(np.float32)
            y = np.argmax(x.astype(np.float64) @ w + b, axis=1).astype(np.int64)
            _problem[part] = (x, y)
    return _problem


def training_inputs():
    x, y = problem()["train"]
    return {"x": x, "y": y}


WEIGHTS = ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")


def outcome(train_loss=None, acc=None, held_out_loss=None, last_loss_tol=None, moved=None, max_rise=None):
    """The verdict on a program's run: its network's loss on its training set below train_loss; on the
    held-out set at least `acc` accuracy and a loss below held_out_loss; every recorded loss finite."""
    p = problem()
    sets = [("its training set", *p["train"], train_loss, None)]
    if acc is not None or held_out_loss is not None:
        sets.append(("held-out samples", *p["held_out"], held_out_loss, acc))
    return {"the trained network": judge_classifier(
        WEIGHTS, sets, losses="losses", last_loss_of="its training set" if last_loss_tol else None,
        last_loss_tol=last_loss_tol or 0.02, moved=moved, max_rise=max_rise)}


_reference = {}


def reference():
    """What the repaired programs reach on this run's problem, measured with PyTorch: the MLP of
    find_the_bug.hpp (Linear(16, 32) -> ReLU -> Linear(32, 4)), 200 steps of full-batch SGD at lr 0.5,
    from three initialisations; the worst of the three (largest losses, lowest accuracy). Bounds that
    separate a repaired program from a buggy one are relative to it: problems drawn per run differ in
    difficulty (a repaired program's held-out loss ranges over 0.12-0.18, a mildly buggy one's over
    0.19-0.31), so a fixed bound would fail good programs on hard problems or pass bad ones on easy ones."""
    if not _reference:
        x, y = (torch.from_numpy(a) for a in problem()["train"])
        hx, hy = (torch.from_numpy(a) for a in problem()["held_out"])
        train, held, acc = [], [], []
        for _ in range(3):
            model = MLP(FEATURES, 32, CLASSES)
            opt = torch.optim.SGD(model.parameters(), lr=0.5)
            for _step in range(200):
                opt.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                opt.step()
            with torch.no_grad():
                train.append(float(torch.nn.functional.cross_entropy(model(x), y)))
                held.append(float(torch.nn.functional.cross_entropy(model(hx), hy)))
                acc.append(float((model(hx).argmax(1) == hy).double().mean()))
        _reference.update(train=max(train), held_out=max(held), acc=min(acc))
    return _reference


# The bounds. Fixed ones where every bug misses by far (a NaN, a loss that stays near log(4) = 1.39, a
# network that learned the wrong classes); relative to PyTorch's repaired program where a bug comes close:
# summed gradients (ex5) give a held-out loss 1.35-2x the repaired one's (and ~70 without any clearing),
# a second softmax (ex6) a training loss 2-8x.
# train_fast must also train stably: at lr 0.5 (the repair) full-batch descent lowers the loss at every
# step (measured with PyTorch on 5 problems: never above 0.995x the lowest before), while a step that is
# still too large (lr 5: the loss rises 1.9-23x above its lowest before it settles) reaches a low final
# loss all the same. So the loss may never rise more than 10 % above its lowest so far.
for fn in ("train_fast", "train_labels", "train_from_scratch"):
    @case(f"{fn}: the loss stays finite and falls", **training_inputs())
    def _(x, y, fn=fn):
        return outcome(train_loss=0.35, max_rise=0.1 if fn == "train_fast" else None)

    @case(f"{fn}: the network classifies held-out samples", **training_inputs())
    def _(x, y):
        return outcome(acc=0.85, held_out_loss=0.5)


@case("train_steady: the loss falls and the held-out loss stays low", **training_inputs())
def _(x, y):
    return outcome(train_loss=0.35, acc=0.85, held_out_loss=round(1.25 * reference()["held_out"], 4))


@case("train_steady: the network classifies held-out samples well", **training_inputs())
def _(x, y):
    return outcome(acc=0.85, held_out_loss=1.0)


@case("train_probabilities: the loss falls fast and the network generalises", **training_inputs())
def _(x, y):
    return outcome(train_loss=round(1.6 * reference()["train"], 4), acc=0.85, held_out_loss=0.5)


@case("train_probabilities: the loss it records is its network's", **training_inputs())
def _(x, y):
    return outcome(last_loss_tol=0.02)


@case("train_features: the loss falls below 0.1", **training_inputs())
def _(x, y):
    return outcome(train_loss=0.1)


@case("train_features: the first layer learns", **training_inputs())
def _(x, y):
    return outcome(acc=0.85, held_out_loss=0.5, moved=("initial fc1.weight", 0.05))


# ---- ex7, ex9: find the bug in an evaluation ----------------------------------------------------------
class DropoutMLP(torch.nn.Module):
    def __init__(self, features, hidden, classes):
        super().__init__()
        self.fc1 = torch.nn.Linear(features, hidden)
        self.bn = torch.nn.BatchNorm1d(hidden)
        self.relu = torch.nn.ReLU()
        self.drop = torch.nn.Dropout(0.5)
        self.fc2 = torch.nn.Linear(hidden, classes)

    def forward(self, x):
        return self.fc2(self.drop(self.relu(self.bn(self.fc1(x)))))


class MLP(torch.nn.Module):
    def __init__(self, features, hidden, classes):
        super().__init__()
        self.fc1 = torch.nn.Linear(features, hidden)
        self.relu = torch.nn.ReLU()
        self.fc2 = torch.nn.Linear(hidden, classes)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        return float((model(x).argmax(1) == y).double().mean())


_nets = {}


def trained(kind):
    """The network a training loop left (state in train() mode), trained here with PyTorch on this run's
    training set: a DropoutMLP with Adam on batches of 64 (ex7), an MLP on noisy full batches (ex9)."""
    if kind not in _nets:
        x, y = (torch.from_numpy(a) for a in problem()["train"])
        if kind == "dropout":
            model, steps = DropoutMLP(FEATURES, 64, CLASSES), 100
        else:
            model, steps = MLP(FEATURES, 32, CLASSES), 200
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        model.train()
        for step in range(steps):
            if kind == "dropout":
                start = (step * 64) % x.shape[0]
                xb, yb = x[start:start + 64], y[start:start + 64]
            else:
                xb, yb = x + torch.randn_like(x) * 0.3, y  # the augmentation of ex9's pipeline
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(xb), yb).backward()
            opt.step()
        model.train()
        _nets[kind] = model
    return _nets[kind]


def network_inputs(kind):
    model = trained(kind)
    x, y = problem()["held_out"]
    return dict({k: v.detach().numpy().copy() for k, v in model.state_dict().items()},
                held_out_x=x, held_out_y=y)


# An accuracy over 1024 samples: float32 sums in another order may flip a sample or two that sits on a
# class boundary; the bug moves it by far more.
ACC_TOL = 2.5 / N_HELD_OUT


def own_accuracy(kind):
    x, y = problem()["held_out"]
    return approx(accuracy(trained(kind), torch.from_numpy(x), torch.from_numpy(y)), rtol=0.0, atol=ACC_TOL)


@case("evaluate: the reported accuracy is the network's own, every time", **network_inputs("dropout"))
def _(**state):
    return {f"evaluate(), call {k}": own_accuracy("dropout") for k in (1, 2, 3)}


@case("evaluate: the network is the same afterwards", **network_inputs("dropout"))
def _(**state):
    out = {"evaluate()": own_accuracy("dropout")}
    for name in ("bn.running_mean", "bn.running_var", "bn.num_batches_tracked", "fc1.weight", "fc2.weight"):
        out[f"after: {name}"] = state[name]
    out["after: still in train() mode"] = True  # the header: the state is left as evaluate() found it
    return out


@case("validate: the same answer for the same network, every time", **network_inputs("augmented"))
def _(**state):
    return {f"validate(), call {k}": own_accuracy("augmented") for k in (1, 2, 3, 4)}


@case("validate: the network's own accuracy on the validation data", **network_inputs("augmented"))
def _(**state):
    return {"validate()": own_accuracy("augmented")}
