// kd::compile's IR (printing) and its tracer.
//
// The tracer is the ONNX exporter's (onnx_export.cpp), with one difference that matters: every node
// must stay runnable eagerly, so for each op it knows, the table below keeps the op's non-tensor
// arguments and a closure that calls the same Kindling function again on new tensors. An op the
// table does not know cannot be re-run from its record alone -- so the *module* that called it is
// kept whole instead: its nodes are dropped and one "module" node calls the module (a graph break,
// which explain reports). Forward hooks on every module give the tracer that stack of calls.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "compile_detail.hpp"
#include "trace_lock.hpp"
#include "kindling/autograd.hpp"
#include "kindling/nn/functional.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::jit {

// ---- the IR -----------------------------------------------------------------------------------------

int Graph::add_value(Value v) {
  values.push_back(std::move(v));
  return static_cast<int>(values.size()) - 1;
}

std::size_t Graph::num_kernels() const {
  // A view (reshape, transpose, ...) moves no data: it is not a kernel.
  static const char* views[] = {"reshape", "permute",   "transpose", "t",
                                "expand",  "unsqueeze", "squeeze",   "alias"};
  std::size_t n = 0;
  for (const Node& node : nodes)
    n += std::find_if(std::begin(views), std::end(views), [&](const char* v) { return node.op == v; }) ==
         std::end(views);
  return n;
}

namespace detail {

std::string ref(const Graph& g, int id) {
  const Value& v = g.values[static_cast<std::size_t>(id)];
  if (v.kind == ValueKind::Parameter && !v.name.empty()) return "%" + v.name;
  return "%" + std::to_string(id);
}

bool is_literal(const Graph& g, int id) {
  const Value& v = g.values[static_cast<std::size_t>(id)];
  return v.kind == ValueKind::Constant && v.shape.empty() && is_floating_point(v.dtype);
}

}  // namespace detail

std::string Graph::str() const {
  std::ostringstream os;
  auto type = [&](int id) {
    const Value& v = values[static_cast<std::size_t>(id)];
    return shape_str(v.shape) + " " + dtype_name(v.dtype);
  };
  for (int id : inputs) os << detail::ref(*this, id) << " = input : " << type(id) << "\n";
  std::vector<bool> used(values.size(), false);  // dead parameters and constants are not printed
  for (const Node& n : nodes)
    for (int i : n.inputs) used[static_cast<std::size_t>(i)] = true;
  for (int o : outputs) used[static_cast<std::size_t>(o)] = true;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const Value& v = values[i];
    const int id = static_cast<int>(i);
    if (!used[i]) continue;
    if (v.kind == ValueKind::Parameter) {
      os << detail::ref(*this, id) << " = parameter" << (v.requires_grad ? "" : " (frozen)") << " : "
         << type(id) << "\n";
    } else if (v.kind == ValueKind::Constant && v.producer < 0) {
      os << detail::ref(*this, id) << " = constant";
      if (v.shape.empty()) os << " " << v.tensor.item<double>();
      os << " : " << type(id) << "\n";
    }
  }
  for (const Node& n : nodes) {
    std::string outs;
    for (int o : n.outputs) outs += (outs.empty() ? "" : ", ") + detail::ref(*this, o);
    std::string op = n.op;
    if (n.op == "fused") {
      std::string ops;
      for (const Node& b : n.body) ops += (ops.empty() ? "" : ", ") + b.op;
      op += "[" + ops + "]";
    }
    std::string ins;
    for (int i : n.inputs) ins += (ins.empty() ? "" : ", ") + detail::ref(*this, i);
    os << outs << " = " << op << "(" << ins << ")";
    if (!n.attrs.empty()) os << " {" << n.attrs << "}";
    os << " : " << type(n.outputs.front());
    if (n.op == "module") os << "  # " << n.origin;
    os << "\n";
  }
  std::string outs;
  for (int o : outputs) outs += (outs.empty() ? "" : ", ") + detail::ref(*this, o);
  os << "return " << outs << "\n";
  return os.str();
}

