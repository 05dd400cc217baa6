// ch03.ex4 — collect_named_parameters and count_parameters, compared with the library's walk of the
// same module trees.
#include "ch03_grading.hpp"

using namespace ch03_grading;

namespace {
struct SimpleNet : nn::Module {
  nn::Linear fc1{784, 128};
  nn::ReLU relu;
  nn::Linear fc2{128, 10};
  SimpleNet() { register_module("fc1", fc1); register_module("relu", relu); register_module("fc2", fc2); }
};

// Own parameters *and* children, a BatchNorm (buffers are not parameters) and a nested Sequential.
struct Mixed : nn::Module {
  kd::Tensor scale;
  nn::Sequential encoder{nn::Linear(8, 6), nn::BatchNorm1d(6), nn::ReLU(), nn::Linear(6, 4)};
  nn::LayerNorm norm{{4}};
  kd::Tensor offset;
  Mixed() {
    scale = register_parameter("scale", kd::ones({8}));
    register_module("encoder", encoder);
    register_module("norm", norm);
    offset = register_parameter("offset", kd::zeros({4}));  // registered after the children
  }
};

// One layer used in two places (weight tying): listed once, under its first name.
struct Tied : nn::Module {
  std::shared_ptr<nn::Linear> shared = std::make_shared<nn::Linear>(5, 5);
  nn::Sequential stack;
  Tied() {
    register_module("first", shared);
    stack.push_back(nn::Linear(5, 5));
    stack.push_back(shared);
    register_module("stack", stack);
    register_module("again", shared);
  }
};

void check_same_walk(const nn::Module& m, const std::string& prefix = "") {
  const Named got = ex::collect_named_parameters(m, prefix);
  const Named expected = m.named_parameters(prefix);
  INFO("prefix \"" << prefix << "\"\n got      " << list_str(names_of(got)) << "\n expected "
                   << list_str(names_of(expected)));
  REQUIRE(names_of(got) == names_of(expected));
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO(got[i].first << " must be the module's own tensor, not a copy");
    CHECK(got[i].second.is_same(expected[i].second));
  }
}
}  // namespace

TEST_CASE("ch03.ex4: SimpleNet's parameters with dotted names", "[ch03][ex4][pts=3]") {
  SimpleNet net;
  check_same_walk(net);
  check_same_walk(net.fc1);  // a leaf layer alone
}

TEST_CASE("ch03.ex4: own parameters first, then children depth first; buffers are not parameters", "[ch03][ex4][pts=4]") {
  Mixed m;
  check_same_walk(m);
}

TEST_CASE("ch03.ex4: a prefix is prepended with a dot", "[ch03][ex4][pts=2]") {
  Mixed m;
  check_same_walk(m, "model");
  SimpleNet net;
  check_same_walk(net, "net");
}

TEST_CASE("ch03.ex4: a shared layer is listed once", "[ch03][ex4][pts=3]") {
  Tied t;
  check_same_walk(t);
}

TEST_CASE("ch03.ex4: count_parameters, all and trainable only", "[ch03][ex4][pts=3]") {
  SimpleNet net;
  CHECK(ex::count_parameters(net) == net.num_parameters());
  Mixed m;
  m.scale.requires_grad_(false);  // frozen
  m.encoder.at<nn::Linear>(0).weight.requires_grad_(false);
  CHECK(ex::count_parameters(m) == m.num_parameters());
  CHECK(ex::count_parameters(m, true) == m.num_parameters(true));
  Tied t;
  CHECK(ex::count_parameters(t) == t.num_parameters());
}
