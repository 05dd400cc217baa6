#pragma once
/// @file
/// Training on many processes: the process group and its collectives over MPI.
/// `#include <kindling/distributed.hpp>`.
#include "kindling/distributed/process_group.hpp"
#include "kindling/distributed/sampler.hpp"
#include "kindling/distributed/ddp.hpp"
#include "kindling/distributed/ring.hpp"
