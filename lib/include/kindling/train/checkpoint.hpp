#pragma once
/// @file
/// Resumable checkpoints: everything a training run needs to continue exactly where it stopped —
/// model weights, optimizer buffers (Adam's m and v), scheduler position, epoch, loss and the random
/// generator's state — in ONE safetensors file, written atomically.
///
/// For inference you only need `kd::save(model.state_dict(), path)`; a checkpoint is for resuming.
#include <cstdint>
#include <map>
#include <string>

#include "kindling/nn/state_dict.hpp"
#include "kindling/optim/optimizer.hpp"

namespace kindling::train {

struct Checkpoint {
  StateDict model;                              // model.state_dict()
  optim::OptimizerState optimizer;              // optimizer.state_dict()
  std::map<std::string, double> scheduler;      // scheduler.state_dict() (empty if none)
  std::int64_t epoch = 0;                       // epochs completed
  double loss = 0;                              // last training loss
  std::string rng_state;                        // kd::default_generator().get_state()
  std::map<std::string, std::string> extra;     // anything else worth keeping (strings)
};

/// Writes `checkpoint` to `path` (safetensors: tensors under "model." and "optimizer.", scalars in the
/// header's metadata). Atomic: if anything fails, the previous file at `path` is untouched.
void save_checkpoint(const Checkpoint& checkpoint, const std::string& path);

/// Reads a checkpoint written by save_checkpoint. A corrupt, truncated or foreign file throws
/// kd::IOError naming the file and the problem.
Checkpoint load_checkpoint(const std::string& path);

}  // namespace kindling::train
