// DistributedDataParallel: buckets of gradients averaged by asynchronous all-reduces started from
// post-accumulate hooks during backward (see ddp.hpp for the picture).
#include "kindling/distributed/ddp.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::distributed {

std::vector<std::vector<std::size_t>> compute_bucket_assignment_by_size(const std::vector<Tensor>& tensors,
                                                                        const std::vector<std::int64_t>& limits) {
  if (limits.empty()) throw ValueError("compute_bucket_assignment_by_size: no bucket size limits given.");
  struct Open {
    std::vector<std::size_t> indices;
    std::int64_t bytes = 0;
    std::size_t limit = 0;  // which of `limits` applies to this dtype's next bucket
  };
  std::map<DType, Open> open;
  std::vector<std::vector<std::size_t>> done;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    Open& b = open[tensors[i].dtype()];
    b.indices.push_back(i);
    b.bytes += static_cast<std::int64_t>(tensors[i].nbytes());
    if (b.bytes >= limits[b.limit]) {
      done.push_back(std::move(b.indices));
      b.indices.clear();
      b.bytes = 0;
      if (b.limit + 1 < limits.size()) ++b.limit;
    }
  }
  for (auto& [dtype, b] : open)
    if (!b.indices.empty()) done.push_back(std::move(b.indices));
  std::sort(done.begin(), done.end(), [](const auto& a, const auto& b) { return a.front() < b.front(); });
  return done;
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
  bucket_of_.resize(params_.size());
  offset_in_bucket_.resize(params_.size());
  for (const auto& bucket : buckets) {
    std::vector<std::size_t> params;
    std::int64_t numel = 0;
    for (std::size_t j : bucket) {
      const std::size_t p = params_.size() - 1 - j;
      params.push_back(p);
      bucket_of_[p] = bucket_params_.size();
      offset_in_bucket_[p] = numel;
      numel += params_[p].numel();
    }
    buffers_.push_back(kindling::zeros({numel}, {.dtype = params_[params.front()].dtype()}));
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
  if (expect_backward_ && next_bucket_ > 0 && next_bucket_ < bucket_params_.size()) {
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
  pending_.assign(bucket_params_.size(), 0);
  for (std::size_t b = 0; b < bucket_params_.size(); ++b) pending_[b] = bucket_params_[b].size();
  param_ready_.assign(params_.size(), false);
  next_bucket_ = 0;
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
  // Copy the whole .grad (what earlier no_sync() backwards accumulated included) into the bucket.
  {
    NoGradGuard no_grad;
    const Tensor& g = params_[p].grad();
    buffers_[bucket_of_[p]].slice(0, offset_in_bucket_[p], offset_in_bucket_[p] + g.numel()).view(g.shape()).copy_(g);
  }
  --pending_[bucket_of_[p]];
  launch_ready_buckets();
}

void DistributedDataParallel::launch_ready_buckets() {
  // Strictly in bucket order: every rank must start the same all-reduces in the same order, even
  // when its gradients became ready in another order.
  while (next_bucket_ < bucket_params_.size() && pending_[next_bucket_] == 0) {
    works_.push_back(all_reduce(buffers_[next_bucket_], ReduceOp::AVG, /*async_op=*/true));
    ++next_bucket_;
  }
  if (next_bucket_ == bucket_params_.size()) finish_backward();
}

void DistributedDataParallel::finish_backward() {
  NoGradGuard no_grad;
  for (Work& w : works_) w.wait();
  works_.clear();
  for (std::size_t p = 0; p < params_.size(); ++p) {
    Tensor g = params_[p].grad();
    g.copy_(buffers_[bucket_of_[p]].slice(0, offset_in_bucket_[p], offset_in_bucket_[p] + g.numel()).view(g.shape()));
  }
  expect_backward_ = false;
}

}  // namespace kindling::distributed
