// checkpoint_eval on seq2seq runs, end to end: translating a user's sentences (unknown words
// included), attention maps, beam and DLStudio decoding, JSON, scoring files, skipped corrupt
// checkpoints, test files, and one-line errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/train/tasks/seq2seq_trainer.h"
#include "dls/util/file_io.h"
#include "support/program_run.h"
#include "support/seq2seq_runs.h"
#include "util/temp_files.h"

namespace dls::apps {
namespace {

namespace fs = std::filesystem;

using test::trained_seq2seq_run;

test::ProgramRun run_checkpoint_eval(const std::string& args, const std::string& name, const std::string& input = "") {
  return test::run_program("apps/checkpoint_eval", "--threads 1 " + args, "checkpoint_eval_app_" + name, input);
}

TEST(CheckpointEvalApp, TranslatesSentencesAndReportsUnknownWords) {
  const auto run = run_checkpoint_eval(
      trained_seq2seq_run().string() + " --translate \"I'm here.\" --translate \"the zyxwv is here\"", "translate");
  ASSERT_EQ(run.status, 0) << run.err;
  std::istringstream lines(run.out);
  std::string first, second, third;
  EXPECT_TRUE(std::getline(lines, first));
  EXPECT_TRUE(std::getline(lines, second));
  EXPECT_FALSE(std::getline(lines, third)) << run.out;  // one line per sentence
  EXPECT_NE(run.err.find("unknown words (translated as <unk>): zyxwv"), std::string::npos) << run.err;
  // A sentence that cannot be translated keeps its (empty) line: outputs line up with the sentences.
  const auto gap = run_checkpoint_eval(trained_seq2seq_run().string() +
                                           " --translate \"I'm here.\" --translate \"bad \xff byte\" --translate "
                                           "\"the zyxwv is here\"",
                                       "translate_gap");
  EXPECT_NE(gap.status, 0) << "a sentence failed";
  EXPECT_EQ(test::lines_of(gap.out), (std::vector<std::string>{first, "", second})) << gap.out;
  EXPECT_NE(gap.err.find("the sentence is not valid UTF-8"), std::string::npos) << gap.err;
  // A line without words ("...", "* * *": a document's separators) is copied as it is, not an error.
  const auto marks =
      run_checkpoint_eval(trained_seq2seq_run().string() +
                              " --translate \"I'm here.\" --translate \"* * *\" --translate \"the zyxwv is here\"",
                          "translate_marks");
  EXPECT_EQ(marks.status, 0) << marks.err;
  EXPECT_EQ(test::lines_of(marks.out), (std::vector<std::string>{first, "* * *", second})) << marks.out;
  EXPECT_NE(marks.err.find("note: \"* * *\": no words to translate, copied as it is"), std::string::npos) << marks.err;

  // The same sentences typed into the interactive mode give the same translations; a
  // sentence longer than the model was trained on is translated too, with a note; a blank line
  // gets an empty one (it was skipped: a file piped in lost its line-by-line order).
  const auto interactive = run_checkpoint_eval(trained_seq2seq_run().string() + " --interactive", "interactive",
                                               "I'm here.\n\none two three four five six seven eight nine\n"
                                               "the zyxwv is here\n");
  EXPECT_EQ(interactive.status, 0) << interactive.err;
  const auto typed = test::lines_of(interactive.out);
  ASSERT_EQ(typed.size(), 4u) << interactive.out;
  EXPECT_EQ(typed[0], first);
  EXPECT_EQ(typed[1], "");
  EXPECT_FALSE(typed[2].empty());
  EXPECT_EQ(typed[3], second);
  EXPECT_NE(interactive.err.find("note: 9 words, more than the 8 this model was trained on: translated whole"),
            std::string::npos)
      << interactive.err;
}

TEST(CheckpointEvalApp, AveragesTheNewestCheckpointsAndEvaluatesTheAverage) {
  const auto dir = test::fresh_temp_dir("checkpoint_eval_average");
  const auto output = dir / "avg.pt";
  const auto run = run_checkpoint_eval(
      trained_seq2seq_run().string() + " --average 2 --limit 20 --output " + output.string(), "average");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_TRUE(fs::exists(output));
  EXPECT_NE(run.out.find("avg.pt"), std::string::npos) << "the average is what was evaluated: " << run.out;
  test::expect_one_line_error(run_checkpoint_eval(trained_seq2seq_run().string() + " --average 4", "average_4"),
                              "--average 4 needs");
  test::expect_one_line_error(run_checkpoint_eval(trained_seq2seq_run().string() + " --output x.pt", "output_alone"),
                              "--output");
  // The run's best.pt (the trainer's default --best-metric bleu) evaluates like any checkpoint.
  const auto best = run_checkpoint_eval((trained_seq2seq_run() / "best.pt").string() + " --limit 20", "best");
  EXPECT_EQ(best.status, 0) << best.err;
}

// --weights trained scores an --ema-decay run's trained weights: the moving average does not
// change training, so they are the weights of the same run without EMA, and score the same.
TEST(CheckpointEvalApp, WeightsTrainedScoresTheWeightsAnEmaRunTrained) {
  const auto train_tiny = [](const std::string& name, double ema_decay) {
    const auto dir = test::fresh_temp_dir(name);
    auto setup = test::tiny_seq2seq_setup(dir);
    setup.epochs = 1;
    setup.samples = 0;
    setup.selection.ema_decay = ema_decay;
    train::train_seq2seq(setup);
    return dir.string();
  };
  const auto plain = train_tiny("checkpoint_eval_no_ema", 0.0);
  const auto ema = train_tiny("checkpoint_eval_ema", 0.9);
  const auto val_loss = [](const std::string& run, const std::string& flags, const std::string& name) {
    const auto scored = run_checkpoint_eval(run + " --limit 30 --json" + flags, name);
    EXPECT_EQ(scored.status, 0) << scored.err;
    return nlohmann::json::parse(scored.out)["checkpoints"].back()["val_loss"].get<double>();
  };
  const double plain_loss = val_loss(plain, "", "weights_plain");
  EXPECT_EQ(val_loss(ema, " --weights trained", "weights_trained"), plain_loss);
  EXPECT_NE(val_loss(ema, "", "weights_ema"), plain_loss);  // the average is what is scored by default
  EXPECT_EQ(val_loss(plain, " --weights trained", "weights_plain_trained"), plain_loss);  // no average: the same
  test::expect_one_line_error(run_checkpoint_eval(plain + " --weights mean", "weights_bad"), "--weights",
                              test::kAnyFailure);
}

TEST(CheckpointEvalApp, WritesAttentionMapsOfEveryLayerAndHead) {
  const auto dir = test::fresh_temp_dir("checkpoint_eval_attention");
  const auto run = run_checkpoint_eval(
      trained_seq2seq_run().string() + " --translate \"i am hungry\" --attention-maps " + dir.string(), "attention");
  ASSERT_EQ(run.status, 0) << run.err;
  // One encoder and one decoder layer with two heads: 2 + 2 + 2 maps.
  for (const char* kind : {"encoder_self", "decoder_self", "cross"}) {
    for (int head = 1; head <= 2; ++head) {
      const auto png = dir / (std::string(kind) + "_layer1_head" + std::to_string(head) + ".png");
      EXPECT_TRUE(fs::exists(png)) << png;
      EXPECT_EQ(util::read_file(png.string()).substr(1, 3), "PNG");
    }
  }
  // As the server's /attention: drawn for up to 4 x L - 2 tokens (the maps grow with the
  // square; 900 words took minutes and gigabytes), refused before anything is written.
  std::string long_sentence;
  for (int i = 0; i < 12; ++i) long_sentence += "the dog runs. ";
  const auto too_long = dir / "too_long";
  test::expect_one_line_error(
      run_checkpoint_eval(trained_seq2seq_run().string() + " --translate \"" + long_sentence + "\" --attention-maps " +
                              too_long.string(),
                          "attention_too_long"),
      "--attention-maps: the first sentence has 36 tokens; attention maps are drawn for up to 32");
  EXPECT_FALSE(fs::exists(too_long));
}

TEST(CheckpointEvalApp, BeamAndDLStudioDecodingAndJson) {
  const auto out_dir = test::fresh_temp_dir("checkpoint_eval_json");
  const auto beam = run_checkpoint_eval(
      trained_seq2seq_run().string() + " --beam 3 --limit 20 --json --output-dir " + out_dir.string(), "beam");
  ASSERT_EQ(beam.status, 0) << beam.err;
  EXPECT_EQ(beam.out.front(), '{');
  EXPECT_NE(beam.out.find("\"decode\":\"beam\""), std::string::npos) << beam.out;
  EXPECT_NE(beam.out.find("\"sentences\":20"), std::string::npos) << beam.out;
  EXPECT_NE(beam.out.find("\"best\":"), std::string::npos);
  // Every checkpoint has sacreBLEU's BLEU and chrF2 (0-100) on lowercased text, with signatures.
  const std::regex scores(
      R"("sacrebleu":\{"score":([0-9.e+-]+),"signature":"nrefs:1\|case:lc\|eff:no\|tok:13a\|smooth:exp\|version:dls-cpp","line":"BLEU = [^"]*"\},"chrf":\{"score":([0-9.e+-]+),"signature":"nrefs:1\|case:lc\|eff:yes\|nc:6\|nw:0\|space:no\|version:dls-cpp"\})");
  std::ptrdiff_t checkpoints = 0;
  for (auto it = std::sregex_iterator(beam.out.begin(), beam.out.end(), scores); it != std::sregex_iterator(); ++it) {
    ++checkpoints;
    for (const int group : {1, 2}) {
      EXPECT_GE(std::stod((*it)[group].str()), 0.0) << beam.out;
      EXPECT_LE(std::stod((*it)[group].str()), 100.0) << beam.out;
    }
  }
  EXPECT_EQ(checkpoints,
            static_cast<std::ptrdiff_t>(checkpoint::find_checkpoints(trained_seq2seq_run().string()).size()))
      << beam.out;
  const auto oneshot = run_checkpoint_eval(
      trained_seq2seq_run().string() + " --dlstudio-decode --limit 20 --output-dir " + out_dir.string(), "oneshot");
  ASSERT_EQ(oneshot.status, 0) << oneshot.err;
  EXPECT_NE(oneshot.out.find("dlstudio decoding"), std::string::npos) << oneshot.out;
}

TEST(CheckpointEvalApp, ScoresTextFiles) {
  const auto dir = test::fresh_temp_dir("checkpoint_eval_score");
  test::write_bytes(dir / "hyp.txt", "he read the book because he was interested in world history\n");
  test::write_bytes(dir / "ref.txt", "he was interested in world history because he read the book\n");
  const auto run = run_checkpoint_eval(
      "--score " + (dir / "hyp.txt").string() + " --ref " + (dir / "ref.txt").string() + " --json", "score");
  ASSERT_EQ(run.status, 0) << run.err;
  // NLTK: corpus_bleu([[ref]], [hyp]) = 0.7400828044922853 for this pair.
  const std::regex bleu(R"("bleu":([0-9.]+))");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run.out, m, bleu)) << run.out;
  EXPECT_NEAR(std::stod(m[1].str()), 0.7400828044922853, 1e-12);
  EXPECT_NE(run.out.find("\"hyp_len\":11"), std::string::npos) << run.out;
  // sacreBLEU's BLEU: the same n-gram matches (no punctuation for 13a to split, every order
  // matched, BP 1), so 100 times NLTK's; chrF2 between 0 and 100.
  const std::regex sacrebleu(
      R"("sacrebleu":\{"score":([0-9.]+),"signature":"nrefs:1\|case:mixed\|eff:no\|tok:13a\|smooth:exp\|version:dls-cpp")");
  ASSERT_TRUE(std::regex_search(run.out, m, sacrebleu)) << run.out;
  EXPECT_NEAR(std::stod(m[1].str()), 74.00828044922853, 1e-9);
  const std::regex chrf(
      R"("chrf":\{"score":([0-9.]+),"signature":"nrefs:1\|case:mixed\|eff:yes\|nc:6\|nw:0\|space:no\|version:dls-cpp")");
  ASSERT_TRUE(std::regex_search(run.out, m, chrf)) << run.out;
  EXPECT_GT(std::stod(m[1].str()), 50.0);
  EXPECT_LT(std::stod(m[1].str()), 100.0);
  // The text report prints both in sacreBLEU's layout.
  const auto text = run_checkpoint_eval(
      "--score " + (dir / "hyp.txt").string() + " --ref " + (dir / "ref.txt").string(), "score_text");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:dls-cpp = 74.0 "),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("chrF2|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:dls-cpp = "), std::string::npos)
      << text.out;
  // An empty reference line is scored (as NLTK does) with a warning naming it: sacreBLEU refuses
  // it, and it usually means files that do not line up (it was scored silently).
  test::write_bytes(dir / "hyp2.txt", "he read the book\nshe is here\n");
  test::write_bytes(dir / "ref2.txt", "he read the book\n\n");
  const auto gap = run_checkpoint_eval(
      "--score " + (dir / "hyp2.txt").string() + " --ref " + (dir / "ref2.txt").string(), "score_gap");
  ASSERT_EQ(gap.status, 0) << gap.err;
  EXPECT_NE(gap.err.find((dir / "ref2.txt").string() + ":2: an empty reference line (1 in all)"), std::string::npos)
      << gap.err;
}

