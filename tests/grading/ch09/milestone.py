#!/usr/bin/python3
"""Chapter 9's milestone, judged: the test accuracy of a small ResNet that the learner's library
(chapters 1-9) pretrained on five of Fashion-MNIST's classes, loaded into a network with a new ten-class
head (load_pretrained, ex3) and fine-tuned with its stem frozen (fine_tuning_sgd, ex4). The program gets
the training set only and writes the fine-tuned weights; they are evaluated here, with torchvision's
BasicBlock in eval() mode, on the 10,000 test images, which it never sees. Accuracy alone passes pieces
this run does not lean on, so the checker also judges, with data drawn per run from ms.secret_rng
(milestone.cpp says what the program writes), every answer computed here with PyTorch:
  ex1  the fine-tuned network's logits on probe images are torchvision's BasicBlocks' on the same weights;
  ex2  two Bottleneck blocks of drawn sizes and weights (one with a downsampling shortcut of stride 2)
       give torchvision's Bottleneck's outputs, in eval() and in train() mode;
  ex5  a SqueezeExcitation gate (SiLU, as in EfficientNet) of drawn sizes and weights gives
       torchvision.ops.SqueezeExcitation's output;
  ex3  load_pretrained's report for a drawn checkpoint (keys missing, unexpected, reshaped with the same
       number of elements, shuffled) and for the pretrained network (only the head mismatched);
  ex4  fine_tuning_groups' groups, rates and requires_grad flags for drawn frozen stages and rates.
See tests/grading/milestones.py."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import milestones as ms  # noqa: E402

GOAL = 0.80
WHAT = "a small ResNet pretrained on 5 classes and fine-tuned on 10 by your chapters 1-9, test accuracy"
RTOL = 1e-3  # the program's float32 outputs against PyTorch's, by norm (convolutions summed in another order)
STAGES = ["conv1", "bn1", "layer1", "layer2", "layer3"]


def torch_modules():
    import torch
    from torch import nn
    from torchvision.models.resnet import BasicBlock, Bottleneck
    from torchvision.ops import SqueezeExcitation
    torch.set_num_threads(2)

    def ds(cin, cout, stride):
        return nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

    class SmallResNet(nn.Module):
        """milestone.cpp's SmallResNet, child for child."""
        def __init__(self, classes):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 16, 3, stride=2, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(16)
            self.relu = nn.ReLU(inplace=True)
            self.layer1 = nn.Sequential(BasicBlock(16, 16))
            self.layer2 = nn.Sequential(BasicBlock(16, 32, 2, ds(16, 32, 2)))
            self.layer3 = nn.Sequential(BasicBlock(32, 64, 2, ds(32, 64, 2)))
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(64, classes)

        def forward(self, x):
            h = self.layer3(self.layer2(self.layer1(self.relu(self.bn1(self.conv1(x))))))
            return self.fc(torch.flatten(self.avgpool(h), 1))

    def se(channels, squeeze):
        return SqueezeExcitation(channels, squeeze, activation=nn.SiLU)

    return torch, SmallResNet, Bottleneck, ds, se


def block_weights(rng, block):
    """Drawn values for every tensor of `block` but BatchNorm's counters (numpy float32)."""
    from torch import nn
    bn = {name for name, m in block.named_modules() if isinstance(m, nn.BatchNorm2d)}
    out = {}
    for key, v in block.state_dict().items():
        if key.endswith("num_batches_tracked"):
            continue
        owner, _, leaf = key.rpartition(".")
        shape = tuple(v.shape)
        if owner in bn:
            a = {"weight": rng.uniform(0.5, 1.5, shape), "bias": rng.standard_normal(shape) * 0.2,
                 "running_mean": rng.standard_normal(shape) * 0.3, "running_var": rng.uniform(0.5, 2.0, shape)}[leaf]
        else:
            a = rng.standard_normal(shape) / np.sqrt(np.prod(shape[1:]))
        out[key] = a.astype(np.float32)
    return out


