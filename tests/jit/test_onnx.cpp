// kd::onnx::load on files that are not ONNX models: a clear kd::Error, never a crash.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "kindling/jit.hpp"

namespace kd = kindling;

namespace {
std::filesystem::path write_bytes(const std::string& name, const std::string& bytes) {
  auto p = std::filesystem::temp_directory_path() / name;
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}
}  // namespace

TEST_CASE("onnx::load refuses a missing file, garbage and a truncated protobuf with kd::Error") {
  CHECK_THROWS_WITH(kd::onnx::load("/nonexistent/model.onnx"), Catch::Contains("cannot open"));
  // 0x0a = field 1 (ir_version is field 1 as a varint: this declares a length-delimited field 1) of
  // length 0x7f with 2 bytes behind it: truncated.
  auto truncated = write_bytes("kd_onnx_truncated.onnx", std::string("\x0a\x7f\x01\x02", 4));
  CHECK_THROWS_WITH(kd::onnx::load(truncated), Catch::Contains("not a valid ModelProto"));
  // A valid empty message has no graph.
  auto empty = write_bytes("kd_onnx_empty.onnx", "");
  CHECK_THROWS_WITH(kd::onnx::load(empty), Catch::Contains("field graph is missing"));
  std::filesystem::remove(truncated);
  std::filesystem::remove(empty);
}

// Models built here with ONNX's generated classes (the test links libonnx_proto too).
#include <onnx/onnx_pb.h>

#include "kindling/autograd.hpp"

namespace {
std::filesystem::path save(const ::onnx::ModelProto& m, const std::string& name) {
  return write_bytes(name, m.SerializeAsString());
}
// y = Gemm(x, W, b) with W [3, 4] given transposed (transB = 1), as PyTorch exports Linear.
::onnx::ModelProto gemm_model() {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  g->add_input()->set_name("x");
  g->add_output()->set_name("y");
  auto* w = g->add_initializer();
  w->set_name("fc.weight");
  w->set_data_type(::onnx::TensorProto::FLOAT);
  w->add_dims(3); w->add_dims(4);
  for (int i = 0; i < 12; ++i) w->add_float_data(0.1f * static_cast<float>(i));
  auto* b = g->add_initializer();
  b->set_name("fc.bias");
  b->set_data_type(::onnx::TensorProto::FLOAT);
  b->add_dims(3);
  for (int i = 0; i < 3; ++i) b->add_float_data(1.0f);
  auto* n = g->add_node();
  n->set_name("fc");
  n->set_op_type("Gemm");
  n->add_input("x"); n->add_input("fc.weight"); n->add_input("fc.bias");
  n->add_output("y");
  auto* t = n->add_attribute();
  t->set_name("transB"); t->set_type(::onnx::AttributeProto::INT); t->set_i(1);
  return m;
}
}  // namespace

TEST_CASE("onnx::load: initializers are trainable parameters, any batch size runs") {
  auto path = save(gemm_model(), "kd_onnx_gemm.onnx");
  auto model = kd::onnx::load(path);
  CHECK(model->input_names() == std::vector<std::string>{"x"});
  CHECK(model->output_names() == std::vector<std::string>{"y"});
  auto params = model->named_parameters();
  REQUIRE(params.size() == 2);
  CHECK(params[0].first == "fc_weight");
  for (std::int64_t batch : {1, 5}) {
    auto x = kd::ones({batch, 4});
    auto y = (*model)(x);
    REQUIRE(y.shape() == kd::Shape{batch, 3});
    // Row 0 of W is 0, .1, .2, .3: 0.6 + bias 1.
    CHECK(y.data_ptr<float>()[0] == Approx(1.6f));
    y.sum().backward();
    // d(sum y)/dW[i][j] = sum over the batch of x[:, j] = batch (accumulated over both runs: 1 + 5).
  }
  CHECK(params[0].second.grad().data_ptr<float>()[0] == Approx(6.0f));
  std::filesystem::remove(path);
}

