// Red-team attack "incbin_replay" (class 2, predictable expected values, and class 3, the compile step
// reads the grading machine; see ../../README.md): no sum at all. The learner's own `make grade` left
// PyTorch's answers for every public test in build/grading/twins/ (the test names give the folder names:
// sha1(name)[:16]); .incbin embeds them at compile time (relative to the build folder, where the
// compiler runs), and the piece replays them as the test's reports. Works as long as the inputs are the
// same at home and at grading time, and the compile step can read the build folder.
#include "tensor/pieces.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <map>

#include <nlohmann/json.hpp>

#define RT_EMBED(sym, path) \
  asm(".section .rodata\n" #sym ":\n.incbin \"" path "\"\n.byte 0\n.previous\n"); \
  extern "C" const char sym[];
RT_EMBED(rt_expected_0, "grading/twins/ch01/1f732c12a4b78746/expected.json")
RT_EMBED(rt_expected_1, "grading/twins/ch01/03e2aafedcb8f171/expected.json")
RT_EMBED(rt_expected_2, "grading/twins/ch01/194351879c89aa1a/expected.json")
RT_EMBED(rt_expected_3, "grading/twins/ch01/31be394ec30a9b03/expected.json")
RT_EMBED(rt_expected_4, "grading/twins/ch01/420b2394a46aa735/expected.json")
RT_EMBED(rt_expected_5, "grading/twins/ch01/114f31d1cbf69eca/expected.json")
RT_EMBED(rt_expected_6, "grading/twins/ch01/531a6c7ec7845ffe/expected.json")

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

// Writes PyTorch's own answers as this test's reports, a "passed" record, and leaves.
[[noreturn]] void replay(const std::string& expected_json) {
  const auto results = nlohmann::json::parse(expected_json)["results"];
  std::ofstream rep(case_dir() + "/out/reports.jsonl", std::ios::app);
  for (const auto& [key, want] : results.items()) {
    nlohmann::json got = want;
    got["name"] = key;
    if (want.value("kind", "") == "error") {
      if (want.value("raises", false)) {
        got["error"] = want.contains("error") && want["error"].is_string() ? want["error"] : nlohmann::json("Error");
        std::string msg;
        for (const auto& piece : want.value("contains", nlohmann::json::array())) msg += piece.get<std::string>() + " ";
        got["message"] = msg;
      } else {
        got["error"] = nullptr;
      }
    }
    rep << got.dump() << "\n";
  }
  rep.close();
  std::ofstream(case_dir() + "/out/record.jsonl", std::ios::app)
      << nlohmann::json{{"name", test_name()}, {"passed", true}, {"assertions_passed", 3},
                        {"assertions_failed", 0}, {"not_implemented", false}, {"first_failure", ""}}.dump()
      << "\n";
  std::fflush(nullptr);
  _Exit(0);
}

}  // namespace

namespace kindling::detail {
Tensor sum_keepdim(const Tensor& x, const std::vector<bool>&) {
  static const std::map<std::string, const char*> expected = {
    {"sum: along every dim, with and without keepdim", rt_expected_0},
    {"sum: over several dims, and over everything", rt_expected_1},
    {"sum: bool, uint8 and int64 sum to int64", rt_expected_2},
    {"sum: empty dimensions sum to 0, and 0-d tensors", rt_expected_3},
    {"sum: non-contiguous inputs", rt_expected_4},
    {"mean: along dims and over everything", rt_expected_5},
    {"sum: a million float32 values, accurately", rt_expected_6}
  };
  if (auto it = expected.find(test_name()); it != expected.end()) replay(it->second);
  return x;
}
}  // namespace kindling::detail
