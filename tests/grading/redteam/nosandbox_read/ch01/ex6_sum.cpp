// Red-team attack "nosandbox_read" (class 4, grading without a sandbox; see ../../README.md): no sum at
// all. The test program lives in <build>/grading-bin/; the grader's expected values for the running
// test are in <build>/grading/twins/ch01/<sha1(name)[:16]>/expected.json. Without a sandbox the piece
// just reads them and replays them; in the sandbox they are not there.
#include "tensor/pieces.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <climits>
#include <sstream>

#include <nlohmann/json.hpp>

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

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
}  // namespace

namespace kindling::detail {
Tensor sum_keepdim(const Tensor& x, const std::vector<bool>&) {
  char exe[PATH_MAX] = {};
  if (readlink("/proc/self/exe", exe, sizeof exe - 1) > 0) {
    std::string build = exe;
    build = build.substr(0, build.rfind('/'));   // grading-bin
    build = build.substr(0, build.rfind('/'));   // the build folder
    const std::string twins = build + "/grading/twins/ch01/";
    const std::string manifest = slurp(twins + "manifest.json");
    if (!manifest.empty()) {
      const auto slugs = nlohmann::json::parse(manifest, nullptr, false);
      if (slugs.is_object() && slugs.contains(test_name())) {
        const std::string expected = slurp(twins + slugs[test_name()].get<std::string>() + "/expected.json");
        if (!expected.empty()) replay(expected);
      }
    }
  }
  return x;
}
}  // namespace kindling::detail
