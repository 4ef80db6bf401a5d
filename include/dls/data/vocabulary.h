// Word <-> index mapping of one language, with the special tokens of the seq2seq models.
//
// Layout: SOS = 0, EOS = 1, <pad> = 2, <unk> = 3, then the words of the training
// sentences sorted by their UTF-8 bytes (std::string's operator<), each once (a run
// fine-tuned from another's: that run's words first, at their indices, then the new ones
// sorted; data/seq2seq_dataset.h).
// DLStudio's vocabularies start 'SOS', 'EOS' (same indices) and have no pad/unk tokens;
// DLStudio pads with EOS, which encode() offers as Padding::kEos.
// A sentence of n words is encoded in L = max_len slots: SOS w1 ... wn EOS padding...
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace dls::data {

// Which training words a vocabulary keeps (--min-count, --max-vocab; as OpenNMT's
// words_min_frequency and vocab_size, fairseq-preprocess's --thresholdsrc and --nwordssrc):
// those seen at least min_count times and, of them, the max_words most frequent (0: all;
// between words seen equally often, the first in byte order). The others read as <unk>.
struct VocabularyLimits {
  std::int64_t min_count = 1;
  std::int64_t max_words = 0;
  bool any() const { return min_count > 1 || max_words > 0; }
  std::string flags() const;  // "--min-count 2, --max-vocab 8000": those that limit
};

class Vocabulary {
 public:
  static constexpr std::int64_t kSos = 0;
  static constexpr std::int64_t kEos = 1;
  static constexpr std::int64_t kPad = 2;
  static constexpr std::int64_t kUnk = 3;
  static constexpr int kSpecialCount = 4;
  static const char* const kSpecialWords[kSpecialCount];  // "SOS", "EOS", "<pad>", "<unk>"

  enum class Padding { kPad, kEos };

  using Limits = VocabularyLimits;

  // From the sentences (normalised words, no SOS/EOS) of the training split, the words
  // `limits` keeps. A sentence holding a special word ("SOS", "<pad>", ...) is an error:
  // normalised text never does.
  static Vocabulary build(const std::vector<std::vector<std::string>>& sentences, const Limits& limits = {});
  // The same from each word's count in the training text.
  static Vocabulary from_counts(const std::unordered_map<std::string, std::int64_t>& counts, const Limits& limits = {});

  // Rebuilds a vocabulary from words() (e.g. stored in a checkpoint). Throws
  // std::runtime_error when the specials are not at their indices, a word repeats or a
  // word is empty.
  static Vocabulary from_words(std::vector<std::string> words);
  // `parent`'s words at their indices, then `own`'s words it lacks in own's order: a model
  // started from the parent's weights keeps every row it knew (--init-vocab extend).
  static Vocabulary extended(const Vocabulary& parent, const Vocabulary& own);

  const std::vector<std::string>& words() const { return words_; }
  std::int64_t size() const { return static_cast<std::int64_t>(words_.size()); }

  // Index of a word, kUnk when it is not in the vocabulary.
  std::int64_t index_of(const std::string& word) const;
  bool contains(const std::string& word) const { return index_.count(word) != 0; }

  // The word at index i; throws std::out_of_range outside [0, size()).
  const std::string& word_at(std::int64_t i) const;

  // SOS w1 ... wn EOS, then padding up to max_len (kPad: <pad>, kEos: DLStudio's EOS).
  // Unknown words become kUnk and are appended to *unknown when it is given.
  // Throws std::invalid_argument when n + 2 > max_len.
  std::vector<std::int64_t> encode(const std::vector<std::string>& words, int max_len, Padding padding = Padding::kPad,
                                   std::vector<std::string>* unknown = nullptr) const;

  // The words up to the first EOS; SOS and <pad> are skipped, <unk> is kept as "<unk>".
  // Throws std::out_of_range for an index outside the vocabulary.
  std::vector<std::string> decode(const std::vector<std::int64_t>& ids) const;

 private:
  explicit Vocabulary(std::vector<std::string> words);  // validates, builds the index

  std::vector<std::string> words_;
  std::unordered_map<std::string, std::int64_t> index_;
};

}  // namespace dls::data
