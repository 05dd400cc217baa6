#pragma once
// Anomaly mode's answer to "which line of my program made this node?" for an op called outside
// any module call (a module call records its caller's line itself, nn::Module::operator()).
#include <cstdint>
#include <map>
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

/// Runs the program at the absolute `path` with `args` (no shell, no PATH search, the pipe
/// close-on-exec) and returns its standard output; empty when it cannot start, fails, writes more
/// than `max_bytes` or is still running after `limit_ms` (then it is killed).
std::string run_program(const std::string& path, const std::vector<std::string>& args, int limit_ms,
                        std::size_t max_bytes);

/// The user's "file.cpp:line" of each address of `object` that addr2line's `output` (-C -f -i -a)
/// places in the program's own code. Nothing for a system object (the C library's line tables
/// name its own sources), and nothing at all for output that is not addr2line's answer to these
/// addresses (an address out of order, control characters).
std::map<std::uintptr_t, std::string> user_locations(const std::string& object, const std::vector<std::uintptr_t>& addrs,
                                                    const std::string& output);

}  // namespace kindling::autograd::detail