def draws():
    torch, SmallResNet, Bottleneck, ds, se = torch_modules()
    rng = ms.secret_rng("ch09 milestone")
    d = {"probe_rows": rng.choice(60000, size=int(rng.integers(150, 300)), replace=False)}
    # ex2: one block with a downsampling shortcut (stride 2, other channels), one with the identity.
    d["bottlenecks"] = []
    for k in range(2):
        planes = int(rng.integers(2, 5))
        inplanes, stride = (int(rng.integers(3, 10)), 2) if k == 0 else (4 * planes, 1)
        block = Bottleneck(inplanes, planes, stride, ds(inplanes, 4 * planes, stride) if k == 0 else None)
        x = rng.standard_normal((int(rng.integers(2, 4)), inplanes, int(rng.integers(5, 9)),
                                 int(rng.integers(5, 9)))).astype(np.float32)
        d["bottlenecks"].append((np.array([inplanes, planes, stride], dtype=np.int64), block_weights(rng, block), x))
    # ex3: a checkpoint made from a ten-class network's keys.
    own = [(k, tuple(v.shape)) for k, v in SmallResNet(10).state_dict().items()]
    drop = set(rng.choice([k for k, _ in own if not k.startswith("fc.")], size=2, replace=False))
    entries = [(k, s) for k, s in own if k not in drop]
    reshape = {"fc.weight": (64, 10), str(rng.choice(["layer2.0.conv1.weight", "layer3.0.conv2.weight"])): (1, 1)}
    entries = [(k, (s[:2] + reshape[k] if len(reshape.get(k, ())) == 2 and len(s) == 4 else reshape.get(k, s)))
               for k, s in entries]
    entries += [("head.weight", (5, 64)), (f"layer{int(rng.integers(4, 9))}.0.conv1.weight", (3, 3))]
    d["ckpt"] = [(entries[i][0], rng.standard_normal(entries[i][1]).astype(np.float32))
                 for i in rng.permutation(len(entries))]
    # ex4: frozen stages and rates.
    # At least one stage frozen and at least one left to train, so that both flags are judged (a draw with
    # nothing frozen could not tell a solution that never clears requires_grad from a right one).
    k = int(rng.integers(1, len(STAGES)))
    d["frozen"] = [STAGES[i] for i in sorted(rng.choice(len(STAGES), size=k, replace=False))]
    d["lrs"] = np.array([10.0 ** rng.uniform(-4, -2), 10.0 ** rng.uniform(-2, 0)])
    # ex5: a gate of EfficientNet's kind.
    channels, squeeze = int(rng.integers(8, 25)), int(rng.integers(2, 7))
    d["se"] = (np.array([channels, squeeze], dtype=np.int64), block_weights(rng, se(channels, squeeze)),
               rng.standard_normal((int(rng.integers(2, 5)), channels, int(rng.integers(4, 9)),
                                    int(rng.integers(4, 9)))).astype(np.float32))
    return d


def probe_images(rows):
    x = ms.idx("train-images-idx3-ubyte.gz")[rows].astype(np.float32) / np.float32(255)
    return ((x - np.float32(0.2860)) / np.float32(0.3530)).reshape(-1, 1, 28, 28)


def prepare(in_dir):
    ms.prepare_fashion_mnist_train_only(in_dir)
    d = draws()
    ms.save(os.path.join(in_dir, "probe_x.npy"), probe_images(d["probe_rows"]))
    for k, (cfg, weights, x) in enumerate(d["bottlenecks"]):
        ms.save(os.path.join(in_dir, f"bottleneck{k}_cfg.npy"), cfg)
        ms.save(os.path.join(in_dir, f"bottleneck{k}_x.npy"), x)
        for key, a in weights.items():
            ms.save(os.path.join(in_dir, f"bottleneck{k}.{key}.npy"), a)
    cfg, weights, x = d["se"]
    ms.save(os.path.join(in_dir, "se_cfg.npy"), cfg)
    ms.save(os.path.join(in_dir, "se_x.npy"), x)
    for key, a in weights.items():
        ms.save(os.path.join(in_dir, f"se.{key}.npy"), a)
    with open(os.path.join(in_dir, "ckpt_keys.txt"), "w") as f:
        f.write("".join(f"{k}\n" for k, _ in d["ckpt"]))
    for i, (_, a) in enumerate(d["ckpt"]):
        np.save(os.path.join(in_dir, f"ckpt.{i}.npy"), a)  # not ms.save: it makes a 0-d counter 1-d
    with open(os.path.join(in_dir, "groups_frozen.txt"), "w") as f:
        f.write("".join(f"{s}\n" for s in d["frozen"]))
    ms.save(os.path.join(in_dir, "groups_lrs.npy"), d["lrs"])


def close(got, want, what):
    if got.shape != want.shape:
        raise ValueError(f"{what}: shape {list(got.shape)}, expected {list(want.shape)}")
    err = float(np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30)) if np.isfinite(got).all() else np.inf
    if not err <= RTOL:
        raise ValueError(f"{what} is off by {err:.3g} of its norm (allowed {RTOL:g})")


def expected_lines(d, torch, SmallResNet):
    own = SmallResNet(10).state_dict()
    ckpt = dict((k, a.shape) for k, a in d["ckpt"])
    j = " ".join
    transfer = [f"loaded: {j(k for k in own if k in ckpt and ckpt[k] == tuple(own[k].shape))}",
                f"mismatched: {j(k for k in own if k in ckpt and ckpt[k] != tuple(own[k].shape))}",
                f"missing: {j(k for k in own if k not in ckpt)}",
                f"unexpected: {j(k for k, _ in d['ckpt'] if k not in own)}",
                "pretrained mismatched: fc.weight fc.bias",
                f"pretrained loaded: {len(own) - 2}"]
    model = SmallResNet(10)
    model.requires_grad_(False)
    backbone, head = [], []
    for name, p in model.named_parameters():
        child = name.split(".")[0]
        p.requires_grad_(child not in d["frozen"])
        if child not in d["frozen"]:
            (head if child == "fc" else backbone).append(name)
    groups = [f"group {d['lrs'][0]:.17g}: {j(backbone)}", f"group {d['lrs'][1]:.17g}: {j(head)}",
              f"requires_grad: {j(n for n, p in model.named_parameters() if p.requires_grad)}"]
    return transfer, groups


