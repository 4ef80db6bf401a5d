#include "dls/eval/long_sentences.h"

#include <algorithm>
#include <stdexcept>

#include "dls/data/detokenize.h"
#include "dls/util/utf8.h"

namespace dls::eval {

namespace {

using Points = std::vector<char32_t>;

bool is_space(char32_t c) {
  return c == U'\t' || c == U'\n' || c == U'\r' || util::char_category(c) == util::CharCategory::kSeparator;
}

// Closing quotes and brackets, which stay with the mark before them ("He left." she said).
bool is_closer(char32_t c) {
  switch (c) {
    case U'"':
    case U'\'':
    case U')':
    case U']':
    case U'}':
    case U'\u00BB':
    case U'\u201D':
    case U'\u2019':
    case U'\u300D':
    case U'\u300F':
    case U'\uFF09':
      return true;
    default:
      return false;
  }
}

bool ends_sentence(char32_t c) { return c == U'.' || c == U'!' || c == U'?' || c == U'\u2026'; }
bool ends_sentence_anywhere(char32_t c) { return c == U'\u3002' || c == U'\uFF01' || c == U'\uFF1F'; }  // 。！？
bool ends_clause(char32_t c) { return c == U',' || c == U';' || c == U':'; }
bool ends_clause_anywhere(char32_t c) {  // — – 、 ， ； ：
  return c == U'\u2014' || c == U'\u2013' || c == U'\u3001' || c == U'\uFF0C' || c == U'\uFF1B' || c == U'\uFF1A';
}

std::size_t skip_closers(const Points& p, std::size_t j) {
  while (j < p.size() && is_closer(p[j])) ++j;
  return j;
}

// Where a sentence that ends at p[i] ends, closing marks and quotes included; 0: none does.
std::size_t sentence_end(const Points& p, std::size_t i) {
  if (ends_sentence_anywhere(p[i])) return skip_closers(p, i + 1);
  if (!ends_sentence(p[i])) return 0;
  std::size_t j = i + 1;
  while (j < p.size() && (ends_sentence(p[j]) || ends_sentence_anywhere(p[j]))) ++j;
  j = skip_closers(p, j);
  return j == p.size() || is_space(p[j]) ? j : 0;
}

// Where a clause that ends at p[i] ends; 0: none does.
std::size_t clause_end(const Points& p, std::size_t i) {
  if (ends_clause_anywhere(p[i])) return skip_closers(p, i + 1);
  if (p[i] == U'-') return i > 0 && i + 1 < p.size() && is_space(p[i - 1]) && is_space(p[i + 1]) ? i + 1 : 0;
  if (!ends_clause(p[i])) return 0;
  const auto j = skip_closers(p, i + 1);
  return j == p.size() || is_space(p[j]) ? j : 0;
}

// `text` cut where `end_at` says, each piece trimmed, empty ones dropped.
std::vector<std::string> cut_text(std::string_view text, std::size_t (*end_at)(const Points&, std::size_t)) {
  const auto p = util::decode_utf8(text);
  std::vector<std::string> pieces;
  std::size_t start = 0;
  const auto emit = [&](std::size_t end) {
    auto first = start, last = end;
    while (first < last && is_space(p[first])) ++first;
    while (last > first && is_space(p[last - 1])) --last;
    if (last > first) {
      std::string piece;
      for (auto k = first; k < last; ++k) util::append_utf8(piece, p[k]);
      pieces.push_back(std::move(piece));
    }
    start = end;
  };
  for (std::size_t i = 0; i < p.size(); ++i) {
    const auto end = end_at(p, i);
    if (end > i) {
      emit(end);
      i = end - 1;
    }
  }
  emit(p.size());
  return pieces;
}

// The clause mark that ends `clause` (closing quotes aside), "" when it ends otherwise.
std::string mark_of(std::string_view clause) {
  const auto p = util::decode_utf8(clause);
  auto last = p.size();
  while (last > 0 && is_closer(p[last - 1])) --last;
  if (last == 0) return "";
  const char32_t c = p[last - 1];
  return ends_clause(c) || ends_clause_anywhere(c) || c == U'-' ? util::encode_utf8(c) : "";
}

// `tokens` in ceil(n / limit) runs of about equal length, in order.
std::vector<std::vector<std::string>> balanced_runs(const std::vector<std::string>& tokens, std::size_t limit) {
  const std::size_t runs = (tokens.size() + limit - 1) / limit;
  std::vector<std::vector<std::string>> out;
  for (std::size_t r = 0, from = 0; r < runs; ++r) {
    const auto to = tokens.size() * (r + 1) / runs;
    out.emplace_back(tokens.begin() + static_cast<std::ptrdiff_t>(from),
                     tokens.begin() + static_cast<std::ptrdiff_t>(to));
    from = to;
  }
  return out;
}

class Splitter {
 public:
  Splitter(SplitSource& split, const Tokenize& tokenize, std::size_t limit)
      : split_(split), tokenize_(tokenize), limit_(limit) {}

