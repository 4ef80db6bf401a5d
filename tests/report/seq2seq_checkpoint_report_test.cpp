// Reports on seq2seq checkpoints: the BLEU and loss of every checkpoint equal what training
// measured on the same validation split, divergence marking, bleu.csv, samples in
// DLStudio's format. (The program around it: tests/apps/checkpoint_eval_test.cpp.)
#include "dls/report/seq2seq_checkpoint_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <regex>
#include <sstream>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/run_id.h"
#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/eval/bleu.h"
#include "dls/eval/sacrebleu.h"
#include "dls/util/file_io.h"
#include "support/seq2seq_runs.h"
#include "util/temp_files.h"

namespace dls::report {

using eval::corpus_bleu;
using eval::sacrebleu_corpus;
using eval::Tokens;
namespace {

namespace fs = std::filesystem;

TEST(CheckpointEval, BleuAndLossOfEveryCheckpointEqualTrainingsOwn) {
  const auto files = checkpoint::find_checkpoints(test::trained_seq2seq_run().string());
  ASSERT_EQ(files.size(), 3u);
  Seq2SeqEvalRequest request;
  request.output_dir = test::fresh_temp_dir("checkpoint_eval_out").string();
  request.samples = 3;
  request.threads = 1;
  std::ostringstream report;
  ASSERT_NO_THROW(report_seq2seq_checkpoints(files, request, report, std::cerr));
  const std::string out = report.str();

  // bleu.csv: a header and one row per checkpoint, in epoch order, matching the numbers the
  // trainer recorded in each checkpoint for the same split and greedy decoding.
  const std::string csv = util::read_file(request.output_dir + "/bleu.csv");
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line.rfind("checkpoint,epochs_done,step,bleu,", 0), 0u) << line;
  std::vector<double> bleu;
  for (const auto& file : files) {
    ASSERT_TRUE(std::getline(lines, line));
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 17u) << line;
    EXPECT_EQ(f[0], file);
    const auto info = checkpoint::load_seq2seq_checkpoint(file).info;
    EXPECT_NEAR(std::stod(f[1]), static_cast<double>(info.state.completed_epochs), 1e-9);  // whole epochs
    EXPECT_EQ(std::stoll(f[2]), info.state.global_step);
    EXPECT_NEAR(std::stod(f[3]), info.val_bleu, 1e-12) << file;
    bleu.push_back(std::stod(f[3]));
    EXPECT_NEAR(std::stod(f[12]), info.val_loss, 1e-5) << file;
    EXPECT_EQ(f[14], "0");
    for (const int column : {15, 16}) {  // sacreBLEU's BLEU and chrF2, 0-100
      EXPECT_GE(std::stod(f[column]), 0.0) << line;
      EXPECT_LE(std::stod(f[column]), 100.0) << line;
    }
  }
  EXPECT_GT(bleu.back(), bleu.front());  // it learns
  EXPECT_TRUE(fs::exists(request.output_dir + "/bleu_vs_epoch.png"));

  // The table names every checkpoint and the best; three samples in DLStudio's format.
  for (const auto& file : files) EXPECT_NE(out.find(fs::path(file).filename().string()), std::string::npos);
  EXPECT_NE(out.find("Best checkpoint: "), std::string::npos) << out;
  // Each score says its scale: NLTK's 0-1 BLEU is not sacreBLEU's 0-100 one.
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(\n\| checkpoint .*NLTK BLEU 0-1 .*sacreBLEU 0-100 .*chrF2 0-100 )")))
      << out;
  EXPECT_TRUE(std::regex_search(
      out,
      std::regex(
          R"(Best checkpoint: .* \(NLTK BLEU [01]\.[0-9]{4} of 1; Transformer(FG|PreLN)\)\n  sacreBLEU: BLEU = )")))
      << out;
  EXPECT_NE(out.find("NLTK BLEU: NLTK's corpus BLEU, 0-1"), std::string::npos) << out;
  EXPECT_NE(out.find("BLEU = "), std::string::npos) << out;  // sacreBLEU's line of the best
  EXPECT_NE(out.find(" sacreBLEU "), std::string::npos) << out;
  EXPECT_NE(out.find(" chrF2 "), std::string::npos) << out;
  EXPECT_NE(out.find("sacreBLEU nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|version:dls-cpp"), std::string::npos) << out;
  const std::regex sample(R"(The translation produced by TransformerPreLN: +SOS( .*)? EOS +\[(CORRECT|WRONG)\])");
  std::ptrdiff_t samples = std::distance(std::sregex_iterator(out.begin(), out.end(), sample), std::sregex_iterator());
  EXPECT_EQ(samples, 3) << out;
  const std::regex input_line("The input sentence pair: ");
  EXPECT_EQ(std::distance(std::sregex_iterator(out.begin(), out.end(), input_line), std::sregex_iterator()), 3);
}

