// DistributedDataParallel: buckets of gradients averaged by asynchronous all-reduces started from
// post-accumulate hooks during backward (see ddp.hpp for the picture).
#include "kindling/distributed/ddp.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "distributed/pieces.hpp"
#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::distributed {

std::vector<std::vector<std::size_t>> compute_bucket_assignment_by_size(const std::vector<Tensor>& tensors,
                                                                        const std::vector<std::int64_t>& limits) {
  if (limits.empty()) throw ValueError("compute_bucket_assignment_by_size: no bucket size limits given.");
  for (const std::int64_t l : limits) {
    if (l <= 0) {
      throw ValueError("compute_bucket_assignment_by_size: a bucket size limit is " + std::to_string(l) +
                       " bytes; limits must be positive.");
    }
  }
  // The walk itself is exercise ch11.ex2; what it returns must be a partition of the tensors.
  auto buckets = detail::assign_buckets(tensors, limits);
  std::vector<int> seen(tensors.size(), 0);
  for (std::size_t k = 0; k < buckets.size(); ++k) {
    const auto& bucket = buckets[k];
    if (bucket.empty()) throw ValueError("compute_bucket_assignment_by_size: assign_buckets returned an empty bucket.");
    for (const std::size_t i : bucket) {
      if (i >= tensors.size() || seen[i]++) {
        throw ValueError("compute_bucket_assignment_by_size: assign_buckets put tensor " + std::to_string(i) +
                         (i >= tensors.size() ? " (there are " + std::to_string(tensors.size()) + ")" : " twice") +
                         " in its buckets. Hint: every tensor goes into exactly one bucket.");
      }
      if (tensors[i].dtype() != tensors[bucket.front()].dtype()) {
        throw ValueError("compute_bucket_assignment_by_size: bucket " + std::to_string(k) + " mixes " +
                         dtype_name(tensors[bucket.front()].dtype()) + " and " + dtype_name(tensors[i].dtype()) +
                         ". Hint: a bucket is one flat buffer, so it holds one dtype.");
      }
    }
  }
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (!seen[i]) {
      throw ValueError("compute_bucket_assignment_by_size: assign_buckets left tensor " + std::to_string(i) +
                       " out of every bucket. Hint: close the buckets still open at the end.");
    }
  }
  return buckets;
}

DistributedDataParallel::DistributedDataParallel(nn::Module& module, DistributedDataParallelOptions options)
    : module_(module), options_(options) {
  if (!is_initialized()) {
    throw DistributedError("DistributedDataParallel: the process group is not initialised. Hint: call "
                           "kd::distributed::init_process_group() first.");
  }
  for (const Tensor& p : module.parameters())
    if (p.requires_grad()) params_.push_back(p);
  if (params_.empty()) {
    throw ValueError("DistributedDataParallel: the module has no parameter that requires grad: there is "
                     "nothing to train in parallel.");
  }
  // Every rank starts from rank 0's parameters and buffers.
  {
    NoGradGuard no_grad;
    std::vector<Work> works;
    for (const Tensor& p : module.parameters()) works.push_back(broadcast(p, 0, true));
    for (const Tensor& b : module.buffers()) works.push_back(broadcast(b, 0, true));
    for (Work& w : works) w.wait();
  }
  // Buckets over the parameters in reverse order of registration: backward produces the last
  // layers' gradients first.
  std::vector<Tensor> reversed(params_.rbegin(), params_.rend());
  const auto mib = [](double mb) { return static_cast<std::int64_t>(mb * 1024 * 1024); };
  const auto buckets = compute_bucket_assignment_by_size(reversed, {mib(options.first_bucket_mb),
                                                                    mib(options.bucket_cap_mb)});
  state_.bucket_of.resize(params_.size());
  state_.offset.resize(params_.size());
  for (const auto& bucket : buckets) {
    std::vector<std::size_t> params;
    std::int64_t numel = 0;
    for (std::size_t j : bucket) {
      const std::size_t p = params_.size() - 1 - j;
      params.push_back(p);
      state_.bucket_of[p] = bucket_params_.size();
      state_.offset[p] = numel;
      numel += params_[p].numel();
    }
    state_.buffers.push_back(kindling::zeros({numel}, {.dtype = params_[params.front()].dtype()}));
    bucket_params_.push_back(std::move(params));
  }
  // [snippet: hooks]
  // Backward calls a parameter's hook once it has added the gradient into its .grad.
  for (std::size_t p = 0; p < params_.size(); ++p) {
    auto ready = [this, p](const Tensor&) { on_gradient_ready(p); };
    hooks_.push_back(autograd::register_post_accumulate_grad_hook(params_[p], ready));
  }
  // [end]
}

