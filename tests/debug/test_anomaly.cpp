// Anomaly mode names the backward node, the forward op and the line that made it; off, it records
// nothing.
#include <catch2/catch.hpp>
#include <kindling/kindling.hpp>

#include <cmath>
#include <memory>
#include <string>

namespace kd = kindling;
using kd::Tensor;

namespace {
struct LogNet : kd::nn::Module {
  kd::nn::Linear fc{3, 2};
  LogNet() { register_module("fc", fc); }
  Tensor forward(const Tensor& x) override { return (fc(x) * 0.0).log(); }  // log(0) = -inf
};
}  // namespace

TEST_CASE("anomaly: a NaN made in backward names the node, the op and the caller's line") {
  kd::manual_seed(0);
  LogNet net;
  Tensor x = kd::ones({4, 3});  // log's gradient 1/0 = inf
  kd::autograd::detect_anomaly guard;
  const int line = __LINE__ + 1;
  Tensor loss = net(x).sum();
  try {
    loss.backward();
    FAIL("no anomaly raised");
  } catch (const kd::autograd::AnomalyError& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("LogBackward0") != std::string::npos);
    CHECK(msg.find("forward op was log") != std::string::npos);
    CHECK(msg.find("LogNet") != std::string::npos);
    CHECK(msg.find("test_anomaly.cpp:" + std::to_string(line)) != std::string::npos);
  }
}

TEST_CASE("anomaly: the innermost module call is named with the line inside forward") {
  struct Inner : kd::nn::Module {
    Tensor forward(const Tensor& x) override { return x.log(); }
    std::string type_name() const override { return "Inner"; }
  };
  struct Outer : kd::nn::Module {
    Inner inner;
    int line = 0;
    Outer() { register_module("inner", inner); }
    Tensor forward(const Tensor& x) override {
      line = __LINE__ + 1;
      return inner(x * 1.0);
    }
    std::string type_name() const override { return "Outer"; }
  };
  Outer net;
  Tensor x = kd::tensor(std::vector<float>{0.f, 1.f}, {2}).requires_grad_();
  kd::autograd::DetectAnomalyGuard guard;
  Tensor y = net(x).sum();
  try {
    y.backward();
    FAIL("no anomaly raised");
  } catch (const kd::autograd::AnomalyError& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("Outer > Inner") != std::string::npos);
    CHECK(msg.find(":" + std::to_string(net.line)) != std::string::npos);
  }
}

TEST_CASE("anomaly: off, the same backward runs and leaves inf and NaN in the gradients") {
  REQUIRE_FALSE(kd::autograd::is_anomaly_enabled());
  Tensor x = kd::tensor(std::vector<float>{0.f, 1.f}, {2}).requires_grad_();
  Tensor y = x.log().sum();
  CHECK(y.grad_fn()->hooks() == nullptr);  // no trace recorded when the mode is off
  y.backward();
  CHECK(std::isinf(x.grad().to_vector<float>()[0]));
}

TEST_CASE("anomaly: the guard restores the previous state, set_detect_anomaly switches it") {
  CHECK_FALSE(kd::autograd::is_anomaly_enabled());
  {
    kd::autograd::DetectAnomalyGuard guard;
    CHECK(kd::autograd::is_anomaly_enabled());
  }
  CHECK_FALSE(kd::autograd::is_anomaly_enabled());
  kd::autograd::set_detect_anomaly(true);
  CHECK(kd::autograd::is_anomaly_enabled());
  kd::autograd::set_detect_anomaly(false);
  CHECK_FALSE(kd::autograd::is_anomaly_enabled());
}

