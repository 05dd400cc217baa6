#pragma once
// What every milestone program's main does around its work: it takes the checker's two folders
// (IN_DIR OUT_DIR), and an error of the library (a shape it refuses, a launch the kernel emulator
// stopped) ends the program with its message, the first line last,
// where the grader's summary looks (scripts/grade.py: "the program exited with status 1: <last line>");
// a piece not written yet goes on to std::terminate, whose message the grader reads to name the piece.
#include <cstdio>
#include <exception>
#include <string>

#include <kindling/tensor/error.hpp>

namespace milestone {

inline int main_of(int argc, char** argv, int (*run)(const std::string& in_dir, const std::string& out_dir)) {
  // Every milestone program is run by its checker as `program IN_DIR OUT_DIR`.
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s IN_DIR OUT_DIR\n", argv[0]);
    return 2;
  }
  try {
    return run(argv[1], argv[2]);
  } catch (const kindling::NotImplemented&) {
    throw;
  } catch (const std::exception& e) {
    const std::string what = e.what();
    std::fflush(stdout);  // what the program printed first, then why it stopped
    std::fprintf(stderr, "%s\nstopped: %s\n", what.c_str(), what.substr(0, what.find('\n')).c_str());
    return 1;
  }
}

}  // namespace milestone
