// lm_train end to end on the sample corpus, then checkpoint_eval on its run: the perplexity
// table, --json, --generate; bad flags refused with one line.
#include <gtest/gtest.h>

#include <algorithm>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "dls/util/file_io.h"
#include "support/program_run.h"
#include "util/sentencepiece_available.h"

namespace dls {
namespace {

namespace fs = std::filesystem;

test::ProgramRun run_lm_train(const std::string& args, const std::string& name) {
  return test::run_program("apps/lm_train", "--threads 1 " + args, "lm_train_app_" + name);
}

// The same at --log-level info (the test environment sets DLS_LOG_LEVEL=warn).
test::ProgramRun run_lm_train_logged(const std::string& args, const std::string& name) {
  return test::run_program("apps/lm_train", "--threads 1 " + args, "lm_train_app_" + name, "", "DLS_LOG_LEVEL=info ");
}

test::ProgramRun run_lm_eval(const std::string& args, const std::string& name) {
  return test::run_program("apps/checkpoint_eval", "--threads 1 " + args, "lm_eval_app_" + name);
}

// The flags of the tiny preset on the sample corpus (100 validation sentences), training into
// `run_dir`.
std::string tiny_run_flags(const fs::path& run_dir) {
  return "--preset tiny --data " + testing::sample_corpus() + " --run-dir " + run_dir.string() +
         " --validation-sentences 100";
}

TEST(LmTrainApp, TrainsThenEvaluatesAndGenerates) {
  const auto run_dir = test::fresh_temp_dir("lm_train_app_run");
  const auto run =
      run_lm_train("--json " + tiny_run_flags(run_dir) + " --epochs 2 --log-every 20 --log-level warn", "run");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(test::count_lines(run.out), 1u) << run.out;
  for (const char* key : {"\"val_perplexity\":", "\"initial_val_perplexity\":", "\"val_loss\":", "\"epochs\":2",
                          "\"checkpoints\":[", "\"vocab_size\":"}) {
    EXPECT_NE(run.out.find(key), std::string::npos) << key << "\n" << run.out;
  }
  EXPECT_TRUE(fs::exists(run_dir / "checkpoints" / "checkpoint_epoch_0002.pt"));
  EXPECT_TRUE(fs::exists(run_dir / "best.pt"));
  EXPECT_TRUE(fs::exists(run_dir / "config.toml"));
  const auto metrics = util::read_file((run_dir / "metrics.csv").string());
  EXPECT_EQ(
      metrics.rfind("kind,epoch,step,loss,lr,sentences_per_s,val_loss,val_perplexity,wall_s,val_word_perplexity\n", 0),
      0u)
      << metrics;

  const auto table = run_lm_eval((run_dir / "checkpoints").string(), "table");
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("perplexity"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("checkpoint_epoch_0001.pt"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("checkpoint_epoch_0002.pt"), std::string::npos) << table.out;
  const auto logged = test::run_program("apps/checkpoint_eval", "report " + run_dir.string() + " --threads 1",
                                        "lm_eval_app_logged", "", "DLS_LOG_LEVEL=info ");
  ASSERT_EQ(logged.status, 0) << logged.err;
  test::expect_progress_per_checkpoint(logged, {"checkpoint_epoch_0001.pt", "checkpoint_epoch_0002.pt"}, "NLL ");

  const auto json = run_lm_eval(run_dir.string() + "/checkpoints --json", "json");
  ASSERT_EQ(json.status, 0) << json.err;
  const auto scored = nlohmann::json::parse(json.out);
  EXPECT_EQ(scored["tokenizer"], "word");
  for (const auto& checkpoint : scored["checkpoints"]) {
    // Word level: every predicted token is a word or an EOS, so both perplexities are one.
    EXPECT_EQ(checkpoint["tokens"], checkpoint["words"]);
    EXPECT_DOUBLE_EQ(checkpoint["val_perplexity"].get<double>(), checkpoint["val_word_perplexity"].get<double>());
  }
  EXPECT_GE(scored["unknown_rate"].get<double>(), 0.0);
  EXPECT_LT(scored["unknown_rate"].get<double>(), 0.5) << json.out;
  // A text of words the model never saw: the <unk> share beside its perplexity, and a warning.
  const auto strange = run_dir.parent_path() / "lm_train_app_strange.txt";
  std::ofstream(strange.string()) << "zzq zzr zzs\nqqa qqb\n";
  const auto unseen = run_lm_eval(run_dir.string() + " --test " + strange.string(), "unseen");
  ASSERT_EQ(unseen.status, 0) << unseen.err;
  EXPECT_NE(unseen.out.find("; 100.0 % of them <unk>"), std::string::npos) << unseen.out;
  EXPECT_NE(unseen.err.find("warning: 100.0 % of the tokens of " + strange.string() + " are <unk>"), std::string::npos)
      << unseen.err;
  // The best is the lowest validation NLL, named in the JSON and marked in the table.
  const auto& files = scored["checkpoints"];
  const auto lowest = std::min_element(files.begin(), files.end(), [](const auto& a, const auto& b) {
    return a["val_loss"].template get<double>() < b["val_loss"].template get<double>();
  });
  EXPECT_EQ(scored["best"], (*lowest)["file"]) << json.out;
  const auto best_name = fs::path((*lowest)["file"].get<std::string>()).filename().string();
  const auto best_line = table.out.substr(table.out.find(best_name));
  EXPECT_NE(best_line.substr(0, best_line.find('\n')).find("best"), std::string::npos) << table.out;

  // Greedy generation is deterministic; sampling with a seed too.
  const auto greedy = run_lm_eval(run_dir.string() + " --generate \"tengo\" --temperature 0", "greedy");
  ASSERT_EQ(greedy.status, 0) << greedy.err;
  EXPECT_EQ(greedy.out.rfind("tengo -> tengo", 0), 0u) << greedy.out;
  // The subcommand generates the same, and names no other form.
  const auto verb =
      test::run_program("apps/checkpoint_eval", "generate " + run_dir.string() + " tengo --temperature 0 --threads 1",
                        "lm_eval_generate_verb", "", "DLS_LOG_LEVEL=info ");
  ASSERT_EQ(verb.status, 0) << verb.err;
  EXPECT_EQ(verb.out, greedy.out);
  EXPECT_EQ(verb.err.find("note: this job is now"), std::string::npos) << verb.err;
  const std::string sample_args = run_dir.string() + " --generate \"\" --top-k 5 --top-p 0.9 --seed 4 --count 3";
  const auto sampled = run_lm_eval(sample_args, "sampled");
  ASSERT_EQ(sampled.status, 0) << sampled.err;
  EXPECT_EQ(test::count_lines(sampled.out), 3u) << sampled.out;
  EXPECT_EQ(run_lm_eval(sample_args, "sampled_again").out, sampled.out);
  // However hot, a sentence holds words: never <unk>, <pad> or SOS (a hot sampler drew them).
  const auto hot = run_lm_eval(run_dir.string() + " --generate \"\" --temperature 5 --count 100", "hot");
  ASSERT_EQ(hot.status, 0) << hot.err;
  EXPECT_EQ(test::count_lines(hot.out), 100u);
  for (const char* special : {"<unk>", "<pad>", "<sos>", "SOS"})
    EXPECT_EQ(hot.out.find(special), std::string::npos) << hot.out;
  // --tokens is a running-text run's: a sentence model refuses it (it was ignored).
  const auto tokens = run_lm_eval(run_dir.string() + " --generate tengo --tokens 3", "tokens");
  EXPECT_EQ(tokens.status, 1);
  EXPECT_NE(tokens.err.find("error: --tokens: for a running-text run (--block-size)"), std::string::npos) << tokens.err;
  EXPECT_EQ(run_lm_eval(run_dir.string() + " --generate tengo --tokens 300", "tokens_default").status, 1)
      << "at its default value too";
  // Unknown words of a prompt: one warning line however many, with the count and the first
  // few, then the one-line error for a prompt longer than the model's L.
  std::string long_prompt;
  for (int i = 0; i < 2000; ++i) long_prompt += "zzq" + std::to_string(i) + " ";
  const auto unknown = run_lm_eval(run_dir.string() + " --generate \"" + long_prompt + "\" --temperature 0", "unknown");
  EXPECT_EQ(test::count_lines(unknown.err), 2u) << unknown.err.substr(0, 500);
  EXPECT_EQ(unknown.err.rfind("warning: 2000 word(s) of the prompt not in the vocabulary (<unk>): 'zzq0', 'zzq1'", 0),
            0u)
      << unknown.err.substr(0, 500);
  EXPECT_NE(unknown.err.find("\nerror: a prompt of 2001 tokens leaves no room"), std::string::npos) << unknown.err;

  // A translation's flags on a language model's report: refused (they were ignored, exit 0).
  for (const std::string& flag :
       std::vector<std::string>{"--beam 4", "--samples 3", "--attention-maps " + (run_dir / "maps").string()}) {
    test::expect_one_line_error(run_lm_eval(run_dir.string() + " " + flag, "translation_flag"),
                                flag.substr(0, flag.find(' ')) + ": not for a language model");
  }
  EXPECT_FALSE(fs::exists(run_dir / "maps"));

  // Resume: one more epoch in the same run directory.
  const auto resumed = run_lm_train("--resume " + run_dir.string() + " --epochs 3 --log-level warn", "resume");
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_TRUE(fs::exists(run_dir / "checkpoints" / "checkpoint_epoch_0003.pt"));
  // A fresh run in the same directory is refused.
  const auto again =
      run_lm_train("--preset tiny --data " + testing::sample_corpus() + " --run-dir " + run_dir.string(), "again");
  test::expect_one_line_error(again, "already holds a training run");
}

TEST(LmTrainApp, SentencePieceTrainsEvaluatesGeneratesAndResumes) {
  DLS_SKIP_WITHOUT_SENTENCEPIECE();
  const auto run_dir = test::fresh_temp_dir("lm_train_app_spm_run");
  const auto run = run_lm_train_logged(
      "--json " + tiny_run_flags(run_dir) + " --tokenizer sentencepiece --spm-model bpe --vocab-size 200 --epochs 1",
      "spm_run");
  ASSERT_EQ(run.status, 0) << run.err;
  const auto result = nlohmann::json::parse(run.out);
  EXPECT_GT(result["vocab_size"].get<int>(), 100) << run.out;  // pieces, a soft limit on a small corpus
  EXPECT_LE(result["vocab_size"].get<int>(), 200) << run.out;
  // Pieces are shorter than words: more of them per sentence, a lower perplexity per piece than per word.
  EXPECT_LT(result["val_perplexity"].get<double>(), result["val_word_perplexity"].get<double>()) << run.out;
  EXPECT_NE(run.err.find("per piece"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("validation <unk> rate"), std::string::npos) << run.err;

  const auto table = run_lm_eval(run_dir.string(), "spm_table");
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("perplexity/word"), std::string::npos) << table.out;
  const auto scored = run_lm_eval(run_dir.string() + " --json", "spm_json");
  ASSERT_EQ(scored.status, 0) << scored.err;
  const auto checkpoint = nlohmann::json::parse(scored.out)["checkpoints"].back();
  EXPECT_EQ(nlohmann::json::parse(scored.out)["tokenizer"], "sentencepiece");
  EXPECT_GT(checkpoint["tokens"].get<std::int64_t>(), checkpoint["words"].get<std::int64_t>());
  // The evaluation scores the same split with the same pieces as the training run did.
  EXPECT_NEAR(checkpoint["val_word_perplexity"].get<double>(), result["val_word_perplexity"].get<double>(), 1e-6);

  // Generation reads and writes words: the prompt comes back detokenised, not as pieces.
  const auto greedy = run_lm_eval(run_dir.string() + " --generate \"tengo\" --temperature 0", "spm_greedy");
  ASSERT_EQ(greedy.status, 0) << greedy.err;
  EXPECT_EQ(greedy.out.rfind("tengo -> tengo", 0), 0u) << greedy.out;
  EXPECT_EQ(greedy.out.find("\xe2\x96\x81"), std::string::npos) << greedy.out;  // no "▁" left

  const auto refused = run_lm_train("--resume " + run_dir.string() + " --epochs 2 --vocab-size 100", "spm_refused");
  test::expect_one_line_error(refused, "--vocab-size: fixed by the checkpoint");
  const auto resumed = run_lm_train("--resume " + run_dir.string() + " --epochs 2 --log-level warn", "spm_resume");
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_TRUE(fs::exists(run_dir / "checkpoints" / "checkpoint_epoch_0002.pt"));
}

// A run stopped mid-epoch by --max-iters (here in its second epoch, with --ema-decay) reports
// the perplexity of the weights it ends with -- those its newest checkpoint holds and
// checkpoint_eval evaluates (the moving average) -- not the last epoch's.
TEST(LmTrainApp, ARunStoppedMidEpochReportsItsFinalWeightsPerplexity) {
  const auto run_dir = test::fresh_temp_dir("lm_train_app_short_run");
  const auto run =
      run_lm_train("--json " + tiny_run_flags(run_dir) + " --epochs 3 --max-iters 100 --ema-decay 0.9 --log-level warn",
                   "short_run");
  ASSERT_EQ(run.status, 0) << run.err;
  const auto result = nlohmann::json::parse(run.out);
  EXPECT_EQ(result["stopped_by"], "max-iters") << run.out;
  EXPECT_EQ(result["epochs"], 1) << run.out;  // 73 steps an epoch: stopped inside the second
  const auto newest = result["checkpoints"].back().get<std::string>();
  const auto json = run_lm_eval(newest + " --json", "short_run_eval");
  ASSERT_EQ(json.status, 0) << json.err;
  const auto evaluated = nlohmann::json::parse(json.out)["checkpoints"].back();
  const double expected = evaluated["val_perplexity"].get<double>();
  EXPECT_NEAR(result["val_perplexity"].get<double>(), expected, 1e-6 * expected) << run.out << "\n" << json.out;
  EXPECT_NEAR(result["val_word_perplexity"].get<double>(), evaluated["val_word_perplexity"].get<double>(),
              1e-6 * expected);
  EXPECT_GT(result["initial_val_perplexity"].get<double>(), 1.0) << run.out;
}

// A character-level sentence model's text is characters joined, the prompt's unfinished word
// continued (it printed "y o   q u e": a space between tokens, as words have).
TEST(LmTrainApp, ACharacterModelGeneratesTextNotSpacedCharacters) {
  const auto run_dir = test::fresh_temp_dir("lm_train_app_char_sentences");
  const auto run = run_lm_train(tiny_run_flags(run_dir) + " --tokenizer char --max-iters 2 --log-level warn", "chars");
  ASSERT_EQ(run.status, 0) << run.err;
  const auto generated =
      run_lm_eval(run_dir.string() + " --generate \"yo qu\" --temperature 0 --json", "chars_generate");
  ASSERT_EQ(generated.status, 0) << generated.err;
  const auto answer = nlohmann::json::parse(generated.out)["generated"][0];
  const auto text = answer["text"].get<std::string>();
  const auto drawn = answer["generated_tokens"].get<std::size_t>();
  EXPECT_EQ(text.rfind("yo qu", 0), 0u) << text;
  ASSERT_GT(drawn, 0u) << text;
  // At most the prompt's 5 characters and one per token drawn (spaces between words may merge);
  // spaced out, it was 5 + 2 x drawn.
  std::size_t characters = 0;
  for (const char c : text) characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  EXPECT_LE(characters, 5 + drawn) << text;
}

TEST(LmTrainApp, BadFlagsAreOneLineErrors) {
  const auto run_dir = test::fresh_temp_dir("lm_train_app_bad_run").string();
  const std::string data = " --data " + testing::sample_corpus() + " --run-dir " + run_dir;
  test::expect_one_line_error(run_lm_train("--side fr" + data, "side"), "--side", test::kAnyFailure);
  test::expect_one_line_error(run_lm_train("--preset huge" + data, "preset"), "--preset", test::kAnyFailure);
  test::expect_one_line_error(run_lm_train("--variant middle" + data, "variant"), "--variant", test::kAnyFailure);
  test::expect_one_line_error(run_lm_train("--heads 3 --embedding-size 32" + data, "heads"), "divisible",
                              test::kAnyFailure);
  test::expect_one_line_error(run_lm_train("--data /nonexistent/sentences.txt --run-dir " + run_dir, "missing"),
                              "/nonexistent/sentences.txt");
  test::expect_one_line_error(run_lm_train("--vocab-size 500" + data, "vocab_size"),
                              "--vocab-size: needs --tokenizer sentencepiece");
  test::expect_one_line_error(run_lm_train("--spm-model bpe" + data, "spm_model"),
                              "--spm-model: needs --tokenizer sentencepiece");
  test::expect_one_line_error(run_lm_eval("runs/x --top-p 0", "top_p"), "--top-p", test::kAnyFailure);
  test::expect_one_line_error(run_lm_eval("runs/x --temperature -1 --generate a", "temperature"), "--temperature",
                              test::kAnyFailure);
  test::expect_one_line_error(run_lm_eval("runs/x --top-k 3", "needs"), "--generate", test::kAnyFailure);
  test::expect_one_line_error(run_lm_eval("runs/x --generate yo\xff", "utf8"),
                              "--generate: a prompt is not valid UTF-8", test::kAnyFailure);
}

// config.toml lists the run's settings (the preset expanded, the run directory absolute) and
// repeats the run from another folder.
TEST(LmTrainApp, ConfigTomlRepeatsTheRunFromAnotherFolder) {
  const auto dir = test::fresh_temp_dir("lm_train_app_config");
  fs::create_directories(dir / "start");
  fs::create_directories(dir / "elsewhere");
  const auto first = test::run_program("apps/lm_train",
                                       "--threads 1 --preset tiny --data " + testing::sample_corpus() +
                                           " --validation-sentences 100 --epochs 1 --max-iters 4 --log-every 1"
                                           " --run-dir 'a #1'",
                                       "lm_train_app_config_first", "", test::in_folder((dir / "start").string()));
  ASSERT_EQ(first.status, 0) << first.err;
  const auto run_a = dir / "start" / "a #1";
  const auto config = util::read_file((run_a / "config.toml").string());
  for (const std::string key : {"\npreset=\"tiny\"\n", "\nlr=", "\nbatch-size=", "\noptimizer=", "\nschedule=",
                                "\nwarmup-steps=", "\nembedding-size=", "\nmax-iters=4\n"}) {
    EXPECT_NE(config.find(key), std::string::npos) << key << "\n" << config;
  }
  EXPECT_NE(config.find("\nrun-dir=\"" + run_a.string() + "\"\n"), std::string::npos) << config;
  EXPECT_EQ(config.find("\nthreads="), std::string::npos) << config;
  test::expect_config_repeats_run("apps/lm_train", run_a, dir / "elsewhere", "lm_train_app_config_again");
}

// lm_train at M = 65536: refused before allocating, with the numbers, no run directory.
TEST(LmTrainApp, AModelOverTheMemoryIsRefusedWithTheNumbers) {
  const auto run_dir = test::fresh_temp_dir("lm_train_app_memory") / "run";
  const auto started = std::chrono::steady_clock::now();
  const auto refused = run_lm_train("--preset tiny --data " + testing::sample_corpus() + " --validation-sentences 100" +
                                        " --embedding-size 65536 --run-dir " + run_dir.string(),
                                    "memory");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  test::expect_one_line_error(refused, "and its training state (batch ");
  EXPECT_NE(refused.err.find(" need about "), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("iB available ("), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("lower --embedding-size"), std::string::npos) << refused.err;
  EXPECT_LT(seconds, 30) << "refused before allocating";
  EXPECT_FALSE(fs::exists(run_dir)) << "no run directory left behind";
}

// A resume continues the checkpoint's model, data and tokenizer: each of those flags given
// again is refused (one line each) instead of being ignored; --epochs is applied.
TEST(LmTrainApp, ResumeRefusesWhatTheCheckpointFixes) {
  const auto run_dir = test::fresh_temp_dir("lm_train_app_fixed");
  const auto first = run_lm_train(tiny_run_flags(run_dir) + " --epochs 1 --log-level warn", "fixed_first");
  ASSERT_EQ(first.status, 0) << first.err;
  test::expect_fixed_on_resume(
      run_lm_train, "--resume " + run_dir.string() + " --epochs 2",
      {"--preset cpu", "--side en", "--max-words 5", "--split-seed 99", "--validation-sentences 50",
       "--tokenizer sentencepiece", "--spm-model bpe", "--vocab-size 100", "--decoders 5", "--embedding-size 64"});
  EXPECT_FALSE(fs::exists(run_dir / "checkpoints" / "checkpoint_epoch_0002.pt")) << "nothing trained when refused";
  // Another batch size cuts the epochs into other steps: the line names both and the way on.
  test::expect_one_line_error(run_lm_train("--resume " + run_dir.string() + " --epochs 2 --batch-size 7", "batch"),
                              "steps of --batch-size 16, this data and --batch-size 7 give");
  const auto changed = run_lm_train("--resume " + run_dir.string() + " --epochs 2 --log-level warn", "fixed_allowed");
  ASSERT_EQ(changed.status, 0) << changed.err;
  EXPECT_TRUE(fs::exists(run_dir / "checkpoints" / "checkpoint_epoch_0002.pt"));
}

// Running text (--block-size) with characters as tokens: trained in windows, resumed (its
// character vocabulary, "\n" and " " included, read back from the checkpoint), scored per
// checkpoint and per word, continued past its block by --generate.
TEST(LmTrainApp, RunningTextTrainsInWindowsAndGeneratesPastItsBlock) {
  const auto dir = test::fresh_temp_dir("lm_train_app_text");
  std::string text;
  for (int i = 0; i < 240; ++i) {
    text += "Line " + std::to_string(i % 7) + ": the quick brown fox jumps over the lazy dog.\n";
    if (i % 10 == 9) text += "\n";  // paragraphs
  }
  test::write_bytes(dir / "text.txt", text);
  const auto run_dir = dir / "run";
  const std::string start = "--preset tiny --data " + (dir / "text.txt").string() + " --run-dir " + run_dir.string() +
                            " --tokenizer char --block-size 32 --log-level warn";
  const auto run = run_lm_train(start + " --epochs 2 --json", "text_run");
  ASSERT_EQ(run.status, 0) << run.err;
  const auto result = nlohmann::json::parse(run.out);
  EXPECT_LT(result["val_perplexity"].get<double>(), 12.0) << run.out;  // of ~40 characters
  EXPECT_GT(result["val_word_perplexity"].get<double>(), result["val_perplexity"].get<double>());

  const auto resumed = run_lm_train("--resume " + run_dir.string() + " --epochs 3 --log-level warn", "text_resume");
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  test::expect_fixed_on_resume(run_lm_train, "--resume " + run_dir.string() + " --epochs 4",
                               {"--block-size 16", "--tokenizer word", "--validation-fraction 0.3"});
  // Flags of the other form of data would be ignored: refused.
  test::expect_one_line_error(run_lm_train(start + " --max-words 8", "text_max_words"),
                              "--max-words: sentences only; running text (--block-size) is read in windows");
  test::expect_one_line_error(
      run_lm_train("--preset tiny --data " + testing::sample_corpus() + " --validation-fraction 0.2", "text_fraction"),
      "--validation-fraction: needs --block-size");

  const auto table = run_lm_eval((run_dir / "checkpoints").string(), "text_table");
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find(" windows ("), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("perplexity/word"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("checkpoint_epoch_0003.pt"), std::string::npos) << table.out;
  const auto on_file = run_lm_eval(run_dir.string() + " --test " + (dir / "text.txt").string(), "text_test_file");
  ASSERT_EQ(on_file.status, 0) << on_file.err;
  EXPECT_NE(on_file.out.find("windows ("), std::string::npos) << on_file.out;

  // 100 characters, greedy: more than the block of 32; deterministic.
  const std::string generate = run_dir.string() + " --generate \"Line 3: the \" --tokens 100 --temperature 0";
  const auto generated = run_lm_eval(generate + " --json", "text_generate");
  ASSERT_EQ(generated.status, 0) << generated.err;
  const auto texts = nlohmann::json::parse(generated.out)["generated"];
  ASSERT_EQ(texts.size(), 1u);
  const auto continued = texts[0]["text"].get<std::string>();
  EXPECT_EQ(continued.rfind("Line 3: the ", 0), 0u) << continued;
  EXPECT_EQ(continued.size(), 12u + 100u) << continued;  // ASCII: a character is a byte
  EXPECT_EQ(texts[0]["generated_tokens"], 100);
  EXPECT_EQ(run_lm_eval(generate + " --json", "text_generate_again").out, generated.out);
  const auto plain = run_lm_eval(generate, "text_generate_plain");
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(plain.out.rfind("--- \"Line 3: the \", sample 1 (seed ", 0), 0u) << plain.out;
  EXPECT_NE(plain.out.find(continued), std::string::npos) << plain.out;
}

// --init-from: a new run from another run's weights, its summary in the log and its path in
// config.toml; refused beside --resume on the command line, dropped when a resume reads it from
// the run's own config.toml (the run began there).
TEST(LmTrainApp, InitFromStartsANewRunFromAnothersWeights) {
  const auto first_dir = test::fresh_temp_dir("lm_train_app_init_first");
  const auto first = run_lm_train(tiny_run_flags(first_dir) + " --epochs 1 --log-level warn", "init_first");
  ASSERT_EQ(first.status, 0) << first.err;
  const auto run_dir = test::fresh_temp_dir("lm_train_app_init_second");
  const auto second =
      run_lm_train_logged(tiny_run_flags(run_dir) + " --epochs 1 --init-from " + first_dir.string(), "init_second");
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_NE(second.err.find("--init-from " + first_dir.string() + "/checkpoints/checkpoint_epoch_0001.pt (model): "),
            std::string::npos)
      << second.err;
  EXPECT_NE(second.err.find("(100.0 %) from it; 0 tensors by token, 0 fresh"), std::string::npos)
      << "the same corpus and split: the same vocabulary\n"
      << second.err;
  // Under another preset the model is still the parent's: its sizes are not repeated.
  const auto other_preset = run_lm_train_logged("--preset cpu --data " + testing::sample_corpus() +
                                                    " --validation-sentences 100 --epochs 1 --max-iters 1 --run-dir " +
                                                    run_dir.string() + "_cpu --init-from " + first_dir.string(),
                                                "init_other_preset");
  ASSERT_EQ(other_preset.status, 0) << other_preset.err;
  EXPECT_NE(other_preset.err.find("(100.0 %) from it"), std::string::npos) << other_preset.err;
  // The file read, not the folder named: a replay starts from these weights after the first
  // run trained on.
  const auto first_file = first_dir.string() + "/checkpoints/checkpoint_epoch_0001.pt";
  const auto config = util::read_file((run_dir / "config.toml").string());
  EXPECT_NE(config.find("init-from=\"" + first_file + "\""), std::string::npos) << config;

  test::expect_one_line_error(
      run_lm_train("--resume " + run_dir.string() + " --init-from " + first_dir.string(), "init_resume"),
      "--init-from: starts a new run from another run's weights; --resume continues this one");
  const auto resumed = run_lm_train("--config " + (run_dir / "config.toml").string() + " --resume " + run_dir.string() +
                                        " --epochs 2 --log-level warn",
                                    "init_resume_config");
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_TRUE(fs::exists(run_dir / "checkpoints" / "checkpoint_epoch_0002.pt"));

  test::expect_one_line_error(
      run_lm_train("--preset tiny --embedding-size 64 --validation-sentences 100 --data " + testing::sample_corpus() +
                       " --run-dir " + (run_dir.string() + "_wider") + " --init-from " + first_dir.string(),
                   "init_wider"),
      " there and ");
  EXPECT_FALSE(fs::exists(run_dir.string() + "_wider")) << "a refused run leaves no folder";

  // Fine-tuning a run in place (--overwrite, --init-from the run itself): a start that fails
  // leaves the run where it was (it had been moved aside first); one that works moves it aside
  // and records the file at its new place.
  test::expect_one_line_error(
      run_lm_train("--preset tiny --embedding-size 64 --validation-sentences 100 --data " + testing::sample_corpus() +
                       " --run-dir " + first_dir.string() + " --init-from " + first_dir.string() + " --overwrite",
                   "init_in_place_wider"),
      " there and ");
  EXPECT_TRUE(fs::exists(first_file));
  EXPECT_FALSE(fs::exists(first_dir.string() + ".old-1"));
  // The run directory with a trailing "/" (its own new checkpoint was recorded).
  const auto in_place = run_lm_train(tiny_run_flags(first_dir.string() + "/") + " --epochs 1 --init-from " +
                                         first_dir.string() + " --overwrite --log-level warn",
                                     "init_in_place");
  ASSERT_EQ(in_place.status, 0) << in_place.err;
  const auto aside_file = first_dir.string() + ".old-1/checkpoints/checkpoint_epoch_0001.pt";
  EXPECT_TRUE(fs::exists(aside_file));
  EXPECT_NE(util::read_file((first_dir / "config.toml").string()).find("init-from=\"" + aside_file + "\""),
            std::string::npos);
}

}  // namespace
}  // namespace dls
