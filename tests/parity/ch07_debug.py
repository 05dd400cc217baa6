# Chapter 7 parity: gradient clipping (the returned total norm and the clipped gradients) and
# hooks (tensor hooks, module forward/backward hooks) against torch.nn.utils and torch.nn.Module.
import torch.nn as nn
from torch.nn.utils import clip_grad_norm_, clip_grad_value_

INF = float("inf")


def clipped(max_norm, norm_type=2.0, error_if_nonfinite=False, plant_inf=False):
    def run(w1, w2, g1, g2):
        w1 = w1.clone().requires_grad_(True)
        w2 = w2.clone().requires_grad_(True)
        w1.grad = g1.clone()
        w2.grad = g2.clone()
        if plant_inf:
            w1.grad[0, 0] = INF
        total = clip_grad_norm_([w1, w2], max_norm, norm_type, error_if_nonfinite)
        return total, w1.grad, w2.grad
    return run


def clip_inputs(dtype="float32"):
    return dict(w1=randn(4, 3, dtype=dtype), w2=randn(5, dtype=dtype), g1=randn(4, 3, dtype=dtype),
                g2=randn(5, dtype=dtype))


case("clip-grad-norm/l2-clips", clipped(0.5), **clip_inputs())
case("clip-grad-norm/l2-below-max", clipped(100.0), **clip_inputs())
case("clip-grad-norm/l1", clipped(1.0, 1.0), **clip_inputs())
case("clip-grad-norm/p3", clipped(0.7, 3.0), **clip_inputs())
case("clip-grad-norm/inf", clipped(0.3, INF), **clip_inputs())
case("clip-grad-norm/float64", clipped(0.5), **clip_inputs("float64"))
case("clip-grad-norm/nonfinite-error", clipped(1.0, 2.0, True, True), expect_error=True, **clip_inputs())


def clipped_value(v):
    def run(w1, g1):
        w1 = w1.clone().requires_grad_(True)
        w1.grad = g1.clone()
        clip_grad_value_([w1], v)
        return w1.grad
    return run


case("clip-grad-value/0.3", clipped_value(0.3), w1=randn(4, 3), g1=randn(4, 3))


def tensor_hook(x):
    y = x.tanh()
    y.register_hook(lambda g: g * 3 + 1)
    return y * 2


def leaf_hook(x):
    x.register_hook(lambda g: g.clamp(-0.1, 0.1))
    return x.exp()


def removed_hook(x):
    y = x.sin()
    y.register_hook(lambda g: g * 100).remove()
    return y * y


case("tensor-hook/non-leaf", tensor_hook, x=randn(3, 4), grad=True)
case("tensor-hook/leaf", leaf_hook, x=randn(3, 4), grad=True)
case("tensor-hook/removed", removed_hook, x=randn(3, 4), grad=True)


def linear(w, b):
    fc = nn.Linear(w.shape[1], w.shape[0])
    with torch.no_grad():
        fc.weight.copy_(w)
        fc.bias.copy_(b)
    return fc


def module_forward_hooks(x, w, b):
    fc = linear(w, b)
    fc.register_forward_pre_hook(lambda m, inp: (inp[0] * 2,))
    fc.register_forward_hook(lambda m, inp, out: out + inp[0].sum())
    return fc(x)


def module_backward_hook(x, w, b, up):
    fc = linear(w, b)
    x = x.clone().requires_grad_(True)
    seen = {}

    def hook(m, grad_input, grad_output):
        seen["gi"], seen["go"] = grad_input[0].clone(), grad_output[0].clone()
        return (grad_input[0] * 0.5,)
    fc.register_full_backward_hook(hook)
    (fc(x).tanh() * up).sum().backward()
    return seen["gi"], seen["go"], x.grad, fc.weight.grad, fc.bias.grad


case("module-hook/forward-pre-and-post", module_forward_hooks, x=randn(2, 3), w=randn(4, 3), b=randn(4))
case("module-hook/full-backward", module_backward_hook, x=randn(2, 3), w=randn(4, 3), b=randn(4),
     up=randn(2, 4))
