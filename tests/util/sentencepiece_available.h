// Test helper: SentencePiece is loaded as a module with RTLD_DEEPBIND (src/CMakeLists.txt says
// why), which AddressSanitizer's runtime refuses; under `make test-asan` the tests that train or
// load SentencePiece models are skipped with this message instead of failing on the loader.
#pragma once

#include <gtest/gtest.h>

#if defined(__SANITIZE_ADDRESS__)
#define DLS_SKIP_WITHOUT_SENTENCEPIECE() \
  GTEST_SKIP() << "SentencePiece's module needs RTLD_DEEPBIND, which AddressSanitizer refuses"
#else
#define DLS_SKIP_WITHOUT_SENTENCEPIECE() static_cast<void>(0)
#endif
