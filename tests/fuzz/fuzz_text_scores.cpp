// sacreBLEU's BLEU (13a or whitespace tokens) and chrF on any text: lines alternate
// hypothesis, reference; the first byte picks the options. Scores must be finite and within
// 0..100, whatever the bytes (invalid UTF-8 included), and the report lines must format.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dls/eval/chrf.h"
#include "dls/eval/sacrebleu.h"
#include "fuzz_input.h"

namespace {

void check_score(double score, const char* what, int options) {
  if (!std::isfinite(score) || score < 0 || score > 100 + 1e-9) {
    std::fprintf(stderr, "%s %.17g out of range (options byte %d)\n", what, score, options);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int options = data[0];
  dls::eval::SacreBleuOptions bleu;
  bleu.tokenizer = (options & 1) != 0 ? dls::eval::SacreTokenizer::kNone : dls::eval::SacreTokenizer::k13a;
  bleu.smoothing = static_cast<dls::eval::SacreSmoothing>((options >> 1) % 4);
  bleu.effective_order = (options & 8) != 0;
  dls::eval::ChrfOptions chrf;
  chrf.whitespace = (options & 16) != 0;
  chrf.eps_smoothing = (options & 32) != 0;
  const int char_orders[] = {6, 1, 2, 4};  // 6: sacreBLEU's default
  chrf.char_order = char_orders[options >> 6];

  std::istringstream lines(dls::fuzz::as_string(data + 1, size - 1));
  std::vector<std::string> hypotheses;
  std::vector<std::vector<std::string>> references;
  for (std::string hypothesis, reference; std::getline(lines, hypothesis) && std::getline(lines, reference);) {
    hypotheses.push_back(hypothesis);
    references.push_back({reference});
  }
  try {
    const auto score = dls::eval::sacrebleu_corpus(hypotheses, references, bleu);
    check_score(score.score, "sacreBLEU", options);
    (void)score.line(true);
  } catch (const std::invalid_argument&) {  // no sentence
  }
  try {
    const auto score = dls::eval::corpus_chrf(hypotheses, references, chrf);
    check_score(score.score, "chrF", options);
    (void)score.line(true);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
