// Chapter 1 — type promotion: which dtype does a + b have? (PyTorch's torch.result_type
// rules)
#include <kindling/tensor.hpp>

#include <cstdio>
#include <iostream>

namespace kd = kindling;

int main() {
  // [snippet: promotion]
  kd::Tensor i = kd::tensor({1, 2, 3});        // int64 (integers in, like torch.tensor)
  kd::Tensor f = kd::tensor({0.5, 1.5, 2.5});  // float32
  kd::Tensor d = f.to(kd::kFloat64);
  kd::Tensor u = i.to(kd::kUInt8);
  kd::Tensor b = i > 1;  // bool
  // [end]
  const auto show = [](const char* expr, const kd::Tensor& t) {
    std::printf("  %-26s -> %s\n", expr, kd::dtype_name(t.dtype()));
  };
  std::cout << "type promotion:\n";
  show("int64 + float32", i + f);
  show("float32 + float64", f + d);
  show("uint8 + int64", u + i);
  show("bool + bool", b + b);
  show("bool + int64", b + i);
  show("int64 + 2 (integer)", i + 2);
  show("int64 + 2.5 (float)", i + 2.5);
  show("int64 / int64", i / i);
  show("float32 + 0-d float64", f + kd::scalar_tensor(1.0, {.dtype = kd::kFloat64}));
  show("uint8 + 300 (integer)", u + 300);
}
