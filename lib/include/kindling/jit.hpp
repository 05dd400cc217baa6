#pragma once
/// @file
/// Chapter 10's layer: ONNX import and export (kindling::onnx), kd::compile (kindling::jit). `#include <kindling/jit.hpp>`.
#include "kindling/vision.hpp"
#include "kindling/jit/onnx.hpp"
#include "kindling/jit/compile.hpp"
