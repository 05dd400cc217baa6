#pragma once
// Asking real PyTorch for expected values at test time (never typed in by hand).
//
// `import torch` costs about a second, so a test collects many Python expressions and evaluates them
// in ONE process: python_eval({"repr(torch.ones(2))", ...}) returns one string per expression.
#include <array>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef KINDLING_PYTHON
#define KINDLING_PYTHON "/usr/bin/python3"
#endif

namespace kindling::testing {

/// A fresh temporary folder, removed when the object dies.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("kindling-test-" + std::to_string(rd()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Runs a Python script with Debian's python3 (which has torch and numpy); returns its stdout.
/// Throws if Python fails, with its output, so a broken oracle is a failing test, not a pass.
inline std::string run_python(const std::string& script) {
  TempDir dir;
  const std::string file = dir.file("oracle.py");
  std::ofstream(file) << script;
  const std::string cmd = std::string(KINDLING_PYTHON) + " " + file + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run " + cmd);
  std::string out;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  const int status = pclose(pipe);
  if (status != 0) throw std::runtime_error("python oracle failed (status " + std::to_string(status) + "):\n" + out);
  return out;
}

/// Evaluates each expression (after running `setup`) in one Python process and returns str() of each
/// result. Expressions see `torch`, `np` and whatever `setup` defines.
inline std::vector<std::string> python_eval(const std::vector<std::string>& exprs, const std::string& setup = "") {
  static const std::string sep = "\x1e--kindling-oracle--\x1e";
  std::string script = "import sys, torch, numpy as np\n";
  script += setup + "\n";
  script += "__exprs = [\n";
  for (const auto& e : exprs) {
    // A Python raw string cannot hold every character; hex-escape everything to be safe.
    script += "  bytes.fromhex('";
    static const char* hex = "0123456789abcdef";
    for (unsigned char c : e) {
      script += hex[c >> 4];
      script += hex[c & 15];
    }
    script += "').decode(),\n";
  }
  script += "]\nfor __e in __exprs:\n  sys.stdout.write(str(eval(__e)) + '" + std::string("\\x1e--kindling-oracle--\\x1e") +
            "')\n";
  const std::string out = run_python(script);
  std::vector<std::string> results;
  std::size_t pos = 0;
  while (true) {
    const auto next = out.find(sep, pos);
    if (next == std::string::npos) break;
    results.push_back(out.substr(pos, next - pos));
    pos = next + sep.size();
  }
  if (results.size() != exprs.size()) {
    throw std::runtime_error("python oracle returned " + std::to_string(results.size()) + " results for " +
                             std::to_string(exprs.size()) + " expressions:\n" + out);
  }
  return results;
}

/// Space-separated values (for comparing numbers with Python's ' '.join(map(str, ...))).
template <class Range> std::string join(const Range& v) {  // a std::vector, a Shape, ...
  std::ostringstream os;
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? " " : "") << v[i];
  return os.str();
}

}  // namespace kindling::testing
