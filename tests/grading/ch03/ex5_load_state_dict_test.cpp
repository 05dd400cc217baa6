// ch03.ex5 — Module::load_state_dict, against torch.nn.Module.load_state_dict.
#include "ch03_grading.hpp"

using namespace ch03_grading;

TEST_CASE("load_state_dict: values copied by name", "[ch03][ex5][pts=4]") {
  Two m;
  const kd::Tensor weight_before = m.fc1.weight;
  m.load_state_dict(two_state_dict());
  grading::expect("model(x) after loading", m(grading::input("x")).detach());
  grading::expect("fc2.bias after loading", m.fc2.bias.detach());
  CHECK(m.fc1.weight.is_same(weight_before));  // copied into the module's own tensor
}

TEST_CASE("load_state_dict: strict = false returns the missing and unexpected keys", "[ch03][ex5][pts=4]") {
  kd::StateDict sd = two_state_dict();
  sd.erase("fc2.bias");
  sd.insert("extra.weight", grading::input("extra"));
  Two m;
  const auto r = m.load_state_dict(sd, /*strict=*/false);
  grading::expect("missing_keys", r.missing_keys);
  grading::expect("unexpected_keys", r.unexpected_keys);
}

TEST_CASE("load_state_dict: strict errors name the keys", "[ch03][ex5][pts=3]") {
  kd::StateDict sd = two_state_dict();
  sd.erase("fc2.bias");
  sd.insert("extra.weight", grading::input("extra"));
  Two m;
  grading::expect_error("missing fc2.bias, unexpected extra.weight", [&] { m.load_state_dict(sd); });
}

TEST_CASE("load_state_dict: a shape mismatch is refused and nothing is copied", "[ch03][ex5][pts=2]") {
  kd::StateDict sd = two_state_dict();
  sd.insert("fc1.weight", sd.at("fc1.weight").t().contiguous());  // [4, 3] for [3, 4]
  Two m;
  const kd::Tensor before = m.fc2.bias.detach().clone();
  grading::expect_error("fc1.weight [4, 3] for [3, 4]", [&] { m.load_state_dict(sd); });
  grading::expect_error("with strict = false too", [&] { m.load_state_dict(sd, false); });
  INFO("nothing may be copied when anything is wrong");
  CHECK(kd::equal(m.fc2.bias, before));
}

TEST_CASE("load_state_dict: float64 values into a float32 model", "[ch03][ex5][pts=2]") {
  Two m;
  m.load_state_dict(two_state_dict());
  grading::expect("fc1.weight after loading", m.fc1.weight.detach());
  grading::expect("model(x)", m(grading::input("x")).detach());
}
