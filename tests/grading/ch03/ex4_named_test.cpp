// ch03.ex4 — Module::named_modules, named_parameters and named_buffers, against torch.nn's walk.
#include "ch03_grading.hpp"

using namespace ch03_grading;

TEST_CASE("named_parameters: SimpleNet's dotted names", "[ch03][ex4][pts=3]") {
  SimpleNet m;
  grading::expect("names", names(m.named_parameters()));
  grading::expect("count", m.num_parameters());
}

TEST_CASE("named_parameters: own first, then the children, depth first; buffers apart", "[ch03][ex4][pts=4]") {
  Net m;
  grading::expect("named_parameters", names(m.named_parameters()));
  grading::expect("named_buffers", names(m.named_buffers()));
  grading::expect("named_modules", names(m.named_modules()));
}

TEST_CASE("named_parameters: a prefix, and recurse = false", "[ch03][ex4][pts=3]") {
  Net m;
  grading::expect("named_parameters(\"model\")", names(m.named_parameters("model")));
  grading::expect("recurse = false", names(m.named_parameters("", false)));
  grading::expect("named_buffers(\"\", false)", names(m.named_buffers("", false)));
  grading::expect("named_modules(\"net\")", names(m.named_modules("net")));
}

TEST_CASE("named_parameters: a shared layer is listed once", "[ch03][ex4][pts=3]") {
  Shared m;
  grading::expect("named_parameters", names(m.named_parameters()));
  grading::expect("named_modules", names(m.named_modules()));
  grading::expect("parameters().size()", static_cast<std::int64_t>(m.parameters().size()));
}

TEST_CASE("named_parameters: state_dict() and parameters() follow the walk", "[ch03][ex4][pts=2]") {
  Net m;
  grading::expect("state_dict keys", m.state_dict().keys());
  grading::expect("number of parameters", static_cast<std::int64_t>(m.parameters().size()));
}
