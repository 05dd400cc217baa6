# Chapter 9's graded tests, PyTorch's side (see tests/grading/twins.py): torchvision 0.14's BasicBlock,
# Bottleneck and SqueezeExcitation with the weights drawn here, the same blocks the C++ tests build; and, for
# load_pretrained and the fine-tuning groups, PyTorch's own idioms on the same models: filter the
# checkpoint by name and shape, then load_state_dict(strict=False); requires_grad_(False) on the frozen
# stages and one optimizer group per part. Sizes vary per grading run.
from torch import nn
from torchvision.models import resnet18
from torchvision.models.resnet import BasicBlock, Bottleneck
from torchvision.ops import SqueezeExcitation

TOL = dict(rtol=1e-3, atol=1e-4)  # float32 convolutions and BatchNorm's batch statistics, summed in another order


def ds(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))


def weights(module, prefix=""):
    """An input for every parameter and buffer of `module` but BatchNorm's counters: convolutions and
    Linear layers scaled by 1/sqrt(fan_in), BatchNorm's gamma around 1, its running variance positive."""
    bn = {name for name, m in module.named_modules() if isinstance(m, nn.BatchNorm2d)}
    out = {}
    for key, v in module.state_dict().items():
        if key.endswith("num_batches_tracked"):
            continue
        owner, _, leaf = key.rpartition(".")
        shape = tuple(v.shape)
        if owner in bn:
            out[prefix + key] = {"weight": positive(*shape, low=0.5, high=1.5), "bias": randn(*shape, scale=0.2),
                                 "running_mean": randn(*shape, scale=0.3),
                                 "running_var": positive(*shape, low=0.5, high=2.0)}[leaf]
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
            out[prefix + key] = randn(*shape, scale=1 / np.sqrt(fan_in))
    return out


def load(module, t, prefix=""):
    module.load_state_dict({k[len(prefix):]: v for k, v in t.items() if k.startswith(prefix) and
                            isinstance(v, torch.Tensor) and k[len(prefix):] in module.state_dict()}, strict=False)


def run_block(block, t, grad_of):
    """What run_and_report (ch09_grading.hpp) reports: train() output, the gradients of sum(out * g),
    then the eval() output (after the train() forward moved the running statistics, on both sides)."""
    load(block, t)
    x = t["x"].clone().requires_grad_(True)
    block.train()
    out = block(x)
    (out * t["g"]).sum().backward()
    results = {"out (train)": approx(out.detach(), **TOL), "x.grad": approx(x.grad, **TOL),
               f"{grad_of}.grad": approx(dict(block.named_parameters())[grad_of].grad, **TOL)}
    block.eval()
    with torch.no_grad():
        results["out (eval)"] = approx(block(t["x"]), **TOL)
    return results


def block_case(name, block, grad_of, n, c, h, w, out_shape, **sizes):
    @case(name, x=randn(n, c, h, w), g=randn(*out_shape), **weights(block),
          **{k: value(v, dtype="int64") for k, v in sizes.items()})
    def _(**t):
        return run_block(block, t, grad_of)


# ---- ex1: BasicBlock ------------------------------------------------------------------------------------
c, n, h, w = vary(2, 6), vary(2, 4), vary(5, 9), vary(5, 9)
block_case("BasicBlock: an identity shortcut", BasicBlock(c, c), "conv1.weight", n, c, h, w, (n, c, h, w),
           channels=c)
