#!/usr/bin/python3
"""Chapter 7's milestone, judged: the test accuracy of a BatchNorm + Dropout network trained on
Fashion-MNIST at a large step by the learner's library (chapters 1-7: clip_grad_norm_ on every step,
evaluate() picking the epoch). The program gets the training set only and
writes the weights it kept; they are evaluated here, in eval() mode, on the 10,000 test images, which it
never sees. See tests/grading/milestones.py."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import milestones as ms  # noqa: E402

GOAL = 0.84


HIDDEN = 256
SHAPES = {"fc1.weight": (HIDDEN, 784), "fc1.bias": (HIDDEN,), "bn.weight": (HIDDEN,), "bn.bias": (HIDDEN,),
          "bn.running_mean": (HIDDEN,), "bn.running_var": (HIDDEN,), "fc2.weight": (10, HIDDEN), "fc2.bias": (10,)}


def dropout_mlp(w, x):
    """find_the_bug::DropoutMLP in eval() mode: Linear -> BatchNorm1d (running statistics, eps 1e-5) ->
    ReLU -> Dropout (the identity) -> Linear."""
    h = x @ w["fc1.weight"].T + w["fc1.bias"]
    h = (h - w["bn.running_mean"]) / np.sqrt(w["bn.running_var"] + 1e-5) * w["bn.weight"] + w["bn.bias"]
    return np.maximum(h, 0) @ w["fc2.weight"].T + w["fc2.bias"]


def check(out_dir):
    return ms.check_weights_accuracy(out_dir, "ch07", "a clipped, evaluated pipeline trained by your chapters "
                                     "1-7, test accuracy", GOAL, SHAPES, dropout_mlp)


if __name__ == "__main__":
    sys.exit(ms.main(ms.prepare_fashion_mnist_train_only, check))
