#pragma once
/// @file
/// Out of memory: float16/bfloat16 (in the tensor layer), autocast, GradScaler, activation
/// checkpointing, memory statistics (memory_allocated, memory_reserved, ...).
#include "kindling/amp/autocast.hpp"
#include "kindling/amp/checkpoint.hpp"
#include "kindling/amp/grad_scaler.hpp"
#include "kindling/tensor/memory_stats.hpp"
#include "kindling/train.hpp"