c, h, w = vary(2, 5), vary(6, 10), vary(6, 10)
block_case("BasicBlock: a downsampling shortcut, stride 2 and twice the channels",
           BasicBlock(c, 2 * c, 2, ds(c, 2 * c, 2)), "downsample.0.weight", n, c, h, w,
           (n, 2 * c, (h + 1) // 2, (w + 1) // 2), channels=c)
c, h, w = vary(2, 5), vary(4, 8), vary(4, 8)
block_case("BasicBlock: two blocks in a stage, the last ReLU after the sum",
           nn.Sequential(BasicBlock(c, 2 * c, 1, ds(c, 2 * c, 1)), BasicBlock(2 * c, 2 * c)), "1.conv2.weight",
           n, c, h, w, (n, 2 * c, h, w), channels=c)

# ---- ex2: Bottleneck ------------------------------------------------------------------------------------
p, h, w = vary(2, 4), vary(4, 8), vary(4, 8)
block_case("Bottleneck: an identity shortcut", Bottleneck(4 * p, p), "conv1.weight", n, 4 * p, h, w,
           (n, 4 * p, h, w), planes=p)
p, cin, h, w = vary(2, 4), vary(3, 8), vary(5, 9), vary(5, 9)
block_case("Bottleneck: a downsampling shortcut with stride 2", Bottleneck(cin, p, 2, ds(cin, 4 * p, 2)),
           "conv2.weight", n, cin, h, w, (n, 4 * p, (h + 1) // 2, (w + 1) // 2), planes=p, inplanes=cin)
p, h, w = vary(2, 5), vary(3, 7), vary(3, 7)
block_case("Bottleneck: the first block of resnet50's layer1 (more channels, stride 1)",
           Bottleneck(p, p, 1, ds(p, 4 * p, 1)), "conv3.weight", n, p, h, w, (n, 4 * p, h, w), planes=p)


# ---- ex5: SqueezeExcitation ---------------------------------------------------------------------------
c, s, h, w = vary(3, 9), vary(1, 4), vary(3, 7), vary(3, 7)
block_case("SqueezeExcitation: one gate per sample and channel (ReLU, torchvision's default)",
           SqueezeExcitation(c, s), "fc1.weight", n, c, h, w, (n, c, h, w), channels=c, squeeze=s)
c, s, h, w = vary(4, 12), vary(1, 4), vary(3, 7), vary(3, 7)
block_case("SqueezeExcitation: EfficientNet's SiLU", SqueezeExcitation(c, s, activation=nn.SiLU), "fc2.weight",
           n, c, h, w, (n, c, h, w), channels=c, squeeze=s)


# ---- ex3: load_pretrained -------------------------------------------------------------------------------
def transfer(model, ckpt):
    """PyTorch's idiom: load what fits by name and shape with strict=False; report the rest by kind."""
    own = model.state_dict()
    loaded = [k for k in own if k in ckpt and ckpt[k].shape == own[k].shape]
    results = {"loaded": " ".join(loaded),
               "mismatched_keys": " ".join(k for k in own if k in ckpt and ckpt[k].shape != own[k].shape),
               "missing_keys": " ".join(k for k in own if k not in ckpt),
               "unexpected_keys": " ".join(k for k in ckpt if k not in own)}
    model.load_state_dict({k: ckpt[k] for k in loaded}, strict=False)
    return results


def ckpt_case(name, change):
    """A downsampling BasicBlock with its own values ("init.") and a checkpoint made from its keys by
    `change(keys_and_shapes, rng)`, which returns the checkpoint's (key, shape) list in its order."""
    c = vary(2, 5)
    model = BasicBlock(c, 2 * c, 2, ds(c, 2 * c, 2))
    entries = change([(k, tuple(v.shape)) for k, v in model.state_dict().items()], case_rng(name), c)
    inputs = {f"ckpt.{k}": (randint(0, 100, *shape) if k.endswith("num_batches_tracked") else randn(*shape))
              for k, shape in entries}

    @case(name, channels=value(c, dtype="int64"), keys="\n".join(k for k, _ in entries), **weights(model, "init."),
          **inputs)
    def _(**t):
        load(model, t, "init.")
        ckpt = {k: t[f"ckpt.{k}"] for k in t["keys"].split("\n")}
        results = transfer(model, ckpt)
        for k, v in model.state_dict().items():
            if not k.endswith("num_batches_tracked"):
                results[f"after: {k}"] = v
        return results


def new_head(entries, rng, c):
    return [(k, (2 * c + 1, 2 * c, 3, 3) if k == "conv2.weight" else s) for k, s in entries]


def missing_unexpected(entries, rng, c):
    kept = [(k, s) for k, s in entries if k not in ("bn1.running_var", "downsample.1.weight")]
    kept += [("fc.weight", (3, 2 * c)), ("fc.bias", (3,)), ("layer9.conv.weight", (2,))]
    return [kept[i] for i in rng.permutation(len(kept))]  # the checkpoint's own order


def same_numel(entries, rng, c):
    swap = {"downsample.0.weight": (c, 2 * c, 1, 1), "conv1.weight": (c, 2 * c, 3, 3)}
    return [(k, swap.get(k, s)) for k, s in entries]


ckpt_case("load_pretrained: a new head is mismatched, the rest loads", new_head)
ckpt_case("load_pretrained: missing and unexpected keys, each in its own order", missing_unexpected)
ckpt_case("load_pretrained: a shape with the same number of elements is still mismatched", same_numel)

classes = vary(2, 100)


@case("load_pretrained: resnet18's 1000-class checkpoint into a resnet18 with its own head",
      classes=value(classes, dtype="int64"))
def _(classes):
    model = resnet18(num_classes=int(classes))
    results = transfer(model, resnet18().state_dict())
    results["fc.weight shape"] = list(model.fc.weight.shape)
    return results


# ---- ex4: the fine-tuning groups ------------------------------------------------------------------------
def split(model, head, frozen, lr, head_lr):
    """PyTorch's idiom: requires_grad_(False) on the frozen stages, True elsewhere; the backbone's
    trainable parameters and the head's in two groups, as named_parameters() lists them."""
    backbone, head_names = [], []
    for name, p in model.named_parameters():
        child = name.split(".")[0]
        p.requires_grad_(child not in frozen)
        if child in frozen:
            continue
        (head_names if child == head else backbone).append(name)
    return backbone, head_names


def groups_results(model, backbone, head_names, lr, head_lr, prefix=""):
    return {f"{prefix}backbone names": " ".join(backbone), f"{prefix}backbone lr": float(lr),
            f"{prefix}head names": " ".join(head_names), f"{prefix}head lr": float(head_lr),
            "requires_grad": " ".join(n for n, p in model.named_parameters() if p.requires_grad)}


@case("fine_tuning_groups: resnet18 with its stem and layer1 frozen", lrs=rand(2, dtype="float64", low=0.001, high=0.5))
def _(lrs):
    model = resnet18(num_classes=10)
    lr, head_lr = float(lrs[0]), float(lrs[1])
    return groups_results(model, *split(model, "fc", {"conv1", "bn1", "layer1"}, lr, head_lr), lr, head_lr)


_stages = ["conv1", "bn1", "layer1", "layer2", "layer3", "layer4"]
_rng = case_rng("ch09 frozen")
_frozen = [s for s in _stages if _rng.random() < 0.5] or ["layer2"]


@case("fine_tuning_groups: a frozen model thaws outside the frozen stages", frozen="\n".join(_frozen))
def _(frozen):
    model = resnet18(num_classes=10)
    model.requires_grad_(False)
    return groups_results(model, *split(model, "fc", set(frozen.split("\n")), 0.001, 0.01), 0.001, 0.01)


@case("fine_tuning_groups: nothing frozen, and everything but the head frozen")
def _():
    model = resnet18(num_classes=10)
    b, h = split(model, "fc", set(), 0.01, 0.1)
    b2, h2 = split(model, "fc", set(_stages), 0.01, 0.1)
    return {"all: backbone names": " ".join(b), "all: head names": " ".join(h),
            "head only: backbone names": " ".join(b2), "head only: head names": " ".join(h2)}


_mlp = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3))


@case("fine_tuning_sgd: one step moves each group at its own rate and the frozen stage not at all",
      x=randn(16, 6), y=randint(0, 3, 16), **weights(_mlp))
def _(x, y, **t):
    load(_mlp, t)
    backbone, head = split(_mlp, "4", {"0"}, 0.05, 0.5)
    params = dict(_mlp.named_parameters())
    opt = torch.optim.SGD([{"params": [params[n] for n in backbone], "lr": 0.05},
                           {"params": [params[n] for n in head], "lr": 0.5}], lr=0.05, momentum=0.9)
    for _step in range(2):
        opt.zero_grad()
        nn.functional.cross_entropy(_mlp(x), y).backward()
        opt.step()
    return {f"after: {k}": approx(v, **TOL) for k, v in _mlp.state_dict().items()}