TEST_CASE("anomaly: guards that end out of order leave the mode as it was before the first") {
  REQUIRE_FALSE(kd::autograd::is_anomaly_enabled());
  // Held by unique_ptr (members, say): the older guard ends first. Each guard restoring its own
  // saved state left the mode on after both had ended.
  auto outer = std::make_unique<kd::autograd::DetectAnomalyGuard>(kd::autograd::AnomalyOptions{});
  auto inner = std::make_unique<kd::autograd::DetectAnomalyGuard>(
      kd::autograd::AnomalyOptions{.check_forward = true});
  outer.reset();
  CHECK(kd::autograd::is_anomaly_enabled());  // the younger guard is still alive
  inner.reset();
  CHECK_FALSE(kd::autograd::is_anomaly_enabled());
  // Three, the middle one first, then the oldest, then the youngest.
  auto a = std::make_unique<kd::autograd::DetectAnomalyGuard>();
  auto b = std::make_unique<kd::autograd::DetectAnomalyGuard>();
  auto c = std::make_unique<kd::autograd::DetectAnomalyGuard>();
  b.reset();
  a.reset();
  CHECK(kd::autograd::is_anomaly_enabled());
  c.reset();
  CHECK_FALSE(kd::autograd::is_anomaly_enabled());
}

TEST_CASE("anomaly: check_nan = false lets the NaN through, as PyTorch's check_nan=False") {
  Tensor x = kd::tensor(std::vector<float>{0.f, 1.f}, {2}).requires_grad_();
  kd::autograd::DetectAnomalyGuard guard({.check_nan = false});
  Tensor y = x.log().sum();
  CHECK_NOTHROW(y.backward());
}

TEST_CASE("anomaly: the forward check stops at the op that makes the first NaN") {
  kd::manual_seed(0);
  kd::nn::Linear fc(3, 2);
  Tensor x = kd::ones({2, 3});
  x.data_ptr<float>()[4] = std::nanf("");
  kd::autograd::DetectAnomalyGuard guard({.check_forward = true});
  try {
    (void)fc(x);
    FAIL("no anomaly raised");
  } catch (const kd::autograd::AnomalyError& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("anomaly (forward)") != std::string::npos);
    CHECK(msg.find("Linear") != std::string::npos);
  }
  // Without check_forward the same forward runs.
  kd::autograd::DetectAnomalyGuard plain;
  CHECK_NOTHROW(fc(x));
}

TEST_CASE("anomaly: an Inf gradient in float64 is caught too") {
  Tensor x = kd::tensor(std::vector<double>{0.0, 4.0}, {2}).requires_grad_();
  kd::autograd::DetectAnomalyGuard guard;
  Tensor y = x.sqrt().sum();
  CHECK_THROWS_AS(y.backward(), kd::autograd::AnomalyError);
}

TEST_CASE("anomaly: an op outside any module call names its own line (from the line tables)") {
  // test_debug is built with -g1, as the chapter programs are (tests/CMakeLists.txt).
  Tensor x = kd::tensor(std::vector<float>{0.f, 1.f}, {2}).requires_grad_();
  kd::autograd::DetectAnomalyGuard guard;
  Tensor p = x * 2.0;
  const int line = __LINE__ + 1;
  Tensor y = p.log().sum();
  try {
    y.backward();
    FAIL("no anomaly raised");
  } catch (const kd::autograd::AnomalyError& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("LogBackward0") != std::string::npos);
    CHECK(msg.find("outside any module call, at test_anomaly.cpp:" + std::to_string(line)) != std::string::npos);
  }
}

TEST_CASE("anomaly: without line tables, an op outside any module call names the line that turned the mode on") {
  // What str() falls back to when the stack cannot be read (a program built without -g).
  kd::autograd::CreationTrace trace;
  const int line = __LINE__ + 1;
  trace.enabled_at = kd::SourceLocation::current();
  trace.has_enabled_at = true;
  INFO(trace.str());
  CHECK(trace.str().find("below the line that turned anomaly mode on (test_anomaly.cpp:" + std::to_string(line) + ")") !=
        std::string::npos);
  trace.stack = {nullptr};  // an address no object holds: no line found, the same fallback
  CHECK(trace.str().find("below the line that turned anomaly mode on") != std::string::npos);
}
