#include "dls/eval/unknown_words.h"

#include <algorithm>

#include <torch/torch.h>

#include "dls/eval/word_alignment.h"

namespace dls::eval {

namespace {

const std::string& unknown_token() {
  static const std::string token = data::Vocabulary::kSpecialWords[data::Vocabulary::kUnk];
  return token;
}

// "SOS", the tokens, then "EOS" when `ended`: the labels of a teacher-forced row.
std::vector<std::string> labels(const Translator::TokenList& tokens, bool ended) {
  std::vector<std::string> all{"SOS"};
  all.insert(all.end(), tokens.begin(), tokens.end());
  if (ended) all.emplace_back("EOS");
  return all;
}

}  // namespace

bool has_unknown(const std::vector<std::string>& tokens) {
  return std::find(tokens.begin(), tokens.end(), unknown_token()) != tokens.end();
}

std::vector<std::vector<AlignmentPoint>> unknown_word_alignments(
    const TranslationModel& model, const torch::Tensor& src, const std::vector<const Translator::TokenList*>& sources,
    const std::vector<const Translator::TokenList*>& outputs, const data::Vocabulary& target, std::int64_t positions,
    std::int64_t batch_size) {
  TORCH_CHECK(sources.size() == outputs.size() && static_cast<std::int64_t>(outputs.size()) == src.size(0),
              "one source and one output per row");
  std::vector<std::vector<AlignmentPoint>> alignments(outputs.size());
  std::vector<std::int64_t> rows;  // the rows with <unk>
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (has_unknown(*outputs[i])) rows.push_back(static_cast<std::int64_t>(i));
  }
  if (rows.empty()) return alignments;
  // Dropout off for the pass, as decoding has it; the caller's mode afterwards.
  const bool was_training = model.module().is_training();
  model.module().eval();
  const auto count = static_cast<std::int64_t>(rows.size());
  for (std::int64_t first = 0; first < count; first += std::max<std::int64_t>(1, batch_size)) {
    const auto n = std::min(std::max<std::int64_t>(1, batch_size), count - first);
    // Targets [n, positions]: SOS, the output (as much as fits), EOS, EOS after it (a causal
    // decoder's rows up to the EOS do not read what follows).
    std::vector<std::int64_t> ids(static_cast<std::size_t>(n * positions), data::Vocabulary::kEos);
    std::vector<Translator::TokenList> written(static_cast<std::size_t>(n));
    std::vector<bool> ended(static_cast<std::size_t>(n));
    for (std::int64_t k = 0; k < n; ++k) {
      auto& output = written[static_cast<std::size_t>(k)];
      output = *outputs[static_cast<std::size_t>(rows[static_cast<std::size_t>(first + k)])];
      if (static_cast<std::int64_t>(output.size()) > positions - 1)
        output.resize(static_cast<std::size_t>(positions - 1));
      ended[static_cast<std::size_t>(k)] = static_cast<std::int64_t>(output.size()) < positions - 1;
      auto* row = ids.data() + k * positions;
      row[0] = data::Vocabulary::kSos;
      for (std::size_t i = 0; i < output.size(); ++i) row[i + 1] = target.index_of(output[i]);
    }
    const auto tgt = torch::tensor(ids, torch::kLong).view({n, positions});
    const auto chosen =
        torch::tensor(std::vector<std::int64_t>(rows.begin() + first, rows.begin() + first + n), torch::kLong)
            .to(src.device());
    const auto weights =
        model.cross_attention(src.index_select(0, chosen), tgt.to(src.device())).to(torch::kCPU, torch::kFloat);
    for (std::int64_t k = 0; k < n; ++k) {
      const auto row = static_cast<std::size_t>(rows[static_cast<std::size_t>(first + k)]);
      alignments[row] = hard_alignment(labels(*sources[row], true),
                                       labels(written[static_cast<std::size_t>(k)], ended[static_cast<std::size_t>(k)]),
                                       weights[k]);  // [positions - 1, S]
    }
  }
  model.module().train(was_training);
  return alignments;
}

std::string source_spelling(std::string_view source, const std::string& word, data::Language language) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  // The bytes of the code point that starts at `i` (UTF-8: continuation bytes are 10xxxxxx).
  const auto code_point_end = [&](std::string_view text, std::size_t i) {
    ++i;
    while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
    return i;
  };
  const auto vanishes = [&](std::string_view piece) { return data::normalize_words(piece, language).empty(); };
  std::size_t start = 0;
  while (start < source.size()) {
    while (start < source.size() && is_space(source[start])) ++start;
    std::size_t end = start;
    while (end < source.size() && !is_space(source[end])) ++end;
    auto chunk = source.substr(start, end - start);
    start = end;
    const auto words = data::normalize_words(chunk, language);
    if (words.size() != 1 || words.front() != word) continue;
    // Leading code points that normalise to nothing ("¿", "\""), then trailing ones ("?", ".").
    for (std::size_t next = 0; !chunk.empty() && vanishes(chunk.substr(0, next = code_point_end(chunk, 0)));)
      chunk.remove_prefix(next);
    while (!chunk.empty()) {
      std::size_t last = chunk.size() - 1;
      while (last > 0 && (static_cast<unsigned char>(chunk[last]) & 0xC0) == 0x80) --last;
      if (!vanishes(chunk.substr(last))) break;
      chunk.remove_suffix(chunk.size() - last);
    }
    return std::string(chunk);
  }
  return word;
}

std::vector<std::string> spelt_as_source(const std::vector<std::string>& decoded, std::vector<std::string> words,
                                         std::string_view source, data::Language language) {
  for (std::size_t i = 0; i < words.size() && i < decoded.size(); ++i) {
    if (decoded[i] == unknown_token() && words[i] != unknown_token())
      words[i] = source_spelling(source, words[i], language);
  }
  return words;
}

std::size_t replace_unknown_words(std::vector<std::string>& output_words, const std::vector<std::string>& source_words,
                                  const std::vector<AlignmentPoint>& alignment) {
  std::size_t replaced = 0;
  for (const auto& point : alignment) {  // sorted by target word: its first source word
    const auto t = static_cast<std::size_t>(point.target), s = static_cast<std::size_t>(point.source);
    if (t < output_words.size() && s < source_words.size() && output_words[t] == unknown_token()) {
      output_words[t] = source_words[s];
      ++replaced;
    }
  }
  return replaced;
}

}  // namespace dls::eval
