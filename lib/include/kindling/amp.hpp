#pragma once
/// @file
/// Mixed precision: float16/bfloat16 (in the tensor layer), autocast, GradScaler.
#include "kindling/amp/autocast.hpp"
#include "kindling/amp/grad_scaler.hpp"
#include "kindling/train.hpp"
