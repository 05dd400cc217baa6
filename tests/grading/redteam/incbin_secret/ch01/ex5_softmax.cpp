// Red-team attack "incbin_secret" (class 3 and 5, the compile step reads a file of the grading machine and
// the test's failure carries it to the student; see ../../README.md): .incbin embeds a file of the build
// folder (where the compiler runs) -- here the planted redteam-secret.txt, standing for an earlier
// build's expected values, a hidden test or a dataset's labels -- and the piece prints it and throws it.
#include "tensor/pieces.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

asm(".section .rodata\nrt_secret:\n.incbin \"redteam-secret.txt\"\n.byte 0\n.previous\n");
extern "C" const char rt_secret[];

namespace kindling::detail {
Tensor softmax_forward(const Tensor&, std::int64_t, bool) {
  std::printf("embedded: %s\n", rt_secret);
  throw std::runtime_error(std::string("embedded: ") + rt_secret);
}
}  // namespace kindling::detail