DistributedDataParallel::~DistributedDataParallel() {
  for (auto& h : hooks_) h.remove();
  for (Work& w : works_) {
    try {
      w.wait();  // never leave an all-reduce writing into a freed buffer
    } catch (...) {
    }
  }
}

Tensor DistributedDataParallel::forward(const Tensor& input) {
  if (expect_backward_ && state_.next_bucket > 0 && state_.next_bucket < bucket_params_.size()) {
    std::string missing;
    for (std::size_t p = 0; p < params_.size(); ++p)
      if (!param_ready_[p]) missing += (missing.empty() ? "" : ", ") + std::to_string(p);
    throw DistributedError("DistributedDataParallel: the previous backward did not produce a gradient for "
                           "parameter(s) " + missing + " of module.parameters(), so their buckets were never "
                           "averaged and the ranks disagree. Hint: every parameter must take part in the loss "
                           "(Kindling's DistributedDataParallel has no find_unused_parameters).");
  }
  if (options_.broadcast_buffers) {
    NoGradGuard no_grad;
    for (const Tensor& b : module_.buffers()) broadcast(b, 0);
  }
  expect_backward_ = require_sync_ && is_grad_enabled();
  state_.pending.assign(bucket_params_.size(), 0);
  for (std::size_t b = 0; b < bucket_params_.size(); ++b) state_.pending[b] = bucket_params_[b].size();
  param_ready_.assign(params_.size(), false);
  state_.next_bucket = 0;
  works_.clear();
  return module_.forward(input);
}

void DistributedDataParallel::on_gradient_ready(std::size_t p) {
  if (!expect_backward_) return;  // no_sync(), or a backward that forward did not prepare
  if (param_ready_[p]) {
    throw DistributedError("DistributedDataParallel: parameter " + std::to_string(p) + " received a gradient twice "
                           "in one step (a second backward without a forward in between). Hint: run "
                           "forward again, or accumulate under no_sync().");
  }
  param_ready_[p] = true;
  // Copying the gradient into its bucket and choosing the buckets that start now is exercise ch11.ex3.
  std::vector<std::size_t> start;
  const std::size_t before = state_.next_bucket;
  {
    NoGradGuard no_grad;
    start = detail::mark_gradient_ready(state_, p, params_[p].grad());
  }
  // Every rank must start the same all-reduces in the same order: strictly the next buckets, each
  // complete.
  for (std::size_t k = 0; k < start.size(); ++k) {
    if (start[k] != before + k || state_.pending[start[k]] != 0) {
      throw DistributedError("DistributedDataParallel: mark_gradient_ready started bucket " + std::to_string(start[k]) +
                             " when bucket " + std::to_string(before + k) + " was next" +
                             (start[k] < state_.pending.size() && state_.pending[start[k]] != 0
                                  ? " (and it still waits for " + std::to_string(state_.pending[start[k]]) + " gradients)"
                                  : "") +
                             ". Hint: buckets start strictly in order, each once all its gradients are in.");
    }
  }
  if (state_.next_bucket != before + start.size()) {
    throw DistributedError("DistributedDataParallel: mark_gradient_ready moved next_bucket from " +
                           std::to_string(before) + " to " + std::to_string(state_.next_bucket) + " but started " +
                           std::to_string(start.size()) + " bucket(s). Hint: advance it past each bucket you start.");
  }
  for (const std::size_t b : start) works_.push_back(all_reduce(state_.buffers[b], ReduceOp::AVG, /*async_op=*/true));
  if (state_.next_bucket == bucket_params_.size()) finish_backward();
}

void DistributedDataParallel::finish_backward() {
  NoGradGuard no_grad;
  for (Work& w : works_) w.wait();
  works_.clear();
  for (std::size_t p = 0; p < params_.size(); ++p) {
    Tensor g = params_[p].grad();
    g.copy_(state_.buffers[state_.bucket_of[p]].slice(0, state_.offset[p], state_.offset[p] + g.numel()).view(g.shape()));
  }
  expect_backward_ = false;
}

}  // namespace kindling::distributed
