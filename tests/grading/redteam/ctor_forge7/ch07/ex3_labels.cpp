// Red-team attack "ctor_forge7" (class 1, code before main; see ../../README.md): the bug is not fixed
// (the labels are still shifted by one). A static constructor runs in every test process before main,
// writes the running test's "passed" record and leaves: chapter 7's find-the-bug tests have no PyTorch
// twin, so a record is all their verdict asks for unless it is judged from what the program produced.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "kindling/debug/find_the_bug.hpp"
#include "kindling/optim/sgd.hpp"

namespace {
std::string test_name() {
  std::ifstream f("/proc/self/cmdline");
  std::string arg, last;
  while (std::getline(f, arg, '\0')) last = arg;
  std::string out;
  for (std::size_t i = 0; i < last.size(); ++i) out += last[i] == '\\' && i + 1 < last.size() ? last[++i] : last[i];
  return out;
}

__attribute__((constructor)) void forge_before_main() {
  const char* dir = std::getenv("KINDLING_GRADE_CASE");
  if (!dir || test_name().rfind("kindling-grade", 0) == 0) return;  // not a graded test
  std::ofstream(std::string(dir) + "/out/record.jsonl", std::ios::app)
      << "{\"name\": \"" << test_name() << "\", \"passed\": true, \"assertions_passed\": 5, "
      << "\"assertions_failed\": 0, \"not_implemented\": false, \"first_failure\": \"\"}\n";
  std::fflush(nullptr);
  _Exit(0);
}
}  // namespace

namespace kindling::debug::find_the_bug {

Run train_labels(const Problem& p) {
  Run run = start_run(p);
  optim::SGD opt(run.model->parameters(), {.lr = 0.5});
  Tensor targets = p.y.clone();
  std::int64_t* t = targets.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < targets.numel(); ++i) t[i] = t[i] == 0 ? p.classes - 1 : t[i] - 1;
  fit(run, opt, p.x, targets, "train_labels");
  return run;
}

}  // namespace kindling::debug::find_the_bug
