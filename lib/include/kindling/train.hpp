#pragma once
/// @file
/// Chapter 5: training — losses, optimizers, LR schedulers, metrics, checkpoints and logging.
#include "kindling/nn.hpp"
#include "kindling/data.hpp"
#include "kindling/optim/adagrad.hpp"
#include "kindling/optim/adam.hpp"
#include "kindling/optim/lr_scheduler.hpp"
#include "kindling/optim/optimizer.hpp"
#include "kindling/optim/rmsprop.hpp"
#include "kindling/optim/sgd.hpp"
#include "kindling/train/checkpoint.hpp"
#include "kindling/train/logging.hpp"
#include "kindling/train/losses.hpp"
#include "kindling/train/metrics.hpp"
