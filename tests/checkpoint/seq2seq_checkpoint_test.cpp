// Seq2seq checkpoints with subword units: the SentencePiece models travel inside the
// checkpoint, come back bit for bit, and a resumed run keeps them; older checkpoints' settings
// and keys.
#include "dls/checkpoint/seq2seq_checkpoint.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "dls/data/normalize.h"
#include "dls/report/seq2seq_checkpoint_report.h"
#include "dls/train/tasks/seq2seq_trainer.h"
#include "dls/util/file_io.h"
#include "support/seq2seq_runs.h"
#include "support/test_paths.h"
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
  writer.add_settings(settings);
  writer.add_text("model", bytes);
  writer.save(path.string());
  EXPECT_EQ(checkpoint::CheckpointReader(path.string(), "toy").text("model"), bytes);
}

// A checkpoint written before the model section said `dlstudio_outputs`: a DLStudio-loss run's
// model is read with DLStudio's outputs (as such runs train, evaluate and export now, and so a
// resume sees the model it asks for), any other run's without.
TEST(Seq2SeqCheckpoint, OlderCheckpointsOfDLStudioLossRunsReadWithDLStudioOutputs) {
  const auto dir = test::fresh_temp_dir("seq2seq_checkpoint_older");
  for (const bool dlstudio_loss : {true, false}) {
    checkpoint::Seq2SeqCheckpointInfo info;
    info.settings.model.transformer().embedding_size(8).num_heads(2).max_seq_length(4);
    info.settings.model.src_vocab_size(5).tgt_vocab_size(5);
    info.english_words = info.spanish_words = {"SOS", "EOS", "<pad>", "<unk>", "casa"};
    info.settings.dlstudio_loss = dlstudio_loss;
    checkpoint::CheckpointWriter now(checkpoint::kSeq2SeqKind);
    checkpoint::describe_seq2seq_checkpoint(now, info);
    checkpoint::describe_run_state(now, info.state);
    now.save((dir / "now.pt").string());
    const checkpoint::CheckpointReader written((dir / "now.pt").string());
    util::KeyValues older;
    for (const auto& [key, value] : written.settings().entries()) {
      if (key != "model.dlstudio_outputs") older.set(key, value);
    }
    ASSERT_EQ(older.entries().size() + 1, written.settings().entries().size());
    checkpoint::CheckpointWriter before(checkpoint::kSeq2SeqKind);
    before.add_settings(older);
    before.add_text("vocab_en", written.text("vocab_en"));
    before.add_text("vocab_es", written.text("vocab_es"));
    before.save((dir / "older.pt").string());
    const auto read = checkpoint::read_seq2seq_info(checkpoint::CheckpointReader((dir / "older.pt").string()));
    EXPECT_EQ(read.settings.model.dlstudio_outputs(), dlstudio_loss);
    // A checkpoint that says it keeps what it says.
    EXPECT_FALSE(checkpoint::read_seq2seq_info(written).settings.model.dlstudio_outputs());
  }
}

