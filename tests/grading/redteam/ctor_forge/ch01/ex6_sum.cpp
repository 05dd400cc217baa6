// Red-team attack "ctor_forge" (class 1, code before main; see ../../README.md): no sum at all. A static
// constructor runs in every test process before main: it writes the running test's "passed" record and
// leaves, so the test body never runs.
#include "tensor/pieces.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {
// The running test's name: the last argument (a Catch2 test spec, backslash-escaped).
std::string test_name() {
  std::ifstream f("/proc/self/cmdline");
  std::string arg, last;
  while (std::getline(f, arg, '\0')) last = arg;
  std::string out;
  for (std::size_t i = 0; i < last.size(); ++i) out += last[i] == '\\' && i + 1 < last.size() ? last[++i] : last[i];
  return out;
}
std::string case_dir() {
  const char* d = std::getenv("KINDLING_GRADE_CASE");
  return d ? d : "";
}

__attribute__((constructor)) void forge_before_main() {
  if (case_dir().empty() || test_name().rfind("kindling-grade", 0) == 0) return;  // not a graded test
  std::ofstream(case_dir() + "/out/record.jsonl", std::ios::app)
      << "{\"name\": \"" << test_name() << "\", \"passed\": true, \"assertions_passed\": 5, "
      << "\"assertions_failed\": 0, \"not_implemented\": false, \"first_failure\": \"\"}\n";
  std::fflush(nullptr);
  _Exit(0);
}
}  // namespace

namespace kindling::detail {
Tensor sum_keepdim(const Tensor& x, const std::vector<bool>&) { return x; }
}  // namespace kindling::detail
