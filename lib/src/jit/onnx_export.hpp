#pragma once
// What the ONNX exporter's two files share (not installed):
//   onnx_export.cpp      the tracer (a recorder wrapped around autograd's, hooks on the layers) and
//                        the file: graph inputs, outputs, initializers, the model's header;
//   onnx_export_ops.cpp     what each traced tensor op becomes in ONNX (the op table);
//   onnx_export_layers.cpp  what each layer and functional call becomes (the layer table).
//
// The trace: every tensor the forward makes from the input or a parameter is recorded (chapter 1's
// recorder sees the op, its arguments and its output; a layer's forward hook sees the layer, its
// input and its output). Each traced tensor gets an ONNX value name; a tensor the graph reads that
// was never traced is a constant (an initializer), unless it requires grad -- then it came from an
// op the tracer could not see, and the export fails naming that op's backward node.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "kindling/autograd/function.hpp"
#include "kindling/jit/onnx.hpp"
#include "kindling/tensor/autograd_hooks.hpp"

namespace kindling::onnx::detail {
namespace pb = ::onnx;

/// The graph being written.
class GraphBuilder {
 public:
  GraphBuilder(pb::GraphProto& graph, std::int64_t opset) : graph_(graph), opset_(opset) {}

  std::int64_t opset() const { return opset_; }

  /// `t`'s value name. A tensor never traced becomes an initializer (named after its state_dict
  /// key when it is a parameter or buffer of the model); one that requires grad cannot be a
  /// constant and fails the export. `who` names the reader in the error.
  std::string value(const Tensor& t, const std::string& who);
  /// Gives `t` the name `name` (a graph input, or an op's output).
  void bind(const Tensor& t, const std::string& name);
  /// A fresh value name for `t`, bound to it: an op's output.
  std::string output(const Tensor& t, const std::string& hint);
  /// A fresh name for a value no Kindling tensor holds (between the nodes of one layer).
  std::string fresh(const std::string& hint);
  bool traced(const Tensor& t) const;

  /// Initializers for constants the mapping makes: int64 lists (shapes, axes), one scalar of a
  /// dtype (a Clip bound, an Add's alpha).
  std::string ints(const std::vector<std::int64_t>& v, const std::string& hint);
  std::string scalar(double v, DType dtype, const std::string& hint);
  std::string constant(const Tensor& t, const std::string& name);

  /// Appends a node; returns it for its attributes. `name` is a layer's path or an op's key.
  pb::NodeProto& node(const std::string& op_type, const std::vector<std::string>& inputs,
                      const std::vector<std::string>& outputs, const std::string& name);

  /// Parameters and buffers by TensorImpl, with their state_dict names (set before the trace).
  std::unordered_map<const TensorImpl*, std::string> state_names;

 private:
  pb::GraphProto& graph_;
  std::int64_t opset_;
  std::unordered_map<const TensorImpl*, std::string> names_;
  std::vector<Tensor> keep_;  // every bound tensor stays alive: no address is reused mid-trace
  std::map<std::string, int> counters_;
};

/// Throws kd::Error("onnx export: " + what).
[[noreturn]] void export_fail(const std::string& what);

/// `t` as an operand of dtype `dt`: ONNX's elementwise ops take one type where Kindling promotes (a
/// float32 tensor times a float64 0-d constant is float32). A constant is stored in `dt`; a traced
/// value of another dtype gets a Cast.
std::string operand(GraphBuilder& g, const Tensor& t, DType dt, const std::string& who);

std::vector<std::int64_t> shape_vec(const Tensor& t);

/// A Reshape to `out`'s shape that keeps dimension 0 symbolic where it can: ONNX's 0 copies the
/// input's size, right whenever the traced sizes of dimension 0 agree (batch in, batch out).
void reshape(GraphBuilder& g, const Tensor& out, const std::string& x, const Tensor& xt, const std::string& who);

/// ONNX's element type for a Kindling dtype (every dtype has one).
pb::TensorProto::DataType onnx_dtype(DType dt);

// Attribute helpers.
void set_attr(pb::NodeProto& n, const std::string& name, std::int64_t v);
void set_attr(pb::NodeProto& n, const std::string& name, float v);
void set_attr(pb::NodeProto& n, const std::string& name, const std::vector<std::int64_t>& v);

/// A traced chapter-1 op (autograd_hooks.hpp's RecordedOp) into nodes. Throws kd::Error for a key
/// without a mapping, or one whose recorded argument types are not the ones the mapping reads.
void export_op(GraphBuilder& g, const kindling::detail::RecordedOp& op);

/// A traced Function call outside a mapped layer (a functional form: F::gelu, F::silu,
/// F::adaptive_avg_pool2d...). Throws kd::Error for a Function without a mapping.
void export_function(GraphBuilder& g, const autograd::FunctionCall& call);

/// A layer the exporter maps as one unit (its forward is not traced inside); nullptr otherwise.
using LayerExport = void (*)(GraphBuilder& g, nn::Module& m, const std::string& path, const Tensor& in,
                             const Tensor& out);
LayerExport layer_export(const nn::Module& m);

}  // namespace kindling::onnx::detail