// The settings of a checkpoint written at fe0f833, before the model config moved into
// Seq2SeqTrainSettings (tests/fixtures/seq2seq_checkpoint/settings.txt): such a checkpoint
// reads back and is described again with every line as it was, in its order, and a checkpoint
// of today's defaults has each of its keys in that order. (Later keys may come beside them,
// with defaults for the older files; these may not change.) Its "progress." (1-based epochs)
// alone is written anew: as the loop's state ("state.") and the latest validation
// ("evaluation.").
TEST(Seq2SeqCheckpoint, KeepsTheKeysAndValuesOfEarlierCheckpoints) {
  const auto dir = test::fresh_temp_dir("seq2seq_checkpoint_keys");
  const auto text = util::read_file(testing::fixtures_dir() + "/seq2seq_checkpoint/settings.txt");
  checkpoint::CheckpointWriter earlier(checkpoint::kSeq2SeqKind);
  earlier.add_settings(util::KeyValues::from_text(text, "settings.txt"));
  earlier.add_text("vocab_en", "SOS\nEOS\n<pad>\n<unk>\nhaus\n");
  earlier.add_text("vocab_es", "SOS\nEOS\n<pad>\n<unk>\nhouse\nhome\n");
  earlier.save((dir / "earlier.pt").string());
  const auto info = checkpoint::read_seq2seq_info(checkpoint::CheckpointReader((dir / "earlier.pt").string()));
  EXPECT_EQ(info.settings.data.source_language(), "en") << "reversed";
  EXPECT_EQ(info.settings.model.tgt_vocab_size(), 6);
  // progress.epoch=3, step_in_epoch=7: two epochs done and 7 steps of the third, whose mean
  // loss (1.75) a resume continues as the sum of those 7 steps; its pairs the task counts.
  EXPECT_EQ(info.state.completed_epochs, 2);
  EXPECT_EQ(info.state.step_in_epoch, 7);
  EXPECT_EQ(info.state.file_epoch(), 3);
  EXPECT_EQ(info.state.global_step, 250);
  EXPECT_EQ(info.state.train_loss, 1.75);
  EXPECT_EQ(info.state.wall_s, 42.5);
  EXPECT_EQ(info.state.epoch_loss_weight, 7.0);
  EXPECT_EQ(info.state.epoch_loss_sum, 1.75 * 7);
  EXPECT_EQ(info.state.epoch_examples, -1);
  EXPECT_EQ(info.val_loss, 1.5);
  EXPECT_EQ(info.val_bleu, 0.25);
  EXPECT_EQ(checkpoint::progress_summary(info), "epoch 3 unfinished, step 250, validation BLEU 0.250, loss 1.5");
  std::string text_but_progress;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("progress.", 0) != 0) text_but_progress += line + "\n";
  }

  // Each line of `before` in `after` (in any order: the keys' order means nothing to a
  // reader): the first one missing, or "".
  const auto first_missing = [](const std::string& before, const std::string& after) {
    std::istringstream old_lines(before), new_lines(after);
    std::set<std::string> written;
    for (std::string line; std::getline(new_lines, line);) written.insert(line);
    for (std::string line; std::getline(old_lines, line);) {
      if (written.count(line) == 0) return line;
    }
    return std::string();
  };
  const auto described = [&dir](const checkpoint::Seq2SeqCheckpointInfo& written, const std::string& name) {
    checkpoint::CheckpointWriter writer(checkpoint::kSeq2SeqKind);
    checkpoint::describe_seq2seq_checkpoint(writer, written);
    checkpoint::describe_run_state(writer, written.state);
    writer.save((dir / name).string());
    return checkpoint::CheckpointReader((dir / name).string()).settings();
  };
  const auto again_settings = described(info, "again.pt");
  const auto again = again_settings.to_text();
  EXPECT_EQ(first_missing(text_but_progress, again), "") << again;
  EXPECT_EQ(again_settings.get("state.completed_epochs"), "2");
  EXPECT_EQ(again_settings.get("evaluation.val_bleu"), "0.25");
  const auto reread = checkpoint::read_seq2seq_info(checkpoint::CheckpointReader((dir / "again.pt").string()));
  EXPECT_EQ(reread.state.epoch_loss_sum, info.state.epoch_loss_sum);
  EXPECT_EQ(reread.val_loss, 1.5);

  const auto keys = [](const util::KeyValues& settings) {
    std::string lines;
    for (const auto& [key, value] : settings.entries()) lines += key + "\n";
    return lines;
  };
  checkpoint::Seq2SeqCheckpointInfo defaults;
  EXPECT_EQ(first_missing(keys(util::KeyValues::from_text(text_but_progress, "settings.txt")),
                          keys(described(defaults, "now.pt"))),
            "");
}