TEST_CASE("onnx::load: hostile models get errors naming the node or tensor and the field") {
  SECTION("unknown op") {
    auto m = gemm_model();
    m.mutable_graph()->mutable_node(0)->set_op_type("FancyOp");
    CHECK_THROWS_WITH(kd::onnx::load(save(m, "kd_onnx_h1.onnx")), Catch::Contains("node 'fc' (FancyOp): op_type is not supported"));
  }
  SECTION("huge declared sizes") {
    auto m = gemm_model();
    auto* w = m.mutable_graph()->mutable_initializer(0);
    w->set_dims(0, std::int64_t{1} << 30); w->set_dims(1, std::int64_t{1} << 30);
    CHECK_THROWS_WITH(kd::onnx::load(save(m, "kd_onnx_h2.onnx")), Catch::Contains("tensor 'fc.weight': field dims declares more than 2^40"));
  }
  SECTION("sizes within the limit but far beyond the data are refused before allocating them") {
    // 2^40 declared elements over the 12 values the file holds (found by fuzz_onnx: std::bad_alloc)
    auto m = gemm_model();
    auto* w = m.mutable_graph()->mutable_initializer(0);
    w->set_dims(0, std::int64_t{1} << 20); w->set_dims(1, std::int64_t{1} << 20);
    CHECK_THROWS_WITH(kd::onnx::load(save(m, "kd_onnx_h2b.onnx")),
                      Catch::Contains("tensor 'fc.weight': field float_data holds 12 values for 1099511627776 elements"));
  }
  SECTION("data that does not match its dims") {
    auto m = gemm_model();
    m.mutable_graph()->mutable_initializer(0)->set_dims(0, 4);
    CHECK_THROWS_WITH(kd::onnx::load(save(m, "kd_onnx_h3.onnx")), Catch::Contains("field float_data holds 12 values for 16 elements"));
  }
  SECTION("external data paths (outside the model's folder, or anywhere) are refused") {
    auto m = gemm_model();
    auto* w = m.mutable_graph()->mutable_initializer(0);
    w->clear_float_data();
    w->set_data_location(::onnx::TensorProto::EXTERNAL);
    auto* e = w->add_external_data();
    e->set_key("location"); e->set_value("../../etc/passwd");
    CHECK_THROWS_WITH(kd::onnx::load(save(m, "kd_onnx_h4.onnx")), Catch::Contains("tensor 'fc.weight': field external_data"));
  }
  SECTION("wrong shapes name the node") {
    auto model = kd::onnx::load(save(gemm_model(), "kd_onnx_h5.onnx"));
    CHECK_THROWS_WITH((*model)(kd::ones({2, 3, 4})), Catch::Contains("node 'fc' (Gemm): input A has rank 3"));
    CHECK_THROWS_WITH((*model)(kd::ones({2, 5})), Catch::Contains("node 'fc' (Gemm)"));
  }
  SECTION("a node asked to make a huge tensor names itself instead of allocating it") {
    // y = ConstantOfShape(x): x holds the sizes, [65536, 65536, 65536] here (2^48 elements).
    ::onnx::ModelProto m;
    m.set_ir_version(8);
    m.add_opset_import()->set_version(13);
    auto* g = m.mutable_graph();
    g->set_name("g");
    g->add_input()->set_name("x");
    g->add_output()->set_name("y");
    auto* n = g->add_node();
    n->set_name("fill");
    n->set_op_type("ConstantOfShape");
    n->add_input("x");
    n->add_output("y");
    auto model = kd::onnx::load(save(m, "kd_onnx_h7.onnx"));
    const kd::Tensor sizes = kd::full({3}, std::int64_t{65536});
    CHECK_THROWS_WITH((*model)(sizes), Catch::Contains("node 'fill' (ConstantOfShape): the output would hold"));
    // and Tile's repeats multiply the same way: [1, 1] repeated [2^20, 2^20] times
    n->set_op_type("Tile");
    n->add_input("reps");
    auto* reps = g->add_initializer();
    reps->set_name("reps");
    reps->set_data_type(::onnx::TensorProto::INT64);
    reps->add_dims(2);
    reps->add_int64_data(1 << 20);
    reps->add_int64_data(1 << 20);
    auto tiled = kd::onnx::load(save(m, "kd_onnx_h8.onnx"));
    CHECK_THROWS_WITH((*tiled)(kd::ones({1, 1})), Catch::Contains("node 'fill' (Tile): the output would hold"));
  }
  SECTION("an input no node produces") {
    auto m = gemm_model();
    m.mutable_graph()->mutable_node(0)->set_input(0, "nowhere");
    auto model = kd::onnx::load(save(m, "kd_onnx_h6.onnx"));
    CHECK_THROWS_WITH((*model)(kd::ones({2, 4})), Catch::Contains("input 'nowhere' is produced by no earlier node"));
  }
}

