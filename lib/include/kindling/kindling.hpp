#pragma once
/// @file
/// Everything Kindling has: `#include <kindling/kindling.hpp>` and `namespace kd = kindling;`.
/// Each chapter's layer has its own umbrella header too (kindling/tensor.hpp, kindling/autograd.hpp...).
#include "kindling/tensor.hpp"
#if __has_include("kindling/autograd.hpp")
#include "kindling/autograd.hpp"
#endif
#if __has_include("kindling/nn.hpp")
#include "kindling/nn.hpp"
#endif
#if __has_include("kindling/data.hpp")
#include "kindling/data.hpp"
#endif
#if __has_include("kindling/train.hpp")
#include "kindling/train.hpp"
#endif
#if __has_include("kindling/amp.hpp")
#include "kindling/amp.hpp"
#endif
#if __has_include("kindling/debug.hpp")
#include "kindling/debug.hpp"
#endif
#if __has_include("kindling/vision.hpp")
#include "kindling/vision.hpp"
#endif
#if __has_include("kindling/text.hpp")
#include "kindling/text.hpp"
#endif
