#pragma once
/// @file
/// Chapter 9's exercise pieces: the parts of the vision layer that *you* write (exercises/ch09/).
/// Declared here or in a public header named below, defined in your `exercises/ch09/exK_*.cpp` or the
/// reference `solutions/ch09/exK_*.cpp`.
///
///   ex1  vision::models::BasicBlock::forward   (kindling/vision/models.hpp) ResNet-18/34's block
///   ex2  vision::models::Bottleneck::forward   (kindling/vision/models.hpp) ResNet-50's block
///   ex3  vision::models::detail::match_pretrained   which checkpoint keys load_pretrained copies
///   ex4  vision::models::detail::split_for_fine_tuning   freezing and the groups of fine_tuning_groups
///   ex5  vision::ops::SqueezeExcitation::forward   (kindling/vision/ops.hpp) EfficientNet's channel gate
///
/// The library does the bookkeeping around ex3 and ex4 (lib/src/vision/transfer.cpp): load_pretrained
/// hands ex3 both state dicts, checks that every key it says to load exists on both sides with one
/// shape, and copies them; fine_tuning_groups checks the names and learning rates before ex4 runs,
/// and checks the groups it returns (every parameter at most once, no frozen one in a group).
#include <vector>

#include "kindling/nn/module.hpp"
#include "kindling/vision/transfer.hpp"

namespace kindling::vision::models::detail {

/// Sorts every key into load_pretrained's report (kindling/vision/transfer.hpp, TransferReport):
///   a key of `own` (the model's state_dict) that `pretrained` has with the same shape: loaded;
///   with another shape: mismatched_keys; that `pretrained` lacks: missing_keys (these three in
///   `own`'s order); a key of `pretrained` that `own` lacks: unexpected_keys (in `pretrained`'s order).
/// Only names and shapes matter (dtype is converted by the copy). Copies nothing.
TransferReport match_pretrained(const StateDict& own, const StateDict& pretrained);

/// Fine-tuning's split (the names were checked: `head` and each of `frozen` is a top-level child of
/// `model`, the head is not frozen, both lrs are >= 0):
///   every parameter of a `frozen` child gets requires_grad false; every other parameter true;
///   returns {backbone, head}: backbone = the parameters of neither the head nor a frozen child, at
///   options.lr; head = the head's parameters, at options.head_lr; both with their dotted names, in
///   model.named_parameters() order.
std::vector<ParamGroup> split_for_fine_tuning(nn::Module& model, const FineTuneOptions& options);

}  // namespace kindling::vision::models::detail
