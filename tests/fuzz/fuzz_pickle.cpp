// The pickle reader behind DLStudio's archives, on any bytes: as a pickle, and as an
// archive's dataset (the corpus reader on top of it). A std::exception is the expected
// answer to bad input; a crash, a sanitizer report, a leak or a hang is a finding.
#include <exception>

#include "dls/data/corpus.h"
#include "dls/data/pickle.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = dls::fuzz::as_string(data, size);
  try {
    (void)dls::data::parse_pickle(bytes, "fuzz");
  } catch (const std::exception&) {
  }
  try {
    (void)dls::data::parse_archive_corpus(bytes, "fuzz");
  } catch (const std::exception&) {
  }
  return 0;
}
