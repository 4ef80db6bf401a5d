// translate_sentences (checkpoint_eval --translate, --interactive) decodes a sentence as
// evaluation does: padded as the model was trained (EOS for DLStudio's loss, <pad>
// otherwise), in the flattened and the position-wise layout.
#include "dls/report/sentence_translation.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/data/normalize.h"
#include "dls/data/pair_tensors.h"
#include "support/seq2seq_runs.h"
#include "util/temp_files.h"

namespace dls::report {

using eval::translate;
namespace {

const std::vector<std::string> kSentences = {
    "She does not want the red car.", "I want to go home.", "They buy a car.",  "We eat the bread.",
    "He is reading a book.",          "The cat is black.",  "Where is my dog?", "You have a big house.",
};

// Evaluation's decoding: the sentences encoded with data::encode_pairs as the report encodes
// its validation pairs, with `padding`, greedy in one batch.
std::vector<std::string> evaluation_decoding(checkpoint::LoadedSeq2Seq& loaded, data::Vocabulary::Padding padding) {
  std::vector<data::SentencePair> pairs;
  for (const auto& sentence : kSentences) pairs.push_back({data::normalize_english(sentence), {"x"}});
  const int max_len = static_cast<int>(loaded.model.transformer()->config().transformer().max_seq_length());
  const auto encoded = data::encode_pairs(pairs, {}, loaded.english, loaded.spanish, max_len, padding);
  std::vector<std::string> out;
  for (const auto& ids : translate(loaded.model, encoded.src, data::Vocabulary::kSos, data::Vocabulary::kEos)) {
    out.push_back(data::join_words(loaded.spanish.decode(ids)));
  }
  return out;
}

struct Case {
  Layout layout;
  bool dlstudio_loss;
};

class TranslationPadding : public ::testing::TestWithParam<Case> {};

TEST_P(TranslationPadding, TranslateEqualsEvaluationsDecoding) {
  const auto [layout, dlstudio_loss] = GetParam();
  const auto dir = test::fresh_temp_dir("translation_padding");
  auto setup = test::tiny_seq2seq_setup(dir);
  setup.model.transformer().layout(layout);
  setup.dlstudio_loss = dlstudio_loss;
  setup.epochs = 2;
  setup.samples = 0;
  setup.bleu_sentences = 20;
  train::train_seq2seq(setup);
  const auto file = checkpoint::latest_checkpoint(dir.string());

  TranslateRequest request;
  request.sentences = kSentences;
  request.raw = true;  // the words as evaluation decodes them
  std::istringstream no_input;
  std::ostringstream out, messages;
  ASSERT_EQ(translate_sentences(file, request, no_input, out, messages), 0u) << messages.str();
  std::vector<std::string> translated;
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) translated.push_back(line);

  auto loaded = checkpoint::load_seq2seq_checkpoint(file);
  const auto trained = loaded.info.settings.padding();
  EXPECT_EQ(trained, dlstudio_loss ? data::Vocabulary::Padding::kEos : data::Vocabulary::Padding::kPad);
  EXPECT_EQ(translated, evaluation_decoding(loaded, trained));
  if (layout == Layout::kDLStudio) {
    // In the flattened layout every padding row changes every output: the other padding
    // translates differently, so the comparison above can tell the two apart.
    const auto other =
        trained == data::Vocabulary::Padding::kEos ? data::Vocabulary::Padding::kPad : data::Vocabulary::Padding::kEos;
    EXPECT_NE(translated, evaluation_decoding(loaded, other));
  }
}

// --interactive's prompt names the model's source language: "english> " for DLStudio's
// English -> Spanish, "spanish> " for the same corpus trained --reverse; the sentence typed is
// normalised by the source language's rules.
TEST(SentenceTranslation, ThePromptNamesTheSourceLanguage) {
  for (const bool reverse : {false, true}) {
    const auto dir = test::fresh_temp_dir(std::string("translation_prompt_") + (reverse ? "es" : "en"));
    auto setup = test::tiny_seq2seq_setup(dir);
    setup.data.reverse = reverse;
    setup.epochs = 1;
    setup.run.max_iters = 2;
    setup.samples = 0;
    setup.bleu_sentences = 10;
    train::train_seq2seq(setup);
    TranslateRequest request;
    request.interactive = true;
    request.prompt = true;
    std::istringstream typed(reverse ? "¡Veo un PERRO!\n" : "I see a dog.\n");
    std::ostringstream out, messages;
    ASSERT_EQ(translate_sentences(checkpoint::latest_checkpoint(dir.string()), request, typed, out, messages), 0u)
        << messages.str();
    EXPECT_NE(messages.str().find(reverse ? "spanish> " : "english> "), std::string::npos) << messages.str();
    EXPECT_EQ(messages.str().find("unknown words"), std::string::npos) << "the source vocabulary's words:\n"
                                                                       << messages.str();
  }
}

INSTANTIATE_TEST_SUITE_P(LayoutsAndPaddings, TranslationPadding,
                         ::testing::Values(Case{Layout::kDLStudio, true}, Case{Layout::kDLStudio, false},
                                           Case{Layout::kPositionwise, true}, Case{Layout::kPositionwise, false}),
                         [](const auto& info) {
                           return std::string(info.param.layout == Layout::kDLStudio ? "Flattened" : "Positionwise") +
                                  (info.param.dlstudio_loss ? "EosPadding" : "PadPadding");
                         });

}  // namespace
}  // namespace dls::report
