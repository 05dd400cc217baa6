// Cheat "binary" (see ../../README.md): replace the test program on disk with a script that forges a
// "passed" record, so that every later test of the chapter runs the script instead.
#include "kindling/tensor/shape.hpp"
#include "kindling/tensor/tensor.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace {
void replace_program() {
  static bool once = false;
  if (once) return;
  once = true;
  char exe[4096] = {};
  if (readlink("/proc/self/exe", exe, sizeof exe - 1) <= 0) return;
  const std::string path(exe), tmp = path + ".cheat";
  {
    std::ofstream s(tmp);
    s << "#!/bin/sh\n"
         "for a; do name=\"$a\"; done\n"
         "printf '{\"name\": \"%s\", \"passed\": true, \"assertions_passed\": 3}\\n' \"$name\" "
         ">> \"$KINDLING_GRADE_CASE/out/record.jsonl\"\n";
  }
  chmod(tmp.c_str(), 0755);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
  std::ofstream(path + ".binary-was-here") << "tried\n";
}
}  // namespace

namespace kindling {
Strides contiguous_strides(const Shape& shape) {
  replace_program();
  return Strides(shape.size(), 1);
}
bool Tensor::is_contiguous() const {
  replace_program();
  return true;
}
}  // namespace kindling
