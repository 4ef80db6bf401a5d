// Seq2seq checkpoints with subword units: the SentencePiece models travel inside the
// checkpoint, come back bit for bit, and a resumed run keeps them.
#include "dls/checkpoint/seq2seq_checkpoint.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dls/train/tasks/seq2seq_trainer.h"
#include "support/seq2seq_runs.h"
#include "util/sentencepiece_available.h"

namespace dls {
namespace {

TEST(Seq2SeqCheckpoint, TextEntriesHoldAnyBytes) {
  // Serialized SentencePiece models are binary protobuf, kept as text entries.
  std::string bytes;
  for (int repeat = 0; repeat < 3; ++repeat) {
    for (int b = 0; b < 256; ++b) bytes.push_back(static_cast<char>(b));
  }
  const auto path = test::fresh_temp_dir("seq2seq_checkpoint_bytes") / "bytes.pt";
  checkpoint::CheckpointWriter writer("toy");
  util::KeyValues settings;
  settings.set("size", static_cast<std::int64_t>(bytes.size()));
  writer.set_settings(settings);
  writer.add_text("model", bytes);
  writer.save(path.string());
  EXPECT_EQ(checkpoint::CheckpointReader(path.string(), "toy").text("model"), bytes);
}

TEST(Seq2SeqCheckpoint, SubwordModelsComeBackBitForBitAndResumingKeepsThem) {
  DLS_SKIP_WITHOUT_SENTENCEPIECE();
  const auto dir = test::fresh_temp_dir("seq2seq_checkpoint_subwords");
  auto setup = test::tiny_seq2seq_setup(dir);
  auto& t = setup.training;
  t.subword_units = true;
  t.subwords.vocab_size = 200;
  t.subwords.joint = true;
  setup.model.tie_embeddings(true);
  t.epochs = 1;
  t.samples = 0;
  const auto first = train::train_seq2seq(setup.model, t, {});
  ASSERT_EQ(first.checkpoints.size(), 1u);

  const auto loaded = checkpoint::load_seq2seq_checkpoint(first.checkpoints.back());
  ASSERT_TRUE(loaded.english_subwords && loaded.spanish_subwords);
  EXPECT_TRUE(loaded.info.training.subword_units);
  EXPECT_TRUE(loaded.info.model.tie_embeddings());
  // Joint: one model, one vocabulary (its pieces), one table.
  EXPECT_EQ(loaded.english_subwords->serialized_proto(), loaded.spanish_subwords->serialized_proto());
  EXPECT_EQ(loaded.english.words(), loaded.english_subwords->pieces());
  EXPECT_EQ(loaded.english.words(), loaded.spanish.words());
  EXPECT_EQ(loaded.info.model.src_vocab_size(), loaded.english.size());
  // L from the longest side in pieces: more than the 8 words + 2 of word level.
  EXPECT_GT(loaded.info.model.transformer().max_seq_length(), t.max_words + 2);

  // The same sentence gets the same ids from the model trained in the run (its checkpoint)
  // and from the one a resumed run stores again.
  auto resumed = train::resume_info(dir.string());
  resumed.training.run = resumed.training.run.resume_defaults();
  resumed.training.run.resume = dir.string();
  resumed.training.epochs = 2;
  const auto second = train::train_seq2seq(resumed.model, resumed.training);
  ASSERT_EQ(second.epochs, 2);
  const auto reloaded = checkpoint::load_seq2seq_checkpoint(second.checkpoints.back());
  EXPECT_EQ(reloaded.english_subwords->serialized_proto(), loaded.english_subwords->serialized_proto());
  const std::vector<std::string> sentence{"no", "como", "el", "pastel", "de", "manzana"};
  const auto ids = [](const checkpoint::LoadedSeq2Seq& l, const std::vector<std::string>& words) {
    return l.spanish.encode(l.spanish_subwords->encode(words), 30);
  };
  EXPECT_EQ(ids(reloaded, sentence), ids(loaded, sentence));
  EXPECT_EQ(loaded.spanish_subwords->decode(loaded.spanish_subwords->encode(sentence)), sentence);
}

}  // namespace
}  // namespace dls
