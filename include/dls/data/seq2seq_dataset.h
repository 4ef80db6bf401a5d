// The data of a seq2seq run, one type for training and checkpoint evaluation alike (so that
// evaluation scores exactly the pairs training held out): the corpus read and normalised,
// the validation split, vocabularies (and SentencePiece models) from the training split,
// and both splits as tensors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dls/data/corpus.h"
#include "dls/data/pair_tensors.h"
#include "dls/data/split.h"
#include "dls/data/subword_model.h"
#include "dls/data/vocabulary.h"

namespace dls::data {

// Which pairs, and how they are held out and tokenized (checkpoint keys "training.*" beside
// the training settings, settings/seq2seq_settings.h).
struct Seq2SeqDataSettings {
  std::string data_path;             // TSV (Tatoeba/Anki) or DLStudio archive; or empty and:
  std::string train_src, train_tgt;  // parallel files, one sentence a line (corpus.h)
  std::string valid_src, valid_tgt;  // parallel validation files instead of the split (optional)
  std::string test_src, test_tgt;    // parallel test files scored at the end of training (optional)
  int src_column = 1;                // TSV: 1-based columns of the source and target sentences
  int tgt_column = 2;
  std::string src_lang = "en";  // ISO code of the source column/file (languages.h)
  std::string tgt_lang = "es";  // ISO code of the target column/file
  bool reverse = false;         // train tgt_lang -> src_lang
  int max_words = 8;            // longest sentence per side; L = max_words + 2
  // Word level: the training words each side's vocabulary keeps (Vocabulary::Limits).
  std::int64_t min_count = 1;       // seen at least this often
  std::int64_t max_vocab = 0;       // the most frequent this many of them (0: all)
  std::uint64_t split_seed = 1234;  // validation split, by source sentence
  // The held-out share of the pairs, at most validation_pairs of them (split.h:
  // validation_size), so that a small corpus keeps most of its pairs for training. 0: exactly
  // validation_pairs (checkpoints written before the fraction read back so).
  double validation_fraction = kDefaultValidationFraction;
  std::int64_t validation_pairs = 2000;  // the cap; at least this many with fraction 0
  bool subword_units = false;            // SentencePiece pieces (`subwords`) instead of words
  SubwordOptions subwords;               // trained on the training split, kept in the checkpoint

  // What the corpus reader needs of these (columns, languages, direction, max_words).
  CorpusOptions corpus_options() const;
  Vocabulary::Limits vocabulary_limits() const { return {min_count, max_vocab}; }
  // The model's languages: src_lang -> tgt_lang, or the other way with `reverse`.
  const std::string& source_language() const { return reverse ? tgt_lang : src_lang; }
  const std::string& target_language() const { return reverse ? src_lang : tgt_lang; }
  // "spa.txt", or "train.de + train.en" for parallel files.
  std::string corpus_name() const;
};

// What a run's checkpoint keeps of its data (checkpoint/seq2seq_checkpoint.h:
// seq2seq_stored_data): a resumed run and an evaluation use it instead of building it again.
struct Seq2SeqStoredData {
  SplitDefinition split;  // redone on the corpus, checked by its fingerprint
  Vocabulary english;
  Vocabulary spanish;
  std::optional<SubwordModel> english_subwords;  // subword units only
  std::optional<SubwordModel> spanish_subwords;
};

struct Seq2SeqDataset {
  Corpus corpus;
  CorpusSplit split;
  Vocabulary english;
  Vocabulary spanish;
  // Subword units: the models whose pieces the vocabularies index (empty at word level).
  std::optional<SubwordModel> english_subwords;
  std::optional<SubwordModel> spanish_subwords;
  // L of the tensors: max_words + 2 at word level; with subword units, the longest side of
  // any kept pair (both splits) in pieces + 2, so that no pair is cut or dropped.
  int max_len = 0;
  EncodedPairs train;
  EncodedPairs validation;
  // --valid-src/--valid-tgt: their summary line (empty when the validation split is cut from
  // the corpus). Their pairs follow the training pairs in corpus.pairs.
  std::string validation_summary;
  // --test-src/--test-tgt: every test pair (words), however long (empty without test files).
  Corpus test;
  // A new run's vocabularies taken from --init-from's run: one start-up line saying how
  // ("vocabulary from runs/x/...pt: English: the parent's 5210 words + 37 new, ..."); empty
  // otherwise.
  std::string inherited_summary;
  // --min-count/--max-vocab at word level: one start-up line saying what they kept and the
  // <unk> rates they make of the training split; empty without them.
  std::string limits_summary;
};

// What a new run takes of the run --init-from starts it from (--init-vocab extend or parent,
// checkpoint/seq2seq_checkpoint.h: inherited_vocabularies), so that fine-tuning on a little
// new data keeps every word its parent knew: a side's vocabulary when its language is the
// parent's on that side; with subword units the parent's SentencePiece models, whose pieces are
// the vocabularies (pieces cannot be added to a trained model).
struct InheritedVocabularies {
  std::string source;  // the parent's checkpoint, for the start-up line
  // Word level: the parent's words at their indices, then this data's training words that the
  // parent lacks (extend); or the parent's alone, new words read as <unk> (not extend).
  bool extend = true;
  std::optional<Vocabulary> english;  // absent: that side's vocabulary is this data's own
  std::optional<Vocabulary> spanish;
  std::optional<SubwordModel> english_subwords;  // subword units: both sides', or neither
  std::optional<SubwordModel> spanish_subwords;
};

// Reads settings.data_path (or the parallel files). A fresh run (stored == nullptr) splits the corpus and builds the
// vocabularies (with subword units: trains the SentencePiece models on the training split);
// a resumed run or an evaluation redoes the stored split (the corpus must be the same,
// checked by its fingerprint) and uses the stored vocabularies and models. `padding`: how
// the run pads its tensors (Seq2SeqTrainSettings::padding()). `inherited` (a fresh run's
// alone): the vocabularies and models --init-from's run gives it instead of its own.
Seq2SeqDataset prepare_seq2seq_dataset(const Seq2SeqDataSettings& settings, Vocabulary::Padding padding,
                                       const Seq2SeqStoredData* stored,
                                       const InheritedVocabularies* inherited = nullptr);

// The start-up lines DLStudio users look for: corpus counts, vocabulary sizes, pairs per
// split, the <unk> rates of the validation split, the longest sentences; the languages'
// names from the codes (DLStudio's default: "English", "Spanish").
std::vector<std::string> describe_seq2seq_dataset(const Seq2SeqDataset& data, int max_words);

// What in those numbers says the data is not read as meant, one line each (empty when
// nothing does): a side whose training sentences are mostly one word at word level (a
// language written without spaces not named as one: --src-lang/--tgt-lang and subword units),
// a side whose validation words are mostly <unk> (the validation from other data, or the
// same cause).
std::vector<std::string> seq2seq_dataset_warnings(const Seq2SeqDataset& data);

// The normalised words of pairs[indices] on one side.
std::vector<std::vector<std::string>> english_sentences(const Seq2SeqDataset& data,
                                                        const std::vector<std::size_t>& indices);
std::vector<std::vector<std::string>> spanish_sentences(const Seq2SeqDataset& data,
                                                        const std::vector<std::size_t>& indices);

}  // namespace dls::data
