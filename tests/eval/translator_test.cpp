// eval::Translator: batched translation equals one sentence at a time, a sentence that cannot
// be translated does not disturb the others, scores are the model's log-probabilities, a run
// directory means its best checkpoint, and the attention of a translation has its shapes and
// is that of the sentence padded as the model was trained. A sentence longer than the model
// was trained on is translated in every layout: whole where the layout reads any length, in
// parts by the dlstudio layout; sentences within the length translate as they always did.
#include "dls/eval/translator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/data/normalize.h"
#include "dls/data/vocabulary.h"
#include "dls/eval/decoding.h"
#include "dls/models/attention_trace.h"
#include "support/seq2seq_runs.h"

namespace dls::eval {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kTranslatorSentences = {
    "She does not want the red car.",
    "one two three four five six seven eight nine",
    "I want to go home.",
    "",
    "Where is my dog?",
    "bad \xff bytes",
    "We eat the bread.",
};

TEST(Translator, ABatchTranslatesAsOneSentenceAtATimeAndErrorsStayWithTheirSentence) {
  auto translator = Translator::load(checkpoint::latest_checkpoint(test::trained_seq2seq_run().string()));
  DecodeOptions decode;
  decode.batch_size = 3;  // several batches
  const auto batch = translator.translate(kTranslatorSentences, decode);
  ASSERT_EQ(batch.size(), kTranslatorSentences.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto alone = translator.translate(kTranslatorSentences[i]);
    EXPECT_EQ(batch[i].input, kTranslatorSentences[i]);
    EXPECT_EQ(batch[i].error, alone.error) << i;
    EXPECT_EQ(batch[i].output_tokens, alone.output_tokens) << i;
    EXPECT_EQ(batch[i].raw, alone.raw) << i;
    if (batch[i].ok()) {
      EXPECT_NEAR(batch[i].log_probability, alone.log_probability, 1e-4) << i;
    }
  }
  EXPECT_NE(batch[1].note.find("9 words, more than the 8 this model was trained on"), std::string::npos)
      << batch[1].note;
  EXPECT_EQ(batch[3].error, "no words left after normalisation");
  EXPECT_EQ(batch[5].error, "the sentence is not valid UTF-8");
  for (const std::size_t ok : {0, 1, 2, 4, 6}) {
    EXPECT_TRUE(batch[ok].ok()) << batch[ok].error;
    EXPECT_FALSE(batch[ok].raw.empty());
    EXPECT_LT(batch[ok].log_probability, 0.0);
    EXPECT_TRUE(std::isfinite(batch[ok].log_probability));
  }
  // The library page's call: a braced list of literals is a list of sentences.
  const auto listed = translator.translate({"I want to go home.", "We eat the bread."});
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[1].raw, batch[6].raw);
}

TEST(Translator, TheScoreIsTheSumOfTheModelsLogProbabilities) {
  auto translator = Translator::load(checkpoint::latest_checkpoint(test::trained_seq2seq_run().string()));
  const auto t = translator.translate("I want to go home.");
  ASSERT_TRUE(t.ok()) << t.error;
  // Teacher-forced by hand: SOS, the output, EOS; the sum of log p of each word after SOS.
  const auto& loaded = translator.model();
  const int length = translator.max_source_tokens() + 2;
  const auto padding = loaded.info.settings.padding();
  const auto src = torch::tensor(loaded.english.encode(t.tokens, length, padding), torch::kLong).unsqueeze(0);
  const auto tgt = torch::tensor(loaded.spanish.encode(t.output_tokens, length, padding), torch::kLong).unsqueeze(0);
  torch::NoGradGuard no_grad;
  auto model = loaded.model.transformer();          // a handle to the same module
  const auto log_probs = model->forward(src, tgt);  // [1, L-1, V]
  double expected = 0;
  for (std::size_t k = 0; k <= t.output_tokens.size(); ++k) {
    expected += log_probs[0][static_cast<std::int64_t>(k)][tgt[0][static_cast<std::int64_t>(k + 1)]].item<double>();
  }
  EXPECT_NEAR(t.log_probability, expected, 1e-4);
}

TEST(Translator, ARunDirectoryMeansItsBestCheckpoint) {
  const auto run = test::trained_seq2seq_run();
  ASSERT_TRUE(fs::exists(run / "best.pt"));
  EXPECT_EQ(Translator::load(run.string()).checkpoint_file(), (run / "best.pt").string());
  EXPECT_EQ(Translator::load((run / "checkpoints").string()).checkpoint_file(), (run / "best.pt").string());
  const auto newest = checkpoint::latest_checkpoint(run.string());
  EXPECT_EQ(Translator::load(newest).checkpoint_file(), newest);
  EXPECT_THROW(Translator::load((run / "absent").string()), std::runtime_error);
}

