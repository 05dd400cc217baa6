#pragma once
/// @file
/// The text layer (chapter 12): attention (scaled dot-product attention, nn::MultiheadAttention).
/// `#include <kindling/text.hpp>`.
#include "kindling/debug.hpp"
#include "kindling/text/attention.hpp"
