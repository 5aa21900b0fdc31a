// streamcheck's GoogleTest listener: each test is a scope named
// "Suite.Test" (parameterized: "Prefix/Suite.Test/0"), from its SetUp to its
// TearDown, so every finding of `streamcheck run -- ./my_tests` names its
// test (docs/SCOPES.md). With failing on, a test whose scope had an error
// finding fails with the finding's headline, the tests of both sides and the
// fix. Header-only; without streamcheck every call is a no-op.
//
//   int main(int argc, char** argv) {
//     ::testing::InitGoogleTest(&argc, argv);
//     streamcheck::InstallScopeListener(&argc, argv);  // takes --streamcheck_fail from argv
//     return RUN_ALL_TESTS();
//   }
//
//   $ streamcheck run -- ./my_tests --streamcheck_fail
//
// Work a test leaves in flight belongs to it: a race with the next test's
// use of the buffer fails the next test, naming both. The suite's own
// SetUpTestSuite / TearDownTestSuite run outside every test's scope.
#ifndef STREAMCHECK_GTEST_LISTENER_H_
#define STREAMCHECK_GTEST_LISTENER_H_

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "scope.h"  // beside this header

namespace streamcheck {

class ScopeListener : public ::testing::EmptyTestEventListener {
 public:
  // `fail_on_errors`: a test whose scope had an error finding fails.
  explicit ScopeListener(bool fail_on_errors = false) : fail_on_errors_(fail_on_errors) {}

  // "Suite.Test", as --gtest_filter names it.
  static std::string ScopeName(const ::testing::TestInfo& test) {
    return std::string(test.test_suite_name()) + "." + test.name();
  }

  void OnTestStart(const ::testing::TestInfo& test) override { streamcheck_scope_begin(ScopeName(test).c_str()); }

  // Called while the test is still the current one (and before the default
  // printer's OnTestEnd, listeners being told of an end in reverse order):
  // a failure added here is the test's own, and printed with it.
  void OnTestEnd(const ::testing::TestInfo& test) override {
    if (fail_on_errors_) {
      const std::string errors = Scope::Errors();
      if (!errors.empty())
        ADD_FAILURE_AT(test.file() ? test.file() : "", test.line())
            << "streamcheck found stream-ordering errors in " << ScopeName(test) << ":\n" << errors;
    }
    streamcheck_scope_end();
  }

 private:
  bool fail_on_errors_;
};

// Appends a ScopeListener to GoogleTest's listeners (which own it), failing
// tests on errors when `fail_on_errors` or when argv has --streamcheck_fail,
// which is taken out of argv. Call after ::testing::InitGoogleTest.
inline void InstallScopeListener(int* argc = nullptr, char** argv = nullptr, bool fail_on_errors = false) {
  if (argc != nullptr && argv != nullptr) {
    int kept = 0;
    for (int i = 0; i < *argc; ++i) {
      if (std::strcmp(argv[i], "--streamcheck_fail") == 0 || std::strcmp(argv[i], "--streamcheck-fail") == 0)
        fail_on_errors = true;
      else
        argv[kept++] = argv[i];
    }
    if (kept < *argc) argv[kept] = nullptr;
    *argc = kept;
  }
  if (fail_on_errors && streamcheck_scope_traced() == STREAMCHECK_SCOPE_UNTRACED)
    std::fprintf(stderr, "streamcheck: --streamcheck_fail: not running under `streamcheck run`, nothing is checked\n");
  ::testing::UnitTest::GetInstance()->listeners().Append(new ScopeListener(fail_on_errors));
}

}  // namespace streamcheck

#endif  // STREAMCHECK_GTEST_LISTENER_H_
