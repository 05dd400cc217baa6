# Chapter 3 — the PyTorch twin of init.cpp: the spread of the activations after ten
# Linear+ReLU layers, for four ways of drawing the weights.
import math

import torch
import torch.nn as nn

torch.manual_seed(0)
# [snippet: deep]
depth, width = 10, 256
layers = []
for _ in range(depth):
    layers += [nn.Linear(width, width), nn.ReLU()]
deep = nn.Sequential(*layers)
x = torch.randn(512, width)


def report(label, draw):
    for m in deep:
        if isinstance(m, nn.Linear):
            draw(m.weight)
            nn.init.zeros_(m.bias)
    spreads, h = [], x
    with torch.no_grad():
        for i, m in enumerate(deep):
            h = m(h)
            if i % 4 == 3:                       # after ReLU 2, 4, 6, ...
                spreads.append(f" {h.std().item():9.3g}")
    print(f"{label:<28}" + "".join(spreads))
# [end]


# [snippet: compare]
header = "".join(f" {f'layer {i}':>9}" for i in (2, 4, 6, 8, 10))
print(f"{'std of activations after':<28}{header}")
report("normal_(w, 0, 1)", lambda w: nn.init.normal_(w, 0.0, 1.0))
report("normal_(w, 0, 0.01)", lambda w: nn.init.normal_(w, 0.0, 0.01))
report("default (kaiming a=sqrt 5)",
       lambda w: nn.init.kaiming_uniform_(w, a=math.sqrt(5)))
report("kaiming_normal_ (relu)",
       lambda w: nn.init.kaiming_normal_(w, nonlinearity="relu"))
# [end]