std::string Graph::dot() const {
  // One box per node (a fused node lists the ops it stands for), one ellipse per input and parameter;
  // an edge per value read, labelled with its shape. Constants are left out: they would crowd the picture.
  std::ostringstream os;
  os << "digraph ir {\n  rankdir=TB;\n  node [fontname=\"monospace\", fontsize=10];\n"
     << "  edge [fontname=\"monospace\", fontsize=9];\n";
  auto label = [&](int id) { return shape_str(values[static_cast<std::size_t>(id)].shape); };
  std::vector<bool> drawn(values.size(), false);
  auto source = [&](int id) -> std::string {
    const Value& v = values[static_cast<std::size_t>(id)];
    if (v.producer >= 0) return "n" + std::to_string(v.producer);
    const std::string name = "v" + std::to_string(id);
    if (!drawn[static_cast<std::size_t>(id)]) {
      drawn[static_cast<std::size_t>(id)] = true;
      const bool input = std::find(inputs.begin(), inputs.end(), id) != inputs.end();
      os << "  " << name << " [shape=ellipse, label=\"" << (input ? "input" : detail::ref(*this, id).substr(1))
         << "\"" << (input ? ", style=bold" : ", color=gray40, fontcolor=gray30") << "];\n";
    }
    return name;
  };
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const Node& n = nodes[k];
    std::string text = n.op;
    if (n.op == "fused") {
      text = "fused";
      for (const Node& b : n.body) text += "\\n" + b.op;
    } else if (n.op == "module") {
      text = "module (eager)\\n" + n.origin;
    }
    os << "  n" << k << " [shape=box, label=\"" << text << "\""
       << (n.op == "fused" ? ", style=filled, fillcolor=\"#fde8c8\"" : "") << "];\n";
    for (int i : n.inputs) {
      const Value& v = values[static_cast<std::size_t>(i)];
      if (v.kind == ValueKind::Constant && v.producer < 0) continue;
      os << "  " << source(i) << " -> n" << k << " [label=\" " << label(i) << "\"];\n";
    }
  }
  for (std::size_t j = 0; j < outputs.size(); ++j) {
    const int o = outputs[j];
    os << "  out" << j << " [shape=ellipse, style=bold, label=\"output\"];\n  " << source(o) << " -> out" << j
       << " [label=\" " << label(o) << "\"];\n";
  }
  os << "}\n";
  return os.str();
}

namespace {

using detail::TracedOp;
using kindling::detail::RecordedOp;

// ---- the tracer -------------------------------------------------------------------------------------

/// One module call in progress: where its nodes start, in case it has to be kept whole.
struct Frame {
  nn::Module* module;
  std::string path;
  std::size_t first_node, first_value;
  Tensor input;
  std::string broken;  // why it must run whole ("" while it traces fine)
};

struct Tracer {
  Graph g;
  std::unordered_map<const TensorImpl*, int> ids;
  std::vector<Tensor> keep;  // every traced tensor stays alive: no address is reused mid-trace
  std::unordered_map<const TensorImpl*, std::pair<std::string, bool>> state;  // name, requires grad
  std::vector<Frame> frames;

