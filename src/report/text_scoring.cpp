#include "dls/report/text_scoring.h"

#include <ostream>
#include <stdexcept>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "dls/util/file_io.h"
#include "dls/util/json.h"
#include "dls/util/utf8.h"
#include "report/score_json.h"

namespace dls::report {

using eval::corpus_bleu;
using eval::corpus_chrf;
using eval::sacrebleu_corpus;
using eval::sentence_bleu;
using eval::smoothing_name;
using eval::split_whitespace;
using eval::Tokens;

namespace {

// The lines of a text file, without their line breaks (a final line break is optional).
std::vector<std::string> read_text_lines(const std::string& path) {
  const std::string text = util::read_file(path);
  if (text.empty()) throw std::runtime_error(path + ": empty file");
  std::vector<std::string> lines;
  // A byte-order mark (Windows editors write one) is no text: a hypothesis file identical to
  // its reference but for one scores 100, as the corpus readers skip it too.
  std::size_t start = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!util::is_valid_utf8(line)) {
      throw std::runtime_error(fmt::format("{}:{}: not valid UTF-8", path, lines.size() + 1));
    }
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

}  // namespace

TextScores score_text_files(const ScoreRequest& request) {
  if (request.references.empty()) throw std::runtime_error("--score needs at least one --ref file");
  const auto hypotheses = read_text_lines(request.hypotheses);
  std::vector<std::vector<std::string>> reference_files;
  for (const auto& path : request.references) {
    reference_files.push_back(read_text_lines(path));
    if (reference_files.back().size() != hypotheses.size()) {
      throw std::runtime_error(fmt::format("{}: {} lines, but {} has {}", path, reference_files.back().size(),
                                           request.hypotheses, hypotheses.size()));
    }
  }
  std::vector<Tokens> hyps;
  std::vector<std::vector<Tokens>> refs(hypotheses.size());
  std::vector<std::string> hyp_texts;
  std::vector<std::vector<std::string>> ref_texts(hypotheses.size());
  std::size_t empty_references = 0;
  std::string first_empty;  // "FILE:LINE"
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    // The lines as they are: "SOS" and "EOS" in a user's file are words (a distress call, a
    // camera), not the vocabulary's markers.
    hyps.push_back(split_whitespace(hypotheses[i]));
    hyp_texts.push_back(hypotheses[i]);
    for (std::size_t f = 0; f < reference_files.size(); ++f) {
      refs[i].push_back(split_whitespace(reference_files[f][i]));
      ref_texts[i].push_back(reference_files[f][i]);
      if (refs[i].back().empty() && empty_references++ == 0) {
        first_empty = request.references[f] + ":" + std::to_string(i + 1);
      }
    }
  }
  // Scored as references without words, as NLTK does; sacreBLEU refuses them, and one usually
  // means files that do not line up.
  if (empty_references > 0) {
    spdlog::warn(
        "{}: an empty reference line ({} in all), scored as a reference without words; are the files "
        "aligned line by line? (sacreBLEU refuses empty references)",
        first_empty, empty_references);
  }
  TextScores scores;
  scores.lines = hyps.size();
  scores.corpus = corpus_bleu(refs, hyps, request.bleu);
  scores.sacrebleu = sacrebleu_corpus(hyp_texts, ref_texts);
  scores.chrf = corpus_chrf(hyp_texts, ref_texts);
  if (request.sentence) {
    for (std::size_t i = 0; i < hyps.size(); ++i) {
      scores.sentence_bleu.push_back(sentence_bleu(refs[i], hyps[i], request.bleu).bleu);
    }
  }
  return scores;
}

TextScores report_text_scores(const ScoreRequest& request, std::ostream& out) {
  const auto scores = score_text_files(request);
  const auto& c = scores.corpus;
  if (request.json) {
    util::JsonWriter json;
    json.begin_object().field("bleu", c.bleu).key("precisions").begin_array();
    for (const double p : c.precisions) json.value(p);
    json.end_array()
        .field("bp", c.bp)
        .field("ratio", c.ratio)
        .field("hyp_len", c.hyp_len)
        .field("ref_len", c.ref_len)
        .field("sentences", scores.lines)
        .field("smoothing", smoothing_name(request.bleu.smoothing));
    detail::add_field_scores(json, scores.sacrebleu, scores.chrf);
    if (request.sentence) {
      json.key("sentence_bleu").begin_array();
      for (const double b : scores.sentence_bleu) json.value(b);
      json.end_array();
    }
    json.end_object();
    out << json.str() << std::endl;
    return scores;
  }
  if (request.sentence) {
    for (std::size_t i = 0; i < scores.sentence_bleu.size(); ++i) {
      out << fmt::format("line {}: BLEU {:.4f}\n", i + 1, scores.sentence_bleu[i]);
    }
  }
  out << fmt::format("{} sentences, {} reference file(s), smoothing {}\n", scores.lines, request.references.size(),
                     smoothing_name(request.bleu.smoothing))
      << fmt::format("corpus BLEU (NLTK, 0-1) = {:.4f}\n", c.bleu) << scores.sacrebleu.line(true) << "\n"
      << scores.chrf.line(true) << std::endl;
  return scores;
}

}  // namespace dls::report
