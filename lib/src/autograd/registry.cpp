// The one place where autograd plugs into chapter 1: the registry of chapter-1 ops and their
// Functions, the recorder that chapter 1's record<"key">(...) calls, and install().
#include "autograd/registry.hpp"

#include <mutex>
#include <string>

namespace kindling::autograd {

void Registry::insert(OpRow row) {
  const std::string_view key = row.key;
  if (!rows_.emplace(key, std::move(row)).second) {
    throw AutogradError("autograd registry: the op key \"" + std::string(key) + "\" is registered twice.");
  }
}

const OpRow* Registry::find(std::string_view key) const {
  auto it = rows_.find(key);
  return it == rows_.end() ? nullptr : &it->second;
}

std::vector<const OpRow*> Registry::rows() const {
  std::vector<const OpRow*> out;
  for (const auto& [key, row] : rows_) out.push_back(&row);
  return out;
}

const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
    register_binary_ops(reg);
    register_unary_ops(reg);
    register_compare_ops(reg);
    register_copy(reg);
    register_join(reg);
    register_matmul(reg);
    register_reductions(reg);
    register_softmax(reg);
    register_views(reg);
    register_gather_scatter(reg);
    register_shape_ops(reg);
    return reg;
  }();
  return r;
}

namespace {

/// What every recorded chapter-1 op calls: find the op's row (once per call site), check that the
/// forward recorded the arguments its Function expects, and let the row build the node.
void record_op(const kindling::detail::RecordedOp& op) {
  const auto* row = static_cast<const OpRow*>(*op.cache);
  if (row == nullptr) {
    row = registry().find(op.key);
    if (row == nullptr) {
      throw AutogradError(std::string(op.key) +
                          ": no backward is registered for this op, so it cannot be used on tensors that "
                          "require grad. Hint: compute it under kd::NoGradGuard, or add its Function to the "
                          "matching lib/src/autograd/*_backward.cpp file.");
    }
    if (row->signature != op.signature) {
      throw AutogradError(std::string(op.key) + ": the forward recorded the arguments " +
                          std::string(op.signature_name) + " but the backward's setup_context takes " +
                          std::string(row->signature_name) +
                          ". Hint: the record<\"key\">(out, args...) call and setup_context(ctx, args..., out) "
                          "must list the same argument types.");
    }
    *op.cache = row;  // a benign race: every thread would store the same pointer
  }
  row->record(op);
}

std::string node_name_of(const Tensor& t) {
  const AutogradMeta* meta = autograd_meta(t);
  return meta && meta->grad_fn ? meta->grad_fn->name() : "";
}

std::unique_ptr<AutogradMetaInterface> make_meta() { return std::make_unique<AutogradMeta>(); }

}  // namespace

// Installed before main(): this file is linked into every program that uses any of autograd (every
// other part of the layer calls autograd_meta() below), so chapter 1's tensors -- even those made
// with {.requires_grad = true} at start-up -- are recorded from the first op on.
[[maybe_unused]] static const bool g_installed = (install(), true);

void install() {
  static std::once_flag once;
  std::call_once(once, [] {
    (void)registry();
    kindling::detail::set_autograd_meta_factory(&make_meta);
    kindling::detail::set_node_name_fn(&node_name_of);
    kindling::detail::set_recorder(&record_op);
  });
}

// ---- AutogradMeta ---------------------------------------------------------------------------------

AutogradMeta* autograd_meta(const Tensor& t) {
  if (!t.defined()) return nullptr;
  AutogradMetaInterface* base = t.impl()->autograd_meta.get();
  if (base == nullptr) return nullptr;
  if (base->is_full) return static_cast<AutogradMeta*>(base);
  // A chapter-1 tensor created with {.requires_grad = true} before autograd was installed carries
  // chapter 1's minimal meta: replace it by the full one, keeping the flag.
  auto full = std::make_unique<AutogradMeta>();
  full->requires_grad = base->requires_grad;
  AutogradMeta* raw = full.get();
  t.impl()->autograd_meta = std::move(full);
  return raw;
}

AutogradMeta& materialize_autograd_meta(const Tensor& t) {
  install();
  if (AutogradMeta* meta = autograd_meta(t)) return *meta;
  auto full = std::make_unique<AutogradMeta>();
  AutogradMeta& ref = *full;
  t.impl()->autograd_meta = std::move(full);
  return ref;
}

}  // namespace kindling::autograd
