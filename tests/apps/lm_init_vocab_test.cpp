// lm_train --init-from with --init-vocab: fine-tuning a language model on a little new text
// keeps every token its parent knew (extend: the parent's vocabulary at its indices, then the
// new text's tokens; parent: the parent's alone; data: the new text's alone), and a
// translator's target side serves as a parent too.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/lm_checkpoint.h"
#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/data/lm_dataset.h"
#include "support/program_run.h"
#include "support/seq2seq_runs.h"
#include "support/test_paths.h"
#include "util/sentencepiece_available.h"
#include "util/temp_files.h"

namespace dls {
namespace {

namespace fs = std::filesystem;

test::ProgramRun lm_train(const std::string& args, const std::string& name) {
  return test::run_program("apps/lm_train", "--threads 1 " + args, "lm_init_vocab_" + name, "", "DLS_LOG_LEVEL=info ");
}

// The newest checkpoint's vocabulary of the run in `dir`.
std::vector<std::string> run_words(const fs::path& dir) { return checkpoint::read_lm_checkpoint(dir.string()).words; }

bool has(const std::vector<std::string>& words, const std::string& word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// A parent trained on the sample corpus's Spanish side, once per process.
const fs::path& parent_run() {
  static const auto dir = [] {
    const auto run = test::fresh_temp_dir("lm_init_vocab_parent");
    const auto trained = lm_train("--preset tiny --data " + testing::sample_corpus() +
                                      " --validation-sentences 100 --epochs 1 --max-iters 5 --run-dir " + run.string(),
                                  "parent");
    EXPECT_EQ(trained.status, 0) << trained.err;
    return run;
  }();
  return dir;
}

// New text: a word the parent never saw ("zanahoria") among words it knows.
fs::path new_text(const fs::path& dir) {
  const auto file = dir / "zanahorias.txt";
  test::write_bytes(file,
                    "Yo como la zanahoria.\nLa zanahoria es roja.\nElla come una zanahoria.\nTom tiene una "
                    "zanahoria.\nLa zanahoria es buena.\n");
  return file;
}

std::string child_flags(const fs::path& dir, const std::string& run) {
  return "--data " + new_text(dir).string() + " --validation-sentences 1 --epochs 1 --run-dir " + (dir / run).string() +
         " --init-from " + parent_run().string();
}

TEST(LmInitVocabApp, ExtendKeepsTheParentsTokensAtTheirIndicesThenAddsTheNewOnes) {
  const auto parent = run_words(parent_run());
  ASSERT_FALSE(has(parent, "zanahoria"));
  const auto dir = test::fresh_temp_dir("lm_init_vocab_extend");
  const auto run = lm_train(child_flags(dir, "extend"), "extend");
  ASSERT_EQ(run.status, 0) << run.err;
  const auto words = run_words(dir / "extend");
  ASSERT_GT(words.size(), parent.size());
  EXPECT_TRUE(std::equal(parent.begin(), parent.end(), words.begin())) << "the parent's words at their indices";
  EXPECT_TRUE(has(words, "zanahoria"));
  const auto added = words.size() - parent.size();
  // The start-up lines add up: the parent's words (its specials among them) and the new ones
  // are the vocabulary, which is not the training split's.
  EXPECT_NE(run.err.find("vocabulary from " + checkpoint::latest_checkpoint(parent_run().string()) + ": the parent's " +
                         std::to_string(parent.size()) + " words + " + std::to_string(added) + " new"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("vocabulary (with SOS EOS <pad> <unk>): " + std::to_string(words.size()) + " words"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find("training split"), std::string::npos) << run.err;
}

TEST(LmInitVocabApp, ParentKeepsItsVocabularyAloneAndDataBuildsTheNewTextsOwn) {
  const auto parent = run_words(parent_run());
  const auto dir = test::fresh_temp_dir("lm_init_vocab_parent_data");
  const auto alone = lm_train(child_flags(dir, "alone") + " --init-vocab parent", "alone");
  ASSERT_EQ(alone.status, 0) << alone.err;
  EXPECT_EQ(run_words(dir / "alone"), parent);
  EXPECT_NE(alone.err.find("(new ones read as <unk>)"), std::string::npos) << alone.err;

  const auto own = lm_train(child_flags(dir, "own") + " --init-vocab data", "own");
  ASSERT_EQ(own.status, 0) << own.err;
  const auto words = run_words(dir / "own");
  EXPECT_TRUE(has(words, "zanahoria"));
  EXPECT_LT(words.size(), 40u) << "the five sentences' words alone";
  EXPECT_EQ(own.err.find("vocabulary from "), std::string::npos) << own.err;
}

TEST(LmInitVocabApp, AnotherLanguageOrTokenizerKeepsTheDatasOwnWithAWarning) {
  const auto dir = test::fresh_temp_dir("lm_init_vocab_other");
  const auto english = lm_train(child_flags(dir, "english") + " --side en", "english");
  ASSERT_EQ(english.status, 0) << english.err;
  EXPECT_NE(english.err.find("--init-vocab: the parent's tokens are Spanish, this run's English (--side), so this "
                             "run's vocabulary is its data's own"),
            std::string::npos)
      << english.err;
  const auto chars = lm_train(child_flags(dir, "chars") + " --tokenizer char", "chars");
  ASSERT_EQ(chars.status, 0) << chars.err;
  EXPECT_NE(chars.err.find("--init-vocab: the parent reads words and this run characters (--tokenizer)"),
            std::string::npos)
      << chars.err;
  test::expect_one_line_error(
      lm_train("--data " + new_text(dir).string() + " --init-vocab parent --run-dir " + (dir / "none").string(),
               "no_parent"),
      "--init-vocab: chooses the vocabularies of a run started with --init-from");
}

// A SentencePiece parent: its model serves the new text (a trained model takes no new
// pieces), with its settings taken, so that --tokenizer need not be repeated.
TEST(LmInitVocabApp, ASentencePieceParentsModelServesTheNewText) {
  DLS_SKIP_WITHOUT_SENTENCEPIECE();
  const auto dir = test::fresh_temp_dir("lm_init_vocab_spm");
  const auto parent = lm_train("--preset tiny --data " + testing::sample_corpus() +
                                   " --validation-sentences 100 --tokenizer sentencepiece --spm-model bpe --vocab-size "
                                   "200 --epochs 1 --max-iters 5 --run-dir " +
                                   (dir / "parent").string(),
                               "spm_parent");
  ASSERT_EQ(parent.status, 0) << parent.err;
  const auto child = lm_train("--data " + new_text(dir).string() + " --validation-sentences 1 --epochs 1 --run-dir " +
                                  (dir / "child").string() + " --init-from " + (dir / "parent").string(),
                              "spm_child");
  ASSERT_EQ(child.status, 0) << child.err;
  const auto theirs = checkpoint::read_lm_checkpoint((dir / "parent").string());
  const auto ours = checkpoint::read_lm_checkpoint((dir / "child").string());
  EXPECT_EQ(ours.words, theirs.words);
  EXPECT_EQ(ours.subwords, theirs.subwords) << "the parent's SentencePiece model";
  EXPECT_NE(child.err.find("(its SentencePiece model)"), std::string::npos) << child.err;
  EXPECT_NE(child.err.find("model the parent trained"), std::string::npos) << child.err;
}

// A translator's target side is a language model's parent: its Spanish words, at their indices.
TEST(LmInitVocabApp, ATranslatorsTargetSideIsAParent) {
  const auto translator = checkpoint::latest_checkpoint(test::trained_seq2seq_run().string());
  const checkpoint::CheckpointReader reader(translator);
  const auto target = checkpoint::read_seq2seq_info(reader).spanish_words;
  data::LmDataSettings spanish;
  std::vector<std::string> warnings;
  const auto inherited = checkpoint::inherited_lm_vocabulary(reader, spanish, true, warnings);
  ASSERT_TRUE(inherited.has_value());
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(inherited->vocabulary.words(), target);
  EXPECT_FALSE(inherited->subwords.has_value());
  auto english = spanish;
  english.side = "en";
  EXPECT_FALSE(checkpoint::inherited_lm_vocabulary(reader, english, true, warnings).has_value());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("the parent's tokens are Spanish, this run's English"), std::string::npos) << warnings[0];
}

}  // namespace
}  // namespace dls
