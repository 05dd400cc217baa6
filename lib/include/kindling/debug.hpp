#pragma once
/// @file
/// When training goes wrong: anomaly mode, hooks, gradient clipping, gradient/weight reports,
/// the data scan, the training doctor and the loader profiler. `#include <kindling/debug.hpp>`.
#include "kindling/amp.hpp"
#include "kindling/autograd/anomaly_mode.hpp"
#include "kindling/autograd/hooks.hpp"
#include "kindling/debug/clip_grad.hpp"
#include "kindling/debug/data_scan.hpp"
#include "kindling/debug/doctor.hpp"
#include "kindling/debug/grad_report.hpp"
#include "kindling/debug/loader_profiler.hpp"
