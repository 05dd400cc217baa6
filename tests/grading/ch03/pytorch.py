# Chapter 3's graded tests, PyTorch's side (see tests/grading/twins.py): torch.nn modules of the same
# structure, with the same weights where values are compared.
import torch.nn as nn
import torch.nn.functional as F


# ---- ex1: Linear -------------------------------------------------------------------------------------------
@case("Linear: weight [out, in] and bias [out] are its parameters", n=value(0, dtype="int64"))
def _(n):
    fc, nb = nn.Linear(7, 3), nn.Linear(7, 3, bias=False)
    return {"names": [k for k, _ in fc.named_parameters()], "weight shape": list(fc.weight.shape),
            "bias shape": list(fc.bias.shape), "both require grad": True, "in_features, out_features": [7, 3],
            "bias=false: names": [k for k, _ in nb.named_parameters()], "Linear(-1, 3)": raises("ValueError")}


@case("Linear: initial values within 1/sqrt(in), the whole range used", n=value(0, dtype="int64"))
def _(n):
    # judged outside the test process from the weights it reports (grade_compare.judge_values)
    out = {}
    for i, o in ((300, 200), (16, 2000), (1000, 64)):
        b = 1.0 / i ** 0.5
        out |= {f"Linear({i}, {o}).weight: U(-b, b), b = 1/sqrt(in)": judge_values(f"Linear({i}, {o}).weight",
                                                                                   uniform=(b, 0.03)),
                f"Linear({i}, {o}).bias: within b, spread": judge_values(f"Linear({i}, {o}).bias", spread=(b, 1.5))}
    return out


@case("Linear: initialisation draws from the global generator", n=value(0, dtype="int64"))
def _(n):
    return {"same seed, same weights": True, "another seed, other weights": True, "reset_parameters draws again": True}


@case("Linear: forward on [N, in], [in] and [2, 3, in] inputs", w=randn(3, 7), b=randn(3), x2=randn(5, 7), x1=randn(7),
      x3=randn(2, 3, 7))
def _(w, b, x2, x1, x3):
    return {"fc(x2)": F.linear(x2, w, b), "fc(x1)": F.linear(x1, w, b), "fc(x3)": F.linear(x3, w, b),
            "no bias: fc(x2)": F.linear(x2, w)}


@case("Linear: gradients of x, weight and bias", w=randn(3, 7), b=randn(3), x=randn(5, 7), g=randn(5, 3))
def _(w, b, x, g):
    w, b, x = w.requires_grad_(), b.requires_grad_(), x.requires_grad_()
    (F.linear(x, w, b) * g).sum().backward()
    return {"x.grad": x.grad, "weight.grad": w.grad, "bias.grad": b.grad}


# ---- ex2: containers ----------------------------------------------------------------------------------------
def make_seq():
    return nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))


def weights(prefix, shapes):
    return {f"{prefix}{k}": randn(*s) for k, s in shapes.items()}


SEQ_W = {"w0": (3, 4), "b0": (3,), "w2": (2, 3), "b2": (2,)}


@case("Sequential: children named 0, 1, ... with their parameters", n=value(0, dtype="int64"))
def _(n):
    s = make_seq()
    return {"children": [k for k, _ in s.named_children()], "parameters": [k for k, _ in s.named_parameters()],
            "size": len(s)}


@case("Sequential: forward chains the children", x=randn(6, 4), **weights("", SEQ_W))
def _(x, w0, b0, w2, b2):
    return {"seq(x)": F.linear(F.relu(F.linear(x, w0, b0)), w2, b2)}


@case("Sequential: indexing, size and append", n=value(0, dtype="int64"))
def _(n):
    s = make_seq()
    out = {"seq[0]": type(s[0]).__name__, "seq[1]": type(s[1]).__name__, "seq[-1]": type(s[-1]).__name__,
           "seq[-3]": type(s[-3]).__name__}
    s.append(nn.Tanh())
    out |= {"size after append": len(s), "seq[3] after append": type(s[3]).__name__,
            "children after append": [k for k, _ in s.named_children()],
            "seq[4]": raises("IndexError"), "seq[-5]": raises("IndexError")}
    return out


@case("Sequential: printed like PyTorch, and train/eval reach the children", n=value(0, dtype="int64"))
def _(n):
    s = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 2, bias=False), nn.Tanh()), nn.Dropout(0.25))
    out = {"printed": str(s)}
    s.eval()
    out["training after eval()"] = ",".join(str(m.training).lower() for _, m in s.named_modules())
    s.train()
    out["training after train()"] = ",".join(str(m.training).lower() for _, m in s.named_modules())
    ml = nn.ModuleList([nn.Linear(2, 2), nn.ReLU()])
    ml.append(nn.Linear(2, 1))
    out["ModuleList children"] = [k for k, _ in ml.named_children()]
    out["ModuleList printed"] = str(ml)
    return out


# ---- ex3: dropout -------------------------------------------------------------------------------------------
@case("dropout: the identity in eval() and for p = 0", x=randn(4, 5), y=randn(3, 2, dtype="float64"))
def _(x, y):
    return {"dropout(x, 0.5, training=false)": x, "Dropout(0.3) in eval()": x, "dropout(x, 0.0, training=true)": x,
            "dropout(y, 0.5, training=false)": y}