// ---- kd::onnx::export_model: what it refuses, and what it leaves as it found it -----------------------
#include <functional>
#include <set>

#include "kindling/nn.hpp"

namespace {
namespace nn = kd::nn;

/// A model whose forward runs `body` between two Linear layers.
struct Between : nn::Module {
  nn::Linear a{4, 6}, b{6, 3};
  nn::Dropout drop{0.5};
  std::function<kd::Tensor(Between&, const kd::Tensor&)> body;
  explicit Between(std::function<kd::Tensor(Between&, const kd::Tensor&)> f) : body(std::move(f)) {
    register_module("a", a);
    register_module("drop", drop);
    register_module("b", b);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return b(body(*this, drop(a(x)))); }
};

::onnx::ModelProto read_model(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  ::onnx::ModelProto m;
  REQUIRE(m.ParseFromIstream(&in));
  return m;
}
}  // namespace

TEST_CASE("onnx::export_model writes state_dict names, eval semantics and a symbolic batch") {
  Between model([](Between&, const kd::Tensor& h) { return h.relu() * 2.0; });
  model.train();
  const auto path = std::filesystem::temp_directory_path() / "kd_export_names.onnx";
  kd::onnx::export_model(model, kd::randn({5, 4}), path, {.input_name = "x", .output_name = "logits"});
  CHECK(model.is_training());  // the trace ran in eval(); the mode is back
  CHECK(model.drop.is_training());
  const auto m = read_model(path);
  CHECK(m.opset_import(0).version() == 17);
  std::set<std::string> inits;
  for (const auto& t : m.graph().initializer()) inits.insert(t.name());
  for (const char* key : {"a.weight", "a.bias", "b.weight", "b.bias"}) CHECK(inits.count(key) == 1);
  std::vector<std::string> ops;
  for (const auto& n : m.graph().node()) ops.push_back(n.op_type());
  // Dropout in eval() is no node at all; 2.0 is a constant of the trace
  CHECK(ops == std::vector<std::string>{"Gemm", "Relu", "Mul", "Gemm", "Identity"});
  REQUIRE(m.graph().input_size() == 1);
  CHECK(m.graph().input(0).name() == "x");
  CHECK(m.graph().input(0).type().tensor_type().shape().dim(0).dim_param() == "batch");
  CHECK(m.graph().output(0).name() == "logits");
  // and the file runs: imported, at another batch size, in eval() as exported
  model.eval();
  auto imported = kd::onnx::load(path);
  const kd::Tensor x = kd::randn({7, 4});
  kd::NoGradGuard no_grad;
  CHECK(kd::allclose((*imported)(x), model(x), 1e-5, 1e-6));
  std::filesystem::remove(path);
}