TEST(CheckpointEvalApp, BadInputIsAOneLineError) {
  const auto dir = test::fresh_temp_dir("checkpoint_eval_bad");
  test::expect_one_line_error(run_checkpoint_eval((dir / "nowhere").string(), "nowhere"), "nowhere");
  test::write_bytes(dir / "broken.pt", "not a checkpoint");
  test::expect_one_line_error(run_checkpoint_eval((dir / "broken.pt").string(), "broken"), "broken.pt");
  // A truncated copy of a real checkpoint.
  const auto real = checkpoint::find_checkpoints(trained_seq2seq_run().string()).back();
  const std::string bytes = util::read_file(real);
  test::write_bytes(dir / "truncated.pt", bytes.substr(0, bytes.size() / 2));
  test::expect_one_line_error(run_checkpoint_eval((dir / "truncated.pt").string(), "truncated"), "truncated.pt");
  // A directory without checkpoints.
  fs::create_directories(dir / "empty_run" / "checkpoints");
  test::expect_one_line_error(run_checkpoint_eval((dir / "empty_run").string(), "empty_run"), "no checkpoint files");
  // The training corpus is gone and no other was given.
  fs::create_directories(dir / "moved" / "checkpoints");
  const auto moved = run_checkpoint_eval(real + " --data " + (dir / "missing.tsv").string(), "moved");
  test::expect_one_line_error(moved, "missing.tsv");
  test::expect_one_line_error(run_checkpoint_eval(real + " --attention-maps " + dir.string(), "maps"), "--translate");
  // --classify is for image classifiers.
  test::expect_one_line_error(run_checkpoint_eval(real + " --classify photo.jpg", "classify"),
                              "--classify: " + real + " is not a ViT checkpoint");
}

