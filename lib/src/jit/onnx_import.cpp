// kd::onnx::load: an ONNX graph read with ONNX's own protobuf classes (onnx/onnx_pb.h, the
// onnx-ml.proto build Debian ships) and run node by node with Kindling ops, so the result is
// differentiable and its initializers are trainable parameters. What each op means is in
// onnx_ops.cpp.
#include <cstring>
#include <fstream>
#include <sstream>

#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/half.hpp"
#include "onnx_detail.hpp"

namespace kindling::onnx {
using namespace detail;

namespace {

// The element count of declared dims, refusing negative sizes and counts past 2^40 elements (a
// hostile file may declare [1e18] and hope we allocate it).
std::int64_t checked_numel(const pb::TensorProto& t) {
  std::int64_t n = 1;
  for (auto d : t.dims()) {
    if (d < 0) fail("tensor '" + t.name() + "': field dims has a negative size " + std::to_string(d));
    if (d != 0 && n > (std::int64_t{1} << 40) / d)
      fail("tensor '" + t.name() + "': field dims declares more than 2^40 elements");
    n *= d;
  }
  return n;
}

}  // namespace

Tensor detail::tensor_from_proto(const pb::TensorProto& t, const std::filesystem::path& folder) {
  (void)folder;
  if (t.data_location() == pb::TensorProto::EXTERNAL || t.external_data_size() > 0)
    // External data names a file next to the model; Kindling refuses it rather than open paths a
    // file chose (../../etc/passwd).
    fail("tensor '" + t.name() + "': field external_data is not supported (data must be inside the model)");
  const std::int64_t n = checked_numel(t);
  Shape shape(t.dims().begin(), t.dims().end());
  const std::string& raw = t.raw_data();
  auto need = [&](std::size_t have, std::size_t elem, const char* field) {
    if (have != static_cast<std::size_t>(n) * (field[0] == 'r' ? elem : 1))
      fail("tensor '" + t.name() + "': field " + field + " holds " + std::to_string(have) +
           (field[0] == 'r' ? " bytes" : " values") + " for " + std::to_string(n) + " elements");
  };
  // What the file holds is checked against the declared dims before anything is allocated: a hostile
  // file may declare [2^20, 2^20] over four bytes of data.
  {
    std::size_t elem = 0, values = static_cast<std::size_t>(t.int32_data_size());
    const char* field = "int32_data";
    switch (t.data_type()) {
      case pb::TensorProto::FLOAT: elem = 4, values = static_cast<std::size_t>(t.float_data_size()), field = "float_data"; break;
      case pb::TensorProto::DOUBLE: elem = 8, values = static_cast<std::size_t>(t.double_data_size()), field = "double_data"; break;
      case pb::TensorProto::INT64: elem = 8, values = static_cast<std::size_t>(t.int64_data_size()), field = "int64_data"; break;
      case pb::TensorProto::INT32: elem = 4; break;
      case pb::TensorProto::FLOAT16:
      case pb::TensorProto::BFLOAT16: elem = 2; break;
      case pb::TensorProto::BOOL:
      case pb::TensorProto::UINT8: elem = 1; break;
      default: fail("tensor '" + t.name() + "': field data_type " + std::to_string(t.data_type()) + " is not supported");
    }
    if (t.has_raw_data()) need(raw.size(), elem, "raw_data");
    else need(values, elem, field);
  }
  switch (t.data_type()) {
    case pb::TensorProto::FLOAT: {
      std::vector<float> v(static_cast<std::size_t>(n));
      if (t.has_raw_data()) { if (n) std::memcpy(v.data(), raw.data(), raw.size()); }
      else { std::copy(t.float_data().begin(), t.float_data().end(), v.begin()); }
      return kindling::tensor(v, shape);
    }
    case pb::TensorProto::DOUBLE: {
      std::vector<double> v(static_cast<std::size_t>(n));
      if (t.has_raw_data()) { if (n) std::memcpy(v.data(), raw.data(), raw.size()); }
      else { std::copy(t.double_data().begin(), t.double_data().end(), v.begin()); }
      return kindling::tensor(v, shape);
    }
    case pb::TensorProto::INT64: {
      std::vector<std::int64_t> v(static_cast<std::size_t>(n));
      if (t.has_raw_data()) { if (n) std::memcpy(v.data(), raw.data(), raw.size()); }
      else { std::copy(t.int64_data().begin(), t.int64_data().end(), v.begin()); }
      return kindling::tensor(v, shape);
    }
    case pb::TensorProto::INT32: {  // widened: Kindling indexes with int64
      std::vector<std::int64_t> v(static_cast<std::size_t>(n));
      if (t.has_raw_data()) {
        for (std::int64_t i = 0; i < n; ++i) { std::int32_t x; std::memcpy(&x, raw.data() + 4 * i, 4); v[i] = x; }
      } else { std::copy(t.int32_data().begin(), t.int32_data().end(), v.begin()); }
      return kindling::tensor(v, shape);
    }
    case pb::TensorProto::BOOL:
    case pb::TensorProto::UINT8:
    case pb::TensorProto::FLOAT16:
    case pb::TensorProto::BFLOAT16: {
      // Stored one per byte (bool, uint8) or as 16-bit patterns (float16, bfloat16), in raw_data or
      // widened into int32_data.
      const bool wide = t.data_type() == pb::TensorProto::FLOAT16 || t.data_type() == pb::TensorProto::BFLOAT16;
      std::vector<std::int64_t> bits(static_cast<std::size_t>(n));
      if (t.has_raw_data()) {
        for (std::int64_t i = 0; i < n; ++i) {
          if (wide) { std::uint16_t h; std::memcpy(&h, raw.data() + 2 * i, 2); bits[i] = h; }
          else bits[i] = static_cast<unsigned char>(raw[static_cast<std::size_t>(i)]);
        }
      } else {
        std::copy(t.int32_data().begin(), t.int32_data().end(), bits.begin());
      }
      if (!wide) return kindling::tensor(bits, shape).to(t.data_type() == pb::TensorProto::BOOL ? kBool : kUInt8);
      std::vector<float> v(bits.size());
      for (std::size_t i = 0; i < v.size(); ++i) {
        const auto b = static_cast<std::uint16_t>(bits[i]);
        v[i] = t.data_type() == pb::TensorProto::FLOAT16 ? kindling::detail::half_bits_to_float(b)
                                                           : kindling::detail::bfloat16_bits_to_float(b);
      }
      return kindling::tensor(v, shape).to(t.data_type() == pb::TensorProto::FLOAT16 ? kFloat16 : kBFloat16);
    }
    default:
      fail("tensor '" + t.name() + "': field data_type " + std::to_string(t.data_type()) + " is not supported");
  }
}

OnnxModule::OnnxModule(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
OnnxModule::~OnnxModule() = default;
const std::vector<std::string>& OnnxModule::input_names() const { return impl_->inputs; }
const std::vector<std::string>& OnnxModule::output_names() const { return impl_->outputs; }

Tensor OnnxModule::forward(const Tensor& input) { return forward_all({input}).at(0); }

std::vector<Tensor> OnnxModule::forward_all(const std::vector<Tensor>& inputs) {
  if (inputs.size() != impl_->inputs.size())
    fail("forward: the graph takes " + std::to_string(impl_->inputs.size()) + " inputs, got " + std::to_string(inputs.size()));
  std::map<std::string, Tensor> env = impl_->initializers;
  for (std::size_t i = 0; i < inputs.size(); ++i) env[impl_->inputs[i]] = inputs[i];
  for (const auto& node : impl_->model.graph().node()) {
    std::vector<Tensor> in;
    for (const auto& name : node.input()) {
      if (name.empty()) { in.emplace_back(); continue; }  // an omitted optional input
      auto it = env.find(name);
      if (it == env.end()) fail(node_label(node) + ": input '" + name + "' is produced by no earlier node");
      in.push_back(it->second);
    }
    std::vector<Tensor> out;
    try {
      out = impl_->run_node(node, in);
    } catch (const Error& e) {
      const std::string msg = e.what();
      if (msg.rfind("onnx: ", 0) == 0) throw;
      throw Error("onnx: " + node_label(node) + ": " + msg);  // a Kindling shape error, say, with its node
    }
    for (std::size_t i = 0; i < out.size() && i < static_cast<std::size_t>(node.output_size()); ++i)
      if (!node.output(static_cast<int>(i)).empty()) env[node.output(static_cast<int>(i))] = out[i];
  }
  std::vector<Tensor> result;
  for (const auto& name : impl_->outputs) {
    auto it = env.find(name);
    if (it == env.end()) fail("graph output '" + name + "' is produced by no node");
    result.push_back(it->second);
  }
  return result;
}

namespace {
void parse_file(const std::filesystem::path& path, google::protobuf::MessageLite& msg, const char* what) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("cannot open " + path.string());
  std::ostringstream ss;
  ss << f.rdbuf();
  const std::string bytes = ss.str();
  // ParseFromString refuses truncated or malformed wire data (and stays within the buffer).
  if (!msg.ParseFromString(bytes))
    fail(path.string() + ": not a valid " + what + " protobuf (truncated or malformed, " + std::to_string(bytes.size()) + " bytes)");
}
}  // namespace

Tensor load_tensor(const std::filesystem::path& path) {
  pb::TensorProto t;
  parse_file(path, t, "TensorProto");
  return tensor_from_proto(t, path.parent_path());
}

std::shared_ptr<OnnxModule> load(const std::filesystem::path& path) {
  auto impl = std::make_shared<OnnxModule::Impl>();
  parse_file(path, impl->model, "ModelProto");
  const auto& model = impl->model;
  if (!model.has_graph()) fail(path.string() + ": field graph is missing");
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") impl->opset = o.version();
  if (impl->opset == 0) fail(path.string() + ": field opset_import: a model without the default domain (ai.onnx) is not supported");
  const auto& g = model.graph();
  for (const auto& node : g.node()) {
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      fail(node_label(node) + ": field domain '" + node.domain() + "' is not supported");
    if (!supported_ops().count(node.op_type())) fail(node_label(node) + ": op_type is not supported");
    for (const auto& at : node.attribute())
      if (at.type() == pb::AttributeProto::GRAPH || at.type() == pb::AttributeProto::GRAPHS)
        fail(node_label(node) + ": attribute " + at.name() + " holds a subgraph (not supported)");
  }
  const auto folder = path.parent_path();
  std::set<std::string> init_names;
  std::vector<std::pair<std::string, Tensor>> inits;
  for (const auto& t : g.initializer()) {
    init_names.insert(t.name());
    inits.emplace_back(t.name(), tensor_from_proto(t, folder));
  }
  // Graph inputs that are not initializers are the model's inputs (older exporters list both).
  for (const auto& vi : g.input()) {
    if (init_names.count(vi.name())) continue;
    if (vi.has_type() && !vi.type().has_tensor_type())
      fail("graph input '" + vi.name() + "': field type: sequences and optionals are not supported (only tensors)");
    impl->inputs.push_back(vi.name());
  }
  for (const auto& vi : g.output()) impl->outputs.push_back(vi.name());
  auto module = std::make_shared<OnnxModule>(impl);
  std::set<std::string> used;
  for (auto& [name, t] : inits) {
    // A dotted ONNX name ("fc1.weight") is kept readable with '_' (Module names have no dots).
    std::string reg = name.empty() ? std::string("initializer") : name;
    for (auto& c : reg) if (c == '.' || c == '/' || c == ':') c = '_';
    while (used.count(reg)) reg += "_";
    used.insert(reg);
    Tensor handle = t.dtype() == kFloat32 ? module->register_parameter(reg, t) : module->register_buffer(reg, t);
    impl->initializers[name] = handle;
  }
  return module;
}

}  // namespace kindling::onnx
