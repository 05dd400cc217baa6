#pragma once
/// @file
/// Transfer learning's two chores: loading a pretrained checkpoint into a model whose head is new,
/// and handing the optimizer its parameters in groups, the frozen ones left out.
///
///     auto model = kd::vision::models::resnet18({.num_classes = 10});      // a 10-class head
///     auto report = kd::vision::models::load_pretrained(*model, kd::load("resnet18.safetensors"));
///     // report.mismatched_keys: {"fc.weight", "fc.bias"} (1000 classes there, 10 here)
///     auto opt = kd::vision::models::fine_tuning_sgd(
///         *model, {.head = "fc", .frozen = {"conv1", "bn1", "layer1"}, .lr = 0.01, .head_lr = 0.1});
///
/// PyTorch has no single function for either: people filter the checkpoint by hand before
/// `model.load_state_dict(sd, strict=False)`, set `requires_grad_(False)` on the stages they freeze,
/// and pass `[{"params": backbone, "lr": 0.01}, {"params": model.fc.parameters(), "lr": 0.1}]` to
/// torch.optim.SGD. These functions do exactly that, and say what they did.
#include <memory>
#include <string>
#include <vector>

#include "kindling/nn/module.hpp"
#include "kindling/optim/sgd.hpp"

namespace kindling::vision::models {

/// What load_pretrained did with every key. Each of the model's keys is in exactly one of loaded,
/// mismatched and missing (in the model's state_dict order); each checkpoint key that the model
/// does not have is in unexpected (in the checkpoint's order).
struct TransferReport {
  std::vector<std::string> loaded;           ///< same name, same shape: copied
  std::vector<std::string> mismatched_keys;  ///< same name, another shape (a new head): left as it was
  std::vector<std::string> missing_keys;     ///< the model has it, the checkpoint does not: left
  std::vector<std::string> unexpected_keys;  ///< the checkpoint has it, the model does not: ignored
};

/// Copies into `model` every tensor of `pretrained` whose name and shape match one of the model's
/// (converting dtype, as load_state_dict does) and leaves the rest of the model as it was: the usual
/// first step of fine-tuning, where the new head's shapes differ from the checkpoint's. Returns what
/// it did with each key; never throws over a key that does not fit (load_state_dict strict does).
TransferReport load_pretrained(nn::Module& model, const StateDict& pretrained);

/// How fine_tuning_groups splits a model: `head` and every name in `frozen` are the names of the
/// model's top-level children (named_children(): "fc", "layer1", "features", ...).
struct FineTuneOptions {
  std::string head = "fc";           ///< the new head: trains at head_lr
  std::vector<std::string> frozen;   ///< stages that stay as they were: requires_grad false, in no group
  double lr = 0.01;                  ///< the rest of the backbone
  double head_lr = 0.1;
};

/// One group of an optimizer's parameters, with their dotted names (named_parameters()) and its lr.
struct ParamGroup {
  std::vector<std::string> names;
  std::vector<Tensor> params;
  double lr = 0;
};

/// Freezes the `frozen` children of `model` (requires_grad false) and makes every other parameter
/// trainable, then returns two groups in this order: the backbone's trainable parameters at
/// options.lr, and the head's at options.head_lr, each in named_parameters() order. Throws
/// kd::ValueError (listing the model's children) for a name that is not a child, a frozen head, or
/// a negative learning rate. Freezing stops the weights, not BatchNorm's running statistics: keep the
/// frozen stages in eval() while the rest trains (`model.train(); model.layer1.eval();`).
std::vector<ParamGroup> fine_tuning_groups(nn::Module& model, const FineTuneOptions& options);

/// An SGD over fine_tuning_groups(model, options): one parameter group per non-empty group, each with
/// its lr and the rest of `sgd` (momentum, weight decay, ...; sgd.lr is ignored).
std::unique_ptr<optim::SGD> fine_tuning_sgd(nn::Module& model, const FineTuneOptions& options,
                                            optim::SGDOptions sgd = {});

}  // namespace kindling::vision::models
