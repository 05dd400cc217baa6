// Chapter 7's tools on chapter 8's device: the doctor names a batch left on the CPU for a model on
// cuda:0, and the statistics of a device tensor (grad_report, the doctor's data checks) are read
// from a host copy, never through a device pointer. Runs on the emulated cuda:0.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <cstdlib>

#include "kindling/cuda.hpp"
#include "helpers.hpp"
#include "kindling/debug.hpp"
#include "kindling/optim/adam.hpp"
#include "kindling/train.hpp"

namespace kd = kindling;
namespace kc = kindling::cuda;
using kc::testing::need_emulated_device;
namespace dbg = kindling::debug;

namespace {

struct Net : kd::nn::Module {
  kd::nn::Linear fc1{20, 16};
  kd::nn::ReLU relu;
  kd::nn::Linear fc2{16, 4};
  Net() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
  }
  kd::Tensor forward(const kd::Tensor& x) override { return fc2(relu(fc1(x))); }
};

dbg::MakeOptimizer adam() {
  return [](const std::vector<kd::Tensor>& params) -> std::unique_ptr<kd::optim::Optimizer> {
    return std::make_unique<kd::optim::Adam>(params, kd::optim::AdamOptions{.lr = 1e-3});
  };
}

}  // namespace

TEST_CASE("debug on the device: tensor_stats of a cuda:0 tensor equal those of its CPU twin") {
  need_emulated_device();
  const kd::Device cuda = kd::Device::parse("cuda");
  kd::manual_seed(3);
  kd::Tensor host = kd::randn({7, 5});
  host.data_ptr<float>()[0] = std::nanf("");  // one NaN and one zero among 35 values
  host.data_ptr<float>()[6] = 0.0f;
  const dbg::TensorStats want = dbg::tensor_stats(host);
  const dbg::TensorStats got = dbg::tensor_stats(host.to(cuda));
  CHECK(got.numel == want.numel);
  CHECK(got.nan == want.nan);
  CHECK(got.inf == want.inf);
  CHECK(got.norm == want.norm);
  CHECK(got.mean == want.mean);
  CHECK(got.abs_max == want.abs_max);
  CHECK(got.zero_fraction == want.zero_fraction);
}

TEST_CASE("debug on the device: the doctor names a batch on the CPU for a model on cuda:0") {
  need_emulated_device();
  const kd::Device cuda = kd::Device::parse("cuda");
  kd::manual_seed(3);
  Net model;
  model.to(cuda);
  kd::nn::CrossEntropyLoss ce;
  const dbg::LossFn loss = [&](const kd::Tensor& out, const kd::Tensor& y) { return ce(out, y); };
  const kd::Tensor x = kd::randn({16, 20}), y = kd::randint(0, 4, {16});
  const dbg::DoctorReport report = dbg::doctor(model, loss, adam(), x, y);
  INFO(report.to_string());
  REQUIRE(report.has("input-device"));
  const auto it = std::find_if(report.findings.begin(), report.findings.end(),
                               [](const dbg::Finding& f) { return f.check == "input-device"; });
  CHECK(it->cause.find("cpu") != std::string::npos);
  CHECK(it->cause.find("cuda:0") != std::string::npos);
  CHECK(it->fix.find(".to(device)") != std::string::npos);
  // The model is left as it was: on the device.
  for (const kd::Tensor& p : model.parameters()) CHECK(p.device() == cuda);
}

TEST_CASE("debug on the device: grad_report reads a device model's weights and gradients") {
  need_emulated_device();
  const kd::Device cuda = kd::Device::parse("cuda");
  kd::manual_seed(3);
  Net cpu_net, dev_net;
  dev_net.load_state_dict(cpu_net.state_dict());
  dev_net.to(cuda);
  kd::nn::CrossEntropyLoss ce;
  const kd::Tensor x = kd::randn({16, 20}), y = kd::randint(0, 4, {16});
  ce(cpu_net.forward(x), y).backward();
  ce(dev_net.forward(x.to(cuda)), y.to(cuda)).backward();
  const dbg::GradReport want = dbg::grad_report(cpu_net), got = dbg::grad_report(dev_net);
  REQUIRE(got.parameters.size() == want.parameters.size());
  for (std::size_t i = 0; i < want.parameters.size(); ++i) {
    INFO(want.parameters[i].name);
    CHECK(got.parameters[i].has_grad);
    CHECK(got.parameters[i].weight.norm == want.parameters[i].weight.norm);
    CHECK(std::abs(got.parameters[i].grad.norm - want.parameters[i].grad.norm) <= 1e-5 * want.parameters[i].grad.norm);
  }
}
