// Entry point of dls_tests: fixed thread count and quiet logging, so that results and
// timings do not depend on the machine's defaults.
#include <gtest/gtest.h>

#include "dls/util/runtime.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  dls::util::RuntimeOptions options;
  options.log_level = "warn";
  options.threads = 1;  // ctest runs tests side by side; tiny tensors gain nothing from more
  dls::util::configure_runtime(options);
  return RUN_ALL_TESTS();
}
