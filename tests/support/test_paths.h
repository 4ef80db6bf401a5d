// Where the tests find their fixtures, the sources and the built programs. The paths are
// compiled into one generated file (test_paths.cpp.in), not into every test's flags, so
// that a clean build in another folder reuses ccache's results for all other test files.
#pragma once

#include <string>

namespace dls::testing {

std::string fixtures_dir();  // tests/fixtures
std::string source_dir();    // the project's root
std::string binary_dir();    // the build folder (apps/, bench/ below it)

// data/sample_en_es.tsv: the repository's small English-Spanish corpus (Tatoeba's format).
inline std::string sample_corpus() { return source_dir() + "/data/sample_en_es.tsv"; }

}  // namespace dls::testing
