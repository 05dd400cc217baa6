// Anomaly mode's source line (autograd/user_line.cpp): how it runs addr2line, and what of its
// answer it believes (issue 28: PATH lookup, no time limit, output trusted, glibc's libc-start.c
// named as the user's line on a stripped program).
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "autograd/user_line.hpp"

namespace ad = kindling::autograd::detail;

TEST_CASE("user line: a tool that hangs is killed at the time limit, and its output is dropped") {
  const auto start = std::chrono::steady_clock::now();
  const std::string out = ad::run_program("/bin/sh", {"-c", "echo partial; exec sleep 30"}, 300, 1 << 20);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(out.empty());
  CHECK(seconds < 5);  // was: waited for the tool with no limit
}

TEST_CASE("user line: tools run by absolute path only, with their output capped") {
  CHECK(ad::run_program("/bin/echo", {"0x10"}, 5000, 1 << 20) == "0x10\n");
  CHECK(ad::run_program("echo", {"x"}, 5000, 1 << 20).empty());  // no PATH search
  CHECK(ad::run_program("/bin/sh", {"-c", "yes | head -c 100000"}, 5000, 1000).empty());
  CHECK(ad::run_program("/bin/false", {}, 5000, 1 << 20).empty());
}

TEST_CASE("user line: the pipe to the tool is not inherited by the programs it starts") {
  // The tool counts its descriptors that lead to the pipe its output goes to: its standard output
  // only. Without close-on-exec the pipe's own two ends come along too (and into any program
  // another thread starts meanwhile, whose open write end would keep the read from ending).
  const std::string out = ad::run_program(
      "/bin/sh", {"-c", "p=$(readlink /proc/$$/fd/1); n=0; for f in /proc/$$/fd/*; do "
                        "[ \"$(readlink $f)\" = \"$p\" ] && n=$((n+1)); done; echo $n"}, 5000, 1 << 20);
  CHECK(out == "1\n");
}

TEST_CASE("user line: addr2line's answer is believed only for the program's own code") {
  const std::vector<std::uintptr_t> addrs = {0x1139, 0x2270};
  const std::string answer =
      "0x0000000000001139\nmain\n/home/me/train.cpp:42 (discriminator 3)\n"
      "0x0000000000002270\n__libc_start_call_main\n./csu/../sysdeps/nptl/libc_start_call_main.h:58\n";
  auto found = ad::user_locations("/home/me/train", addrs, answer);
  REQUIRE(found.size() == 2);  // the second is glibc's, but from the program's own object: still named
  CHECK(found[0x1139] == "train.cpp:42");
  // The C library's frames never count, whatever its line tables say (a stripped program has no
  // lines of its own, and libc-start.c was reported as the user's line).
  CHECK(ad::user_locations("/lib/x86_64-linux-gnu/libc.so.6", addrs, answer).empty());
  CHECK(ad::user_locations("/usr/lib/x86_64-linux-gnu/libc.so.6", addrs, answer).empty());
  // A stripped program: "??" and line 0 are no location.
  CHECK(ad::user_locations("/home/me/train", {0x1139}, "0x1139\n??\n??:0\n").empty());
  CHECK(ad::user_locations("/home/me/train", {0x1139}, "0x1139\nmain\ntrain.cpp:?\n").empty());
  // Not an answer to these addresses: another address, more addresses than asked, control characters.
  CHECK(ad::user_locations("/home/me/train", {0x1139}, "0x9999\nmain\ntrain.cpp:42\n").empty());
  CHECK(ad::user_locations("/home/me/train", {0x1139}, "0x1139\nmain\ntrain.cpp:42\n0x2270\nf\nx.cpp:1\n").empty());
  CHECK(ad::user_locations("/home/me/train", {0x1139}, "0x1139\nmain\n\x1b[2Jtrain.cpp:42\n").empty());
}
