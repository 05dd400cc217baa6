// ONNX's conformance node tests (Debian libonnx-testdata) through kd::onnx::load.
//
//   onnx_conformance <data/node folder> <exclusions file> <report file>
//
// Each case is a folder with model.onnx and test_data_set_0/{input,output}_N.pb. It runs in a forked
// child (a crash or a 10 s timeout is a failure, never a skip) and ends as passed, failed, or not
// supported: the importer has no such op ("op_type is not supported"). A case of an op it claims
// that it refuses (an attribute, a dtype) is a failure, like a wrong value, unless the exclusions
// file lists it with a reason. The report file
// gets a per-op table; stdout a summary line. The exit status is 1 when a case fails that is not
// listed in the exclusions file (one "case reason..." a line).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kindling/jit.hpp"

namespace kd = kindling;
namespace fs = std::filesystem;

namespace {
enum Outcome { kPass = 0, kFail = 1, kUnsupported = 2 };

std::vector<fs::path> numbered(const fs::path& dir, const std::string& stem) {
  std::vector<fs::path> out;
  for (int i = 0;; ++i) {
    auto p = dir / (stem + "_" + std::to_string(i) + ".pb");
    if (!fs::exists(p)) break;
    out.push_back(p);
  }
  return out;
}

// Runs in the child: ONNX's backend tests compare with rtol 1e-3, atol 1e-7; float32 kernels that
// add in another order need a little more absolute room near zero (atol 1e-5).
int run_case(const fs::path& dir, std::string& why) {
  try {
    auto model = kd::onnx::load(dir / "model.onnx");
    auto set = dir / "test_data_set_0";
    std::vector<kd::Tensor> inputs;
    for (auto& p : numbered(set, "input")) inputs.push_back(kd::onnx::load_tensor(p));
    std::vector<kd::Tensor> expected;
    for (auto& p : numbered(set, "output")) expected.push_back(kd::onnx::load_tensor(p));
    auto got = model->forward_all(inputs);
    if (got.size() < expected.size()) { why = "fewer outputs than expected"; return kFail; }
    for (std::size_t i = 0; i < expected.size(); ++i) {
      if (got[i].shape() != expected[i].shape()) { why = "output " + std::to_string(i) + " shape differs"; return kFail; }
      // The dtype too (an int32 output is int64 on both sides: the importer widens int32 everywhere).
      if (got[i].dtype() != expected[i].dtype()) {
        why = "output " + std::to_string(i) + " is " + kd::dtype_name(got[i].dtype()) + ", ONNX's is " +
              kd::dtype_name(expected[i].dtype());
        return kFail;
      }
      auto g = got[i].to(kd::kFloat64).contiguous();
      auto e = expected[i].to(kd::kFloat64).contiguous();
      const double* gp = g.data_ptr<double>();
      const double* ep = e.data_ptr<double>();
      for (std::int64_t k = 0; k < g.numel(); ++k) {
        const bool both_nan = std::isnan(gp[k]) && std::isnan(ep[k]);
        if (!both_nan && !(std::abs(gp[k] - ep[k]) <= 1e-5 + 1e-3 * std::abs(ep[k]))) {
          why = "output " + std::to_string(i) + " element " + std::to_string(k) + ": " + std::to_string(gp[k]) +
                " vs " + std::to_string(ep[k]);
          return kFail;
        }
      }
    }
    return kPass;
  } catch (const std::exception& e) {
    why = e.what();
    return why.find("not supported") != std::string::npos ? kUnsupported : kFail;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: onnx_conformance <node folder> <exclusions> <report>\n";
    return 2;
  }
  const fs::path root = argv[1];
  std::map<std::string, std::string> excluded;
  {
    std::ifstream f(argv[2]);
    std::string line;
    while (std::getline(f, line)) {
      if (line.empty() || line[0] == '#') continue;
      auto sp = line.find(' ');
      excluded[line.substr(0, sp)] = sp == std::string::npos ? "" : line.substr(sp + 1);
    }
  }
  std::vector<fs::path> cases;
  for (auto& e : fs::directory_iterator(root))
    if (fs::exists(e.path() / "model.onnx")) cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());

  struct Row { int pass = 0, fail = 0, unsupported = 0, excluded = 0; };
  std::map<std::string, Row> table;  // by the op named in the case's folder (test_<op>_...)
  int pass = 0, fail = 0, unsupported = 0, excl = 0, unexpected = 0;
  std::ostringstream details, unsupported_why;
  for (auto& dir : cases) {
    const std::string name = dir.filename().string();
    int pipefd[2];
    if (pipe(pipefd) != 0) return 2;
    pid_t pid = fork();
    if (pid == 0) {
      close(pipefd[0]);
      alarm(10);  // a hang is a failure (SIGALRM ends the child)
      std::string why;
      int r = run_case(dir, why);
      why = why.substr(0, 300);
      (void)!write(pipefd[1], why.data(), why.size());
      _exit(r);
    }
    close(pipefd[1]);
    std::string why;
    char buf[512];
    ssize_t n;
    while ((n = read(pipefd[0], buf, sizeof buf)) > 0) why.append(buf, static_cast<std::size_t>(n));
    close(pipefd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    int outcome = kFail;
    if (WIFEXITED(status) && WEXITSTATUS(status) <= 2) outcome = WEXITSTATUS(status);
    else why = WIFSIGNALED(status) ? "crashed or timed out (signal " + std::to_string(WTERMSIG(status)) + ")" : "exit";
    std::string op = name.rfind("test_", 0) == 0 ? name.substr(5) : name;
    op = op.substr(0, op.find('_'));
    Row& row = table[op];
    // "Not supported" counts only for an op the importer does not implement at all (or a domain it
    // does not read). A case of an op it claims that it refuses (a dtype Kindling lacks, a 3-D
    // window, an attribute) is a failure unless the exclusions file lists it with its reason.
    const bool op_unknown = why.find("op_type is not supported") != std::string::npos ||
                            why.find("field domain") != std::string::npos ||
                            why.find("without the default domain") != std::string::npos;
    if (outcome == kUnsupported && !op_unknown) {
      outcome = kFail;
      why = "a case of an op the importer claims, refused: " + why;
    }
    if (outcome == kPass && excluded.count(name)) {  // a stale exclusion hides nothing, but says something false
      ++unexpected;
      details << name << ": passes but the exclusions file lists it (remove its line)\n";
    }
    if (outcome == kPass) { ++pass; ++row.pass; }
    else if (outcome == kUnsupported) { ++unsupported; ++row.unsupported; unsupported_why << name << ": " << why << "\n"; }
    else if (excluded.count(name)) { ++excl; ++row.excluded; details << name << ": excluded (" << excluded[name] << "): " << why << "\n"; }
    else { ++fail; ++row.fail; ++unexpected; details << name << ": FAILED: " << why << "\n"; }
  }
  std::ofstream report(argv[3]);
  report << "op,passed,failed,excluded_failed,not_supported\n";
  for (auto& [op, r] : table) report << op << "," << r.pass << "," << r.fail << "," << r.excluded << "," << r.unsupported << "\n";
  report << "\n" << details.str() << "\nnot supported:\n" << unsupported_why.str();
  std::cout << "onnx conformance (" << cases.size() << " node cases): passed " << pass << ", failed " << fail
            << ", failed or refused but excluded with a reason " << excl << ", op not supported " << unsupported
            << "; per-op table in "
            << argv[3] << "\n";
  std::cout << details.str();
  return unexpected ? 1 : 0;
}
