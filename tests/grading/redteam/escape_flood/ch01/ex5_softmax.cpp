// Red-team attack "escape_flood" (class 5, leaks and damage through the reports; see ../../README.md): the
// piece prints and throws text made to hurt whoever reads the reports -- a terminal title and
// clear-screen escape, colours, an 8-bit CSI, a right-to-left override, invalid UTF-8, a NUL and a
// megabyte of filler -- hoping it reaches the instructor's terminal, chNN.txt, results.json and junit.xml
// as it is (or breaks them).
#include "tensor/pieces.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

namespace {
std::string poison() {
  std::string s = "\x1b]0;REDTEAM-TITLE\x07\x1b[2J\x1b[31mREDTEAM-ESCAPE\x1b[0m \xc2\x9b" "2J ";
  s += "\xe2\x80\xae" "REDTEAM-BIDI ";            // U+202E, right-to-left override
  s += "\xff\xfe bad UTF-8 \xed\xa0\x80 ";        // invalid bytes and an encoded lone surrogate
  s += std::string("NUL:\0:", 6);
  s += "\r\x08\x08\x08 REDTEAM-OVERWRITE ";
  s += std::string(1 << 20, 'A');                 // a megabyte
  return s;
}
}  // namespace

namespace kindling::detail {
Tensor softmax_forward(const Tensor&, std::int64_t, bool) {
  const std::string p = poison();
  std::fwrite(p.data(), 1, p.size(), stdout);
  std::fflush(stdout);
  throw std::runtime_error(p);
}
}  // namespace kindling::detail
