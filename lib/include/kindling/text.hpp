#pragma once
/// @file
/// The text layer (chapter 12): attention (scaled dot-product attention,
/// nn::MultiheadAttention) and a GPT-2-style model (kindling::text::GPT).
/// `#include <kindling/text.hpp>`.
#include "kindling/debug.hpp"
#include "kindling/text/attention.hpp"
#include "kindling/text/gpt.hpp"
#include "kindling/text/tokenizer.hpp"
