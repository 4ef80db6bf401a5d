// seq2seq_train --tokenizer sentencepiece end to end: the start-up report, tied embeddings'
// parameter count, checkpoint_eval scoring and translating detokenised text, and the flag
// combinations that are refused.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <string>

#include "dls/util/file_io.h"
#include "support/program_run.h"
#include "util/sentencepiece_available.h"
#include "util/temp_files.h"

namespace dls {
namespace {

namespace fs = std::filesystem;

const std::string kSubwordCorpus = dls::testing::sample_corpus();
const std::string kSubwordSmall =
    " --data " + kSubwordCorpus +
    " --preset cpu --embedding-size 32 --heads 2 --encoders 1 --decoders 1 --ffn-multiplier 2"
    " --validation-pairs 100 --bleu-sentences 30 --samples 3 --log-every 10";
const std::string kPiece = "\xe2\x96\x81";  // SentencePiece's word-start mark

test::ProgramRun seq2seq_train(const std::string& args, const std::string& name, bool info = true) {
  return test::run_program("apps/seq2seq_train", "--threads 1 " + args, "subword_units_" + name, "",
                           info ? "DLS_LOG_LEVEL=info " : "");
}

double json_number(const std::string& json, const std::string& key) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(json, m, std::regex("\"" + key + "\":([0-9.e+-]+)"))) << key << " in " << json;
  return m.empty() ? -1 : std::stod(m[1].str());
}

TEST(SubwordUnitsApp, TrainsTiedJointPiecesAndCheckpointEvalScoresWords) {
  DLS_SKIP_WITHOUT_SENTENCEPIECE();
  const auto dir = test::fresh_temp_dir("subword_units_run");
  const auto run = seq2seq_train(kSubwordSmall +
                                     " --tokenizer sentencepiece --spm-model bpe --vocab-size 200 --joint-vocab"
                                     " --tie-embeddings --epochs 2 --json --run-dir " +
                                     dir.string(),
                                 "run");
  ASSERT_EQ(run.status, 0) << run.err;
  for (const auto* text : {"one joint SentencePiece model", "validation <unk> rate (of the pieces)", "tied-embeddings",
                           "The translation produced by"}) {
    EXPECT_NE(run.err.find(text), std::string::npos) << text << "\n" << run.err;
  }
  EXPECT_EQ(run.err.find(kPiece), std::string::npos) << "samples are detokenised:\n" << run.err;
  EXPECT_GE(json_number(run.out, "val_bleu"), 0.0);

  const auto eval = test::run_program("apps/checkpoint_eval", "--threads 1 " + dir.string(), "subword_units_eval");
  ASSERT_EQ(eval.status, 0) << eval.err;
  EXPECT_NE(eval.out.find("BLEU"), std::string::npos) << eval.out;
  EXPECT_NE(eval.out.find("nrefs:1|"), std::string::npos) << "one reference per sentence:\n" << eval.out;
  EXPECT_EQ(eval.out.find(kPiece), std::string::npos) << eval.out;
  const auto translate = test::run_program("apps/checkpoint_eval",
                                           "--threads 1 " + dir.string() + " --translate \"I do not eat the bread.\"",
                                           "subword_units_translate");
  ASSERT_EQ(translate.status, 0) << translate.err;
  EXPECT_EQ(test::count_lines(translate.out), 1u) << translate.out;
  EXPECT_EQ(translate.out.find(kPiece), std::string::npos) << translate.out;
}

TEST(SubwordUnitsApp, TiedEmbeddingsDropTwoTablesAndWordLevelReportsItsUnkRate) {
  DLS_SKIP_WITHOUT_SENTENCEPIECE();
  const std::string joint =
      kSubwordSmall + " --tokenizer sentencepiece --vocab-size 200 --joint-vocab --dry-run --json";
  const auto untied = seq2seq_train(joint, "untied");
  const auto tied = seq2seq_train(joint + " --tie-embeddings", "tied");
  ASSERT_EQ(untied.status, 0) << untied.err;
  ASSERT_EQ(tied.status, 0) << tied.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(tied.err, m, std::regex(R"(English (\d+) pieces)"))) << tied.err;
  const double V = std::stod(m[1].str());
  EXPECT_EQ(json_number(untied.out, "parameters") - json_number(tied.out, "parameters"), 2 * V * 32);

  const auto words = seq2seq_train(kSubwordSmall + " --dry-run", "words");
  ASSERT_EQ(words.status, 0) << words.err;
  EXPECT_NE(words.err.find("validation <unk> rate (of the words)"), std::string::npos) << words.err;
}