  void sentence(std::size_t s) {
    auto tokens = tokenize_(split_.sentences[s]);
    if (tokens.size() <= limit_) {
      if (!tokens.empty()) split_.parts.push_back({std::move(tokens), s, ""});
      return;
    }
    const auto clauses = split_clauses(split_.sentences[s]);
    split_.at_clauses = split_.at_clauses || clauses.size() > 1;
    for (std::size_t i = 0; i < clauses.size();) {
      auto text = clauses[i];
      tokens = tokenize_(text);
      if (tokens.size() > limit_) {
        words(s, clauses[i]);
        ++i;
        continue;
      }
      // As many clauses after it as still fit with it.
      std::size_t j = i + 1;
      for (; j < clauses.size(); ++j) {
        const auto longer = text + " " + clauses[j];
        auto more = tokenize_(longer);
        if (more.size() > limit_) break;
        text = longer;
        tokens = std::move(more);
      }
      if (!tokens.empty()) split_.parts.push_back({std::move(tokens), s, mark_of(clauses[j - 1])});
      i = j;
    }
  }

 private:
  // A clause over the limit, cut between its words into parts of about equal size.
  void words(std::size_t s, const std::string& clause) {
    split_.at_word_limit = true;
    std::vector<std::vector<std::string>> word_tokens;
    std::size_t total = 0;
    for (const auto& word : cut_words(clause)) {
      word_tokens.push_back(tokenize_(word));
      total += word_tokens.back().size();
    }
    // As few parts as the limit allows, about `target` tokens each.
    const std::size_t parts = std::max<std::size_t>(1, (total + limit_ - 1) / limit_);
    const std::size_t target = (total + parts - 1) / parts;
    std::vector<std::string> current;
    const auto flush = [&] {
      if (!current.empty()) split_.parts.push_back({std::move(current), s, ""});
      current.clear();
    };
    for (auto& tokens : word_tokens) {
      if (tokens.size() > limit_) {  // one word of more subword pieces than fit
        flush();
        for (auto& run : balanced_runs(tokens, limit_)) split_.parts.push_back({std::move(run), s, ""});
        continue;
      }
      if (current.size() >= target || current.size() + tokens.size() > limit_) flush();
      current.insert(current.end(), tokens.begin(), tokens.end());
    }
    flush();
    if (total > 0) split_.parts.back().mark = mark_of(clause);
  }

  static std::vector<std::string> cut_words(std::string_view clause) {
    return cut_text(clause, [](const Points& p, std::size_t i) -> std::size_t { return is_space(p[i]) ? i + 1 : 0; });
  }

  SplitSource& split_;
  const Tokenize& tokenize_;
  std::size_t limit_;
};

}  // namespace

std::int64_t decode_positions(std::int64_t source_tokens, std::int64_t trained_length) {
  if (source_tokens + 2 <= trained_length) return trained_length;
  return std::max(trained_length, (3 * source_tokens + 1) / 2 + 10 + 2);
}

std::vector<std::string> split_sentences(std::string_view text) { return cut_text(text, sentence_end); }

std::vector<std::string> split_clauses(std::string_view sentence) { return cut_text(sentence, clause_end); }

SplitSource split_to_fit(std::string_view text, const Tokenize& tokenize, std::size_t limit) {
  if (limit == 0) throw std::invalid_argument("split_to_fit: the limit must be at least one token");
  SplitSource split;
  auto whole = tokenize(text);
  if (whole.size() <= limit) {
    split.sentences = {std::string(text)};
    if (!whole.empty()) split.parts.push_back({std::move(whole), 0, ""});
    return split;
  }
  split.sentences = split_sentences(text);
  split.at_sentences = split.sentences.size() > 1;
  Splitter splitter(split, tokenize, limit);
  for (std::size_t s = 0; s < split.sentences.size(); ++s) splitter.sentence(s);
  // The last part of a sentence ends with the sentence, not with a clause mark.
  for (std::size_t i = 0; i < split.parts.size(); ++i) {
    if (i + 1 == split.parts.size() || split.parts[i + 1].sentence != split.parts[i].sentence)
      split.parts[i].mark.clear();
  }
  return split;
}

std::string join_parts(const SplitSource& split, const std::vector<std::vector<std::string>>& part_words,
                       const std::string& source_language, const std::string& target_language) {
  if (part_words.size() != split.parts.size()) throw std::invalid_argument("join_parts: one word list per part");
  std::string text;
  for (std::size_t s = 0, i = 0; s < split.sentences.size(); ++s) {
    std::vector<std::string> words;
    std::string pending;  // the mark after the previous part, written once words follow it
    for (; i < split.parts.size() && split.parts[i].sentence == s; ++i) {
      if (part_words[i].empty()) continue;
      if (!pending.empty() && !words.empty()) words.back() += pending;
      words.insert(words.end(), part_words[i].begin(), part_words[i].end());
      pending = split.parts[i].mark;
    }
    const auto sentence = data::detokenize(words, split.sentences[s], source_language, target_language);
    if (sentence.empty()) continue;
    if (!text.empty()) text += " ";
    text += sentence;
  }
  return text;
}

}  // namespace dls::eval
