#pragma once
/// @file
/// Reentrant backward: a backward formula that runs a backward of its own.

namespace kindling::autograd::detail {

/// While it lives, a backward formula on this thread may run a backward of its own: PyTorch's
/// reentrant backward, which activation checkpointing (kindling::utils::checkpoint) needs to
/// differentiate the segment it recomputes. Without it, backward inside backward is an error.
class ReentrantBackwardGuard {
 public:
  ReentrantBackwardGuard();
  ~ReentrantBackwardGuard();
  ReentrantBackwardGuard(const ReentrantBackwardGuard&) = delete;
  ReentrantBackwardGuard& operator=(const ReentrantBackwardGuard&) = delete;
};

}  // namespace kindling::autograd::detail