TEST(SubwordUnitsApp, BadFlagCombinationsAreOneLineErrors) {
  DLS_SKIP_WITHOUT_SENTENCEPIECE();
  const std::string spm = " --tokenizer sentencepiece";
  const struct {
    std::string flags, part;
  } cases[] = {
      {" --vocab-size 100", "--vocab-size: needs --tokenizer sentencepiece"},
      {" --joint-vocab", "--joint-vocab: needs --tokenizer sentencepiece"},
      {" --spm-model bpe", "--spm-model: needs --tokenizer sentencepiece"},
      {" --tie-embeddings", "--tie-embeddings: needs one vocabulary"},
      {spm + " --tie-embeddings", "--tie-embeddings: needs one vocabulary"},
      {spm + " --joint-vocab --tie-embeddings --layout dlstudio", "--tie-embeddings: needs the vaswani layout"},
  };
  for (const auto& c : cases) {
    test::expect_one_line_error(seq2seq_train(kSubwordSmall + " --dry-run" + c.flags, "bad", false), c.part);
  }
  test::expect_one_line_error(seq2seq_train("--tokenizer words --dry-run", "bad_name", false), "--tokenizer",
                              test::kAnyFailure);
}

// Issue #39's probe: a corpus with a 50 MB "word" got seq2seq_train SIGKILLed in SentencePiece's
// training (about 12 GB to train on it and encode it). Under an address-space limit of 6 GiB
// (the shell's ulimit -v: RLIMIT_AS, no cgroup needed) the program refuses before training, in
// one line naming the estimate and what the limit leaves, exits 1, and leaves no run directory.
// (Two such pairs of different English sentences: the split cannot hold both out. On the CPU:
// a GPU's driver would map far more address space than the limit leaves.)
TEST(SubwordUnitsApp, AFiftyMegabyteWordIsRefusedUnderAMemoryLimit) {
  DLS_SKIP_WITHOUT_SENTENCEPIECE();
  const auto dir = test::fresh_temp_dir("subword_units_huge_word");
  const std::string word(std::size_t{50} << 20, 'a');
  test::write_bytes(dir / "corpus.tsv",
                    util::read_file(kSubwordCorpus) + word + "\tuna palabra\n" + word + " again\totra vez\n");
  const auto run_dir = dir / "new" / "run";
  const auto started = std::chrono::steady_clock::now();
  const auto refused = test::run_program(
      "apps/seq2seq_train",
      "--threads 1 --device cpu --data " + (dir / "corpus.tsv").string() +
          " --preset cpu --embedding-size 32 --heads 2 --encoders 1 --decoders 1 --validation-pairs 100"
          " --tokenizer sentencepiece --vocab-size 200 --epochs 1 --run-dir " +
          run_dir.string(),
      "subword_units_huge_word", "", "ulimit -v " + std::to_string(6 << 20) + " && ");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  test::expect_one_line_error(refused, "sentencepiece: training on ");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      refused.err, m,
      std::regex(R"(, the longest 50(\.0)? MiB\) and encoding them need about ([0-9.]+) GiB, ([0-9.]+) (GiB|MiB) )"
                 R"(available \(address-space limit \(ulimit -v\)\); shorten the corpus's longest sentences)")))
      << refused.err;
  EXPECT_GT(std::stod(m[2].str()), 10.0) << "the estimate, GiB";
  EXPECT_LT(std::stod(m[3].str()), m[4].str() == "GiB" ? 6.0 : 6144.0) << "what the 6 GiB limit leaves";
  EXPECT_FALSE(fs::exists(run_dir.parent_path())) << "no run directory left behind";
  EXPECT_LT(seconds, 60) << "refused before training";
}

}  // namespace
}  // namespace dls
