// read_idx on arbitrary bytes (plain, and gzip when the input starts with gzip's magic).
#include <kindling/data.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = kdfuzz::write_input(data, size, ".idx");
  return kdfuzz::run([&] {
    kindling::Tensor t = kindling::data::read_idx(path);
    if (t.numel() > 0) (void)t.to(kindling::kInt64).sum().item<std::int64_t>();
  });
}
