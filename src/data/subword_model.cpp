#include "dls/data/subword_model.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include "dls/data/normalize.h"
#include "dls/data/vocabulary.h"

namespace dls::data {

namespace {

// The training sentences, each the text of its words, handed to SentencePiece one by one
// (no temporary file).
class WordSentenceIterator : public sentencepiece::SentenceIterator {
 public:
  explicit WordSentenceIterator(const std::vector<std::vector<std::string>>& sentences) : sentences_(sentences) {
    load();
  }
  bool done() const override { return next_ > sentences_.size(); }
  void Next() override { load(); }
  const std::string& value() const override { return text_; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  void load() {
    if (next_ < sentences_.size()) text_ = join_words(sentences_[next_]);
    ++next_;
  }
  const std::vector<std::vector<std::string>>& sentences_;
  std::size_t next_ = 0;
  std::string text_;
};

void check(const sentencepiece::util::Status& status, const std::string& what) {
  if (!status.ok()) throw std::runtime_error("sentencepiece: " + what + ": " + status.ToString());
}

std::vector<std::string> split_on_spaces(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

}  // namespace

SubwordKind parse_subword_kind(const std::string& name) {
  if (name == "unigram") return SubwordKind::kUnigram;
  if (name == "bpe") return SubwordKind::kBpe;
  throw std::invalid_argument("unknown subword model '" + name + "' (expected unigram or bpe)");
}

std::string to_string(SubwordKind kind) { return kind == SubwordKind::kBpe ? "bpe" : "unigram"; }

SubwordModel::SubwordModel(std::shared_ptr<const sentencepiece::SentencePieceProcessor> processor, std::string proto)
    : processor_(std::move(processor)), proto_(std::move(proto)) {}

SubwordModel SubwordModel::train(const std::vector<std::vector<std::string>>& sentences,
                                 const SubwordOptions& options) {
  if (sentences.empty()) throw std::runtime_error("sentencepiece: no training sentences");
  const std::unordered_map<std::string, std::string> arguments{
      {"model_type", to_string(options.kind)},
      {"vocab_size", std::to_string(options.vocab_size)},
      {"hard_vocab_limit", "false"},  // a small corpus gets the pieces it has
      {"character_coverage", "1.0"},  // every character of the training split is a piece
      {"normalization_rule_name", "identity"},  // normalize.h did it: decode(encode(x)) == x
      {"bos_id", std::to_string(Vocabulary::kSos)},
      {"eos_id", std::to_string(Vocabulary::kEos)},
      {"pad_id", std::to_string(Vocabulary::kPad)},
      {"unk_id", std::to_string(Vocabulary::kUnk)},
      {"bos_piece", Vocabulary::kSpecialWords[Vocabulary::kSos]},
      {"eos_piece", Vocabulary::kSpecialWords[Vocabulary::kEos]},
      {"pad_piece", Vocabulary::kSpecialWords[Vocabulary::kPad]},
      {"unk_piece", Vocabulary::kSpecialWords[Vocabulary::kUnk]},
      {"unk_surface", std::string(" ") + Vocabulary::kSpecialWords[Vocabulary::kUnk] + " "},
      {"num_threads", "1"},  // the same model from the same sentences
      {"minloglevel", "2"},  // its progress lines would drown the run's log
  };
  WordSentenceIterator iterator(sentences);
  std::string proto;
  check(sentencepiece::SentencePieceTrainer::Train(arguments, &iterator, &proto), "training");
  return from_proto(proto);
}

SubwordModel SubwordModel::from_proto(const std::string& serialized_proto) {
  auto processor = std::make_shared<sentencepiece::SentencePieceProcessor>();
  check(processor->LoadFromSerializedProto(serialized_proto), "loading the model");
  SubwordModel model(std::move(processor), serialized_proto);
  Vocabulary::from_words(model.pieces());  // throws unless the specials are at their ids
  return model;
}

std::vector<std::string> SubwordModel::encode(const std::vector<std::string>& words) const {
  std::vector<std::string> pieces;
  check(processor_->Encode(join_words(words), &pieces), "encoding");
  return pieces;
}

std::vector<std::string> SubwordModel::decode(const std::vector<std::string>& pieces) const {
  std::string text;
  check(processor_->Decode(pieces, &text), "decoding");
  return split_on_spaces(text);
}

std::vector<std::string> SubwordModel::pieces() const {
  std::vector<std::string> all;
  const int n = processor_->GetPieceSize();
  all.reserve(static_cast<std::size_t>(n));
  for (int id = 0; id < n; ++id) all.push_back(processor_->IdToPiece(id));
  return all;
}

std::vector<SentencePair> tokenize_pairs(const std::vector<SentencePair>& pairs, const SubwordModel* english,
                                         const SubwordModel* spanish) {
  std::vector<SentencePair> tokens;
  tokens.reserve(pairs.size());
  for (const auto& pair : pairs) {
    tokens.push_back({english != nullptr ? english->encode(pair.english) : pair.english,
                      spanish != nullptr ? spanish->encode(pair.spanish) : pair.spanish});
  }
  return tokens;
}

std::size_t longest_side(const std::vector<SentencePair>& pairs) {
  std::size_t longest = 0;
  for (const auto& pair : pairs) longest = std::max({longest, pair.english.size(), pair.spanish.size()});
  return longest;
}

}  // namespace dls::data