  void bind(const Tensor& t, int id) {
    ids[t.impl()] = id;
    keep.push_back(t);
  }
  int add(const Tensor& t, ValueKind kind, std::string name, int producer) {
    Value v{kind, t.shape(), t.strides(), t.dtype(), std::move(name), Tensor(), producer, false};
    if (kind == ValueKind::Constant) v.tensor = t.detach().clone();
    const int id = g.add_value(std::move(v));
    bind(t, id);
    return id;
  }
  /// The value id of a tensor an op reads, or -1 with `why` set when the trace cannot account for it.
  int value(const Tensor& t, std::string& why) {
    if (auto it = ids.find(t.impl()); it != ids.end()) return it->second;
    if (auto it = state.find(t.impl()); it != state.end()) {
      const int id = add(t, ValueKind::Parameter, it->second.first, -1);
      g.values[static_cast<std::size_t>(id)].tensor = t;
      g.values[static_cast<std::size_t>(id)].requires_grad = it->second.second;
      return id;
    }
    if (!t.requires_grad() && t.dim() == 0) return add(t, ValueKind::Constant, "", -1);
    const auto node_name = kindling::detail::node_name_fn();
    const std::string made_by = node_name ? node_name(t) : std::string();
    why = "reads a tensor of shape " + shape_str(t.shape()) + " made by " +
          (made_by.empty()
               ? std::string("an op autograd did not record (integer ops, comparisons, item(), a tensor "
                             "created inside forward)")
               : made_by + ", which the compiler's IR does not capture");
    return -1;
  }
  void graph_break(const std::string& why) {
    if (!frames.empty() && frames.back().broken.empty()) frames.back().broken = why;
  }
  void add_node(TracedOp op, const Tensor& out) {
    if (frames.empty() || !frames.back().broken.empty()) return;  // it runs whole anyway
    Node n{op.op, {}, {}, std::move(op.attrs), std::move(op.scalars), std::move(op.eager)};
    for (const Tensor& t : op.tensors) {
      std::string why;
      const int id = value(t, why);
      if (id < 0) return graph_break(n.op + " " + why);
      n.inputs.push_back(id);
    }
    n.outputs.push_back(add(out, ValueKind::Intermediate, "", static_cast<int>(g.nodes.size())));
    g.nodes.push_back(std::move(n));
  }
  void enter(nn::Module& m, const std::string& path, const Tensor& in) {
    frames.push_back({&m, path, g.nodes.size(), g.values.size(), in, ""});
  }
  void leave(const Tensor& out) {
    Frame f = std::move(frames.back());
    frames.pop_back();
    if (f.broken.empty()) return;
    // Keep the module whole: forget its nodes and the values they made, and call it instead.
    g.nodes.resize(f.first_node);
    for (auto it = ids.begin(); it != ids.end();) {
      it = it->second >= static_cast<int>(f.first_value) ? ids.erase(it) : std::next(it);
    }
    g.values.resize(f.first_value);
    std::string why;
    const int in = value(f.input, why);
    if (in < 0) return graph_break(f.path + "'s input " + why);
    nn::Module* m = f.module;
    Node n{"module", {in},
           {},       m->type_name(),
           {},       [m](const std::vector<Tensor>& v) { return std::vector<Tensor>{(*m)(v[0])}; }};
    n.origin = (f.path.empty() ? m->type_name() : f.path) + ": " + f.broken;
    n.graph_break = true;
    n.outputs.push_back(add(out, ValueKind::Intermediate, "", static_cast<int>(g.nodes.size())));
    g.nodes.push_back(std::move(n));
  }
};

thread_local Tracer* t_tracer = nullptr;
std::atomic<kindling::detail::Recorder> g_autograd_recorder{nullptr};

void trace_record(const RecordedOp& op) {
  g_autograd_recorder.load()(op);  // autograd first: the outputs get their grad_fn
  Tracer* t = t_tracer;
  if (!t) return;
  std::string why;
  if (auto traced = detail::read_recorded(op, why)) return t->add_node(std::move(*traced), op.outputs[0]);
  t->graph_break(why);
}

/// item() or to_vector() inside a traced forward: the number read would be frozen into the trace
/// (`x * x.sum().item<double>()` would always scale by the example's sum), so the module that read it
/// runs eagerly. torch.compile breaks the graph on `.item()` the same way.
void trace_value_read(const Tensor&, const char* how) {
  if (Tracer* t = t_tracer) {
    t->graph_break(std::string(how) + " reads a value out of a tensor, which the trace would freeze");
  }
}

void trace_function(const autograd::FunctionCall& call) {
  Tracer* t = t_tracer;
  if (!t) return;
  if (auto op = detail::read_function(call)) return t->add_node(std::move(*op), call.output);
  t->graph_break(std::string(call.name) + " (a Function the compiler's IR does not capture)");
}

/// The model's buffers as they are, put back when this goes out of scope (an exception included): a
/// call made to learn about the forward must not count as one (BatchNorm's running statistics).
struct BufferSnapshot {
  std::vector<std::pair<Tensor, Tensor>> saved;
  explicit BufferSnapshot(nn::Module& model) {
    for (const auto& [name, b] : model.named_buffers()) saved.emplace_back(b, b.detach().clone());
  }
  BufferSnapshot(const BufferSnapshot&) = delete;
  BufferSnapshot& operator=(const BufferSnapshot&) = delete;
  ~BufferSnapshot() {
    NoGradGuard no_grad;
    for (auto& [b, copy] : saved) b.copy_(copy);  // same shape, same dtype: cannot fail
  }
};

/// The whole model as one eager "module" node: what runs when the trace cannot follow the forward at
/// all -- it threw while traced (an in-place op on the input, which the trace makes require grad), or
/// its output is not made by ops autograd records (an integer or bool input). Eager runs such a
/// forward, so the compiled module must too: torch.compile falls back to eager the same way. One
/// eager call, as the caller makes it, gives the output's shape; a forward that is wrong throws its
/// own error here. The buffers are put back: compiling must not count as a forward (BatchNorm).
Graph whole_model(nn::Module& model, const Tensor& example_input, const std::string& why) {
  Tensor out;
  {
    const BufferSnapshot buffers(model);
    out = model(example_input.clone());  // a copy: the forward may change its input in place
  }
  if (!out.defined())
    throw Error("kd::compile: " + model.type_name() + "'s forward returned an undefined tensor");
  Graph g;
  const int in = g.add_value(
      Value{ValueKind::Input, example_input.shape(), example_input.strides(), example_input.dtype(), "input", {}, -1, false});
  g.inputs.push_back(in);
  nn::Module* m = &model;
  Node n{"module", {in},
         {},       m->type_name(),
         {},       [m](const std::vector<Tensor>& v) { return std::vector<Tensor>{(*m)(v[0])}; }};
  n.origin = m->type_name() + " (the whole model): " + why;
  n.graph_break = true;
  n.outputs.push_back(g.add_value(Value{ValueKind::Intermediate, out.shape(), out.strides(), out.dtype(), "", {}, 0, false}));
  g.outputs.push_back(n.outputs[0]);
  g.nodes.push_back(std::move(n));
  return g;
}

}  // namespace

