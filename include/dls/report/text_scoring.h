// checkpoint_eval --score: BLEU of any plain-text translation file against one or more
// reference files (one sentence per line): NLTK's corpus BLEU on whitespace tokens, and
// sacreBLEU's corpus BLEU (13a) and chrF2 on the lines as they are, as sacreBLEU's command
// line scores them (signatures case:mixed: the text is not lowercased).
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "dls/eval/bleu.h"
#include "dls/eval/chrf.h"
#include "dls/eval/sacrebleu.h"

namespace dls::report {

using eval::BleuOptions;
using eval::BleuScore;
using eval::ChrfScore;
using eval::SacreBleuScore;

struct ScoreRequest {
  std::string hypotheses;               // file
  std::vector<std::string> references;  // files, each with one line per hypothesis
  bool sentence = false;                // also per-line sentence BLEU
  BleuOptions bleu;
  bool json = false;
};

struct TextScores {
  BleuScore corpus;
  SacreBleuScore sacrebleu;
  ChrfScore chrf;
  std::vector<double> sentence_bleu;  // per line, with ScoreRequest::sentence
  std::size_t lines = 0;
};

// Reads and scores the files; throws std::runtime_error (one line, naming the file and line)
// for a missing or empty file, invalid UTF-8, or files with different numbers of lines.
// SOS, EOS and <pad> tokens are stripped from both sides (a line that held any is given to
// sacreBLEU and chrF as its other tokens joined by spaces).
TextScores score_text_files(const ScoreRequest& request);

// score_text_files, then the report (or one JSON object) on `out`.
TextScores report_text_scores(const ScoreRequest& request, std::ostream& out);

}  // namespace dls::report
