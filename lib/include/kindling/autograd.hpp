#pragma once
/// @file
/// Chapter 2: automatic differentiation. `#include <kindling/autograd.hpp>`.
/// The Tensor methods requires_grad_(), backward(), grad(), grad_fn() ... are declared in
/// kindling/tensor/tensor.hpp and defined by this layer (link kindling_autograd).
#include "kindling/autograd/engine.hpp"
#include "kindling/autograd/function.hpp"
#include "kindling/autograd/grad_mode.hpp"
#include "kindling/autograd/gradcheck.hpp"
#include "kindling/autograd/graphviz.hpp"
#include "kindling/autograd/node.hpp"
#include "kindling/tensor.hpp"
