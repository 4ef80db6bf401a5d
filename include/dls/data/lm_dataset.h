// The data of a language-model run, one type for training and checkpoint evaluation alike
// (so that both hold out the same sentences): the sentences read and normalised, the
// held-out split, the tokens (words, or the pieces of a SentencePiece model
// trained on the training split), the vocabulary, and both splits encoded as [N, L] token rows
// (SOS t1 .. tn EOS <pad>...).
#pragma once

#include <cstdint>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <torch/types.h>

#include "dls/data/sentence_corpus.h"
#include "dls/data/split.h"
#include "dls/data/subword_model.h"
#include "dls/data/vocabulary.h"

namespace dls::data {

// Which sentences, and how they are held out (checkpoint keys "data.*", settings/lm_settings.h).
struct LmDataSettings {
  std::string path;            // plain text (one sentence per line), TSV or DLStudio archive
  std::string side = "es";     // TSV/archive: which language; text: its normalisation rules
  int max_words = 12;          // longest sentence kept, in words (word level: L = max_words + 2)
  bool subword_units = false;  // SentencePiece pieces (`subwords`) instead of words
  bool char_units = false;     // characters (code points) instead of words
  // Words or characters: the training tokens the vocabulary keeps (Vocabulary::Limits).
  std::int64_t min_count = 1;                 // seen at least this often
  std::int64_t max_vocab = 0;                 // the most frequent this many of them (0: all)
  SubwordOptions subwords;                    // trained on the training split, kept in the checkpoint (`joint` unused)
  std::uint64_t validation_sentences = 1000;  // held out (at least this many; 0: none)
  std::uint64_t split_seed = kDefaultSplitSeed;
  // > 0: the file is running text, cut into windows of block_size + 1 tokens
  // (running_text.h); 0: one sentence per line.
  int block_size = 0;
  double validation_fraction = 0.1;  // running text: its last lines holding this share of it are held out

  Vocabulary::Limits vocabulary_limits() const { return {min_count, max_vocab}; }
};

// The step between a run's words and the tokens its vocabulary indexes.
struct LmTokenizer {
  std::optional<SubwordModel> subwords;  // nullopt: the tokens are the words, or characters
  bool characters = false;               // the tokens are the characters of the words joined by spaces

