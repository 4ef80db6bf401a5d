#include "dls/data/subword_model.h"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "dls/data/normalize.h"
#include "dls/data/vocabulary.h"
#include "dls/util/memory_check.h"

namespace dls::data {

namespace {

constexpr const char* kModuleName = "libdls_sentencepiece.so";

// SentencePiece, reached through its module (data/sentencepiece_module.cpp says why): in
// ../lib from the program's folder (build/apps, build/tests, an install's bin), else by
// name on the library path. Loaded once, on first use.
class SentencePieceModule {
 public:
  static const SentencePieceModule& get() {
    static const SentencePieceModule module;
    return module;
  }
  bool (*train)(const std::unordered_map<std::string, std::string>&, const std::vector<std::string>&, std::string*,
                std::string*) = nullptr;
  void* (*load)(const std::string&, std::string*) = nullptr;
  void (*free)(void*) = nullptr;
  bool (*encode)(const void*, const std::string&, std::vector<std::string>*, std::string*) = nullptr;
  bool (*decode)(const void*, const std::vector<std::string>&, std::string*, std::string*) = nullptr;
  void (*pieces)(const void*, std::vector<std::string>*) = nullptr;

 private:
  SentencePieceModule() {
    std::error_code ignored;
    const auto beside =
        std::filesystem::read_symlink("/proc/self/exe", ignored).parent_path().parent_path() / "lib" / kModuleName;
    const std::string path = std::filesystem::exists(beside, ignored) ? beside.string() : kModuleName;
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (handle_ == nullptr) throw std::runtime_error(std::string("sentencepiece: cannot load ") + dlerror());
    symbol(train, "dls_spm_train");
    symbol(load, "dls_spm_load");
    symbol(free, "dls_spm_free");
    symbol(encode, "dls_spm_encode");
    symbol(decode, "dls_spm_decode");
    symbol(pieces, "dls_spm_pieces");
  }
  template <typename Function>
  void symbol(Function& function, const char* name) {
    function = reinterpret_cast<Function>(dlsym(handle_, name));
    if (function == nullptr) throw std::runtime_error(std::string("sentencepiece: ") + name + " missing: " + dlerror());
  }
  void* handle_ = nullptr;  // never closed: models may live until exit
};

void check(bool ok, const std::string& what, const std::string& error) {
  if (!ok) throw std::runtime_error("sentencepiece: " + what + ": " + error);
}

std::vector<std::string> split_on_spaces(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

}  // namespace

SubwordModel::SubwordModel(std::shared_ptr<const void> processor, std::string proto)
    : processor_(std::move(processor)), proto_(std::move(proto)) {}

namespace {

struct TextSize {
  double bytes = 0;    // every sentence, words joined by spaces
  double longest = 0;  // the longest sentence
};

TextSize text_size(const std::vector<std::vector<std::string>>& sentences) {
  TextSize size;
  for (const auto& sentence : sentences) {
    double bytes = 0;
    for (const auto& word : sentence) bytes += static_cast<double>(word.size()) + 1;
    size.bytes += bytes;
    size.longest = std::max(size.longest, bytes);
  }
  return size;
}

}  // namespace

double subword_training_bytes(const std::vector<std::vector<std::string>>& sentences) {
  const auto size = text_size(sentences);
  return 40 * size.bytes + 200 * size.longest;
}

SubwordModel SubwordModel::train(const std::vector<std::vector<std::string>>& sentences,
                                 const SubwordOptions& options) {
  if (sentences.empty()) throw std::runtime_error("sentencepiece: no training sentences");
  const auto size = text_size(sentences);
  util::check_fits_in_memory(subword_training_bytes(sentences),
                             "sentencepiece: training on " + std::to_string(sentences.size()) + " sentences (" +
                                 util::format_bytes(size.bytes) + ", the longest " + util::format_bytes(size.longest) +
                                 ") and encoding them",
                             "shorten the corpus's longest sentences or use --tokenizer word");
  const std::unordered_map<std::string, std::string> arguments{
      {"model_type", to_string(options.kind)},
      {"vocab_size", std::to_string(options.vocab_size)},
      {"hard_vocab_limit", "false"},            // a small corpus gets the pieces it has
      {"character_coverage", "1.0"},            // every character of the training split is a piece
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
  std::vector<std::string> texts;
  texts.reserve(sentences.size());
  for (const auto& sentence : sentences) texts.push_back(join_words(sentence));
  std::string proto, error;
  const bool ok = SentencePieceModule::get().train(arguments, texts, &proto, &error);
  // Every character is a piece (character_coverage 1): a text of more characters than pieces
  // cannot be trained on, and SentencePiece's own advice names its flag, not ours.
  std::smatch counts;
  if (!ok && std::regex_search(error, counts, std::regex("smaller than required_chars\\. ([0-9]+) vs ([0-9]+)")))
    throw std::runtime_error("sentencepiece: the text has " + counts[2].str() + " different characters and specials, " +
                             "more than --vocab-size " + counts[1].str() + " holds (every character is a piece): " +
                             "give --vocab-size " + counts[2].str() + " or more");
  check(ok, "training", error);
  return from_proto(proto);
}

SubwordModel SubwordModel::from_proto(const std::string& serialized_proto) {
  const auto& module = SentencePieceModule::get();
  std::string error;
  void* processor = module.load(serialized_proto, &error);
  check(processor != nullptr, "loading the model", error);
  SubwordModel model(
      std::shared_ptr<const void>(processor, [free = module.free](const void* p) { free(const_cast<void*>(p)); }),
      serialized_proto);
  Vocabulary::from_words(model.pieces());  // throws unless the specials are at their ids
  return model;
}

std::vector<std::string> SubwordModel::encode(const std::vector<std::string>& words) const {
  std::vector<std::string> pieces;
  std::string error;
  check(SentencePieceModule::get().encode(processor_.get(), join_words(words), &pieces, &error), "encoding", error);
  return pieces;
}

std::vector<std::string> SubwordModel::decode(const std::vector<std::string>& pieces) const {
  std::string text, error;
  check(SentencePieceModule::get().decode(processor_.get(), pieces, &text, &error), "decoding", error);
  return split_on_spaces(text);
}

std::vector<std::string> SubwordModel::pieces() const {
  std::vector<std::string> all;
  SentencePieceModule::get().pieces(processor_.get(), &all);
  return all;
}

std::optional<SubwordModel> stored_subword_model(const std::string& serialized_proto,
                                                 const std::vector<std::string>& vocabulary, const std::string& what) {
  if (serialized_proto.empty()) return std::nullopt;
  auto model = SubwordModel::from_proto(serialized_proto);
  if (model.pieces() != vocabulary)
    throw std::runtime_error("the " + what + " model's pieces differ from its vocabulary");
  return model;
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
