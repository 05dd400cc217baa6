#pragma once
// What the ONNX importer's files share (not installed): errors that name the node, a node's
// attributes, tensors read from TensorProto, and the graph held by an OnnxModule.
//   onnx_import.cpp  reads the file: tensors, initializers, inputs and outputs, and runs the graph;
//   onnx_ops.cpp     what each op means, in Kindling ops (run_node): the layers (Gemm, Conv,
//                    pooling, normalisation, ...);
//   onnx_ops_tensor.cpp  the rest of run_node: elementwise maths, logic, shapes, indexing;
//   onnx_ops_3d.cpp  3-D Conv and pooling, as 2-D ones over the depth;
//   onnx_ops_resize.cpp  Resize and Upsample.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kindling/jit/onnx.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling::onnx {
namespace pb = ::onnx;

namespace detail {

[[noreturn]] inline void fail(const std::string& what) { throw Error("onnx: " + what); }

inline std::string node_label(const pb::NodeProto& node) {
  return "node '" + (node.name().empty() ? node.output_size() ? node.output(0) : std::string("?") : node.name()) +
         "' (" + node.op_type() + ")";
}

/// A TensorProto as a Kindling tensor (int32 widened to int64); refuses external data, huge or
/// negative sizes and data that does not match its dims, naming the tensor and the field.
Tensor tensor_from_proto(const pb::TensorProto& t, const std::filesystem::path& folder);

// A node's input i as its op reads it: a required one must be there (else an error naming the node),
// an optional one is undefined when the node leaves it out.
inline const Tensor& required_input(const pb::NodeProto& node, const std::vector<Tensor>& in, std::size_t i) {
  if (i >= in.size() || !in[i].defined()) fail(node_label(node) + ": input " + std::to_string(i) + " is missing");
  return in[i];
}
inline Tensor optional_input(const std::vector<Tensor>& in, std::size_t i) { return i < in.size() ? in[i] : Tensor(); }

// Attributes of one node, looked up by name, with the node named in every error.
struct Attrs {
  const pb::NodeProto& node;
  const pb::AttributeProto* find(const std::string& name) const {
    for (const auto& a : node.attribute()) if (a.name() == name) return &a;
    return nullptr;
  }
  std::int64_t i(const std::string& name, std::int64_t dflt) const {
    auto* a = find(name);
    if (!a) return dflt;
    if (a->type() != pb::AttributeProto::INT) fail(node_label(node) + ": attribute " + name + " is not an int");
    return a->i();
  }
  float f(const std::string& name, float dflt) const {
    auto* a = find(name);
    if (!a) return dflt;
    if (a->type() != pb::AttributeProto::FLOAT) fail(node_label(node) + ": attribute " + name + " is not a float");
    return a->f();
  }
  std::string s(const std::string& name, const std::string& dflt) const {
    auto* a = find(name);
    return a ? a->s() : dflt;
  }
  std::vector<std::int64_t> ints(const std::string& name, std::vector<std::int64_t> dflt = {}) const {
    auto* a = find(name);
    if (!a) return dflt;
    if (a->type() != pb::AttributeProto::INTS) fail(node_label(node) + ": attribute " + name + " is not a list of ints");
    return {a->ints().begin(), a->ints().end()};
  }
};

/// An integer tensor's values (shapes, axes, pads given as inputs).
inline std::vector<std::int64_t> to_ints(const Tensor& t) {
  Tensor c = t.to(kInt64).contiguous();
  const auto* p = c.data_ptr<std::int64_t>();
  return {p, p + c.numel()};
}

/// Constant padding of every dim d by pads[d] before and pads[d + rank] after (differentiable).
Tensor pad_constant(Tensor x, const std::vector<std::int64_t>& pads, double value);

/// The op types run_node implements (checked at load, so an unknown op fails before any run).
const std::set<std::string>& supported_ops();

}  // namespace detail

struct OnnxModule::Impl {
  pb::ModelProto model;
  std::int64_t opset = 0;
  std::map<std::string, Tensor> initializers;  // filled with the registered handles
  std::vector<std::string> inputs, outputs;

  std::vector<Tensor> run_node(const pb::NodeProto& node, const std::vector<Tensor>& in) const;
  /// run_node's second half: elementwise maths, logic, shapes, indexing (onnx_ops_tensor.cpp).
  std::vector<Tensor> run_tensor_op(const pb::NodeProto& node, const std::vector<Tensor>& in) const;
};

namespace detail {
/// The most elements a node may make: a hostile file's huge sizes end here with the node named,
/// not in the allocator (1 GiB of float32 per tensor).
inline constexpr std::int64_t kMaxElements = std::int64_t{1} << 28;
/// Refuses a shape a node is about to fill beyond kMaxElements, naming the node.
void check_size(const pb::NodeProto& node, const Shape& shape);
/// ONNX's TensorProto::DataType code as a Kindling dtype (int32 widened to int64).
DType dtype_of_onnx(const pb::NodeProto& node, std::int64_t code);
/// Refuses an input `what` whose rank is not `rank`.
void want_rank(const pb::NodeProto& node, const Tensor& x, std::int64_t rank, const char* what);
/// Conv, MaxPool and AveragePool on X [N, C, D, H, W]: 2-D windows over the depth (onnx_ops_3d.cpp).
std::vector<Tensor> run_window_3d(const OnnxModule::Impl& impl, const pb::NodeProto& node,
                                  const std::vector<Tensor>& in);
/// Resize and Upsample: separable nearest / linear / cubic resampling (onnx_ops_resize.cpp).
std::vector<Tensor> run_resize(const OnnxModule::Impl& impl, const pb::NodeProto& node, const std::vector<Tensor>& in);
}  // namespace detail

}  // namespace kindling::onnx
