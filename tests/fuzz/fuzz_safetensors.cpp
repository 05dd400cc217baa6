// kd::load / kd::load_metadata on arbitrary bytes; every accepted tensor is read end to end.
#include <kindling/nn.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = kdfuzz::write_input(data, size, ".safetensors");
  return kdfuzz::run([&] {
    (void)kindling::load_metadata(path);
    for (const auto& [name, t] : kindling::load(path)) {
      if (t.numel() > 0) (void)t.to(kindling::kFloat64).sum().item<double>();
    }
  });
}