Graph trace(nn::Module& model, const Tensor& example_input) {
  if (!example_input.defined()) throw Error("kd::compile: the input is undefined");
  if (!example_input.device().is_cpu())
    throw Error("kd::compile: the input is on " + example_input.device().str() + ". Hint: .cpu()");
  // One trace at a time in the process, kd::compile's or the ONNX exporter's (trace_lock.hpp).
  detail::TraceLock lock("kd::compile: a forward being traced (by kd::compile or an ONNX export) called "
                         "kd::compile again");
  Tracer tracer;
  // The traced input: a view of the caller's tensor (same strides: the kernels are generated for
  // them) that requires grad, so that every op downstream of it is recorded.
  Tensor input = example_input.detach();
  if (input.is_floating_point()) input.requires_grad_(true);
  // An integer input's ops are not recorded, so an in-place op on it is not refused either: the
  // trace reads a copy, or it would change the caller's tensor once more than eager does.
  else input = example_input.clone();
  const int in_id = tracer.add(input, ValueKind::Input, "input", -1);
  tracer.g.inputs.push_back(in_id);

  // Frozen floating parameters are made to require grad for the trace (and restored), so that the
  // ops reading them are recorded: fold_constants can then compute those ops once.
  std::vector<Tensor> frozen;
  for (const auto& [name, p] : model.named_parameters()) {
    tracer.state[p.impl()] = {name, p.requires_grad()};
    if (!p.requires_grad() && p.is_floating_point()) frozen.push_back(p);
  }
  std::vector<std::pair<Tensor, Tensor>> saved_buffers;
  for (const auto& [name, b] : model.named_buffers()) {
    tracer.state[b.impl()] = {name, false};
    saved_buffers.emplace_back(b, b.detach().clone());
  }
  std::vector<autograd::RemovableHandle> hooks;
  auto restore = [&] {
    for (auto& h : hooks) h.remove();
    t_tracer = nullptr;
    autograd::set_function_observer(nullptr);
    kindling::detail::set_value_read_observer(nullptr);
    if (g_autograd_recorder.load()) kindling::detail::set_recorder(g_autograd_recorder.load());
    NoGradGuard no_grad;
    for (Tensor& p : frozen) p.requires_grad_(false);
    for (auto& [b, copy] : saved_buffers) b.copy_(copy);  // the trace must not count as a forward
  };
  Tensor out;
  std::string failed;  // why the traced forward threw ("" when it ran)
  try {
    for (Tensor& p : frozen) p.requires_grad_(true);
    g_autograd_recorder.store(kindling::detail::recorder());
    if (!g_autograd_recorder.load())
      throw Error("kd::compile: autograd is not installed (link kindling_autograd)");
    for (auto& [path, m] : model.named_modules()) {
      const std::string p = path;
      hooks.push_back(m->register_forward_pre_hook([&tracer, p](nn::Module& mod, const Tensor& in) {
        tracer.enter(mod, p, in);
        return Tensor();
      }));
      hooks.push_back(m->register_forward_hook([&tracer](nn::Module&, const Tensor&, const Tensor& o) {
        tracer.leave(o);
        return Tensor();
      }));
    }
    kindling::detail::set_recorder(&trace_record);
    autograd::set_function_observer(&trace_function);
    kindling::detail::set_value_read_observer(&trace_value_read);
    t_tracer = &tracer;
    EnableGradGuard grad_on;  // the recorder only sees ops while grad mode is on
    try {
      out = model(input);
    } catch (const std::exception& e) {
      failed = std::string("the traced forward threw: ") + e.what();
    }
  } catch (...) {
    restore();
    throw;
  }
  restore();
  if (failed.empty() && !out.defined())
    throw Error("kd::compile: " + model.type_name() + "'s forward returned an undefined tensor");
  std::string why;
  const int out_id = failed.empty() ? tracer.value(out, why) : -1;
  if (out_id < 0) return whole_model(model, example_input, failed.empty() ? "its output " + why : failed);
  tracer.g.outputs.push_back(out_id);
  return std::move(tracer.g);
}

}  // namespace kindling::jit
