#include "dls/eval/pair_translation.h"

#include <algorithm>
#include <chrono>

#include <torch/torch.h>

#include "dls/data/normalize.h"
#include "dls/data/subword_model.h"
#include "dls/eval/translator.h"

namespace dls::eval {

ModelPairs model_pairs(const checkpoint::LoadedSeq2Seq& loaded, const std::vector<data::SentencePair>& pairs) {
  ModelPairs split;
  split.tokens = data::tokenize_pairs(pairs, loaded.english_subwords ? &*loaded.english_subwords : nullptr,
                                      loaded.spanish_subwords ? &*loaded.spanish_subwords : nullptr);
  const auto most = static_cast<std::size_t>(loaded.model.max_seq_length() - 2);
  for (std::size_t i = 0; i < split.tokens.size(); ++i) {
    const auto& pair = split.tokens[i];
    (pair.english.size() <= most ? split.batched : split.longer).push_back(i);
    if (pair.english.size() <= most && pair.spanish.size() <= most) split.loss_pairs.push_back(pair);
  }
  return split;
}

TranslationResult translate_every_pair(const checkpoint::LoadedSeq2Seq& loaded, const std::string& checkpoint_file,
                                       const std::vector<data::SentencePair>& pairs, const ModelPairs& tokens,
                                       const DecodeOptions& decode, const std::string& device) {
  const auto length = static_cast<int>(loaded.model.max_seq_length());
  const auto padding = loaded.info.settings.padding();
  // The pairs the model reads at once, decoded in batches: their source rows [n, L], references
  // and (--replace-unk) sources as encoded and as words.
  std::vector<std::int64_t> ids;
  std::vector<std::vector<std::string>> references, source_tokens, source_words;
  for (const auto i : tokens.batched) {
    const auto row = loaded.english.encode(tokens.tokens[i].english, length, padding);
    ids.insert(ids.end(), row.begin(), row.end());
    references.push_back(pairs[i].spanish);
    source_tokens.push_back(tokens.tokens[i].english);
    source_words.push_back(pairs[i].english);
  }
  const SourceSentences sources{source_tokens, source_words};
  TranslationResult batched;
  if (!tokens.batched.empty()) {
    const auto src = torch::tensor(ids, torch::kLong).view({static_cast<std::int64_t>(tokens.batched.size()), length});
    batched = translate_and_score(loaded.model, src, loaded.spanish, references, decode,
                                  loaded.spanish_subwords ? &*loaded.spanish_subwords : nullptr, &sources);
  }
  // Every pair's translation in order: the batched ones, then the longer ones as `translate` gives them.
  TranslationResult translated;
  translated.hypotheses.resize(tokens.tokens.size());
  translated.finished.assign(tokens.tokens.size(), true);
  translated.unknown_replaced = batched.unknown_replaced;
  for (std::size_t k = 0; k < tokens.batched.size(); ++k) {
    translated.hypotheses[tokens.batched[k]] = std::move(batched.hypotheses[k]);
    translated.finished[tokens.batched[k]] = batched.finished[k];
  }
  double seconds = batched.seconds;
  if (!tokens.longer.empty()) {
    const auto start = std::chrono::steady_clock::now();
    TranslatorOptions translator_options;
    translator_options.device = device;
    translator_options.scores = false;
    Translator translator(loaded, checkpoint_file, translator_options);
    std::vector<std::string> inputs;
    for (const auto i : tokens.longer) inputs.push_back(data::join_words(pairs[i].english));
    auto long_decode = decode;
    long_decode.workers = 1;  // each decoded alone or in parts
    const auto results = translator.translate(inputs, long_decode);
    const std::string unknown = data::Vocabulary::kSpecialWords[data::Vocabulary::kUnk];
    for (std::size_t k = 0; k < tokens.longer.size(); ++k) {
      const auto& t = results[k];
      if (!t.ok()) continue;  // scored as an empty translation
      translated.hypotheses[tokens.longer[k]] = t.output_words;
      if (decode.replace_unknown)
        translated.unknown_replaced +=
            static_cast<std::size_t>(std::count(t.output_tokens.begin(), t.output_tokens.end(), unknown) -
                                     std::count(t.output_words.begin(), t.output_words.end(), unknown));
    }
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  std::vector<std::vector<std::string>> all_references;
  for (const auto& pair : pairs) all_references.push_back(pair.spanish);
  score_translations(translated, all_references);
  translated.sentences_per_s = seconds > 0 ? static_cast<double>(tokens.tokens.size()) / seconds : 0;
  return translated;
}

}  // namespace dls::eval
