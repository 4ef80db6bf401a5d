// Entry point of dls_tests: fixed thread count and quiet logging, so that results and
// timings do not depend on the machine's defaults.
#include <cstdlib>

#include <gtest/gtest.h>

#include "dls/util/blas_kernels.h"
#include "dls/util/runtime.h"
#include "support/outside_needs.h"

namespace {

// What a test declared it runs from outside the project holds for that test only.
class ForgetOutsideNeeds : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo&) override { dls::test::forget_declared_outside_needs(); }
};

// ctest runs one process per suite (cmake/DlsTestSuites.cmake) and sets
// DLS_TESTS_ALL_SKIPPED_STATUS=77: a suite whose every test skipped then reads as skipped
// there, not as passed. 0 when the variable is unset or some test ran to the end.
int all_skipped_status(const ::testing::UnitTest& run) {
  const char* status = std::getenv("DLS_TESTS_ALL_SKIPPED_STATUS");
  if (status == nullptr || run.successful_test_count() > 0 || run.skipped_test_count() == 0) return 0;
  return std::atoi(status);
}

}  // namespace

int main(int argc, char** argv) {
  dls::util::choose_blas_kernels(argv);  // first of all: may start the program again (blas_kernels.h)
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::UnitTest::GetInstance()->listeners().Append(new ForgetOutsideNeeds);
  dls::util::RuntimeOptions options;
  options.log_level = "warn";
  options.threads = 1;  // ctest runs tests side by side; tiny tensors gain nothing from more
  dls::util::configure_runtime(options);
  const int status = RUN_ALL_TESTS();
  return status == 0 ? all_skipped_status(*::testing::UnitTest::GetInstance()) : status;
}
