// checkpoint_eval --score: BLEU of any plain-text translation file against one or more
// reference files (one sentence per line, whitespace tokens), like sacreBLEU's command line
// but on NLTK's scale and with NLTK's exact numbers.
#pragma once

#include <string>
#include <vector>

#include "dls/eval/bleu.h"

namespace dls::apps {

struct ScoreRequest {
  std::string hypotheses;               // file
  std::vector<std::string> references;  // files, each with one line per hypothesis
  bool sentence = false;                // also per-line sentence BLEU
  eval::BleuOptions bleu;
  bool json = false;
};

struct TextScores {
  eval::BleuScore corpus;
  std::vector<double> sentence_bleu;  // per line, with ScoreRequest::sentence
  std::size_t lines = 0;
};

// Reads and scores the files; throws std::runtime_error (one line, naming the file and line)
// for a missing or empty file, invalid UTF-8, or files with different numbers of lines.
// SOS, EOS and <pad> tokens are stripped from both sides.
TextScores score_text_files(const ScoreRequest& request);

// score_text_files, then the report (or JSON) on stdout. Returns 0, or 1 after a one-line
// error on stderr.
int run_text_scoring(const ScoreRequest& request);

}  // namespace dls::apps
