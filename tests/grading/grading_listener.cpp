// The grader's witness inside every graded test program (grade_chNN_*).
//
// scripts/grade.py runs each graded TEST_CASE in its own process and never trusts what the program prints:
// a learner's code can print "All tests passed" or call exit(0) halfway through a test. Instead this
// Catch2 listener writes one JSON record per finished test case to the file named by
// KINDLING_GRADE_RECORD, stamped with the per-run nonce KINDLING_GRADE_NONCE. The record is written only
// from testCaseEnded(), i.e. after the test body returned to Catch2, so a process that dies or exits
// early leaves no record and earns nothing.
//
// With KINDLING_GRADE_CATALOGUE set, it also writes the list of registered tests (name, tags, file,
// line) there — Catch2 v2 cannot list tests in a machine-readable form.
#define CATCH_CONFIG_EXTERNAL_INTERFACES  // the reporter/listener types
#include <catch2/catch.hpp>
#include <kindling/tensor/error.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// Set when a kindling::NotImplemented escapes into Catch2 (an exercise stub was reached).
bool g_not_implemented = false;

std::string take_env(const char* name) {
  const char* v = std::getenv(name);
  std::string s = v ? v : "";
  if (v) ::unsetenv(name);  // the learner's code has no business reading the grader's settings
  return s;
}

void write_file(const std::string& path, const std::string& text, const char* mode) {
  if (path.empty()) return;
  if (std::FILE* f = std::fopen(path.c_str(), mode)) {
    std::fwrite(text.data(), 1, text.size(), f);
    std::fflush(f);
    std::fclose(f);
  }
}

std::string clip(std::string s, std::size_t n = 2000) {
  if (s.size() > n) s = s.substr(0, n) + "...";
  return s;
}

class GradeListener : public Catch::TestEventListenerBase {
 public:
  using TestEventListenerBase::TestEventListenerBase;

  void testRunStarting(Catch::TestRunInfo const& info) override {
    TestEventListenerBase::testRunStarting(info);
    record_path_ = take_env("KINDLING_GRADE_RECORD");
    nonce_ = take_env("KINDLING_GRADE_NONCE");
    std::string catalogue = take_env("KINDLING_GRADE_CATALOGUE");
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
    first_failure_.clear();
  }

  bool assertionEnded(Catch::AssertionStats const& stats) override {
    const Catch::AssertionResult& r = stats.assertionResult;
    if (!r.isOk() && first_failure_.empty()) first_failure_ = describe(stats);
    return true;
  }

  void testCaseEnded(Catch::TestCaseStats const& stats) override {
    TestEventListenerBase::testCaseEnded(stats);
    if (nonce_.empty()) return;  // run by hand, not by the grader
    const auto& a = stats.totals.assertions;
    nlohmann::json rec{{"nonce", nonce_},
                       {"name", stats.testInfo.name},
                       {"passed", a.failed == 0 && stats.totals.testCases.failed == 0},
                       {"assertions_passed", a.passed},
                       {"assertions_failed", a.failed},
                       {"not_implemented", g_not_implemented},
                       {"first_failure", first_failure_}};
    // error_handler::replace: a learner's message may hold invalid UTF-8; the record must still parse.
    write_file(record_path_, rec.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", "a");
  }

 private:
  // "CHECK( y == 3 ) with expansion: 4 == 3; info: i := 2" — what a learner needs to find the bug.
  static std::string describe(Catch::AssertionStats const& stats) {
    const Catch::AssertionResult& r = stats.assertionResult;
    std::string s;
    if (r.hasExpression()) {
      s = r.getExpressionInMacro();
      if (r.hasExpandedExpression()) s += " with expansion: " + r.getExpandedExpression();
    }
    if (r.hasMessage()) s += (s.empty() ? "" : "; ") + r.getMessage();
    for (const Catch::MessageInfo& m : stats.infoMessages) {
      if (m.message != r.getMessage()) s += "; " + m.message;  // INFO/CAPTURE context (not the message again)
    }
    std::string file = r.getSourceInfo().file;
    file = file.substr(file.find_last_of('/') + 1);  // npos + 1 == 0: no slash, whole name
    std::string where = file + ":" + std::to_string(r.getSourceInfo().line);
    return clip(s) + " (" + where + ")";
  }

  std::string record_path_, nonce_, first_failure_;
};

}  // namespace

CATCH_REGISTER_LISTENER(GradeListener)

// The translator runs only for kindling::NotImplemented, so the flag is set by the exception's type,
// not by whatever text a learner puts in a message.
CATCH_TRANSLATE_EXCEPTION(kindling::NotImplemented const& e) {
  g_not_implemented = true;
  return e.what();
}
