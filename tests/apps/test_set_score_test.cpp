// A test set is scored on every pair, however long, as sacreBLEU scores every line -- by
// checkpoint_eval's report and by seq2seq_train's end-of-run test score alike: a source longer
// than the model's 8 words is translated as translate --input translates it (whole, or in
// parts by the dlstudio layout).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/data/normalize.h"
#include "support/program_run.h"
#include "support/seq2seq_runs.h"
#include "support/test_paths.h"
#include "util/temp_files.h"

namespace dls::apps {
namespace {

namespace fs = std::filesystem;

test::ProgramRun checkpoint_eval(const std::string& args, const std::string& name) {
  return test::run_program("apps/checkpoint_eval", "--threads 1 --log-level warn " + args, "test_set_score_" + name);
}

// What write_long_test_set wrote into its folder, and how many of its pairs are long.
struct LongTestSet {
  int total = 0;
  int longer = 0;   // an English side of more than 8 words
  int fitting = 0;  // both sides within 8 words
};

// Pairs of the sample corpus, every other one joined with the next ("I eat the bread, and we
// see the dog.": most longer than 8 words), in dir: test.tsv; the same as parallel files
// test.en and test.es; src.txt (the English lines) and ref.txt (the Spanish ones,
// normalised); long.tsv (the pairs whose sides are both longer than 8 words).
LongTestSet write_long_test_set(const fs::path& dir) {
  std::ifstream corpus(dls::testing::sample_corpus());
  std::vector<std::pair<std::string, std::string>> pairs;
  std::string line;
  for (int n = 0; std::getline(corpus, line) && pairs.size() < 40; ++n) {
    if (n % 29 != 0) continue;
    const auto tab = line.find('\t'), tab2 = line.find('\t', tab + 1);
    pairs.emplace_back(line.substr(0, tab), line.substr(tab + 1, tab2 - tab - 1));
  }
  const auto strip = [](std::string s) { return s.substr(0, s.find_last_not_of(".?!") + 1); };
  std::ofstream tsv(dir / "test.tsv"), en_file(dir / "test.en"), es_file(dir / "test.es"), src(dir / "src.txt"),
      ref(dir / "ref.txt"), long_tsv(dir / "long.tsv");
  LongTestSet set;
  for (std::size_t i = 0; i + 1 < pairs.size(); i += 2) {
    for (const auto& [en, es] : {pairs[i], std::pair{strip(pairs[i].first) + ", and " + pairs[i + 1].first,
                                                     strip(pairs[i].second) + ", y " + pairs[i + 1].second}}) {
      const auto en_words = data::normalize_english(en).size(), es_words = data::normalize_spanish(es).size();
      tsv << en << "\t" << es << "\n";
      en_file << en << "\n";
      es_file << es << "\n";
      src << en << "\n";
      ref << data::join_words(data::normalize_spanish(es)) << "\n";
      ++set.total;
      set.longer += en_words > 8 ? 1 : 0;
      set.fitting += en_words <= 8 && es_words <= 8 ? 1 : 0;
      if (en_words > 8 && es_words > 8) long_tsv << en << "\t" << es << "\n";
    }
  }
  return set;
}

// The report's BLEU is that of --input's output (this run's layout: whole); the loss covers
// the pairs whose sides both fit, and a set with none has no loss and is no divergence.
TEST(TestSetScoreApp, TheReportScoresEveryPairHoweverLong) {
  const auto dir = test::fresh_temp_dir("test_set_score_report");
  const auto set = write_long_test_set(dir);
  ASSERT_GT(set.longer, 5);
  const auto checkpoint = checkpoint::latest_checkpoint(test::trained_seq2seq_run().string());
  const auto direct = checkpoint_eval(checkpoint + " --json --test " + (dir / "test.tsv").string(), "direct");
  ASSERT_EQ(direct.status, 0) << direct.err;
  const auto report = nlohmann::json::parse(direct.out);
  EXPECT_EQ(report["sentences"].get<int>(), set.total) << direct.out;
  EXPECT_EQ(report["longer_pairs"].get<int>(), set.longer);
  EXPECT_EQ(report["loss_pairs"].get<int>(), set.fitting);
  EXPECT_TRUE(std::isfinite(report["checkpoints"].back()["val_loss"].get<double>()));
  const auto translated = checkpoint_eval(
      checkpoint + " --raw --input " + (dir / "src.txt").string() + " --output " + (dir / "hyp.txt").string(), "hyp");
  ASSERT_EQ(translated.status, 0) << translated.err;
  const auto scored =
      checkpoint_eval("--json --score " + (dir / "hyp.txt").string() + " --ref " + (dir / "ref.txt").string(), "score");
  ASSERT_EQ(scored.status, 0) << scored.err;
  EXPECT_GT(report["checkpoints"].back()["bleu"].get<double>(), 0.0);
  EXPECT_NEAR(nlohmann::json::parse(scored.out)["bleu"].get<double>(),
              report["checkpoints"].back()["bleu"].get<double>(), 1e-12);

  // Both sides of every pair too long for the loss: scored, no loss, not diverged.
  const auto text = checkpoint_eval(checkpoint + " --test " + (dir / "long.tsv").string(), "long_only");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("pairs have a source longer than the model reads at once"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("the validation loss covers the 0 pairs whose sides both fit"), std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("diverged"), std::string::npos) << text.out;
}

// seq2seq_train --test-src/--test-tgt scores the final weights on every pair too (the
// dlstudio layout: a long source in parts), and gives the report's numbers for the checkpoint
// it ends with, in its log line and its --json: with --ema-decay, both read the average.
TEST(TestSetScoreApp, TrainingsEndOfRunScoreIsTheReportsOfItsLastCheckpoint) {
  const auto dir = test::fresh_temp_dir("test_set_score_training");
  const auto set = write_long_test_set(dir);
  const auto train = test::run_program(
      "apps/seq2seq_train",
      "--data " + dls::testing::sample_corpus() +
          " --preset cpu --layout dlstudio --embedding-size 32 --heads 2 --encoders 1 --decoders 1"
          " --ffn-multiplier 2 --validation-pairs 100 --bleu-sentences 10 --samples 0 --epochs 1 --max-iters 30"
          " --batch-size 24 --ema-decay 0.9 --threads 1 --json --test-src " +
          (dir / "test.en").string() + " --test-tgt " + (dir / "test.es").string() + " --run-dir " +
          (dir / "run").string(),
      "test_set_score_train", "", "DLS_LOG_LEVEL=info ");
  ASSERT_EQ(train.status, 0) << train.err;
  const auto trained = nlohmann::json::parse(train.out)["test"];
  ASSERT_TRUE(trained.is_object()) << train.out;
  EXPECT_EQ(trained["pairs"].get<int>(), set.total);
  EXPECT_EQ(trained["longer_pairs"].get<int>(), set.longer);
  EXPECT_NE(train.err.find("(" + std::to_string(set.total) + " pairs, " + std::to_string(set.longer) +
                           " longer than the model reads at once: translated whole or in parts): BLEU "),
            std::string::npos)
      << train.err;
  EXPECT_EQ(train.err.find("left out"), std::string::npos) << train.err;

  const auto checkpoint = checkpoint::latest_checkpoint((dir / "run").string());
  const auto scored = checkpoint_eval(
      checkpoint + " --json --test-src " + (dir / "test.en").string() + " --test-tgt " + (dir / "test.es").string(),
      "training_report");
  ASSERT_EQ(scored.status, 0) << scored.err;
  const auto report = nlohmann::json::parse(scored.out);
  EXPECT_EQ(report["longer_pairs"].get<int>(), set.longer);
  const auto& last = report["checkpoints"].back();
  EXPECT_NEAR(trained["bleu"].get<double>(), last["bleu"].get<double>(), 1e-12) << scored.out;
  EXPECT_NEAR(trained["sacrebleu"]["score"].get<double>(), last["sacrebleu"]["score"].get<double>(), 1e-9)
      << scored.out;
  EXPECT_EQ(trained["sacrebleu"]["signature"], last["sacrebleu"]["signature"]);
  EXPECT_NEAR(trained["chrf"]["score"].get<double>(), last["chrf"]["score"].get<double>(), 1e-9);
}

}  // namespace
}  // namespace dls::apps