TEST(Translator, AttentionHasEveryLayerAndHeadCroppedToTheTokens) {
  auto translator = Translator::load(test::trained_seq2seq_run().string());
  const auto t = translator.translate("I want to go home.");
  ASSERT_TRUE(t.ok());
  const auto maps = translator.attention(t);
  const auto& config = translator.model().model.transformer()->config();
  const auto heads = config.transformer().num_heads();
  ASSERT_EQ(maps.source.size(), t.tokens.size() + 2);
  // A decoder row per step: it reads SOS or a word, and writes the next word or the EOS.
  ASSERT_EQ(maps.written.size(), t.output_tokens.size() + 1);
  ASSERT_EQ(maps.target.size(), maps.written.size());
  EXPECT_EQ(maps.target.front(), "SOS");
  EXPECT_EQ(maps.written.back(), "EOS");
  for (std::size_t i = 0; i < t.output_tokens.size(); ++i) {
    EXPECT_EQ(maps.written[i], t.output_tokens[i]);
    EXPECT_EQ(maps.target[i + 1], t.output_tokens[i]);
  }
  ASSERT_EQ(maps.encoder_self.size(), static_cast<std::size_t>(config.num_encoders()));
  ASSERT_EQ(maps.cross.size(), static_cast<std::size_t>(config.num_decoders()));
  const auto src = static_cast<std::int64_t>(maps.source.size()), tgt = static_cast<std::int64_t>(maps.written.size());
  EXPECT_EQ(maps.encoder_self[0].sizes(), (std::vector<std::int64_t>{heads, src, src}));
  EXPECT_EQ(maps.decoder_self[0].sizes(), (std::vector<std::int64_t>{heads, tgt, tgt}));
  EXPECT_EQ(maps.cross[0].sizes(), (std::vector<std::int64_t>{heads, tgt, src}));
  EXPECT_TRUE(maps.cross[0].ge(0).all().item<bool>());
  // Each row's drawn weights and its rest (keys not drawn) sum to 1.
  for (const auto& [weights, rest] :
       {std::pair{&maps.encoder_self, &maps.encoder_self_rest}, std::pair{&maps.decoder_self, &maps.decoder_self_rest},
        std::pair{&maps.cross, &maps.cross_rest}}) {
    ASSERT_EQ(rest->size(), weights->size());
    const auto rows = (*weights)[0].sum(-1) + (*rest)[0];  // [H, rows]
    EXPECT_TRUE(torch::allclose(rows, torch::ones_like(rows), 1e-4, 1e-4)) << rows;
  }
  SentenceTranslation failed;
  failed.error = "too long";
  EXPECT_THROW(translator.attention(failed), std::invalid_argument);
}

// A translation that filled every position (L - 1 tokens after SOS, no EOS): a row for each
// of its words and none for an EOS, and every word gets an alignment point (the last word's
// was dropped once).
TEST(Translator, AFullLengthTranslationHasARowAndAnAlignmentForEveryWord) {
  auto translator = Translator::load(test::trained_seq2seq_run().string());
  auto t = translator.translate("I want to go home.");
  ASSERT_TRUE(t.ok());
  ASSERT_FALSE(t.output_tokens.empty());
  const auto full = static_cast<std::size_t>(translator.max_source_tokens() + 1);  // L - 1
  t.output_tokens.resize(full, t.output_tokens.front());
  const auto maps = translator.attention(t);
  // A row per decoding step, L - 1: the one from SOS, and one from each word but the last.
  ASSERT_EQ(maps.written, t.output_tokens);
  ASSERT_EQ(maps.target.size(), full);  // SOS and the words but the last
  EXPECT_EQ(maps.target.back(), t.output_tokens[full - 2]);
  EXPECT_EQ(maps.cross[0].size(1), static_cast<std::int64_t>(full));
  EXPECT_EQ(maps.decoder_self[0].size(2), static_cast<std::int64_t>(full));
  std::vector<bool> aligned(full, false);
  for (const auto& point : translator.alignment(t)) aligned.at(static_cast<std::size_t>(point.target)) = true;
  EXPECT_EQ(std::count(aligned.begin(), aligned.end(), true), static_cast<std::ptrdiff_t>(full));
}

