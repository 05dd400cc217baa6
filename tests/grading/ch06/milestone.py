#!/usr/bin/python3
"""Chapter 6's milestone, judged: the test accuracy of SimpleNet trained in mixed precision (float16
autocast, GradScaler, a checkpointed hidden layer) by the learner's library (chapters 1-6) on
Fashion-MNIST. The program gets the training set only and writes
its trained weights; they are evaluated here on the 10,000 test images, which it never sees. See tests/grading/milestones.py."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import milestones as ms  # noqa: E402

GOAL = 0.83
WHAT = "SimpleNet trained in float16 with GradScaler by your chapters 1-6, test accuracy"

if __name__ == "__main__":
    sys.exit(ms.main(ms.prepare_fashion_mnist_train_only,
                     lambda out_dir: ms.check_weights_accuracy(out_dir, "ch06", WHAT, GOAL, ms.SIMPLENET,
                                                               ms.simplenet)))
