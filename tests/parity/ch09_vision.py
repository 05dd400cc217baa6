# Chapter 9 parity: torchvision 0.14's models against kindling::vision::models. The weights are made
# here by torchvision (its own random initialisation, then BatchNorm's affine parameters and running
# statistics set to values that are not 1 and 0, so that loading them matters), written with
# scripts/convert_torchvision.py into OUT_DIR/weights/<model>.safetensors, and loaded by the C++ side
# strictly. print(model) is written next to them (<model>.txt) and compared byte for byte.
# Dropout and stochastic depth draw from different generators on the two sides: the train() cases set
# their probabilities to 0 on both sides (stochastic depth's own behaviour is a unit test).
import copy
import os
import sys
import zlib

import torchvision
from torchvision.models.feature_extraction import create_feature_extractor

# The oracle runs this file with exec(): sys.argv[1] is its path, sys.argv[2] the output folder.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(sys.argv[1])), "..", "..", "scripts"))
import convert_torchvision  # noqa: E402

WEIGHTS = os.path.join(sys.argv[2], "weights")
os.makedirs(WEIGHTS, exist_ok=True)
NUM_CLASSES = {"resnet18": 10, "resnet34": 7, "resnet50": 5, "vgg11_bn": 6, "mobilenet_v2": 8,
               "efficientnet_b0": 9}
_models = {}


def model(name):
    """torchvision's model `name` with the weights the C++ side loads (made once per run)."""
    if name not in _models:
        torch.manual_seed(zlib.crc32(name.encode()))
        m = getattr(torchvision.models, name)(weights=None, num_classes=NUM_CLASSES[name])
        with torch.no_grad():
            for mod in m.modules():
                if isinstance(mod, torch.nn.BatchNorm2d):
                    mod.weight.uniform_(0.5, 1.5)
                    mod.bias.normal_(0.0, 0.1)
                    mod.running_mean.normal_(0.0, 0.1)
                    mod.running_var.uniform_(0.5, 2.0)
                    mod.num_batches_tracked.fill_(7)
        convert_torchvision.save_safetensors(m.state_dict(), os.path.join(WEIGHTS, name + ".safetensors"))
        with open(os.path.join(WEIGHTS, name + ".txt"), "w") as f:
            f.write(str(m))
        _models[name] = m
    return _models[name]


def bn_state(m):
    bns = [b for b in m.modules() if isinstance(b, torch.nn.BatchNorm2d)]
    return (torch.cat([b.running_mean for b in bns]), torch.cat([b.running_var for b in bns]),
            torch.stack([b.num_batches_tracked for b in bns]))


def evaluate(name):
    def fn(x):
        with torch.no_grad():
            return model(name).eval()(x)
    return fn


def train_step(name):
    """One forward in train(): batch statistics, running statistics updated."""
    def fn(x):
        m = copy.deepcopy(model(name)).train()
        for mod in m.modules():
            if isinstance(mod, torch.nn.Dropout):
                mod.p = 0.0
            if isinstance(mod, torchvision.ops.StochasticDepth):
                mod.p = 0.0
        with torch.no_grad():
            out = m(x)
        return (out, *bn_state(m))
    return fn


def printed(name):
    def fn():
        return torch.tensor(list(str(model(name)).encode()), dtype=torch.uint8)
    return fn


# Deep float32 stacks: each layer's summation order differs (PyTorch's oneDNN convolutions, our
# im2col GEMMs) by a few ulps, and 20 to 50 layers carry it on; train() divides by batch standard
# deviations that are small in the last stages. Hence 1e-3 relative, 1e-4 absolute.
TOL = dict(rtol=1e-3, atol=1e-4)

for name in NUM_CLASSES:
    case(f"{name}/print", printed(name))
    case(f"{name}/eval-32", evaluate(name), x=randn(2, 3, 32, 32), **TOL)
    # In train() the last stage normalises over batch x height x width values per channel: at 32x32
    # that is 2 x 1 x 1 for the ResNets, and a channel whose two values nearly agree turns ulps into
    # whole units. 64x64 gives 8 values per channel (VGG's small batch statistics are pooled earlier).
    small = 32 if name == "vgg11_bn" else 64
    case(f"{name}/train-{small}", train_step(name), x=randn(2, 3, small, small), **TOL)

case("resnet18/eval-224", evaluate("resnet18"), x=randn(2, 3, 224, 224), **TOL)


def features(x):
    body = create_feature_extractor(model("resnet18").eval(), return_nodes=["layer1", "layer2", "layer3", "layer4"])
    with torch.no_grad():
        f = body(x)
    return f["layer1"], f["layer2"], f["layer3"], f["layer4"]


case("resnet18/feature-extractor", features, x=randn(2, 3, 64, 64), **TOL)

# Every stage's feature map of the other architectures (eval, 32x32): the stages where the
# resolution halves, and the last one.
STAGES = {"resnet50": ["layer1", "layer2", "layer3", "layer4"],
          "vgg11_bn": ["features.3", "features.7", "features.14", "features.21", "features.28"],
          "mobilenet_v2": ["features.1", "features.3", "features.6", "features.13", "features.18"],
          "efficientnet_b0": ["features.1", "features.2", "features.3", "features.5", "features.8"]}


def stages(name):
    def fn(x):
        body = create_feature_extractor(model(name).eval(), return_nodes=STAGES[name])
        with torch.no_grad():
            f = body(x)
        return tuple(f[n] for n in STAGES[name])
    return fn


for name in STAGES:
    case(f"{name}/stages", stages(name), x=randn(2, 3, 32, 32), **TOL)


def new_head(x, w, b):
    """Transfer learning: a frozen backbone in eval(), a new 3-class head; gradients reach the head's
    weights (and x), none of the frozen parameters."""
    m = copy.deepcopy(model("resnet18")).eval()
    for p in m.parameters():
        p.requires_grad_(False)
    m.fc = torch.nn.Linear(512, 3)
    with torch.no_grad():
        m.fc.weight.copy_(w)
        m.fc.bias.copy_(b)
    out = m(x)
    out.backward(torch.ones_like(out))
    trainable = sum(p.numel() for p in m.parameters() if p.requires_grad)
    return out.detach(), m.fc.weight.grad, m.fc.bias.grad, torch.tensor(trainable)


case("resnet18/new-head-frozen", new_head, x=randn(2, 3, 32, 32), w=randn(3, 512, scale=0.05), b=randn(3), **TOL)


def wrong_head(x):
    m = torchvision.models.resnet18(weights=None, num_classes=4)  # the file has 10 classes
    m.load_state_dict(model("resnet18").state_dict(), strict=True)
    return m(x)


case("resnet18/load-wrong-num-classes", wrong_head, x=randn(1, 3, 32, 32), expect_error=True)


def wrong_arch(x):
    m = torchvision.models.resnet34(weights=None, num_classes=10)
    m.load_state_dict(model("resnet18").state_dict(), strict=True)
    return m(x)


case("resnet34/load-resnet18-weights", wrong_arch, x=randn(1, 3, 32, 32), expect_error=True)


# torchvision.ops.SqueezeExcitation on its own builds ReLU() (EfficientNet passes SiLU(inplace=True)).
case("ops/squeeze-excitation-print",
     lambda: torch.tensor(list(str(torchvision.ops.SqueezeExcitation(8, 2)).encode()), dtype=torch.uint8))
