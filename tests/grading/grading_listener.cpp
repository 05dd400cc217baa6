// The grader's witness inside every graded test program (grade_chNN_*).
//
// scripts/grade.py runs each graded TEST_CASE in its own process and never trusts what the program prints:
// a learner's code can print "All tests passed" or call exit(0) halfway through a test. This Catch2
// listener writes one JSON record per finished test case to <case>/out/record.jsonl (KINDLING_GRADE_CASE
// names the case folder), only from testCaseEnded(), i.e. after the test body returned to Catch2, so a
// process that dies or exits early leaves no record and earns nothing. In the library model the record
// is not the verdict either: the results the test reported must also agree with its PyTorch twin, which
// the grader checks outside this process (scripts/grade_compare.py).
//
// It also names a crash that looks like a stack overflow (a fault just below the stack: unbounded
// recursion, e.g. a piece that calls the library function it implements), and, with
// KINDLING_GRADE_CATALOGUE set, writes the list of registered tests (name, tags, file, line) there —
// Catch2 v2 cannot list tests in a machine-readable form.
#define CATCH_CONFIG_EXTERNAL_INTERFACES  // the reporter/listener types
#include <catch2/catch.hpp>
#include <kindling/tensor/error.hpp>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

// Set when a kindling::NotImplemented escapes into Catch2 (an exercise stub was reached).
bool g_not_implemented = false;
std::string g_not_implemented_what;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

void write_file(const std::string& path, const std::string& text, const char* mode) {
  if (path.empty()) return;
  if (std::FILE* f = std::fopen(path.c_str(), mode)) {
    std::fwrite(text.data(), 1, text.size(), f);
    std::fflush(f);
    std::fclose(f);
  }
}

std::string clip(std::string s, std::size_t n = 4000) {
  if (s.size() > n) s = s.substr(0, n) + "...";
  return s;
}

// ---- a stack overflow, named -------------------------------------------------------------------------
int g_crash_fd = -1;
char* g_stack_low = nullptr;   // lowest address of the main thread's stack
alignas(16) char g_alt_stack[1 << 16];

void on_segv(int sig, siginfo_t* info, void*) {
  const char* addr = static_cast<const char*>(info->si_addr);
  if (g_crash_fd >= 0 && g_stack_low && addr < g_stack_low + (64 << 10) && addr > g_stack_low - (16 << 20)) {
    static const char msg[] = "stack overflow\n";
    (void)!::write(g_crash_fd, msg, sizeof msg - 1);
  }
  ::signal(sig, SIG_DFL);  // return: the faulting instruction runs again and the default action ends us
}

void install_stack_overflow_note(const std::string& path) {
  g_crash_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  pthread_attr_t attr;
  void* low = nullptr;
  std::size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &low, &size);
    pthread_attr_destroy(&attr);
    g_stack_low = static_cast<char*>(low);
  }
  stack_t ss{};
  ss.ss_sp = g_alt_stack;
  ss.ss_size = sizeof g_alt_stack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, nullptr);
}

class GradeListener : public Catch::TestEventListenerBase {
 public:
  using TestEventListenerBase::TestEventListenerBase;

  void testRunStarting(Catch::TestRunInfo const& info) override {
    TestEventListenerBase::testRunStarting(info);
    const std::string dir = env("KINDLING_GRADE_CASE");
    if (!dir.empty()) {
      record_path_ = dir + "/out/record.jsonl";
      install_stack_overflow_note(dir + "/out/crash.txt");
    }
    const std::string catalogue = env("KINDLING_GRADE_CATALOGUE");
    if (!catalogue.empty()) {
      nlohmann::json tests = nlohmann::json::array();
      for (const Catch::TestCase& tc : Catch::getAllTestCasesSorted(*m_config)) {
        tests.push_back({{"name", tc.name},
                         {"tags", tc.tags},
                         {"file", std::string(tc.lineInfo.file)},
                         {"line", tc.lineInfo.line}});
      }
      write_file(catalogue, nlohmann::json{{"tests", tests}}.dump() + "\n", "w");
    }
  }

  void testCaseStarting(Catch::TestCaseInfo const& info) override {
    TestEventListenerBase::testCaseStarting(info);
    g_not_implemented = false;
    g_not_implemented_what.clear();
    first_failure_.clear();
  }

  bool assertionEnded(Catch::AssertionStats const& stats) override {
    const Catch::AssertionResult& r = stats.assertionResult;
    if (!r.isOk() && first_failure_.empty()) first_failure_ = describe(stats);
    return true;
  }

  void testCaseEnded(Catch::TestCaseStats const& stats) override {
    TestEventListenerBase::testCaseEnded(stats);
    if (record_path_.empty()) return;  // run by hand, not by the grader
    const auto& a = stats.totals.assertions;
    nlohmann::json rec{{"name", stats.testInfo.name},
                       {"passed", a.failed == 0 && stats.totals.testCases.failed == 0},
                       {"assertions_passed", a.passed},
                       {"assertions_failed", a.failed},
                       {"not_implemented", g_not_implemented},
                       {"not_implemented_what", g_not_implemented_what},
                       {"first_failure", first_failure_}};
    // error_handler::replace: a learner's message may hold invalid UTF-8; the record must still parse.
    write_file(record_path_, rec.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", "a");
  }

 private:
  // "CHECK( y == 3 ) with expansion: 4 == 3; info: i := 2" — what a learner needs to find the bug.
  static std::string describe(Catch::AssertionStats const& stats) {
    const Catch::AssertionResult& r = stats.assertionResult;
    std::string s;
    // An exception that escaped the test body has no expression of its own ("{Unknown expression after
    // the reported line}"): say what was thrown instead.
    const bool escaped = r.getResultType() == Catch::ResultWas::ThrewException && !r.hasExpression();
    if (r.hasExpression() && r.getExpression().find("{Unknown expression") == std::string::npos) {
      s = r.getExpressionInMacro();
      if (r.hasExpandedExpression() && r.getExpandedExpression() != r.getExpression())
        s += " with expansion: " + r.getExpandedExpression();
    }
    if (r.hasMessage()) {
      s += (s.empty() ? "" : "; ") +
           std::string(escaped || r.getResultType() == Catch::ResultWas::ThrewException ? "threw: " : "") +
           r.getMessage();
    }
    for (const Catch::MessageInfo& m : stats.infoMessages) {
      if (m.message != r.getMessage()) s += "; " + m.message;  // INFO/CAPTURE context (not the message again)
    }
    std::string file = r.getSourceInfo().file;
    file = file.substr(file.find_last_of('/') + 1);  // npos + 1 == 0: no slash, whole name
    std::string where = file + ":" + std::to_string(r.getSourceInfo().line);
    return clip(s) + " (" + where + ")";
  }

  std::string record_path_, first_failure_;
};

}  // namespace

CATCH_REGISTER_LISTENER(GradeListener)

// The translator runs only for kindling::NotImplemented, so the flag is set by the exception's type,
// not by whatever text a learner puts in a message.
CATCH_TRANSLATE_EXCEPTION(kindling::NotImplemented const& e) {
  g_not_implemented = true;
  g_not_implemented_what = e.what();
  return e.what();
}