// What the table's footnote says: word-for-word translations of sentences under 4 words keep
// NLTK's BLEU below 1 (it counts their missing 3- and 4-grams as misses) while sacreBLEU
// gives 100 -- the 0.8965 beside 100.0 of a memorised sample corpus.
// A run directory's report reads each checkpoint once, and leaves out another run's (copied
// in) as it reads it, saying so.
TEST(CheckpointEval, EachCheckpointIsReadOnceAndAnotherRunsIsLeftOut) {
  const auto run = test::fresh_temp_dir("checkpoint_eval_read_once");
  fs::create_directories(run / "checkpoints");
  fs::copy_file(test::trained_seq2seq_run() / "RUN_ID", run / "RUN_ID");
  for (const auto& file : checkpoint::find_checkpoints(test::trained_seq2seq_run().string()))
    fs::copy_file(file, run / "checkpoints" / fs::path(file).filename());
  const auto foreign = run / "checkpoints" / checkpoint::checkpoint_file_name(99);
  fs::copy_file(checkpoint::find_checkpoints(test::reversed_seq2seq_run().string()).back(), foreign);
  const auto files = checkpoint::find_checkpoints(run.string());
  ASSERT_EQ(files.size(), 4u);
  Seq2SeqEvalRequest request;
  request.limit = 10;
  request.threads = 1;
  request.run = checkpoint::RunMembership(run.string());
  std::ostringstream out, messages;
  const auto opened_before = checkpoint::CheckpointReader::files_opened();
  const auto report = report_seq2seq_checkpoints(files, request, out, messages);
  EXPECT_EQ(checkpoint::CheckpointReader::files_opened() - opened_before, files.size()) << "one read per file";
  ASSERT_EQ(report.checkpoints.size(), 3u);
  EXPECT_EQ(report.checkpoints.back().path, files[2]);
  EXPECT_TRUE(report.skipped.empty()) << "another run's is not unreadable";
  EXPECT_NE(messages.str().find("skipped: " + foreign.string() + ": a checkpoint of run "), std::string::npos)
      << messages.str();
}

TEST(CheckpointEval, PerfectShortSentencesScoreBelowOneInNltkBleuAndHundredInSacreBleu) {
  const std::vector<std::string> lines = {"tengo hambre", "yo como pan", "quiero ir a casa", "ella bebe agua fria hoy"};
  std::vector<std::vector<Tokens>> references;
  std::vector<Tokens> hypotheses;
  std::vector<std::vector<std::string>> reference_lines;
  for (const auto& line : lines) {
    std::istringstream words(line);
    Tokens tokens;
    for (std::string w; words >> w;) tokens.push_back(w);
    references.push_back({tokens});
    hypotheses.push_back(tokens);
    reference_lines.push_back({line});
  }
  const double nltk = corpus_bleu(references, hypotheses).bleu;
  EXPECT_LT(nltk, 0.95);
  EXPECT_GT(nltk, 0.5);
  EXPECT_DOUBLE_EQ(sacrebleu_corpus(lines, reference_lines).score, 100.0);
}

TEST(CheckpointEval, DivergenceIsACollapseAfterARealScore) {
  std::vector<CheckpointBleu> r(6);
  const double bleu[] = {0.002, 0.10, 0.25, 0.04, 0.30, 0.0};
  for (std::size_t i = 0; i < r.size(); ++i) {
    r[i].bleu = bleu[i];
    r[i].val_loss = 1.0;
  }
  mark_diverged(r);
  EXPECT_FALSE(r[0].diverged);  // nothing before it
  EXPECT_FALSE(r[1].diverged);
  EXPECT_FALSE(r[2].diverged);
  EXPECT_TRUE(r[3].diverged);   // 0.04 < 0.25 / 5
  EXPECT_FALSE(r[4].diverged);  // recovered
  EXPECT_TRUE(r[5].diverged);
  EXPECT_EQ(best_checkpoint(r), 4u);

  // Scores that never got going are not a divergence; a NaN loss always is.
  std::vector<CheckpointBleu> low(3);
  low[0].bleu = 0.008;
  low[1].bleu = 0.0;
  low[2].val_loss = NAN;
  mark_diverged(low);
  EXPECT_FALSE(low[1].diverged);
  EXPECT_TRUE(low[2].diverged);
  EXPECT_EQ(best_checkpoint(low), 0u);

  // No loss to measure (a test set of sentences all longer than the model's): not a divergence.
  std::vector<CheckpointBleu> unmeasured(2);
  unmeasured[0].bleu = 0.2, unmeasured[1].bleu = 0.3;
  for (auto& r : unmeasured) r.val_loss = NAN, r.loss_measured = false;
  mark_diverged(unmeasured);
  EXPECT_FALSE(unmeasured[0].diverged);
  EXPECT_FALSE(unmeasured[1].diverged);
  EXPECT_EQ(best_checkpoint(unmeasured), 1u);
}

// bleu_vs_epoch.png: NLTK's BLEU drawn x 100, on one 0-100 scale with sacreBLEU.
TEST(CheckpointEval, BleuPlotUsesSacreBleusScale) {
  std::vector<CheckpointBleu> r(2);
  r[0].epochs_done = 1, r[0].bleu = 0.25, r[0].sacrebleu = 26.5;
  r[1].epochs_done = 2, r[1].bleu = 0.40, r[1].sacrebleu = 41.0;
  const auto plot = checkpoint_bleu_plot(r, "greedy decoding");
  EXPECT_EQ(plot.y_label(), "BLEU (0-100)");
  ASSERT_EQ(plot.series().size(), 2u);
  EXPECT_EQ(plot.series()[0].name, "corpus BLEU (NLTK) x 100");
  EXPECT_EQ(plot.series()[0].x, (std::vector<double>{1, 2}));
  EXPECT_DOUBLE_EQ(plot.series()[0].y[0], 25.0);
  EXPECT_DOUBLE_EQ(plot.series()[0].y[1], 40.0);
  EXPECT_EQ(plot.series()[1].name, "sacreBLEU");
  EXPECT_EQ(plot.series()[1].y, (std::vector<double>{26.5, 41.0}));

  // Without sacreBLEU scores (NaN) there is no empty sacreBLEU legend entry.
  r[0].sacrebleu = r[1].sacrebleu = NAN;
  EXPECT_EQ(checkpoint_bleu_plot(r, "greedy decoding").series().size(), 1u);
}

}  // namespace
}  // namespace dls::report
