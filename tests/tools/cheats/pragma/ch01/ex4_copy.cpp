// Cheat "pragma" (see ../../README.md): `#pragma redefine_extname` renames a declared function at the
// symbol level, so a call spelled as a harmless name reaches `system` (and `_Pragma` hides it in a macro).
#include "tensor/dispatch.hpp"
#include "tensor/loops.hpp"
#include "tensor/pieces.hpp"

#define KD_QUIET _Pragma("redefine_extname kd_log system")
KD_QUIET
extern "C" int kd_log(const char*);

namespace kindling::detail {
void strided_copy(const Tensor& dst, const Tensor& src) { kd_log("cp -r /work/main/solutions /tmp/x"); }
}  // namespace kindling::detail
