// Word alignment from cross-attention: on hand-made maps the row of the step that wrote each
// word is read, EOS rows and SOS and EOS columns are skipped (a translation in parts has a pair per part), and
// SentencePiece pieces merge to their words; and a small transformer trained to copy its
// input aligns each output word with the source word it copied -- the diagonal.
#include "dls/eval/word_alignment.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include <torch/torch.h>

#include "dls/models/attention_trace.h"
#include "dls/models/seq2seq.h"
#include "support/small_models.h"

namespace dls::eval::word_alignment_test {
namespace {

// Cross maps [1 layer][H = 2, steps, cols] whose rows put all weight on `columns[row]`; row i
// writes written[i].
TranslationAttention maps_pointing(std::vector<std::string> source, std::vector<std::string> written,
                                   const std::vector<int>& columns) {
  TranslationAttention maps;
  maps.source = std::move(source);
  maps.written = std::move(written);
  auto cross =
      torch::zeros({2, static_cast<std::int64_t>(maps.written.size()), static_cast<std::int64_t>(maps.source.size())});
  for (std::size_t row = 0; row < columns.size(); ++row)
    cross.select(1, static_cast<std::int64_t>(row))[0][columns[row]] = 1;
  cross[1] = cross[0];
  maps.cross = {torch::rand_like(cross), cross};  // the first layer is noise: only the last is read
  return maps;
}

TEST(WordAlignment, EachWordTakesTheRowThatWroteIt) {
  // Rows: the steps writing "b'", "a'" and EOS. Columns: SOS a b EOS.
  const auto maps = maps_pointing({"SOS", "a", "b", "EOS"}, {"b'", "a'", "EOS"}, {2, 1, 3});
  EXPECT_EQ(alignment_text(hard_alignment(maps)), "1-0 0-1");
}

TEST(WordAlignment, PartsSkipTheirSosAndEosAndPiecesMergeToWords) {
  // Two parts, each SOS..EOS in the source and ending in an EOS step; the source words
  // "▁un ▁gat o" are two words (un, gato).
  const std::string w = "\xE2\x96\x81";
  const auto maps = maps_pointing({"SOS", w + "un", w + "gat", "o", "EOS", "SOS", w + "sí", "EOS"},
                                  {w + "a", w + "c", "at", "EOS", w + "yes", "EOS"}, {1, 3, 2, 4, 6, 7});
  // Target words: a (row 0 -> un), cat = "▁c" (row 1 -> "o": gato) + "at" (row 2 -> "▁gat": gato),
  // yes (row 4 -> sí). Source words: un 0, gato 1, sí 2; target words: a 0, cat 1, yes 2.
  EXPECT_EQ(alignment_text(hard_alignment(maps)), "0-0 1-1 2-2");
}

TEST(WordAlignment, ACopyingTransformerAlignsTheDiagonal) {
  // Vocabulary: SOS 0, EOS 1, pad 2, words 3..14; sentences of 3 to 6 different words.
  constexpr std::int64_t kSos = 0, kEos = 1, kPad = 2, kWords = 12, kLength = 8;
  torch::manual_seed(3);
  Seq2SeqConfig config;
  config.transformer(
      testing::block_config(Variant::kPreLN, Layout::kVaswani, 32, 2, kLength).ffn_multiplier(2).dropout(0.0));
  config.num_encoders(1).num_decoders(1).src_vocab_size(3 + kWords).tgt_vocab_size(3 + kWords).pad_index(kPad);
  Seq2SeqTransformer model(config);
  const auto batch_of = [&](std::int64_t rows) {
    auto src = torch::full({rows, kLength}, kPad, torch::kLong);
    for (std::int64_t b = 0; b < rows; ++b) {
      const auto n = 3 + b % 4;
      src[b][0] = kSos;
      src[b].narrow(0, 1, n).copy_(torch::randperm(kWords, torch::kLong).narrow(0, 0, n) + 3);
      src[b][n + 1] = kEos;
    }
    return src;
  };
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(3e-3));
  model->train();
  for (int step = 0; step < 400; ++step) {
    const auto src = batch_of(64);
    const auto log_probs = model->forward(src, src);  // [B, L-1, V]: the target is the source
    const auto loss = torch::nll_loss(log_probs.reshape({-1, log_probs.size(2)}),
                                      src.narrow(1, 1, kLength - 1).reshape({-1}), {}, at::Reduction::Mean, kPad);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
  }
  model->eval();
  torch::NoGradGuard no_grad;
  const auto test = batch_of(8);
  AttentionTrace trace;
  const auto copied = model->forward(test, test, &trace).argmax(-1);  // [B, L-1]
  for (std::int64_t b = 0; b < test.size(0); ++b) {
    const auto n = 3 + b % 4;
    ASSERT_TRUE(copied[b].narrow(0, 0, n).equal(test[b].narrow(0, 1, n))) << "the copy task was not learnt";
    TranslationAttention maps;
    std::vector<std::string> tokens{"SOS"};
    for (std::int64_t i = 1; i <= n; ++i) tokens.push_back("w" + std::to_string(test[b][i].item<std::int64_t>()));
    tokens.push_back("EOS");
    maps.source = tokens;
    maps.written.assign(tokens.begin() + 1, tokens.end());  // the steps from SOS to the last word
    const auto size = static_cast<std::int64_t>(tokens.size());
    const auto& cross = trace.decoder_cross.back()[b];  // [H, L-1 queries, L keys]
    maps.cross = {cross.narrow(1, 0, size - 1).narrow(2, 0, size)};
    std::vector<AlignmentPoint> diagonal;
    for (int i = 0; i < n; ++i) diagonal.push_back({i, i});
    EXPECT_EQ(alignment_text(hard_alignment(maps)), alignment_text(diagonal)) << "sentence " << b;
  }
}

}  // namespace
}  // namespace dls::eval::word_alignment_test
