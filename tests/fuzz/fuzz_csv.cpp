// CsvDataset on arbitrary text, with class labels (int64) and with regression targets (float32),
// non-finite features refused; every accepted sample is read.
#include <kindling/data.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = kdfuzz::write_input(data, size, ".csv");
  namespace kdd = kindling::data;
  for (auto dtype : {kindling::kInt64, kindling::kFloat32}) {
    kdfuzz::run([&] {
      kdd::CsvDataset ds(path, {.label_dtype = dtype, .non_finite = kdd::NonFinite::Error});
      for (std::int64_t i = 0; i < ds.size(); ++i) {
        auto ex = ds.get(i);
        (void)ex.data.sum().item<double>();
        (void)ex.target.item<double>();
      }
    });
  }
  return 0;
}
