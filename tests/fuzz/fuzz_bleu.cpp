// BLEU on any text: lines alternate hypothesis, reference; the first byte picks NLTK's
// smoothing method. Scores must be finite, not negative, and at most 1 except for methods
// 5, 6 and 7, whose interpolations exceed 1 in NLTK too (a finding of this target: method6
// gives 2.189781789852177 on tests/fuzz/seeds/bleu/method6_above_one.txt, as NLTK 3.8 does).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>

#include "dls/eval/bleu.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  dls::eval::BleuOptions options;
  options.smoothing = static_cast<dls::eval::Smoothing>(data[0] % 8);
  options.auto_reweigh = (data[0] & 8) != 0;
  std::istringstream lines(dls::fuzz::as_string(data + 1, size - 1));
  std::vector<dls::eval::Tokens> hypotheses;
  std::vector<std::vector<dls::eval::Tokens>> references;
  for (std::string hypothesis, reference; std::getline(lines, hypothesis) && std::getline(lines, reference);) {
    hypotheses.push_back(dls::eval::split_whitespace(hypothesis));
    references.push_back({dls::eval::split_whitespace(reference)});
  }
  const bool may_exceed_one = options.smoothing == dls::eval::Smoothing::kMethod5 ||
                              options.smoothing == dls::eval::Smoothing::kMethod6 ||
                              options.smoothing == dls::eval::Smoothing::kMethod7;
  const auto check = [&](const dls::eval::BleuScore& score) {
    if (!std::isfinite(score.bleu) || score.bleu < 0 || (!may_exceed_one && score.bleu > 1 + 1e-12)) {
      std::fprintf(stderr, "BLEU %.17g out of range (smoothing %d)\n", score.bleu, static_cast<int>(options.smoothing));
      std::abort();
    }
  };
  try {
    check(dls::eval::corpus_bleu(references, hypotheses, options));
  } catch (const std::exception&) {
  }
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    try {
      check(dls::eval::sentence_bleu(references[i], hypotheses[i], options));
    } catch (const std::exception&) {
    }
  }
  return 0;
}
