#include "dls/data/vocabulary.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace dls::data {

const char* const Vocabulary::kSpecialWords[kSpecialCount] = {"SOS", "EOS", "<pad>", "<unk>"};

Vocabulary::Vocabulary(std::vector<std::string> words) : words_(std::move(words)) {
  for (int i = 0; i < kSpecialCount; ++i) {
    if (static_cast<int>(words_.size()) <= i || words_[i] != kSpecialWords[i]) {
      throw std::runtime_error(
          "vocabulary: index " + std::to_string(i) + " must be '" + kSpecialWords[i] + "'" +
          (static_cast<int>(words_.size()) <= i ? ", vocabulary too short" : ", found '" + words_[i] + "'"));
    }
  }
  index_.reserve(words_.size());
  for (std::size_t i = 0; i < words_.size(); ++i) {
    if (words_[i].empty()) throw std::runtime_error("vocabulary: empty word at index " + std::to_string(i));
    const auto [found, inserted] = index_.emplace(words_[i], static_cast<std::int64_t>(i));
    if (!inserted) {
      throw std::runtime_error("vocabulary: word '" + words_[i] + "' at index " + std::to_string(i) +
                               " repeats index " + std::to_string(found->second));
    }
  }
}

std::string VocabularyLimits::flags() const {
  std::string text;
  if (min_count > 1) text = "--min-count " + std::to_string(min_count);
  if (max_words > 0) text += (text.empty() ? "" : ", ") + std::string("--max-vocab ") + std::to_string(max_words);
  return text;
}

Vocabulary Vocabulary::build(const std::vector<std::vector<std::string>>& sentences, const Limits& limits) {
  std::unordered_map<std::string, std::int64_t> counts;
  for (const auto& sentence : sentences) {
    for (const auto& word : sentence) ++counts[word];
  }
  return from_counts(counts, limits);
}

Vocabulary Vocabulary::from_counts(const std::unordered_map<std::string, std::int64_t>& counts, const Limits& limits) {
  std::vector<std::pair<std::string, std::int64_t>> kept;
  for (const auto& [word, count] : counts) {
    if (count >= limits.min_count) kept.emplace_back(word, count);
  }
  std::sort(kept.begin(), kept.end());  // by bytes: the layout, and the order among equal counts
  if (limits.max_words > 0 && static_cast<std::int64_t>(kept.size()) > limits.max_words) {
    std::stable_sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    kept.resize(static_cast<std::size_t>(limits.max_words));
    std::sort(kept.begin(), kept.end());
  }
  std::vector<std::string> words(std::begin(kSpecialWords), std::end(kSpecialWords));
  words.reserve(words.size() + kept.size());
  for (auto& entry : kept) words.push_back(std::move(entry.first));
  return Vocabulary(std::move(words));  // a special word among the sentences repeats: error
}

Vocabulary Vocabulary::from_words(std::vector<std::string> words) { return Vocabulary(std::move(words)); }

Vocabulary Vocabulary::extended(const Vocabulary& parent, const Vocabulary& own) {
  auto words = parent.words();
  for (const auto& word : own.words()) {
    if (!parent.contains(word)) words.push_back(word);
  }
  return Vocabulary(std::move(words));
}

std::int64_t Vocabulary::index_of(const std::string& word) const {
  const auto found = index_.find(word);
  return found == index_.end() ? kUnk : found->second;
}

const std::string& Vocabulary::word_at(std::int64_t i) const {
  if (i < 0 || i >= size()) {
    throw std::out_of_range("vocabulary: index " + std::to_string(i) + " outside [0, " + std::to_string(size()) + ")");
  }
  return words_[static_cast<std::size_t>(i)];
}

std::vector<std::int64_t> Vocabulary::encode(const std::vector<std::string>& words, int max_len, Padding padding,
                                             std::vector<std::string>* unknown) const {
  if (max_len < 2 || words.size() > static_cast<std::size_t>(max_len) - 2) {
    throw std::invalid_argument("vocabulary: a sentence of " + std::to_string(words.size()) +
                                " words does not fit in max_len " + std::to_string(max_len) + " (SOS + words + EOS)");
  }
  std::vector<std::int64_t> ids;
  ids.reserve(static_cast<std::size_t>(max_len));
  ids.push_back(kSos);
  for (const std::string& word : words) {
    const std::int64_t id = index_of(word);
    if (id == kUnk && unknown != nullptr) unknown->push_back(word);
    ids.push_back(id);
  }
  ids.push_back(kEos);
  ids.resize(static_cast<std::size_t>(max_len), padding == Padding::kEos ? kEos : kPad);
  return ids;
}

std::vector<std::string> Vocabulary::decode(const std::vector<std::int64_t>& ids) const {
  std::vector<std::string> words;
  for (const std::int64_t id : ids) {
    const std::string& word = word_at(id);
    if (id == kEos) break;
    if (id == kSos || id == kPad) continue;
    words.push_back(word);
  }
  return words;
}

}  // namespace dls::data