@case("dropout: each element 0 or x / (1 - p), zeros with frequency p", x=positive(200, 100))
def _(x):
    # judged outside the test process from the outputs it reports (grade_compare.judge_values)
    return {f"p = {p}: every element 0 or x/(1-p), zeros with frequency p":
            judge_values(f"p = {p}: dropout(x, p)", dropout=(x.numpy(), p)) for p in (0.1, 0.5, 0.8)}


@case("dropout: p = 1 drops everything, without NaN", x=randn(3, 4))
def _(x):
    return {"dropout(x, 1.0)": F.dropout(x, 1.0, True)}


@case("dropout: a new mask each call, the same one from the same seed", n=value(0, dtype="int64"))
def _(n):
    return {"two calls: different masks": True, "same seed: same mask": True}


@case("dropout: the gradient goes through the same mask", x=positive(30, 20))
def _(x):
    # judged outside the test process from the output and the gradient it reports
    return {"grad == mask / (1 - p)": judge_values("x.grad", mask_grad=("dropout(x, 0.4)", 0.4))}


@case("dropout: shapes, dtypes, views, and p outside [0, 1]", x=randn(6, 4, dtype="float64"))
def _(x):
    y = F.dropout(x.t(), 0.5, True)
    return {"shape of dropout(x.t())": list(y.shape), "dtype of dropout(x.t())": str(y.dtype).replace("torch.", ""),
            "dropout(x, -0.1)": torch_error(lambda: F.dropout(x, -0.1), error="ValueError"),
            "dropout(x, 1.5)": torch_error(lambda: F.dropout(x, 1.5), error="ValueError")}


# ---- ex4: the walk ------------------------------------------------------------------------------------------
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.bn = nn.BatchNorm1d(4)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1))
        self.a = Block()
        self.b = Block()
        self.head = nn.Linear(4, 2)
        self.register_buffer("steps", torch.zeros(1))


class SimpleNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(128, 10)


class Shared(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 3)
        self.b = self.a


def names(pairs):
    return [k for k, _ in pairs]


@case("named_parameters: SimpleNet's dotted names", n=value(0, dtype="int64"))
def _(n):
    return {"names": names(SimpleNet().named_parameters()), "count": sum(p.numel() for p in SimpleNet().parameters())}


@case("named_parameters: own first, then the children, depth first; buffers apart", n=value(0, dtype="int64"))
def _(n):
    m = Net()
    return {"named_parameters": names(m.named_parameters()), "named_buffers": names(m.named_buffers()),
            "named_modules": names(m.named_modules())}


@case("named_parameters: a prefix, and recurse = false", n=value(0, dtype="int64"))
def _(n):
    m = Net()
    return {"named_parameters(\"model\")": names(m.named_parameters(prefix="model")),
            "recurse = false": names(m.named_parameters(recurse=False)),
            "named_buffers(\"\", false)": names(m.named_buffers(recurse=False)),
            "named_modules(\"net\")": names(m.named_modules(prefix="net"))}


@case("named_parameters: a shared layer is listed once", n=value(0, dtype="int64"))
def _(n):
    m = Shared()
    return {"named_parameters": names(m.named_parameters()), "named_modules": names(m.named_modules()),
            "parameters().size()": len(list(m.parameters()))}


@case("named_parameters: state_dict() and parameters() follow the walk", n=value(0, dtype="int64"))
def _(n):
    m = Net()
    return {"state_dict keys": list(m.state_dict().keys()), "number of parameters": len(list(m.parameters()))}


# ---- ex5: load_state_dict -----------------------------------------------------------------------------------
class Two(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.fc2 = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


SD = {"fc1_weight": randn(3, 4), "fc1_bias": randn(3), "fc2_weight": randn(2, 3), "fc2_bias": randn(2)}


def sd_of(kw):
    return {k.replace("_", ".", 1): v for k, v in kw.items() if k.startswith("fc")}


@case("load_state_dict: values copied by name", x=randn(5, 4), **SD)
def _(x, **kw):
    m = Two()
    m.load_state_dict(sd_of(kw))
    return {"model(x) after loading": m(x).detach(), "fc2.bias after loading": m.fc2.bias.detach()}


@case("load_state_dict: strict = false returns the missing and unexpected keys", extra=randn(2, 2), **SD)
def _(extra, **kw):
    sd = sd_of(kw)
    del sd["fc2.bias"]
    sd["extra.weight"] = extra
    r = Two().load_state_dict(sd, strict=False)
    return {"missing_keys": list(r.missing_keys), "unexpected_keys": list(r.unexpected_keys)}


@case("load_state_dict: strict errors name the keys", extra=randn(2, 2), **SD)
def _(extra, **kw):
    return {"missing fc2.bias, unexpected extra.weight": raises("ValueError", contains=["fc2.bias", "extra.weight"])}


@case("load_state_dict: a shape mismatch is refused and nothing is copied", **SD)
def _(**kw):
    return {"fc1.weight [4, 3] for [3, 4]": raises("ValueError", contains=["fc1.weight"]),
            "with strict = false too": raises("ValueError", contains=["fc1.weight"])}


@case("load_state_dict: float64 values into a float32 model", x=randn(5, 4), **{k: randn(*v.shape, dtype="float64")
                                                                              for k, v in SD.items()})
def _(x, **kw):
    m = Two()
    m.load_state_dict(sd_of(kw))
    return {"fc1.weight after loading": m.fc1.weight.detach(), "model(x)": m(x).detach()}