TEST_CASE("onnx::export_model traces the same graph inside a NoGradGuard (as torch.onnx.export under no_grad)") {
  // The trace follows requires_grad; with grad mode off every op between the layers would read as a
  // constant and be frozen into an initializer holding the example's values.
  Between model([](Between&, const kd::Tensor& h) { return h.relu() * 2.0 + 1.0; });
  const auto path = std::filesystem::temp_directory_path() / "kd_export_no_grad.onnx";
  {
    kd::NoGradGuard no_grad;
    kd::onnx::export_model(model, kd::randn({5, 4}), path);
    CHECK_FALSE(kd::detail::grad_mode_enabled());  // and the caller's mode is back
  }
  const auto m = read_model(path);
  std::vector<std::string> ops;
  for (const auto& n : m.graph().node()) ops.push_back(n.op_type());
  CHECK(ops == std::vector<std::string>{"Gemm", "Relu", "Mul", "Add", "Gemm", "Identity"});
  CHECK(m.graph().initializer_size() == 6);  // 4 parameters, 2.0 and 1.0: no frozen activation
  model.eval();
  auto imported = kd::onnx::load(path);
  const kd::Tensor x = kd::randn({3, 4});
  kd::NoGradGuard no_grad;
  CHECK(kd::allclose((*imported)(x), model(x), 1e-5, 1e-6));  // the output depends on the input
  std::filesystem::remove(path);
}

TEST_CASE("onnx::export_model names what it cannot export and leaves autograd, the model and the file alone") {
  const auto path = std::filesystem::temp_directory_path() / "kd_export_refused.onnx";
  std::filesystem::remove(path);
  const kd::Tensor x = kd::randn({2, 4});
  SECTION("a tensor op without a mapping") {
    Between model([](Between&, const kd::Tensor& h) { return h.cumsum(1); });
    CHECK_THROWS_WITH(kd::onnx::export_model(model, x, path), Catch::Contains("op 'cumsum'") &&
                                                                 Catch::Contains("has no ONNX mapping"));
  }
  SECTION("a functional layer whose settings the exporter cannot read") {
    struct Functional : nn::Module {
      kd::Tensor w;
      Functional() { w = register_parameter("w", kd::randn({4, 3, 3, 3})); }
      kd::Tensor forward(const kd::Tensor& img) override { return nn::functional::conv2d(img, w); }
    } model;
    CHECK_THROWS_WITH(kd::onnx::export_model(model, kd::randn({1, 3, 8, 8}), path),
                      Catch::Contains("ConvolutionBackward0") && Catch::Contains("as a module"));
  }
  SECTION("an opset outside 13..17, and LayerNorm below 17") {
    Between model([](Between&, const kd::Tensor& h) { return h; });
    CHECK_THROWS_WITH(kd::onnx::export_model(model, x, path, {.opset = 12}), Catch::Contains("opset 12"));
    nn::LayerNorm norm(kd::Shape{4});
    CHECK_THROWS_WITH(kd::onnx::export_model(norm, x, path, {.opset = 16}), Catch::Contains("opset 17"));
  }
  SECTION("an export started inside a traced forward (it would otherwise wait for itself)") {
    struct Nested : nn::Module {
      nn::Linear inner{4, 4};
      std::filesystem::path where;
      kd::Tensor forward(const kd::Tensor& h) override {
        kd::onnx::export_model(inner, h, where);
        return h;
      }
    } model;
    model.where = path;
    CHECK_THROWS_WITH(kd::onnx::export_model(model, x, path), Catch::Contains("another export traces on this thread"));
  }
  SECTION("undefined and same-name arguments") {
    Between model([](Between&, const kd::Tensor& h) { return h; });
    CHECK_THROWS_WITH(kd::onnx::export_model(model, kd::Tensor(), path), Catch::Contains("undefined"));
    CHECK_THROWS_WITH(kd::onnx::export_model(model, x, path, {.input_name = "t", .output_name = "t"}),
                      Catch::Contains("two different"));
  }
  CHECK_FALSE(std::filesystem::exists(path));  // nothing half-written
  // the recorder and the Function observer are autograd's again: a backward works as before
  CHECK(kd::autograd::function_observer() == nullptr);
  nn::Linear lin(4, 2);
  lin.train();
  lin(x).sum().backward();
  CHECK(lin.weight.grad().defined());
}