TEST(CheckpointEvalApp, ACorruptCheckpointAmongGoodOnesIsSkipped) {
  const auto dir = test::fresh_temp_dir("checkpoint_eval_corrupt") / "checkpoints";
  fs::create_directories(dir);
  const auto files = checkpoint::find_checkpoints(trained_seq2seq_run().string());
  fs::copy_file(files[0], dir / fs::path(files[0]).filename());
  fs::copy_file(files[2], dir / fs::path(files[2]).filename());
  const std::string bytes = util::read_file(files[1]);
  test::write_bytes(dir / fs::path(files[1]).filename(), bytes.substr(0, bytes.size() - 100));
  const auto run = run_checkpoint_eval(dir.parent_path().string() + " --limit 30", "corrupt");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.err.find("skipped: " + (dir / fs::path(files[1]).filename()).string()), std::string::npos) << run.err;
  EXPECT_NE(run.out.find("skipped (unreadable): "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(fs::path(files[0]).filename().string()), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(fs::path(files[2]).filename().string()), std::string::npos) << run.out;
}

// A checkpoint copied in from another run (its run id is not the folder's RUN_ID) is left
// out of the run's report, and said so; named as a file, it is read as named.
TEST(CheckpointEvalApp, ACheckpointOfAnotherRunIsLeftOutOfTheReportAndTheTranslation) {
  const auto run = test::fresh_temp_dir("checkpoint_eval_foreign");
  fs::create_directories(run / "checkpoints");
  const auto own = checkpoint::find_checkpoints(trained_seq2seq_run().string());
  fs::copy_file(trained_seq2seq_run() / "RUN_ID", run / "RUN_ID");
  fs::copy_file(own.back(), run / "checkpoints" / fs::path(own.back()).filename());
  const auto foreign = run / "checkpoints" / "checkpoint_epoch_0099.pt";
  fs::copy_file(checkpoint::find_checkpoints(test::reversed_seq2seq_run().string()).back(), foreign);
  const auto report = run_checkpoint_eval(run.string() + " --limit 20", "foreign");
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.err.find("skipped: " + foreign.string() + ": a checkpoint of run "), std::string::npos)
      << report.err;
  EXPECT_EQ(report.out.find("checkpoint_epoch_0099"), std::string::npos) << report.out;
  EXPECT_NE(report.out.find(fs::path(own.back()).filename().string()), std::string::npos) << report.out;
  const auto named = run_checkpoint_eval(foreign.string() + " --limit 20", "foreign_named");
  ASSERT_EQ(named.status, 0) << named.err;
  EXPECT_NE(named.out.find("checkpoint_epoch_0099"), std::string::npos) << named.out;
  // Translating with the run takes its own newest too (it took the copy, the newest file).
  const auto translated = run_checkpoint_eval(run.string() + " --json --translate \"I am here.\"", "foreign_translate");
  ASSERT_EQ(translated.status, 0) << translated.err;
  EXPECT_NE(translated.out.find("\"checkpoint\":\"" + (run / "checkpoints" / fs::path(own.back()).filename()).string()),
            std::string::npos)
      << translated.out;
  EXPECT_NE(translated.err.find("skipped: " + foreign.string()), std::string::npos) << translated.err;
}

