// Subword units: a SentencePiece model (unigram or BPE) trained on the normalised words of
// the training split, and the step between words and the tokens a Vocabulary indexes.
//
// The model's pieces in id order are a Vocabulary's words (vocabulary.h): ids 0-3 are its
// control pieces named "SOS", "EOS", "<pad>", "<unk>", so Vocabulary::from_words(pieces())
// gives every piece SentencePiece's own id. The text is already normalised (lowercase,
// NFC, punctuation split off: normalize.h), so SentencePiece's own normalisation is off
// ("identity"): decode(encode(words)) == words, and detokenised hypotheses are scored
// against the same references as word-level ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dls/data/corpus.h"
#include "dls/util/enum_names.h"

namespace dls::data {

enum class SubwordKind { kUnigram, kBpe };
inline const util::EnumNames<SubwordKind> kSubwordKindNames("subword model", {{SubwordKind::kUnigram, "unigram"},
                                                                              {SubwordKind::kBpe, "bpe"}});
// Throws std::invalid_argument listing the names.
inline SubwordKind parse_subword_kind(const std::string& name) { return kSubwordKindNames.parse(name); }
inline std::string to_string(SubwordKind kind) { return kSubwordKindNames.name(kind); }

struct SubwordOptions {
  SubwordKind kind = SubwordKind::kUnigram;
  int vocab_size = 8000;  // pieces, the 4 specials included; a soft limit on a small corpus
  bool joint = false;     // one model for English and Spanish (needed by tied embeddings)
};

// What SentencePiece takes in memory to train on `sentences` and then encode them, in bytes,
// from the text's size and its longest sentence: about 40 bytes a byte of text for training
// (suffix array, piece counts, the sentences copied) and about 200 bytes a byte of the longest
// sentence for its encoding lattice (a node for every piece that can end at each character) --
// rough factors, measured. SubwordModel::train refuses, with the numbers, training over the
// memory available (util/memory_check.h): one 50 MB "word" used to get the process SIGKILLed.
double subword_training_bytes(const std::vector<std::vector<std::string>>& sentences);

class SubwordModel {
 public:
  // Trains in memory on sentences of normalised words (each joined by spaces).
  // Throws std::runtime_error with SentencePiece's message when training fails, and before
  // training when subword_training_bytes() is over the memory available.
  static SubwordModel train(const std::vector<std::vector<std::string>>& sentences, const SubwordOptions& options);
  // From serialized_proto() (e.g. stored in a checkpoint); throws std::runtime_error.
  static SubwordModel from_proto(const std::string& serialized_proto);

  // The pieces of the words' text ("▁la", "s", ...); an unseen character is "<unk>".
  std::vector<std::string> encode(const std::vector<std::string>& words) const;
  // The words of the pieces' text; "<unk>" pieces become the word "<unk>".
  std::vector<std::string> decode(const std::vector<std::string>& pieces) const;
  // Every piece in id order: the Vocabulary's words.
  std::vector<std::string> pieces() const;
  const std::string& serialized_proto() const { return proto_; }

 private:
  SubwordModel(std::shared_ptr<const void> processor, std::string proto);

  // The loaded sentencepiece::SentencePieceProcessor, immutable, shared by copies.
  std::shared_ptr<const void> processor_;
  std::string proto_;
};

// A model stored beside its vocabulary (a checkpoint keeps both): std::nullopt for an empty
// proto (word level), else the model, checked to be the one whose pieces the vocabulary
// holds; throws std::runtime_error naming `what` ("the English SentencePiece model ...").
std::optional<SubwordModel> stored_subword_model(const std::string& serialized_proto,
                                                 const std::vector<std::string>& vocabulary, const std::string& what);

// The pairs with each side as the tokens its vocabulary indexes: the pieces of the side's
// model, or the words where the model is nullptr.
std::vector<SentencePair> tokenize_pairs(const std::vector<SentencePair>& pairs, const SubwordModel* english,
                                         const SubwordModel* spanish);

// The longest side of any pair, in tokens.
std::size_t longest_side(const std::vector<SentencePair>& pairs);

}  // namespace dls::data
