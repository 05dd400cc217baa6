#pragma once
/// @file
/// Chapter 3: modules and layers. `#include <kindling/nn.hpp>`.
#include "kindling/autograd.hpp"
#include "kindling/nn/activation.hpp"
#include "kindling/nn/container.hpp"
#include "kindling/nn/conv.hpp"
#include "kindling/nn/dropout.hpp"
#include "kindling/nn/embedding.hpp"
#include "kindling/nn/flatten.hpp"
#include "kindling/nn/functional.hpp"
#include "kindling/nn/init.hpp"
#include "kindling/nn/linear.hpp"
#include "kindling/nn/module.hpp"
#include "kindling/nn/normalization.hpp"
#include "kindling/nn/pooling.hpp"
#include "kindling/nn/serialize.hpp"
#include "kindling/nn/state_dict.hpp"