def check_probes(out_dir, d, model, torch, Bottleneck, ds, se):
    # ex1: the whole network, whose every block is a BasicBlock, on the probe images.
    with torch.no_grad():
        want = model(torch.from_numpy(probe_images(d["probe_rows"]))).double().numpy()
    close(ms.load_output(out_dir, "probe_logits.npy", dtype="float32").astype(np.float64), want,
          "the fine-tuned network's logits on the probe images (eval(); its BasicBlocks are ex1)")
    # ex2
    for k, (cfg, weights, x) in enumerate(d["bottlenecks"]):
        inplanes, planes, stride = (int(v) for v in cfg)
        block = Bottleneck(inplanes, planes, stride, ds(inplanes, 4 * planes, stride) if k == 0 else None)
        block.load_state_dict({key: torch.from_numpy(a) for key, a in weights.items()}, strict=False)
        kind = "with a downsampling shortcut" if k == 0 else "with an identity shortcut"
        with torch.no_grad():
            block.eval()
            want_eval = block(torch.from_numpy(x)).double().numpy()
            block.train()
            want_train = block(torch.from_numpy(x)).double().numpy()
        for mode, want in (("eval", want_eval), ("train", want_train)):
            got = ms.load_output(out_dir, f"bottleneck{k}_{mode}.npy", dtype="float32").astype(np.float64)
            close(got, want, f"the Bottleneck {kind} ({inplanes} -> {4 * planes} channels, stride {stride}) "
                             f"in {mode}() mode (ex2)")
    # ex5
    cfg, weights, x = d["se"]
    gate = se(int(cfg[0]), int(cfg[1]))
    gate.load_state_dict({key: torch.from_numpy(a) for key, a in weights.items()})
    with torch.no_grad():
        want = gate(torch.from_numpy(x)).double().numpy()
    close(ms.load_output(out_dir, "se.npy", dtype="float32").astype(np.float64), want,
          f"the SqueezeExcitation gate ({int(cfg[0])} channels, squeezed to {int(cfg[1])}, SiLU) (ex5)")
    transfer, groups = expected_lines(d, torch, model.__class__)
    got = ms.read_text_output(out_dir, "transfer.txt").splitlines()
    labels = ["loaded", "mismatched_keys", "missing_keys", "unexpected_keys",
              "the pretrained network's mismatched_keys", "the pretrained network's loaded keys"]
    for i, (line, label) in enumerate(zip(transfer, labels)):
        if i >= len(got) or got[i] != line:
            raise ValueError(f"load_pretrained reported other {label} than the checkpoint has (ex3)")
    got = ms.read_text_output(out_dir, "groups.txt").splitlines()
    for i, (line, label) in enumerate(zip(groups, ["backbone group", "head group", "requires_grad flags"])):
        if i >= len(got) or got[i] != line:
            raise ValueError(f"fine_tuning_groups gave another {label} than the frozen stages and rates ask for (ex4)")


def check(out_dir):
    d = draws()
    torch, SmallResNet, Bottleneck, ds, se = torch_modules()
    goal = f">= {GOAL:.0%}, every piece checked"
    model = SmallResNet(10)
    shapes = {k: tuple(v.shape) for k, v in model.state_dict().items() if not k.endswith("num_batches_tracked")}
    try:
        w = ms.load_weights(out_dir, {f"w.{k}": s for k, s in shapes.items()})
    except ValueError as e:
        return ms.verdict(out_dir, "ch09", WHAT, "none", goal, False, str(e))
    model.load_state_dict({k: torch.from_numpy(w[f"w.{k}"].astype(np.float32)) for k in shapes}, strict=False)
    model.eval()
    try:  # the probes first: they are cheap, the test set is not
        check_probes(out_dir, d, model, torch, Bottleneck, ds, se)
    except ValueError as e:
        return ms.verdict(out_dir, "ch09", WHAT, "not measured", goal, False, str(e))
    xt, labels = ms.test_set()
    with torch.no_grad():
        logits = torch.cat([model(torch.from_numpy(xt[i:i + 2000].reshape(-1, 1, 28, 28)))
                            for i in range(0, len(xt), 2000)])
    acc = float((logits.argmax(1).numpy() == labels).mean())
    return ms.verdict(out_dir, "ch09", WHAT, f"{acc:.2%}", goal, acc >= GOAL,
                      "the weights your program wrote, evaluated by the grader on the 10,000 test images; the "
                      "network's logits, two Bottleneck blocks, a squeeze-and-excitation gate, load_pretrained's "
                      "report and fine_tuning_groups' groups judged on the grader's data")


if __name__ == "__main__":
    sys.exit(ms.main(prepare, check))
