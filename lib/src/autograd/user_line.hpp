#pragma once
// Anomaly mode's answer to "which line of my program made this node?" for an op called outside
// any module call (a module call records its caller's line itself, nn::Module::operator()).
#include <string>
#include <vector>

namespace kindling::autograd::detail {

/// The return addresses of this thread's call stack, innermost first (glibc's backtrace()).
std::vector<void*> capture_stack();

/// The first frame of `stack` in the program's own code -- not in Kindling, the C++ library or
/// the system -- as "file.cpp:line", read from the program's line tables with binutils' addr2line.
/// Empty when it cannot tell: a program built without line tables (-g1 or more; the chapter
/// programs have them), addr2line missing, or no such frame.
std::string user_line(const std::vector<void*>& stack);

}  // namespace kindling::autograd::detail
