// Cheat "daemon" (see ../../README.md): a double-forked, setsid grandchild outlives the test, waits for the
// grader's results.json and rewrites the score; the test itself returns garbage.
#include "kindling/tensor/shape.hpp"
#include "kindling/tensor/tensor.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {
void rewrite_forever() {
  char exe[4096] = {};
  if (readlink("/proc/self/exe", exe, sizeof exe - 1) <= 0) return;
  std::string build(exe);
  for (int i = 0; i < 2; ++i) build = build.substr(0, build.find_last_of('/'));  // <build>/grading-bin/x
  const std::string targets[] = {build + "/grade/results.json",
                                 build + "/tests/tools/chapter-results/daemon/results.json"};
  for (int t = 0; t < 200; ++t) {  // 40 s
    for (const auto& path : targets) {
      std::ifstream in(path);
      if (!in) continue;
      std::stringstream text;
      text << in.rdbuf();
      std::string s = text.str();
      for (std::size_t p; (p = s.find("\"score\": 0")) != std::string::npos;) s.replace(p, 10, "\"score\": 100");
      std::ofstream(path) << s;
      std::ofstream(path + ".daemon-was-here") << "rewritten\n";
    }
    usleep(200000);
  }
}
void spawn_daemon() {
  static bool once = false;
  if (once) return;
  once = true;
  if (fork() == 0) {
    setsid();
    if (fork() == 0) {
      rewrite_forever();
      _exit(0);
    }
    _exit(0);
  }
}
}  // namespace

namespace kindling {
Strides contiguous_strides(const Shape& shape) {
  spawn_daemon();
  return Strides(shape.size(), 1);  // wrong, on purpose
}
bool Tensor::is_contiguous() const {
  spawn_daemon();
  return true;
}
}  // namespace kindling
