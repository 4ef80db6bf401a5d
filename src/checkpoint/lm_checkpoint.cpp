#include "dls/checkpoint/lm_checkpoint.h"

#include <spdlog/fmt/fmt.h>
#include <torch/torch.h>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/data/languages.h"
#include "dls/util/utf8.h"
#include "word_lines.h"

namespace dls::checkpoint {

namespace {

// A character vocabulary holds "\n", " " and "\t", which a line per word cannot: its
// characters are kept as their code points ("U+000A"), the specials as they are.
std::string character_lines(const std::vector<std::string>& words) {
  std::string text;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i < static_cast<std::size_t>(data::Vocabulary::kSpecialCount)) {
      text += words[i] + "\n";
      continue;
    }
    const auto code_points = util::nfc_code_points(words[i]);
    if (code_points.size() != 1) throw std::runtime_error("a character vocabulary holds '" + words[i] + "'");
    text += fmt::format("U+{:04X}\n", static_cast<std::uint32_t>(code_points[0]));
  }
  return text;
}

std::vector<std::string> characters_of_lines(const std::string& text) {
  auto words = words_of_lines(text);
  for (std::size_t i = data::Vocabulary::kSpecialCount; i < words.size(); ++i) {
    const auto& line = words[i];
    std::size_t used = 0;
    unsigned long code_point = 0;
    try {
      code_point = line.rfind("U+", 0) == 0 ? std::stoul(line.substr(2), &used, 16) : 0;
    } catch (const std::exception&) {
    }
    if (used == 0 || used + 2 != line.size() || code_point > 0x10FFFF)
      throw std::runtime_error("its character vocabulary's line " + std::to_string(i + 1) + " is not U+XXXX: '" + line +
                               "'");
    words[i] = util::encode_utf8(static_cast<char32_t>(code_point));
  }
  return words;
}

}  // namespace

void describe_lm_checkpoint(CheckpointWriter& writer, const LmCheckpointContents& contents) {
  util::KeyValues settings = contents.settings.to_settings();
  util::KeyValues split;
  split.set("seed", std::to_string(contents.split.seed));
  split.set("validation_sentences", std::to_string(contents.split.validation_pairs));
  split.set("corpus_sentences", std::to_string(contents.split.corpus_pairs));
  split.set("corpus_fingerprint", std::to_string(contents.split.corpus_fingerprint));
  settings.merge(split, "split");
  settings.set("evaluation.val_nll", contents.val_nll);
  writer.add_settings(settings);
  writer.add_text("vocab",
                  contents.settings.data.char_units ? character_lines(contents.words) : lines_of(contents.words));
  if (!contents.subwords.empty()) writer.add_text("subwords", contents.subwords);
}

LmCheckpointContents read_lm_contents(const CheckpointReader& reader) {
  try {
    const auto& all = reader.settings();
    LmCheckpointContents contents;
    contents.settings = settings::LmTrainSettings::from_settings(all);
    const auto split = all.section("split");
    contents.split.seed = std::stoull(split.get("seed"));
    contents.split.validation_pairs = std::stoull(split.get("validation_sentences"));
    contents.split.corpus_pairs = std::stoull(split.get("corpus_sentences"));
    contents.split.corpus_fingerprint = std::stoull(split.get("corpus_fingerprint"));
    contents.state = RunState::from_settings(all);
    contents.val_nll = latest_evaluation(all, "val_nll", "state.val_nll", -1);
    const auto vocab = reader.text("vocab");
    contents.words = contents.settings.data.char_units ? characters_of_lines(vocab) : words_of_lines(vocab);
    if (contents.settings.data.subword_units) contents.subwords = reader.text("subwords");
    contents.settings.model.validate();
    if (static_cast<std::int64_t>(contents.words.size()) != contents.settings.model.vocab_size()) {
      throw std::runtime_error("the vocabulary has " + std::to_string(contents.words.size()) + " words, the model " +
                               std::to_string(contents.settings.model.vocab_size()));
    }
    return contents;
  } catch (...) {
    rethrow_naming_file(reader);
  }
}

