#!/usr/bin/python3
"""Chapter 7's milestone, judged: the test accuracy of a BatchNorm + Dropout network trained on
Fashion-MNIST at a large step by the learner's library (chapters 1-7: clip_grad_norm_ on every step,
evaluate() picking the epoch). The program gets the training set and the test images; the test labels
it sees are zeros, the real ones stay here. See tests/grading/milestones.py."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import milestones as ms  # noqa: E402

GOAL = 0.84


def check(out_dir):
    return ms.check_test_accuracy(out_dir, "ch07", "a clipped, evaluated pipeline trained by your chapters 1-7, "
                                  "test accuracy", GOAL)


if __name__ == "__main__":
    sys.exit(ms.main(ms.prepare_fashion_mnist_hidden_labels, check))
