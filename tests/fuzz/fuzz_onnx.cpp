// kd::onnx::load on arbitrary bytes; a model that loads is run once, every input a [1, 2, 3, 3] tensor
// of ones, so the op code meets whatever attributes and initializers the bytes hold. A refusal must
// be a kindling::Error naming the node or tensor; anything else is a finding (fuzz_common.hpp).
#include <kindling/jit.hpp>
#include <kindling/tensor.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = kdfuzz::write_input(data, size, ".onnx");
  return kdfuzz::run([&] {
    auto model = kindling::onnx::load(path);
    std::vector<kindling::Tensor> inputs(model->input_names().size(), kindling::ones({1, 2, 3, 3}));
    for (const kindling::Tensor& out : model->forward_all(inputs)) {
      if (out.defined() && out.numel() > 0) (void)out.to(kindling::kFloat64).sum().item<double>();
    }
  });
}