TEST(CheckpointEvalApp, TestFileWithMalformedLinesIsScoredAndTheDropsReported) {
  const auto dir = test::fresh_temp_dir("checkpoint_eval_testfile");
  test::write_bytes(dir / "test.tsv",
                    "I am here.\tEstoy aquí.\n"
                    "no tab on this line\n"
                    "She is tall.\tElla es alta.\tCC-BY 2.0 (France) Attribution: tatoeba.org\n"
                    "bad\xff bytes\tmalos\n");
  const auto run =
      run_checkpoint_eval(trained_seq2seq_run().string() + " --test " + (dir / "test.tsv").string(), "testfile");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("(2 pairs)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("1 malformed"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("1 invalid UTF-8"), std::string::npos) << run.out;
  // The sides the other way round: scored, and the model's unknown words said (a BLEU of 0
  // came without a word).
  test::write_bytes(dir / "swapped.tsv", "Estoy aquí.\tI am here.\nElla es alta.\tShe is tall.\n");
  const auto swapped =
      run_checkpoint_eval(trained_seq2seq_run().string() + " --test " + (dir / "swapped.tsv").string(), "swapped");
  ASSERT_EQ(swapped.status, 0) << swapped.err;
  EXPECT_NE(swapped.err.find((dir / "swapped.tsv").string() + ": "), std::string::npos) << swapped.err;
  EXPECT_NE(swapped.err.find("% of its English words are not in the model's vocabulary: the sides the other way round"),
            std::string::npos)
      << swapped.err;
  EXPECT_EQ(run.err.find("not in the model's vocabulary"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace dls::apps
