#pragma once
/// @file
/// Chapter 10's layer: ONNX import (kindling::onnx). `#include <kindling/jit.hpp>`.
#include "kindling/vision.hpp"
#include "kindling/jit/onnx.hpp"