// --attention-maps pads as the model was trained: for a DLStudio-loss run (EOS padding) in the
// flattened layout, where every padding row changes every output, the maps are those of the
// EOS-padded pair, not of the <pad>-padded one.
TEST(Translator, AttentionPadsAsTheModelWasTrained) {
  auto setup = test::tiny_seq2seq_setup(test::fresh_temp_dir("translator_attention_padding"));
  setup.model.transformer().layout(Layout::kDLStudio);
  setup.dlstudio_loss = true;
  setup.epochs = 1;
  auto translator = Translator::load(test::train_fixture_run(setup).string());
  const auto sentence = translator.translate("I want to go home.");
  ASSERT_TRUE(sentence.ok());
  const auto maps = translator.attention(sentence);
  const auto& loaded = translator.model();
  auto model = loaded.model.transformer();
  const int length = translator.max_source_tokens() + 2;
  const auto rows = static_cast<std::int64_t>(maps.target.size()), cols = static_cast<std::int64_t>(maps.source.size());
  // The first decoder layer's cross-attention [H, rows, cols] of the pair padded one way.
  const auto cross_attention = [&](data::Vocabulary::Padding padding) {
    const auto src = torch::tensor(loaded.english.encode(sentence.tokens, length, padding), torch::kLong);
    const auto tgt = torch::tensor(loaded.spanish.encode(sentence.output_tokens, length, padding), torch::kLong);
    AttentionTrace trace;
    torch::NoGradGuard no_grad;
    model->forward(src.unsqueeze(0), tgt.unsqueeze(0), &trace);
    return trace.decoder_cross[0][0].narrow(1, 0, rows).narrow(2, 0, cols).to(torch::kFloat);
  };
  ASSERT_LE(sentence.output_tokens.size() + 2, static_cast<std::size_t>(length));
  EXPECT_TRUE(torch::allclose(maps.cross[0], cross_attention(data::Vocabulary::Padding::kEos), 1e-5, 1e-6));
  EXPECT_FALSE(torch::allclose(maps.cross[0], cross_attention(data::Vocabulary::Padding::kPad), 1e-5, 1e-6));
}

// Twenty words of the sample corpus, more than the 8 the tiny runs were trained on, in five clauses.
const std::string kTwentyWords =
    "I want the newspaper, you see the book, he wants the fish, she needs the water, we drink the water.";

TEST(Translator, ALongSentenceIsDecodedWholeWhereTheLayoutReadsAnyLength) {
  for (const auto& run : {test::trained_seq2seq_run(), test::seq2seq_run_in_layout(Layout::kPositionwise)}) {
    auto translator = Translator::load(run.string());
    ASSERT_FALSE(translator.splits_long_sentences());
    for (const auto method : {DecodeMethod::kGreedy, DecodeMethod::kBeam}) {
      DecodeOptions decode;
      decode.method = method;
      decode.beam_size = 3;
      SCOPED_TRACE(run.string() + ", " + to_string(method));
      const auto t = translator.translate(kTwentyWords, decode);
      ASSERT_TRUE(t.ok()) << t.error;
      EXPECT_EQ(t.tokens.size(), 20u);
      EXPECT_FALSE(t.raw.empty());
      EXPECT_FALSE(t.text.empty());
      EXPECT_TRUE(t.parts.empty()) << "decoded whole, not split";
      EXPECT_NE(t.note.find("20 words, more than the 8 this model was trained on: translated whole (up to 40 words"),
                std::string::npos)
          << t.note;
      EXPECT_LE(t.output_tokens.size(), 41u);
      EXPECT_TRUE(std::isfinite(t.log_probability));
    }
    const auto t = translator.translate(kTwentyWords);
    const auto maps = translator.attention(t);
    EXPECT_EQ(maps.source.size(), 22u);
    EXPECT_EQ(maps.cross[0].size(2), 22);
    // A row per step: each word's and the EOS's (41 words fill the positions: no EOS step).
    EXPECT_EQ(maps.cross[0].size(1), static_cast<std::int64_t>(std::min<std::size_t>(t.output_tokens.size(), 40) + 1));
    EXPECT_EQ(maps.cross[0].size(1), static_cast<std::int64_t>(maps.written.size()));
  }
}

