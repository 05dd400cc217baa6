#pragma once
// The fuzzers' inputs, for the unit tests: every seed of corpus/<target>/ must load, and every input
// of regressions/<target>/ (the files that once crashed or fooled a loader) must be refused with a
// kindling::Error naming the file. (tests/fuzz/make_corpus.py writes both.)
#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <kindling/tensor/error.hpp>

namespace kdtest {

inline std::vector<std::string> fuzz_inputs(const std::string& kind, const std::string& target) {
  std::vector<std::string> out;
  const std::filesystem::path dir = std::filesystem::path(KINDLING_SOURCE_DIR) / "tests" / "fuzz" / kind / target;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// The message of the kindling::Error that `f` throws, or "no error".
inline std::string error_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const kindling::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace kdtest
