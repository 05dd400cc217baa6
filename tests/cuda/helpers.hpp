#pragma once
// test_cuda's shared helpers. How its cases skip: CTest runs every test case in its own process and
// counts exit code 77 as "skipped" (tests/CMakeLists.txt sets SKIP_RETURN_CODE for test_cuda).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kindling/cuda.hpp"
#include "kindling/nn.hpp"

namespace kindling::cuda::testing {

[[noreturn]] inline void skip(const std::string& why) {
  std::printf("SKIPPED: %s\n", why.c_str());
  std::fflush(stdout);
  std::_Exit(77);
}

/// A real device, or skip.
inline void need_gpu() {
  if (!is_available()) skip("no usable CUDA device: " + unavailable_reason());
}

/// The emulated cuda:0 (only where no real GPU is visible), or skip.
inline void need_emulated_device() {
  if (device_count() > 0) skip("a real GPU is visible: the emulated device is for machines without one");
  use_emulated_device();
}

/// A device to run on: the GPU where one is visible, else the emulated cuda:0. For tests whose
/// expectations hold on both (compared with the CPU, not with the emulator's own bits).
inline void use_any_device() {
  if (!is_available()) use_emulated_device();
}

/// Every element of `got` (on any device) within atol + rtol * |want| of `want`'s.
inline void require_close(const Tensor& got, const Tensor& want, double rtol, double atol) {
  const std::vector<float> a = got.cpu().contiguous().to_vector<float>();
  const std::vector<float> b = want.detach().cpu().contiguous().to_vector<float>();
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("element " << i << ": got " << a[i] << ", want " << b[i]);
    REQUIRE(std::abs(double(a[i]) - double(b[i])) <= atol + rtol * std::abs(double(b[i])));
  }
}

/// The seed's SimpleNet (Linear 784-128, ReLU, Linear 128-10), which the device tests train.
struct SimpleNet : nn::Module {
  nn::Linear fc1{784, 128};
  nn::ReLU relu;
  nn::Linear fc2{128, 10};
  SimpleNet() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
  }
  Tensor forward(const Tensor& x) override { return fc2(relu(fc1(x))); }  // x: [batch, 784]
};

}  // namespace kindling::cuda::testing