// Decoding whole is quadratic in the length (a 100,000-word line asked for 80 GB): past
// kWholeSentenceFactor times the training length the other layouts translate in parts too.
TEST(Translator, ASentenceFarPastTheTrainingLengthIsTranslatedInPartsByEveryLayout) {
  const std::string forty = kTwentyWords + " " + kTwentyWords;
  std::string thousands;  // 2,000 words on one line
  for (int i = 0; i < 100; ++i) thousands += kTwentyWords + " ";
  for (const auto& run : {test::trained_seq2seq_run(), test::seq2seq_run_in_layout(Layout::kPositionwise)}) {
    SCOPED_TRACE(run.string());
    auto translator = Translator::load(run.string());
    ASSERT_EQ(translator.max_whole_source_tokens(), 32);
    const auto batch = translator.translate({forty, "I want to go home.", thousands});
    const auto& t = batch[0];
    ASSERT_TRUE(t.ok()) << t.error;
    EXPECT_NE(t.note.find("40 words, more than the 32 this model translates whole (4 times the 8 it was trained "
                          "on): translated in " +
                          std::to_string(t.parts.size()) + " parts"),
              std::string::npos)
        << t.note;
    ASSERT_GE(t.parts.size(), 5u);
    std::vector<std::string> joined;
    for (const auto& part : t.parts) {
      EXPECT_LE(part.tokens.size(), 8u);
      joined.insert(joined.end(), part.output_tokens.begin(), part.output_tokens.end());
    }
    EXPECT_EQ(t.output_tokens, joined);
    EXPECT_EQ(batch[1].raw, translator.translate("I want to go home.").raw) << "the others as alone";
    ASSERT_TRUE(batch[2].ok()) << batch[2].error;
    EXPECT_GE(batch[2].parts.size(), 250u);
    EXPECT_FALSE(batch[2].raw.empty());
  }
  EXPECT_EQ(Translator::load(test::seq2seq_run_in_layout(Layout::kDLStudio).string()).max_whole_source_tokens(), 0);
}

// A sentence translated in parts: its n-best list has one entry, the parts' best joined (it had
// none, and the n-best output no line); its attention and alignment hold every part even when a
// part's translation filled every position (a part's map has no row after its last word: the
// parts after it slid under the wrong labels, and the alignment indexed past the map).
TEST(Translator, ASentenceInPartsHasOneNBestEntryAndAnAlignmentForEveryPart) {
  auto translator = Translator::load(test::trained_seq2seq_run().string());
  const std::string forty = kTwentyWords + " " + kTwentyWords;
  DecodeOptions decode;
  decode.method = DecodeMethod::kBeam;
  decode.beam_size = 3;
  decode.n_best = 2;
  const auto batch = translator.translate({forty, "I want to go home."}, decode);
  ASSERT_TRUE(batch[0].ok()) << batch[0].error;
  ASSERT_GE(batch[0].parts.size(), 5u);
  ASSERT_EQ(batch[0].n_best.size(), 1u);
  EXPECT_EQ(batch[0].n_best[0].text, batch[0].text);
  EXPECT_EQ(batch[1].n_best.size(), 2u);

  auto t = translator.translate(forty);
  const auto full = static_cast<std::size_t>(translator.max_source_tokens() + 1);  // L - 1: no EOS
  t.output_tokens.clear();
  for (auto& part : t.parts) {
    part.output_tokens.resize(full, "el");
    t.output_tokens.insert(t.output_tokens.end(), part.output_tokens.begin(), part.output_tokens.end());
  }
  const auto maps = translator.attention(t);
  ASSERT_EQ(maps.written, t.output_tokens);  // each part's steps, none writing an EOS
  ASSERT_EQ(maps.target.size(), t.parts.size() * full);
  EXPECT_EQ(maps.cross[0].size(1), static_cast<std::int64_t>(maps.written.size()));
  std::vector<bool> aligned(t.output_tokens.size(), false);
  for (const auto& point : translator.alignment(t)) aligned.at(static_cast<std::size_t>(point.target)) = true;
  EXPECT_EQ(std::count(aligned.begin(), aligned.end(), true), static_cast<std::ptrdiff_t>(aligned.size()));
}

// DLStudio's layout: a decoder row shows the pass that predicts its next word, with nothing on
// the later words (zero vectors in that pass); what the row gives to them and to the padding is
// its rest. A sentence in parts: a rest for every row of every part.
TEST(Translator, TheDLStudioLayoutsDecoderRowsSeeNoLaterWordAndTheRestIsSaid) {
  auto translator = Translator::load(test::seq2seq_run_in_layout(Layout::kDLStudio).string());
  for (const auto& sentence : {std::string("I want to go home."), std::string(kTwentyWords)}) {
    const auto t = translator.translate(sentence);
    ASSERT_TRUE(t.ok()) << t.error;
    const auto maps = translator.attention(t);
    const auto rows = static_cast<std::int64_t>(maps.target.size());
    for (std::size_t layer = 0; layer < maps.decoder_self.size(); ++layer) {
      const auto& self = maps.decoder_self[layer];  // [H, rows, rows]
      EXPECT_EQ(self.triu(1).abs().max().item<float>(), 0.0f) << sentence;
      ASSERT_EQ(maps.decoder_self_rest[layer].sizes(), torch::IntArrayRef({self.size(0), rows}));
      EXPECT_GT(maps.decoder_self_rest[layer].max().item<float>(), 0.01f) << "the zeroed keys' weight";
      ASSERT_EQ(maps.cross_rest[layer].size(1), rows);
    }
  }
}

