#include "dls/eval/word_alignment.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include <torch/torch.h>

#include "dls/data/vocabulary.h"

namespace dls::eval {

namespace {

// The positions of `tokens` that are real tokens (not SOS or EOS), and for each its word's
// number: a list with "▁"-marked pieces is SentencePiece's (a piece without the mark
// continues the word before it, except after or as <unk>, which SentencePiece decodes as a
// word of its own: " <unk> "); otherwise every token is a word.
struct TokenWords {
  std::vector<std::int64_t> positions;
  std::vector<int> word;
};

TokenWords token_words(const std::vector<std::string>& tokens) {
  static const std::string kWordStart = "\xE2\x96\x81";  // U+2581, SentencePiece's word mark
  const bool pieces = std::any_of(tokens.begin(), tokens.end(), [](const std::string& t) {
    return t.compare(0, kWordStart.size(), kWordStart) == 0;
  });
  TokenWords words;
  const std::string unknown = data::Vocabulary::kSpecialWords[data::Vocabulary::kUnk];
  int word = -1;
  bool after_unknown = false;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const auto& token = tokens[i];
    if (token == "SOS" || token == "EOS") continue;
    if (!pieces || word < 0 || after_unknown || token == unknown ||
        token.compare(0, kWordStart.size(), kWordStart) == 0)
      ++word;
    after_unknown = token == unknown;
    words.positions.push_back(static_cast<std::int64_t>(i));
    words.word.push_back(word);
  }
  return words;
}

}  // namespace

std::vector<AlignmentPoint> hard_alignment(const TranslationAttention& maps) {
  if (maps.cross.empty()) throw std::invalid_argument("word alignment: no cross-attention");
  // Row i writes written[i]: the labels the general form reads, where row i predicts label i+1.
  std::vector<std::string> predicted{"SOS"};
  predicted.insert(predicted.end(), maps.written.begin(), maps.written.end());
  return hard_alignment(maps.source, predicted, maps.cross.back().mean(0));
}

std::vector<AlignmentPoint> hard_alignment(const std::vector<std::string>& source_labels,
                                           const std::vector<std::string>& target_labels,
                                           const torch::Tensor& weights) {
  const auto source = token_words(source_labels), target = token_words(target_labels);
  if (source.positions.empty() || target.positions.empty()) return {};
  const auto index = [](const std::vector<std::int64_t>& p) { return torch::tensor(p, torch::kLong); };
  // A word is written by the step whose query is the token before it (SOS for the first):
  // that row, over the real source tokens.
  std::vector<std::int64_t> writers;
  for (const auto p : target.positions) writers.push_back(p - 1);
  const auto best = weights.to(torch::kCPU, torch::kFloat)
                        .index_select(0, index(writers))
                        .index_select(1, index(source.positions))
                        .argmax(1)
                        .contiguous();  // [target tokens]
  std::vector<AlignmentPoint> points;
  for (std::size_t t = 0; t < target.positions.size(); ++t) {
    points.push_back({source.word[static_cast<std::size_t>(best[static_cast<std::int64_t>(t)].item<std::int64_t>())],
                      target.word[t]});
  }
  std::sort(points.begin(), points.end(), [](const AlignmentPoint& a, const AlignmentPoint& b) {
    return a.target != b.target ? a.target < b.target : a.source < b.source;
  });
  points.erase(std::unique(points.begin(), points.end()), points.end());
  return points;
}

std::string alignment_text(const std::vector<AlignmentPoint>& points) {
  std::string text;
  for (const auto& p : points)
    text += (text.empty() ? "" : " ") + std::to_string(p.source) + "-" + std::to_string(p.target);
  return text;
}

}  // namespace dls::eval