TEST(Seq2SeqCheckpoint, SubwordModelsComeBackBitForBitAndResumingKeepsThem) {
  DLS_SKIP_WITHOUT_SENTENCEPIECE();
  const auto dir = test::fresh_temp_dir("seq2seq_checkpoint_subwords");
  auto setup = test::tiny_seq2seq_setup(dir);
  setup.data.subword_units = true;
  setup.data.subwords.vocab_size = 200;
  setup.data.subwords.joint = true;
  setup.model.tie_embeddings(true);
  setup.epochs = 1;
  setup.samples = 0;
  const auto first = train::train_seq2seq(setup, {});
  ASSERT_EQ(first.checkpoints.size(), 1u);

  const auto loaded = checkpoint::load_seq2seq_checkpoint(first.checkpoints.back());
  ASSERT_TRUE(loaded.english_subwords && loaded.spanish_subwords);
  EXPECT_TRUE(loaded.info.settings.data.subword_units);
  EXPECT_TRUE(loaded.info.settings.model.tie_embeddings());
  // Joint: one model, one vocabulary (its pieces), one table.
  EXPECT_EQ(loaded.english_subwords->serialized_proto(), loaded.spanish_subwords->serialized_proto());
  EXPECT_EQ(loaded.english.words(), loaded.english_subwords->pieces());
  EXPECT_EQ(loaded.english.words(), loaded.spanish.words());
  EXPECT_EQ(loaded.info.settings.model.src_vocab_size(), loaded.english.size());
  // L from the longest side in pieces: more than the 8 words + 2 of word level.
  EXPECT_GT(loaded.info.settings.model.transformer().max_seq_length(), setup.data.max_words + 2);

  // The same sentence gets the same ids from the model trained in the run (its checkpoint)
  // and from the one a resumed run stores again.
  auto resumed = train::resume_info(dir.string()).settings;
  resumed.run = resumed.run.resume_defaults();
  resumed.run.resume = dir.string();
  resumed.epochs = 2;
  const auto second = train::train_seq2seq(resumed);
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

// The dataset an evaluation builds from a checkpoint holds out exactly the pairs its training
// run validated on -- with a split seed and a validation size other than the defaults -- and
// the evaluation's BLEU and loss on them are the ones training measured.
TEST(Seq2SeqCheckpoint, EvaluationDatasetHoldsOutTrainingsValidationPairs) {
  const auto dir = test::fresh_temp_dir("seq2seq_checkpoint_eval_split");
  auto setup = test::tiny_seq2seq_setup(dir);
  setup.data.split_seed = 4242;
  setup.data.validation_fraction = 0;  // exactly validation_pairs
  setup.data.validation_pairs = 150;
  setup.epochs = 1;
  setup.samples = 0;
  setup.bleu_sentences = 0;  // every validation pair translated: validation_translations.tsv lists them all
  const auto trained = train::train_seq2seq(setup, {});
  ASSERT_EQ(trained.checkpoints.size(), 1u);
  const auto info = checkpoint::load_seq2seq_checkpoint(trained.checkpoints.back()).info;
  EXPECT_EQ(info.split.seed, 4242u);
  EXPECT_EQ(info.split.validation_pairs, 150u);

  const auto evaluated = checkpoint::seq2seq_dataset(info.settings.data, info.settings.padding(), &info);
  // Training's validation pairs, in its order: the English column of the file it wrote.
  std::vector<std::string> trained_english;
  std::istringstream tsv(util::read_file((dir / "validation_translations.tsv").string()));
  std::string line;
  std::getline(tsv, line);  // header
  while (std::getline(tsv, line)) trained_english.push_back(line.substr(0, line.find('\t')));
  ASSERT_GE(trained_english.size(), 150u);
  ASSERT_EQ(evaluated.split.validation.size(), trained_english.size());
  for (std::size_t i = 0; i < trained_english.size(); ++i) {
    EXPECT_EQ(data::join_words(evaluated.corpus.pairs[evaluated.split.validation[i]].english), trained_english[i]);
  }
  // The same split a fresh run of these settings makes, and not the default seed's.
  const auto fresh = checkpoint::seq2seq_dataset(setup.data, setup.padding(), nullptr);
  EXPECT_EQ(evaluated.split.validation, fresh.split.validation);
  EXPECT_TRUE(torch::equal(evaluated.validation.src, fresh.validation.src));
  EXPECT_TRUE(torch::equal(evaluated.validation.tgt, fresh.validation.tgt));
  auto default_seed = setup.data;
  default_seed.split_seed = settings::Seq2SeqTrainSettings{}.data.split_seed;
  EXPECT_NE(checkpoint::seq2seq_dataset(default_seed, setup.padding(), nullptr).split.validation,
            evaluated.split.validation);

  report::Seq2SeqEvalRequest request;
  request.output_dir = (dir / "eval").string();
  request.samples = 0;
  request.threads = 1;
  std::ostringstream out, messages;
  const auto report = report::report_seq2seq_checkpoints(trained.checkpoints, request, out, messages);
  ASSERT_EQ(report.checkpoints.size(), 1u);
  EXPECT_NEAR(report.checkpoints[0].bleu, info.val_bleu, 1e-12);
  EXPECT_NEAR(report.checkpoints[0].val_loss, info.val_loss, 1e-5);
  EXPECT_NE(out.str().find("(" + std::to_string(trained_english.size()) + " pairs)"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace dls
