#pragma once
/// @file
/// Chapter 1: everything about tensors. `#include <kindling/tensor.hpp>`.
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/denormal.hpp"
#include "kindling/tensor/dtype.hpp"
#include "kindling/tensor/device.hpp"
#include "kindling/tensor/error.hpp"
#include "kindling/tensor/indexing.hpp"
#include "kindling/tensor/npy.hpp"
#include "kindling/tensor/ops.hpp"
#include "kindling/tensor/print.hpp"
#include "kindling/tensor/random.hpp"
#include "kindling/tensor/storage.hpp"
#include "kindling/tensor/tensor.hpp"
#include "kindling/tensor/threads.hpp"
#include "kindling/version.hpp"
