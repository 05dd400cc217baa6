// Red-team attack "symlink_outputs" (class 5, leaks through the grader's readers; see ../../README.md):
// the grader reads what a test leaves in its out/ folder outside the sandbox. The piece leaves links
// there -- the result record to /etc/passwd, the reports to the grader's expected values for this test --
// and a FIFO where the grader looks for a crash note (opening it would block the grader forever), then
// leaves. The grader must refuse them all, hang on nothing and quote nothing.
#include "tensor/pieces.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {
std::string case_dir() {
  const char* d = std::getenv("KINDLING_GRADE_CASE");
  return d ? d : "";
}
}  // namespace

namespace kindling::detail {
Tensor sum_keepdim(const Tensor& x, const std::vector<bool>&) {
  const std::string out = case_dir() + "/out/";
  char exe[PATH_MAX] = {};
  std::string build;
  if (readlink("/proc/self/exe", exe, sizeof exe - 1) > 0) {
    build = exe;
    build = build.substr(0, build.rfind('/'));
    build = build.substr(0, build.rfind('/'));
  }
  unlink((out + "record.jsonl").c_str());
  symlink("/etc/passwd", (out + "record.jsonl").c_str());
  symlink((build + "/grading/twins/ch01/manifest.json").c_str(), (out + "reports.jsonl").c_str());
  unlink((out + "crash.txt").c_str());  // the listener's own note file, replaced by a FIFO
  mkfifo((out + "crash.txt").c_str(), 0644);
  std::fflush(nullptr);
  _Exit(0);
  return x;
}
}  // namespace kindling::detail
