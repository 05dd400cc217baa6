// load_npy on arbitrary bytes; an accepted file must be readable end to end.
#include <kindling/tensor.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = kdfuzz::write_input(data, size, ".npy");
  return kdfuzz::run([&] {
    kindling::Tensor t = kindling::load_npy(path);
    // Touch every element: a tensor larger than its storage would fault here (under ASan, report).
    if (t.numel() > 0) (void)t.to(kindling::kFloat64).sum().item<double>();
  });
}
