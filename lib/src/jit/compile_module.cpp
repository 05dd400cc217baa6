// Running a compiled graph, and the Module behind kd::compile: guards, the passes in order, explain.
#include <iostream>
#include <span>
#include <sstream>

#include "compile_detail.hpp"
#include "kindling/jit/pieces.hpp"
#include "kindling/autograd.hpp"
#include "kindling/autograd/reentrant.hpp"
#include "kindling/tensor/creation.hpp"

namespace kindling::jit {
namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

/// Can `k` run on these tensors? Its loops were generated for the traced shapes and strides.
bool accepts(const Kernel& k, const std::vector<Tensor>& ins) {
  for (std::size_t i = 0; i < ins.size(); ++i) {
    if (k.arg[i] < 0) continue;
    const Tensor& t = ins[i];
    if (t.dtype() != kFloat32 || !t.device().is_cpu() || t.shape() != k.in_shapes[i] ||
        t.strides() != k.in_strides[i]) {
      return false;
    }
  }
  return true;
}

/// Runs `k`; `inplace` >= 0: its one output is written over input `inplace` (a GEMM's result).
/// `rows`: a row kernel (Kernel::saves_rows) also writes its layer_norm's input there.
std::vector<Tensor> launch(const Kernel& k, std::size_t num_outputs, const std::vector<Tensor>& ins,
                           int inplace = -1, Tensor* rows = nullptr) {
  std::vector<Tensor> outs;
  std::vector<float*> out_ptrs;
  for (std::size_t o = 0; o < num_outputs; ++o) {
    outs.push_back(inplace >= 0 ? ins[at(inplace)] : empty(k.shape, TensorOptions{.dtype = kFloat32}));
    out_ptrs.push_back(outs.back().data_ptr<float>());
  }
  if (k.saves_rows) out_ptrs.push_back(rows ? rows->data_ptr<float>() : nullptr);
  std::vector<const float*> in_ptrs;
  for (std::size_t i = 0; i < ins.size(); ++i)
    if (k.arg[i] >= 0) in_ptrs.push_back(static_cast<const float*>(ins[i].raw_data_ptr()));
  k.fn(out_ptrs.data(), in_ptrs.data());
  return outs;
}

/// A fused node in a graph that needs gradients: one autograd node for the whole region. It saves
/// the region's inputs, never its intermediates -- except, in a region that ends in a LayerNorm, the
/// LayerNorm's input (what eager autograd saves too): the backward needs each whole row before it can
/// start, and recomputing it would run the chain (its erff, say) a third time. Its backward is one of two:
///  * generated (CompileOptions::generate_backward, the default): the region's backward kernel, one
///    loop that recomputes the forward's values in registers and applies each op's derivative in
///    reverse (compile_derivatives.cpp) -- what Inductor gets from AOTAutograd's joint graph;
///  * eager: the region's ops run again eagerly from the saved inputs with grad mode on, and autograd
///    backpropagates through them (a reentrant backward, as activation checkpointing,
///    kd::utils::checkpoint, does). Gradients are eager's by construction; the price is the forward's
///    ops run a second time, each writing its result. BENCH P9 measures both.
struct FusedRegion : autograd::Function<FusedRegion> {
  static constexpr const char* name = "CompiledFusedBackward";
  static constexpr bool once_differentiable = true;  // the backward's own graph is not kept
  std::shared_ptr<const Graph> graph;
  std::size_t index = 0;

  std::vector<Tensor> forward(autograd::Context& ctx, const std::vector<Tensor>& ins,
                              const std::shared_ptr<const Graph>& g, const std::size_t& node) {
    graph = g;
    index = node;
    const Node& n = g->nodes[node];
    const Kernel& k = *n.kernel;
    bool needs_grad = false;  // will a backward run? (false when apply records no node)
    for (std::size_t i = 0; i < ins.size(); ++i) needs_grad = needs_grad || ctx.needs_input_grad(i);
    if (!needs_grad || !k.saves_rows || !k.backward) {
      ctx.save_for_backward(std::span<const Tensor>(ins));
      return launch(k, n.outputs.size(), ins);
    }
    Tensor rows = empty(k.shape, TensorOptions{.dtype = kFloat32});
    std::vector<Tensor> outs = launch(k, n.outputs.size(), ins, -1, &rows);
    std::vector<Tensor> saved = ins;
    saved.push_back(rows);  // after the inputs: the backward kernel reads it as its last `ins`
    ctx.save_for_backward(std::span<const Tensor>(saved));
    return outs;
  }

  autograd::Grads backward(autograd::Context& ctx, const autograd::Grads& grads) {
    const Node& n = graph->nodes[index];
    if (n.kernel->backward) return generated_backward(ctx, grads, n);
    return eager_backward(ctx, grads, n);
  }

