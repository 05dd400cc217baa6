# Chapter 7's graded tests, PyTorch's side (see tests/grading/twins.py): torch.nn.utils.clip_grad_norm_
# on the same parameters and gradients as the C++ tests. (The find-the-bug tests are judged by outcome
# in the test itself: a finite, low loss and a good held-out accuracy; they need no twin.)
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
