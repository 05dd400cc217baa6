// kd::onnx::export_model: one forward traced into an ONNX graph, written with ONNX's own protobuf
// classes. The trace (see onnx_export.hpp): a recorder wrapped around autograd's sees every chapter-1
// op; forward hooks on the layers onnx_export_ops.cpp maps see each layer as one unit, and the ops
// inside a mapped layer are not traced. What the trace needs from the tensors is what autograd
// needs: the input is made to require grad (a copy), so every op downstream of it or of a parameter
// is recorded.
#include <atomic>
#include <cstring>
#include <mutex>

#include "kindling/autograd.hpp"
#include "kindling/nn/module.hpp"
#include "kindling/version.hpp"
#include "onnx_export.hpp"
#include "trace_lock.hpp"
#include "tensor/file_io.hpp"

namespace kindling::onnx {
namespace detail {

void export_fail(const std::string& what) { throw Error("onnx export: " + what); }

namespace {

void fill_tensor_proto(pb::TensorProto& p, const Tensor& t, const std::string& name) {
  p.set_name(name);
  p.set_data_type(onnx_dtype(t.dtype()));
  for (std::int64_t d : t.shape()) p.add_dims(d);
  // ONNX's raw_data is little-endian, C order: the bytes of a contiguous CPU tensor (this machine is
  // little-endian; the loaders refuse anything else).
  const Tensor c = t.detach().contiguous();
  if (c.numel() > 0) p.set_raw_data(c.raw_data_ptr(), c.nbytes());
}

void fill_value_info(pb::ValueInfoProto& v, const std::string& name, const Tensor& t, bool dynamic_batch) {
  v.set_name(name);
  auto* tt = v.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx_dtype(t.dtype()));
  auto* shape = tt->mutable_shape();
  for (std::int64_t i = 0; i < t.dim(); ++i) {
    auto* d = shape->add_dim();
    if (i == 0 && dynamic_batch) d->set_dim_param("batch");
    else d->set_dim_value(t.size(i));
  }
}

}  // namespace

pb::TensorProto::DataType onnx_dtype(DType dt) {
  switch (dt) {
    case kFloat32: return pb::TensorProto::FLOAT;
    case kFloat64: return pb::TensorProto::DOUBLE;
    case kInt64: return pb::TensorProto::INT64;
    case kFloat16: return pb::TensorProto::FLOAT16;
    case kBFloat16: return pb::TensorProto::BFLOAT16;
    case kBool: return pb::TensorProto::BOOL;
    case kUInt8: return pb::TensorProto::UINT8;
  }
  export_fail(std::string("dtype ") + dtype_name(dt) + " has no ONNX type");
}

// ---- the graph builder -----------------------------------------------------------------------------

bool GraphBuilder::traced(const Tensor& t) const { return names_.count(t.impl()) > 0; }

void GraphBuilder::bind(const Tensor& t, const std::string& name) {
  names_[t.impl()] = name;
  counters_.try_emplace(name, 1);  // a name given here (the input, a state_dict key) is never made again
  keep_.push_back(t);
}

std::string GraphBuilder::fresh(const std::string& hint) {
  const int n = counters_[hint]++;
  return n == 0 ? hint : hint + "_" + std::to_string(n);
}

std::string GraphBuilder::output(const Tensor& t, const std::string& hint) {
  std::string name = fresh(hint);
  bind(t, name);
  return name;
}

std::string GraphBuilder::constant(const Tensor& t, const std::string& name) {
  fill_tensor_proto(*graph_.add_initializer(), t, name);
  bind(t, name);
  return name;
}

std::string GraphBuilder::value(const Tensor& t, const std::string& who) {
  if (!t.defined()) export_fail(who + ": an undefined tensor has no ONNX value");
  if (auto it = names_.find(t.impl()); it != names_.end()) return it->second;
  if (auto it = state_names.find(t.impl()); it != state_names.end()) return constant(t, it->second);
  if (t.requires_grad()) {
    const auto node_name = kindling::detail::node_name_fn();
    const std::string made_by = node_name ? node_name(t) : std::string();
    export_fail(who + " reads a tensor of shape " + shape_str(t.shape()) + " made by " +
         (made_by.empty() ? std::string("an op the trace did not see") : made_by) +
         ", which has no ONNX mapping. Hint: call the layer as a module (nn::GELU, nn::Conv2d, ...) instead "
         "of its functional form, or see the ops onnx_export_ops.cpp maps.");
  }
  return constant(t, fresh("const"));  // made from no input or parameter: a constant of this trace
}

std::string GraphBuilder::ints(const std::vector<std::int64_t>& v, const std::string& hint) {
  const std::string name = fresh(hint);
  Tensor t = kindling::tensor(v, Shape{static_cast<std::int64_t>(v.size())});
  fill_tensor_proto(*graph_.add_initializer(), t, name);
  return name;
}

std::string GraphBuilder::scalar(double v, DType dtype, const std::string& hint) {
  const std::string name = fresh(hint);
  fill_tensor_proto(*graph_.add_initializer(), scalar_tensor(v, TensorOptions{.dtype = dtype}), name);
  return name;
}

pb::NodeProto& GraphBuilder::node(const std::string& op_type, const std::vector<std::string>& inputs,
                                  const std::vector<std::string>& outputs, const std::string& name) {
  pb::NodeProto& n = *graph_.add_node();
  n.set_op_type(op_type);
  n.set_name(fresh(name.empty() ? op_type : name + "/" + op_type));
  for (const auto& i : inputs) n.add_input(i);
  for (const auto& o : outputs) n.add_output(o);
  return n;
}

void set_attr(pb::NodeProto& n, const std::string& name, std::int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(pb::AttributeProto::INT);
  a->set_i(v);
}
void set_attr(pb::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(pb::AttributeProto::FLOAT);
  a->set_f(v);
}
void set_attr(pb::NodeProto& n, const std::string& name, const std::vector<std::int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(pb::AttributeProto::INTS);
  for (std::int64_t x : v) a->add_ints(x);
}

// ---- helpers the two tables share -----------------------------------------------------------------

std::string operand(GraphBuilder& g, const Tensor& t, DType dt, const std::string& who) {
  if (!g.traced(t) && !g.state_names.count(t.impl()) && !t.requires_grad() && t.dtype() != dt) {
    return g.constant(t.detach().to(dt), g.fresh("const"));
  }
  const std::string v = g.value(t, who);
  if (t.dtype() == dt) return v;
  const std::string c = g.fresh(v + "_cast");
  set_attr(g.node("Cast", {v}, {c}, who), "to", std::int64_t{onnx_dtype(dt)});
  return c;
}

std::vector<std::int64_t> shape_vec(const Tensor& t) { return {t.shape().begin(), t.shape().end()}; }

void reshape(GraphBuilder& g, const Tensor& out, const std::string& x, const Tensor& xt, const std::string& who) {
  std::vector<std::int64_t> s = shape_vec(out);
  if (!s.empty() && xt.dim() > 0 && s[0] == xt.size(0) && s[0] != 0) s[0] = 0;
  g.node("Reshape", {x, g.ints(s, "shape")}, {g.output(out, who)}, who);
}

// ---- the tracer ------------------------------------------------------------------------------------

namespace {

struct Tracer {
  GraphBuilder* graph = nullptr;
  int inside_layer = 0;  // > 0 while a mapped layer's forward runs: its own ops are not traced
};
thread_local Tracer* t_tracer = nullptr;
std::atomic<kindling::detail::Recorder> g_autograd_recorder{nullptr};

void trace_record(const kindling::detail::RecordedOp& op) {
  g_autograd_recorder.load()(op);  // autograd first: the outputs get their grad_fn
  Tracer* t = t_tracer;
  if (t && t->inside_layer == 0) export_op(*t->graph, op);
}

void trace_function(const autograd::FunctionCall& call) {
  Tracer* t = t_tracer;
  if (t && t->inside_layer == 0) export_function(*t->graph, call);
}

/// Installs the tracing recorder, the Function observer and the layers' hooks for one export, and
/// undoes all three on exit, also when the forward throws.
class TraceScope {
 public:
  TraceScope(nn::Module& model, Tracer& tracer) {
    g_autograd_recorder.store(kindling::detail::recorder());
    if (!g_autograd_recorder.load()) export_fail("autograd is not installed (link kindling_autograd)");
    kindling::detail::set_recorder(&trace_record);
    autograd::set_function_observer(&trace_function);
    t_tracer = &tracer;
    try {
      for (auto& [path, m] : model.named_modules()) {
        LayerExport fn = layer_export(*m);
        if (!fn) continue;
        const std::string p = path.empty() ? m->type_name() : path;  // the model itself is a layer
        handles_.push_back(m->register_forward_pre_hook([&tracer](nn::Module&, const Tensor&) {
          ++tracer.inside_layer;
          return Tensor();
        }));
        handles_.push_back(
            m->register_forward_hook([&tracer, fn, p](nn::Module& mod, const Tensor& in, const Tensor& out) {
              --tracer.inside_layer;
              if (tracer.inside_layer == 0) fn(*tracer.graph, mod, p, in, out);
              return Tensor();
            }));
      }
    } catch (...) {
      restore();  // a constructor that throws runs no destructor
      throw;
    }
  }
  ~TraceScope() { restore(); }
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  void restore() {
    for (auto& h : handles_) h.remove();
    handles_.clear();
    t_tracer = nullptr;
    autograd::set_function_observer(nullptr);
    kindling::detail::set_recorder(g_autograd_recorder.load());
  }
  // Taken first (members before the body): one trace at a time, an export's or kd::compile's.
  jit::detail::TraceLock lock_{
      "onnx export: export_model called while another export traces on this thread (or kd::compile)"};
  std::vector<autograd::RemovableHandle> handles_;
};

/// Restores the model's train/eval mode on exit.
struct ModeScope {
  nn::Module& m;
  std::vector<std::pair<nn::Module*, bool>> modes;
  explicit ModeScope(nn::Module& model) : m(model) {
    for (auto& [_, sub] : model.named_modules()) modes.emplace_back(sub, sub->is_training());
  }
  ~ModeScope() {
    // Parents come first in named_modules(), and train() sets a module's children too: in this
    // order every module ends in its own mode.
    for (auto& [sub, training] : modes) sub->train(training);
  }
};

}  // namespace
}  // namespace detail