  /// The generated backward: one loop computes every input's gradient over the region's shape (the
  /// engine sums it to the input's shape where the input broadcast), or, for a row kernel's [cols]
  /// operands, at the input's own shape (Kernel::row_reduced).
  autograd::Grads generated_backward(autograd::Context& ctx, const autograd::Grads& grads, const Node& n) {
    const Kernel& k = *n.kernel;
    const autograd::Grads saved = ctx.saved_tensors();
    std::vector<Tensor> gouts;
    std::vector<const float*> gout_ptrs;
    for (std::size_t o = 0; o < n.outputs.size(); ++o) {
      const bool have = o < grads.size() && grads[o].defined();
      gouts.push_back(have ? grads[o].to(kFloat32).contiguous() : zeros(k.shape, TensorOptions{.dtype = kFloat32}));
      gout_ptrs.push_back(gouts.back().data_ptr<float>());
    }
    const std::size_t num_in = n.inputs.size();  // saved: the inputs (then the rows, saves_rows)
    std::vector<const float*> in_ptrs;
    std::vector<Tensor> gins(num_in);
    std::vector<float*> gin_ptrs;
    for (std::size_t i = 0; i < num_in; ++i) {
      if (k.arg[i] < 0) continue;
      in_ptrs.push_back(static_cast<const float*>(saved[i].raw_data_ptr()));
      gins[i] = k.row_reduced[i] ? zeros(k.in_shapes[i], TensorOptions{.dtype = kFloat32})
                                 : empty(k.shape, TensorOptions{.dtype = kFloat32});
      gin_ptrs.push_back(gins[i].data_ptr<float>());
    }
    if (k.saves_rows) in_ptrs.push_back(saved.at(num_in).data_ptr<float>());
    k.backward(gin_ptrs.data(), in_ptrs.data(), gout_ptrs.data());
    autograd::Grads result;
    for (std::size_t i = 0; i < num_in; ++i)
      result.push_back(k.arg[i] >= 0 && ctx.needs_input_grad(i) ? gins[i] : Tensor());
    return result;
  }

  /// The eager backward: the region's ops again, eagerly, from the saved inputs, and autograd
  /// through them.
  autograd::Grads eager_backward(autograd::Context& ctx, const autograd::Grads& grads, const Node& n) {
    std::vector<Tensor> leaves, wanted;
    std::vector<int> slot;
    const autograd::Grads saved = ctx.saved_tensors();
    for (std::size_t i = 0; i < saved.size(); ++i) {
      Tensor leaf = saved[i].detach();
      if (ctx.needs_input_grad(i)) {
        leaf.requires_grad_(true);
        slot.push_back(static_cast<int>(wanted.size()));
        wanted.push_back(leaf);
      } else {
        slot.push_back(-1);
      }
      leaves.push_back(leaf);
    }
    std::vector<Tensor> outs, grad_outs;
    {
      EnableGradGuard grad_on;
      const std::vector<Tensor> recomputed = n.eager(leaves);
      for (std::size_t k = 0; k < recomputed.size(); ++k)
        if (recomputed[k].requires_grad() && grads[k].defined()) {
          outs.push_back(recomputed[k]);
          grad_outs.push_back(grads[k]);
        }
    }
    std::vector<Tensor> g;
    if (!outs.empty() && !wanted.empty()) {
      autograd::detail::ReentrantBackwardGuard reentrant;  // as kd::utils::checkpoint does
      g = autograd::grad(outs, wanted, grad_outs,
                         autograd::GradOptions{.retain_graph = false, .allow_unused = true});
    }
    autograd::Grads result;
    for (std::size_t i = 0; i < saved.size(); ++i)
      result.push_back(slot[i] >= 0 && !g.empty() ? g[at(slot[i])] : Tensor());
    return result;
  }
};

}  // namespace

std::vector<Tensor> run(const std::shared_ptr<const Graph>& graph, const std::vector<Tensor>& inputs) {
  const Graph& g = *graph;
  if (inputs.size() != g.inputs.size()) {
    throw Error("kd::compile: the graph takes " + std::to_string(g.inputs.size()) + " inputs, got " +
                std::to_string(inputs.size()));
  }
  std::vector<Tensor> env(g.values.size());
  for (std::size_t i = 0; i < g.values.size(); ++i)
    if (g.values[i].kind == ValueKind::Parameter || g.values[i].kind == ValueKind::Constant)
      env[i] = g.values[i].tensor;
  for (std::size_t i = 0; i < inputs.size(); ++i) env[at(g.inputs[i])] = inputs[i];
  // Each intermediate is dropped after its last reader, as an eager forward drops its temporaries.
  std::vector<int> last(g.values.size(), -1);
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (int v : g.nodes[i].inputs) last[at(v)] = static_cast<int>(i);
  for (int o : g.outputs) last[at(o)] = static_cast<int>(g.nodes.size());
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    std::vector<Tensor> ins;
    for (int v : n.inputs) ins.push_back(env[at(v)]);
    std::vector<Tensor> outs;
    if (!n.kernel || !accepts(*n.kernel, ins)) {
      outs = n.eager(ins);
    } else if (n.inplace_input >= 0 && !(is_grad_enabled() && kindling::detail::requires_grad(ins)) &&
               ins[at(n.inplace_input)].is_contiguous() &&
               ins[at(n.inplace_input)].shape() == n.kernel->shape &&
               ins[at(n.inplace_input)].dtype() == kFloat32 && !ins[at(n.inplace_input)].requires_grad()) {
      outs = launch(*n.kernel, 1, ins, n.inplace_input);  // the GEMM's buffer, read only here, is reused
    } else {
      outs = FusedRegion::apply(ins, graph, i);
    }
    for (std::size_t k = 0; k < n.outputs.size(); ++k) env[at(n.outputs[k])] = std::move(outs[k]);
    for (int v : n.inputs)
      if (last[at(v)] == static_cast<int>(i) && g.values[at(v)].kind == ValueKind::Intermediate)
        env[at(v)] = Tensor();
  }
  std::vector<Tensor> result;
  for (int o : g.outputs) result.push_back(env[at(o)]);
  return result;
}