TEST(Translator, ALongSentenceIsTranslatedInPartsByTheDLStudioLayout) {
  auto translator = Translator::load(test::seq2seq_run_in_layout(Layout::kDLStudio).string());
  ASSERT_TRUE(translator.splits_long_sentences());
  const auto t = translator.translate(kTwentyWords);
  ASSERT_TRUE(t.ok()) << t.error;
  EXPECT_FALSE(t.raw.empty());
  EXPECT_FALSE(t.text.empty());
  ASSERT_GE(t.parts.size(), 3u);
  EXPECT_NE(t.note.find("20 words, more than the 8 this model reads at once"), std::string::npos) << t.note;
  EXPECT_NE(t.note.find("translated in " + std::to_string(t.parts.size()) + " parts, cut at clause marks"),
            std::string::npos)
      << t.note;
  // Each part is what that part alone translates to, and the whole keeps their order.
  std::vector<std::string> source, output;
  double log_probability = 0;
  for (const auto& part : t.parts) {
    EXPECT_LE(part.tokens.size(), 8u);
    const auto alone = translator.translate(data::join_words(part.tokens));
    ASSERT_TRUE(alone.ok()) << alone.error;
    EXPECT_EQ(part.output_tokens, alone.output_tokens) << data::join_words(part.tokens);
    log_probability += alone.log_probability;
    source.insert(source.end(), part.tokens.begin(), part.tokens.end());
    output.insert(output.end(), part.output_tokens.begin(), part.output_tokens.end());
  }
  EXPECT_EQ(source, t.tokens);
  EXPECT_EQ(output, t.output_tokens);
  EXPECT_NEAR(t.log_probability, log_probability, 1e-3);
  // The attention: each part's maps on the diagonal, nothing across parts.
  const auto maps = translator.attention(t);
  ASSERT_EQ(maps.source.size(), t.tokens.size() + 2 * t.parts.size());
  const auto first = translator.attention(translator.translate(data::join_words(t.parts[0].tokens)));
  const auto rows = first.cross[0].size(1), cols = first.cross[0].size(2);
  EXPECT_TRUE(torch::allclose(maps.cross[0].narrow(1, 0, rows).narrow(2, 0, cols), first.cross[0]));
  EXPECT_EQ(maps.cross[0].narrow(1, 0, rows).narrow(2, cols, maps.cross[0].size(2) - cols).abs().sum().item<float>(),
            0.0f);
}

// Sentences within the training length: the translations of the plain decoding of the
// sentence padded to L (the code path before long sentences were translated), in every layout.
TEST(Translator, ShortSentencesTranslateAsBefore) {
  const std::vector<std::string> sentences = {"I want to go home.", "Where is my dog?",
                                              "She does not want the red car.",
                                              "one two three four five six seven eight"};
  for (const auto& run : {test::trained_seq2seq_run(), test::seq2seq_run_in_layout(Layout::kDLStudio),
                          test::seq2seq_run_in_layout(Layout::kPositionwise)}) {
    auto translator = Translator::load(run.string());
    const auto& loaded = translator.model();
    const int length = translator.max_source_tokens() + 2;
    for (const auto method : {DecodeMethod::kGreedy, DecodeMethod::kBeam}) {
      DecodeOptions decode;
      decode.method = method;
      const auto translated = translator.translate(sentences, decode);
      std::vector<std::int64_t> ids;
      for (const auto& t : translated) {
        ASSERT_TRUE(t.ok()) << t.error;
        EXPECT_TRUE(t.note.empty() && t.parts.empty()) << t.input;
        const auto row = loaded.english.encode(t.tokens, length, loaded.info.settings.padding());
        ids.insert(ids.end(), row.begin(), row.end());
      }
      auto model = loaded.model.transformer();
      const auto src = torch::tensor(ids, torch::kLong).view({static_cast<std::int64_t>(sentences.size()), length});
      const auto plain = eval::translate(model, src, data::Vocabulary::kSos, data::Vocabulary::kEos, decode);
      for (std::size_t i = 0; i < sentences.size(); ++i) {
        EXPECT_EQ(translated[i].output_tokens, loaded.spanish.decode(plain[i])) << run << ": " << sentences[i];
      }
    }
  }
}

}  // namespace
}  // namespace dls::eval