LmCheckpointContents read_lm_checkpoint(const std::string& dir_or_file) {
  const CheckpointReader reader(latest_checkpoint(dir_or_file), kLmCheckpointKind);
  return read_lm_contents(reader);
}

data::LmTokenizer lm_tokenizer(const LmCheckpointContents& contents) {
  data::LmTokenizer tokenizer{data::stored_subword_model(contents.subwords, contents.words, "SentencePiece")};
  tokenizer.characters = contents.settings.data.char_units;
  return tokenizer;
}

data::LmStoredData lm_stored_data(const LmCheckpointContents& contents) {
  return {contents.split, lm_tokenizer(contents), data::Vocabulary::from_words(contents.words),
          static_cast<int>(contents.settings.model.transformer().max_seq_length())};
}

namespace {

// What a parent run's tokens are, for the warning when they are not this run's.
const char* token_unit(bool subwords, bool characters) {
  return subwords ? "SentencePiece pieces" : characters ? "characters" : "words";
}

}  // namespace

std::optional<data::InheritedLmVocabulary> inherited_lm_vocabulary(const CheckpointReader& parent,
                                                                   const data::LmDataSettings& ours, bool extend,
                                                                   std::vector<std::string>& warnings) {
  const auto not_taken = [&](const std::string& why) {
    warnings.push_back("--init-vocab: " + why + ", so this run's vocabulary is its data's own (" + parent.path() + ")");
    return std::nullopt;
  };
  // The parent's tokens, their language and vocabulary: an LM's own, a translator's target side.
  bool subwords = false, characters = false;
  std::string language;
  data::SubwordOptions subword_settings;
  std::vector<std::string> words;
  std::string model;  // the serialized SentencePiece model (subword units)
  if (parent.kind() == kLmCheckpointKind) {
    auto contents = read_lm_contents(parent);
    const auto& d = contents.settings.data;
    subwords = d.subword_units, characters = d.char_units, language = d.side, subword_settings = d.subwords;
    words = std::move(contents.words);
    model = std::move(contents.subwords);
  } else if (parent.kind() == kSeq2SeqKind) {
    auto info = read_seq2seq_info(parent);
    const auto& d = info.settings.data;
    subwords = d.subword_units, language = d.target_language(), subword_settings = d.subwords;
    words = std::move(info.spanish_words);
    model = std::move(info.spanish_subwords);
  } else {
    return std::nullopt;  // the weights' step refuses it in one line
  }
  if (subwords != ours.subword_units || characters != ours.char_units) {
    return not_taken(std::string("the parent reads ") + token_unit(subwords, characters) + " and this run " +
                     token_unit(ours.subword_units, ours.char_units) + " (--tokenizer)");
  }
  if (language != ours.side) {
    return not_taken("the parent's tokens are " + data::language_name(language) + ", this run's " +
                     data::language_name(ours.side) + " (--side)");
  }
  if (subwords &&
      (subword_settings.kind != ours.subwords.kind || subword_settings.vocab_size != ours.subwords.vocab_size))
    return not_taken("the parent's SentencePiece model is other than --spm-model and --vocab-size ask");
  if (!subwords) return data::InheritedLmVocabulary{parent.path(), extend, data::Vocabulary::from_words(words), {}};
  auto model_read = data::stored_subword_model(model, words, "the parent's SentencePiece model");
  if (!model_read) return not_taken("the parent keeps no SentencePiece model");
  auto pieces = data::Vocabulary::from_words(model_read->pieces());
  return data::InheritedLmVocabulary{parent.path(), extend, std::move(pieces), std::move(model_read)};
}

data::LmDataset lm_dataset(const data::LmDataSettings& settings, const LmCheckpointContents* contents,
                           const data::InheritedLmVocabulary* inherited) {
  if (contents == nullptr) return data::prepare_lm_dataset(settings, nullptr, inherited);
  const auto stored = lm_stored_data(*contents);
  return data::prepare_lm_dataset(settings, &stored);
}

LanguageModel load_lm_model(const CheckpointReader& reader, const settings::LmTrainSettings& settings,
                            Weights weights) {
  LanguageModel model(settings.model);
  reader.load_module(weights_module(reader, weights), *model);
  model->eval();
  return model;
}

}  // namespace dls::checkpoint