// ---- the module --------------------------------------------------------------------------------------

struct CompiledModule::Impl {
  nn::Module& model;
  CompileOptions options;
  struct Entry {
    std::shared_ptr<const Graph> graph;
    std::vector<std::pair<Tensor, std::uint64_t>> versions;  // folded parameters, as they were
    std::string source;
  };
  std::map<std::string, Entry> graphs;
  const Entry* last = nullptr;
  std::string explain;
  CompileStats stats;

  /// The guard key: everything a trace depends on besides the parameters' values (chapter 10's
  /// exercise 4, kindling/jit/pieces.hpp).
  std::string key(const Tensor& x) const { return detail::guard_key(x, model); }

  void note(const std::string& s) {
    if (!options.explain) return;
    explain += s;
    (options.explain_stream ? *options.explain_stream : std::cerr) << s;
  }

  Entry build(const Tensor& x, const std::string& guard) {
    Graph g = trace(model, x);
    ++stats.traces;
    std::ostringstream os;
    if (options.explain) {
      os << "== kd::compile: new graph for guard key " << guard << "\n== traced (" << g.nodes.size()
         << " nodes)\n"
         << g.str();
    }
    const int dead = eliminate_dead_code(g);
    if (options.explain) os << "== eliminate_dead_code: " << dead << " nodes removed\n" << g.str();
    if (options.fold_constants) {
      const int folded = fold_constants(g);
      if (options.explain) os << "== fold_constants: " << folded << " nodes folded\n" << g.str();
    }
    const std::size_t before = g.num_kernels();
    if (options.fuse) {
      const int fused = fuse_elementwise(g);
      if (options.explain) os << "== fuse_elementwise: " << fused << " fused nodes\n" << g.str();
      const int norms = fuse_layer_norm(g);
      if (options.explain) os << "== fuse_layer_norm: " << norms << " LayerNorms fused\n" << g.str();
      const int epilogues = fuse_epilogues(g);
      if (options.explain)
        os << "== fuse_epilogues: " << epilogues << " fused nodes run in place over a GEMM's result\n";
    }
    Entry e;
    e.source = generate_cpp(g, options.generate_backward);
    compile_kernels(g, options, &stats);
    if (options.explain) {
      int breaks = 0;
      for (const Node& n : g.nodes) breaks += n.graph_break;
      os << "== graph breaks: " << breaks << "\n";
      for (const Node& n : g.nodes)
        if (n.graph_break) os << "  eager module " << n.origin << "\n";
      os << "== kernels: " << before << " before fusion, " << g.num_kernels() << " after\n";
      os << "== intermediate bytes not written: " << bytes_avoided(g) << "\n";
    }
    note(os.str());
    for (int v : g.folded_reads)
      e.versions.emplace_back(g.values[at(v)].tensor, g.values[at(v)].tensor.version());
    e.graph = std::make_shared<const Graph>(std::move(g));
    return e;
  }
};

CompiledModule::CompiledModule(nn::Module& model, CompileOptions options)
    : impl_(std::make_unique<Impl>(Impl{model, std::move(options), {}, nullptr, {}, {}})) {
  register_module("model", model);
}

CompiledModule::~CompiledModule() = default;

Tensor CompiledModule::forward(const Tensor& input) {
  if (!input.defined()) throw Error("kd::compile: the input is undefined");
  Impl& m = *impl_;
  const std::string guard = m.key(input);
  auto it = m.graphs.find(guard);
  bool stale = false;
  if (it != m.graphs.end()) {
    for (const auto& [t, version] : it->second.versions) stale = stale || t.version() != version;
    if (stale) m.note("== kd::compile: a folded parameter changed in place: re-tracing\n");
  }
  if (it == m.graphs.end() || stale) it = m.graphs.insert_or_assign(guard, m.build(input, guard)).first;
  m.last = &it->second;
  return jit::run(it->second.graph, {input}).front();
}

std::string CompiledModule::explain() const { return impl_->explain; }
std::string CompiledModule::source() const { return impl_->last ? impl_->last->source : std::string(); }
std::shared_ptr<const Graph> CompiledModule::graph() const {
  return impl_->last ? impl_->last->graph : nullptr;
}
const CompileStats& CompiledModule::stats() const { return impl_->stats; }

std::shared_ptr<CompiledModule> compile(nn::Module& model, CompileOptions options) {
  return std::make_shared<CompiledModule>(model, std::move(options));
}

}  // namespace kindling::jit