  std::vector<std::string> tokens(const std::vector<std::string>& words) const;
  std::vector<std::string> words(const std::vector<std::string>& tokens) const;  // detokenised
  const char* unit() const { return subwords ? "pieces" : characters ? "characters" : "words"; }
  const char* name() const { return subwords ? "sentencepiece" : characters ? "char" : "word"; }
};

// The characters (NFC code points, each as its UTF-8 bytes) of `text`.
std::vector<std::string> characters_of(std::string_view text);

// Encoded sentences and what perplexity per word needs.
struct LmRows {
  torch::Tensor rows;                   // [N, L] int64: SOS t1 .. tn EOS <pad>...
  std::vector<std::int64_t> row_words;  // [N]: each sentence's words, its EOS included
  std::int64_t unknown = 0;             // tokens mapped to <unk>
  std::int64_t tokens = 0;              // tokens, EOS not included
  std::size_t too_long = 0;             // sentences left out: more than L - 2 tokens
  std::int64_t words() const;           // Σ row_words: what perplexity per word divides by
  void keep_first(std::int64_t n);      // the first n sentences only
  double unknown_rate() const { return tokens > 0 ? static_cast<double>(unknown) / static_cast<double>(tokens) : 0.0; }
};

// Rows of sentences[indices] (normalised words) for `tokenizer` and `vocabulary`, L = max_len;
// a sentence of more than max_len - 2 tokens is left out and counted.
LmRows encode_sentences(const std::vector<std::vector<std::string>>& sentences, const std::vector<std::size_t>& indices,
                        const LmTokenizer& tokenizer, const Vocabulary& vocabulary, int max_len);

// What a run's checkpoint keeps of its data (checkpoint/lm_checkpoint.h: lm_stored_data): a
// resumed run and an evaluation use it instead of building it again.
struct LmStoredData {
  SplitDefinition split;  // redone on the corpus, checked by its fingerprint
  LmTokenizer tokenizer;
  Vocabulary vocabulary;
  int max_len = 0;  // the model's L
};

struct LmDataset {
  SentenceCorpus corpus;  // sentences (empty for running text)
  CorpusSplit split;
  LmTokenizer tokenizer;
  Vocabulary vocabulary;
  int max_len = 0;  // L: max_words + 2 (words), or the corpus's longest sentence in pieces + 2
  LmRows train;
  LmRows validation;  // rows [n, L] (n = 0: no validation)
  // Running text (block_size > 0): the training text's tokens, which `train` cuts into
  // windows anew every epoch (running_text.h), and what the file held.
  std::vector<std::int64_t> train_stream;
  std::vector<std::uint8_t> train_word_marks;  // per token: 1 where a word (or line) is counted
  int block_size = 0;
  std::string text_summary;  // "jargon.txt.gz: running text, 41630 lines, 1,681,817 characters"
  // A new run's vocabulary from --init-from's run (inherited_lm_summary); "" otherwise.
  std::string inherited_summary;
};

// What a new run takes of the run --init-from starts it from (--init-vocab extend or parent,
// checkpoint/lm_checkpoint.h: inherited_lm_vocabulary), so that fine-tuning on a little new
// text keeps every token its parent knew: the parent's vocabulary (an lm_train run's, or a
// seq2seq_train run's target side) and, with subword units, its SentencePiece model, whose
// pieces are the vocabulary (pieces cannot be added to a trained model).
struct InheritedLmVocabulary {
  std::string source;  // the parent's checkpoint, for the start-up line
  // Words or characters: the parent's tokens at their indices, then this data's training
  // tokens that the parent lacks (extend); or the parent's alone, new ones read as <unk>.
  bool extend = true;
  Vocabulary vocabulary;
  std::optional<SubwordModel> subwords;  // subword units: the parent's model
};

// Reads settings.path. A fresh run (stored == nullptr) splits the sentences (repeated
// sentences stay on one side), trains the SentencePiece model where asked and builds the
// vocabulary; a resumed run or an evaluation redoes the stored split (the corpus must be the
// same, checked by its fingerprint) and uses the stored tokenizer, vocabulary and L.
// `inherited` (a fresh run's alone): the vocabulary and model --init-from's run gives it.
LmDataset prepare_lm_dataset(const LmDataSettings& settings, const LmStoredData* stored,
                             const InheritedLmVocabulary* inherited = nullptr);

// A fresh run's tokenizer and vocabulary: `inherited`'s where given (its SentencePiece model;
// its vocabulary, extended by this data's unless --init-vocab parent), else this data's:
// `train_subwords()` trains the SentencePiece model on it, `own(tokenizer)` builds its
// vocabulary of words or characters.
std::pair<LmTokenizer, Vocabulary> fresh_lm_vocabulary(const LmDataSettings& settings,
                                                       const InheritedLmVocabulary* inherited,
                                                       const std::function<SubwordModel()>& train_subwords,
                                                       const std::function<Vocabulary(const LmTokenizer&)>& own);

// "vocabulary from FILE: the parent's 97 words + 3 new" (its counts with the specials, which
// add up to `ours`), "... (new ones read as <unk>)", "...: the parent's 8000 pieces (its
// SentencePiece model)"; "" without `inherited`.
std::string inherited_lm_summary(const InheritedLmVocabulary* inherited, const Vocabulary& ours,
                                 const LmTokenizer& tokenizer);

// The start-up lines: corpus counts, sentences per split, vocabulary size, <unk> rate.
std::vector<std::string> describe_lm_dataset(const LmDataset& data, const LmDataSettings& settings);

// A line when more than a quarter of the sentences are held out for validation (the default
// 1,000 of a small corpus), or most validation tokens are <unk> (validation data unlike the
// training data, or a language written without spaces read as words); empty otherwise.
std::string lm_dataset_warning(const LmDataset& data);

}  // namespace dls::data