void export_model(nn::Module& model, const Tensor& example_input, const std::filesystem::path& path,
                  const ExportOptions& options) {
  using namespace detail;
  if (options.opset < 13 || options.opset > 17) {
    export_fail("opset " + std::to_string(options.opset) + " is not supported. Hint: 13..17 (ONNX 1.12 knows up to 17).");
  }
  if (!example_input.defined()) export_fail("the example input is undefined");
  if (!example_input.device().is_cpu()) export_fail("the example input is on " + example_input.device().str() + ". Hint: .cpu()");
  if (options.dynamic_batch && example_input.dim() == 0) export_fail("dynamic_batch needs an input with a dimension 0");
  if (options.input_name.empty() || options.output_name.empty() || options.input_name == options.output_name) {
    export_fail("input_name and output_name must be two different non-empty names");
  }

  pb::ModelProto model_proto;
  model_proto.set_ir_version(8);  // ONNX 1.12's IR version
  model_proto.set_producer_name("kindling");
  model_proto.set_producer_version(KINDLING_VERSION);
  if (!options.doc_string.empty()) model_proto.set_doc_string(options.doc_string);
  auto* op = model_proto.add_opset_import();
  op->set_domain("");
  op->set_version(options.opset);
  pb::GraphProto& graph = *model_proto.mutable_graph();
  graph.set_name(model.type_name());

  GraphBuilder g(graph, options.opset);
  for (const auto& [name, t] : model.named_parameters()) g.state_names.emplace(t.impl(), name);
  for (const auto& [name, t] : model.named_buffers()) g.state_names.emplace(t.impl(), name);

  // The traced input: a copy that requires grad (when its dtype can), so that every op reading it
  // is recorded; an integer input (Embedding's indices) is read by layers only.
  Tensor input = example_input.detach().clone();
  if (is_floating_point(input.dtype())) input.requires_grad_(true);
  g.bind(input, options.input_name);

  Tensor output;
  {
    ModeScope mode(model);
    model.eval();
    Tracer tracer;
    tracer.graph = &g;
    TraceScope scope(model, tracer);
    // The trace follows requires_grad: under a caller's NoGradGuard every op would read as a
    // constant and be frozen into the graph with the example's values, so grad mode is on here.
    EnableGradGuard grad_on;
    output = model(input);
  }
  if (!output.defined()) export_fail(model.type_name() + "'s forward returned an undefined tensor");
  const std::string out_value = g.value(output, "the graph's output");
  // The graph's output gets the name asked for: an Identity when the value is already named (the
  // input itself, a parameter, or a layer's output).
  g.node("Identity", {out_value}, {options.output_name}, "output");

  fill_value_info(*graph.add_input(), options.input_name, example_input, options.dynamic_batch);
  const bool batch_out = options.dynamic_batch && output.dim() > 0 && output.size(0) == example_input.size(0);
  fill_value_info(*graph.add_output(), options.output_name, output, batch_out);

  std::string bytes;
  if (!model_proto.SerializeToString(&bytes)) export_fail("protobuf could not serialize the model (over 2 GB?)");
  kindling::detail::write_file_atomically(path.string(), bytes, "onnx::export_model");
}

}  // namespace kindling::onnx
