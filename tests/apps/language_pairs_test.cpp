// Language pairs beyond English -> Spanish, end to end on small generated corpora
// (support/language_corpora.h): German parallel files with validation and test files,
// Russian from chosen TSV columns trained in reverse, Greek, and Japanese with SentencePiece;
// each through seq2seq_train, checkpoint_eval's scores, --translate and the DLStudio-style
// printout. And the one-line errors of the corpus flags.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "dls/util/file_io.h"
#include "support/language_corpora.h"
#include "support/program_run.h"
#include "util/sentencepiece_available.h"
#include "util/temp_files.h"

namespace dls {
namespace {

namespace fs = std::filesystem;

// A tiny model: every run takes a few seconds.
const std::string kTiny =
    " --preset cpu --embedding-size 32 --heads 2 --encoders 1 --decoders 1 --ffn-multiplier 2 --batch-size 16"
    " --validation-pairs 12 --bleu-sentences 12 --samples 3 --log-every 10 --epochs 2";

// `info`: with the start-up report (logged at info level, which the test environment turns
// off); without it an error is the only line.
test::ProgramRun pair_train(const std::string& args, const std::string& name, bool info = true) {
  return test::run_program("apps/seq2seq_train", "--threads 1 " + args, "language_pairs_" + name, "",
                           info ? "DLS_LOG_LEVEL=info " : "");
}

test::ProgramRun pair_eval(const std::string& args, const std::string& name) {
  return test::run_program("apps/checkpoint_eval", "--threads 1 " + args, "language_pairs_eval_" + name);
}

void expect_in_pair_output(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
}

// Parallel files dir/<part>.en and dir/<part>.<code>: every 7th pair validation, the next test.
void write_parallel_files(const fs::path& dir, const std::string& code) {
  test::GeneratedPairs parts[3];  // train, valid, test
  const auto pairs = test::generated_pairs(code);
  for (std::size_t i = 0; i < pairs.size(); ++i) parts[i % 7 == 0 ? 1 : i % 7 == 1 ? 2 : 0].push_back(pairs[i]);
  const char* names[] = {"train", "valid", "test"};
  for (int k = 0; k < 3; ++k) {
    test::write_bytes(dir / (std::string(names[k]) + ".en"), test::generated_side(parts[k], true));
    test::write_bytes(dir / (std::string(names[k]) + "." + code), test::generated_side(parts[k], false));
  }
}

std::string parallel_flags(const fs::path& dir, const std::string& src, const std::string& tgt) {
  const auto f = [&](const char* part, const std::string& code) {
    return (dir / (std::string(part) + "." + code)).string();
  };
  return " --train-src " + f("train", src) + " --train-tgt " + f("train", tgt) + " --valid-src " + f("valid", src) +
         " --valid-tgt " + f("valid", tgt) + " --test-src " + f("test", src) + " --test-tgt " + f("test", tgt) +
         " --src-lang " + src + " --tgt-lang " + tgt;
}

TEST(LanguagePairsApp, GermanParallelFilesTrainScoreAndTranslate) {
  const auto dir = test::fresh_temp_dir("language_pairs_german");
  write_parallel_files(dir, "de");
  const auto run =
      pair_train(parallel_flags(dir, "de", "en") + kTiny + " --run-dir " + (dir / "run").string(), "german");
  ASSERT_EQ(run.status, 0) << run.err;
  const auto files = [&](const char* part) {
    return (dir / (std::string(part) + ".de")).string() + " + " + (dir / (std::string(part) + ".en")).string();
  };
  for (const std::string& text :
       {files("train") + ": ", files("valid") + ": ", std::string("(the validation files)"),
        std::string("with SOS EOS <pad> <unk>): German "), std::string("longest German sentence"),
        std::string("No sentence is longer than "), std::string("longest English sentence"),
        "test set " + files("test"), std::string("The input sentence pair:"),
        std::string("The translation produced by TransformerFG")}) {
    expect_in_pair_output(run.err, text);
  }
  // The validation translations name the source language and keep the umlauts.
  const auto tsv = util::read_file((dir / "run" / "validation_translations.tsv").string());
  EXPECT_EQ(tsv.rfind("german\treference\t", 0), 0u) << tsv;
  expect_in_pair_output(tsv, "die tür");

  const auto scores = pair_eval((dir / "run").string(), "german");
  ASSERT_EQ(scores.status, 0) << scores.err;
  // Scored on the pairs training validated on: the validation files, named as such.
  expect_in_pair_output(scores.out, "validation files " + files("valid"));
  // Moved away, they are named as what they are, with the way on (--data is not one).
  fs::rename(dir / "valid.de", dir / "valid.de.moved");
  test::expect_one_line_error(pair_eval((dir / "run").string(), "german_moved"),
                              "the validation file " + (dir / "valid.de").string() +
                                  " is missing (moved? score other pairs: --test-src FILE --test-tgt FILE)");
  fs::rename(dir / "valid.de.moved", dir / "valid.de");
  // The training files moved away: the validation files alone give the same pairs and scores.
  fs::rename(dir / "train.de", dir / "train.de.moved");
  const auto without_training = pair_eval((dir / "run").string(), "german_no_training");
  fs::rename(dir / "train.de.moved", dir / "train.de");
  ASSERT_EQ(without_training.status, 0) << without_training.err;
  const auto score_lines = [](const std::string& out) {  // each row's checkpoint, epochs, step, scores, loss
    std::string rows;
    for (const auto& line : test::lines_of(out)) {
      if (line.rfind("| checkpoint_epoch_", 0) != 0) continue;
      std::size_t end = 0;
      for (int cell = 0; cell < 7; ++cell) end = line.find('|', end + 1);  // the 8th '|' closes the loss
      rows += line.substr(0, end) + "\n";
    }
    return rows;
  };
  EXPECT_FALSE(score_lines(scores.out).empty()) << scores.out;
  EXPECT_EQ(score_lines(without_training.out), score_lines(scores.out)) << without_training.out;
  expect_in_pair_output(without_training.out, "validation files " + files("valid"));
  const auto test_set = pair_eval((dir / "run").string() + " --test-src " + (dir / "test.de").string() +
                                      " --test-tgt " + (dir / "test.en").string() + " --samples 2",
                                  "german_test");
  ASSERT_EQ(test_set.status, 0) << test_set.err;
  expect_in_pair_output(test_set.out, files("test"));
  expect_in_pair_output(test_set.out, "The input sentence pair:");
  const auto translated = pair_eval((dir / "run").string() + " --translate \"Wo ist der Käse?\"", "german_translate");
  ASSERT_EQ(translated.status, 0) << translated.err;
  EXPECT_EQ(test::count_lines(translated.out), 1u) << translated.out;
  test::expect_one_line_error(
      pair_eval((dir / "run").string() + " --test-src " + (dir / "test.de").string(), "german_half"),
      "--test-src needs --test-tgt");
  // The files and languages travel in the checkpoint and in config.toml: a resume and a
  // repeat need none of the flags.
  const auto resumed = pair_train("--resume " + (dir / "run").string() + " --epochs 3", "german_resume");
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  expect_in_pair_output(resumed.err, "longest German sentence");
  expect_in_pair_output(resumed.err, "epoch 3/3");
  const auto repeated = pair_train(
      "--config " + (dir / "run" / "config.toml").string() + " --run-dir " + (dir / "again").string(), "german_again");
  ASSERT_EQ(repeated.status, 0) << repeated.err;
  expect_in_pair_output(repeated.err, "(the validation files)");
}

TEST(LanguagePairsApp, RussianFromChosenColumnsTrainsInReverse) {
  const auto dir = test::fresh_temp_dir("language_pairs_russian");
  // "id<TAB>English<TAB>Russian": columns 2 and 3, trained Russian -> English.
  std::string tsv;
  int id = 0;
  for (const auto& [en, ru] : test::generated_pairs("ru")) tsv += std::to_string(++id) + "\t" + en + "\t" + ru + "\n";
  test::write_bytes(dir / "ru.tsv", tsv);
  const std::string corpus =
      " --data " + (dir / "ru.tsv").string() + " --src-column 2 --tgt-column 3 --src-lang en --tgt-lang ru";
  const auto run = pair_train(corpus + " --reverse" + kTiny + " --run-dir " + (dir / "run").string(), "russian");
  ASSERT_EQ(run.status, 0) << run.err;
  for (const auto* text : {"by Russian sentence", "<unk>): Russian ", " words, English ", "longest Russian sentence",
                           "The translation produced by"}) {
    expect_in_pair_output(run.err, text);
  }
  const auto out = util::read_file((dir / "run" / "validation_translations.tsv").string());
  EXPECT_EQ(out.rfind("russian\treference\t", 0), 0u) << out;
  // checkpoint_eval reads a --test TSV with the run's columns and direction.
  const auto scores = pair_eval((dir / "run").string() + " --test " + (dir / "ru.tsv").string(), "russian");
  ASSERT_EQ(scores.status, 0) << scores.err;
  expect_in_pair_output(scores.out, "test file ");
  const auto translated = pair_eval((dir / "run").string() + " --translate \"Где дом?\"", "russian_translate");
  ASSERT_EQ(translated.status, 0) << translated.err;
  EXPECT_EQ(test::count_lines(translated.out), 1u) << translated.out;
  // The direction and languages are the checkpoint's.
  const auto resume = [&](const std::string& flag, const std::string& name) {
    return pair_train("--resume " + (dir / "run").string() + " " + flag, name, false);
  };
  test::expect_one_line_error(resume("--src-lang de", "resume_lang"), "--src-lang: fixed by the checkpoint");
  test::expect_one_line_error(resume("--max-tokens 100", "resume_tokens"), "--max-tokens: fixed by the checkpoint");
}

TEST(LanguagePairsApp, GreekTrainsAndTranslates) {
  const auto dir = test::fresh_temp_dir("language_pairs_greek");
  test::write_bytes(dir / "el.tsv", test::generated_tsv(test::generated_pairs("el")));
  const auto run =
      pair_train(" --data " + (dir / "el.tsv").string() + " --tgt-lang el --max-tokens 64 --layout vaswani" + kTiny +
                     " --run-dir " + (dir / "run").string(),
                 "greek");
  ASSERT_EQ(run.status, 0) << run.err;
  for (const auto* text : {"by English sentence", " words, Greek ", "longest Greek sentence",
                           "token batches: ", "The translation produced by"}) {
    expect_in_pair_output(run.err, text);
  }
  const auto translated = pair_eval((dir / "run").string() + " --translate \"Where is the dog?\"", "greek_translate");
  ASSERT_EQ(translated.status, 0) << translated.err;
  EXPECT_EQ(test::count_lines(translated.out), 1u) << translated.out;
}

TEST(LanguagePairsApp, JapaneseNeedsSentencePiece) {
  const auto dir = test::fresh_temp_dir("language_pairs_japanese");
  write_parallel_files(dir, "ja");
  const auto flags = parallel_flags(dir, "en", "ja");
  test::expect_one_line_error(
      pair_train(flags + kTiny + " --dry-run --run-dir " + (dir / "words").string(), "ja_words", false),
      "Japanese (ja) is written without spaces between words");
  // Its three-letter code is Japanese too; a code that names no such language trains on with
  // a warning that the sentences are single words.
  std::string jpn = flags;
  jpn.replace(jpn.find("--tgt-lang ja"), 13, "--tgt-lang jpn");
  test::expect_one_line_error(
      pair_train(jpn + kTiny + " --dry-run --run-dir " + (dir / "words3").string(), "jpn_words", false),
      "(jpn) is written without spaces between words");
  std::string unnamed = flags;
  unnamed.replace(unnamed.find("--tgt-lang ja"), 13, "--tgt-lang xx");
  const auto unnamed_run = pair_train(unnamed + kTiny + " --dry-run --run-dir " + (dir / "xx").string(), "xx_words");
  ASSERT_EQ(unnamed_run.status, 0) << unnamed_run.err;
  expect_in_pair_output(unnamed_run.err,
                        "xx: 100 % of the training sentences are one word; a language written "
                        "without spaces (Chinese, Japanese, Thai) needs its code");
  DLS_SKIP_WITHOUT_SENTENCEPIECE();
  // Word BLEU of unspaced clauses is 0 nearly always: the default --best-metric is warned
  // about, and chrF chooses best.pt.
  const auto dry = pair_train(
      flags + kTiny + " --tokenizer sentencepiece --vocab-size 60 --dry-run --run-dir " + (dir / "dry").string(),
      "ja_dry");
  ASSERT_EQ(dry.status, 0) << dry.err;
  expect_in_pair_output(dry.err, "Japanese is written without spaces: word BLEU of a whole clause is 0 nearly always");
  const auto run =
      pair_train(flags + kTiny + " --tokenizer sentencepiece --vocab-size 60 --best-metric chrf --run-dir " +
                     (dir / "run").string(),
                 "japanese");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err.find("word BLEU of a whole clause"), std::string::npos) << run.err;
  EXPECT_TRUE(fs::exists(dir / "run" / "best.pt"));
  for (const auto* text : {"<unk>): English ", " pieces, Japanese ", "test set ", "The translation produced by"}) {
    expect_in_pair_output(run.err, text);
  }
  const auto scores = pair_eval((dir / "run").string(), "japanese");
  ASSERT_EQ(scores.status, 0) << scores.err;
  const auto translated = pair_eval((dir / "run").string() + " --translate \"Where is the key?\"", "ja_translate");
  ASSERT_EQ(translated.status, 0) << translated.err;
  EXPECT_EQ(test::count_lines(translated.out), 1u) << translated.out;
  EXPECT_EQ(translated.out.find("\xe2\x96\x81"), std::string::npos) << "detokenised:\n" << translated.out;
}

// Slips in parallel files and contradicting flags: one line naming the file and line or the flag.
TEST(LanguagePairsApp, CorpusErrorsAreOneLine) {
  const auto dir = test::fresh_temp_dir("language_pairs_errors");
  test::write_bytes(dir / "a.de", "Wo ist das Haus?\nDas ist der Käse.\nDer Bär ist hier.\n");
  test::write_bytes(dir / "a.en", "Where is the house?\nThis is the cheese.\n");
  test::write_bytes(dir / "b.en", "Where is the house?\n\nThe bear is here.\n");
  test::write_bytes(dir / "c.en", "Where is the house?\nThis is the ch\xe9\x65se.\nThe bear is here.\n");
  const auto pair = [&](const std::string& src, const std::string& tgt) {
    return " --train-src " + (dir / src).string() + " --train-tgt " + (dir / tgt).string() +
           " --src-lang de --tgt-lang en --dry-run --run-dir " + (dir / "run").string();
  };
  test::expect_one_line_error(pair_train(pair("a.de", "a.en"), "count", false), "a.de:3: no partner line");
  test::expect_one_line_error(pair_train(pair("a.de", "b.en"), "blank", false), "b.en:2: an empty side");
  test::expect_one_line_error(pair_train(pair("a.de", "c.en"), "utf8", false), "c.en:2: invalid UTF-8");
  const std::string de = (dir / "a.de").string();
  test::expect_one_line_error(pair_train("--train-src " + de + " --dry-run", "half", false),
                              "--train-src needs --train-tgt");
  test::expect_one_line_error(pair_train("--valid-tgt " + de + " --dry-run", "half_valid", false),
                              "--valid-tgt needs --valid-src");
  test::expect_one_line_error(
      pair_train("--data " + de + " --train-src " + de + " --train-tgt " + de + " --dry-run", "both", false),
      "--data and --train-src");
  const std::string tsv = " --data " + dls::testing::sample_corpus() + " --validation-pairs 100 --dry-run";
  test::expect_one_line_error(pair_train(tsv + " --src-lang EN", "code", false),
                              "--src-lang: 'EN' is not an ISO 639 code");
  test::expect_one_line_error(pair_train(tsv + " --tgt-lang en", "same_lang", false),
                              "--src-lang and --tgt-lang: both are en");
  test::expect_one_line_error(pair_train(tsv + " --src-column 2", "same_column", false),
                              "--src-column and --tgt-column: both are column 2");
  test::expect_one_line_error(pair_train(tsv + " --preset dlstudio --max-tokens 100", "tokens_layout", false),
                              "--max-tokens: needs the vaswani layout");
  test::expect_one_line_error(pair_train(tsv + " --preset cpu --max-tokens 5", "tokens_small", false),
                              "--max-tokens 5 is less than the longest pair's");
}

// The sample corpus as parallel files dir/<stem>.<src_ext> (Spanish) and dir/<stem>.<tgt_ext>
// (English); returns the --train-src/--train-tgt flags.
std::string spanish_english_files(const fs::path& dir, const std::string& stem, const std::string& src_ext,
                                  const std::string& tgt_ext) {
  std::istringstream lines(util::read_file(dls::testing::sample_corpus()));
  std::string english, spanish;
  for (std::string line; std::getline(lines, line);) {
    const auto tab = line.find('\t');
    english += line.substr(0, tab) + "\n";
    spanish += line.substr(tab + 1, line.find('\t', tab + 1) - tab - 1) + "\n";
  }
  const auto src = dir / (stem + "." + src_ext), tgt = dir / (stem + "." + tgt_ext);
  test::write_bytes(src, spanish);
  test::write_bytes(tgt, english);
  return " --train-src " + src.string() + " --train-tgt " + tgt.string();
}

// Parallel files named by their languages (train.es, train.en) train Spanish -> English
// without --src-lang/--tgt-lang: Spanish is not read, nor normalised, as English. Files
// named otherwise keep en -> es with one warning naming the codes assumed; a flag wins.
TEST(LanguagePairsApp, ParallelFilesNameTheirLanguages) {
  const auto dir = test::fresh_temp_dir("language_pairs_file_names");
  const std::string dry = " --dry-run --run-dir " + (dir / "run").string();
  const auto named = pair_train(spanish_english_files(dir, "train", "es", "en") + dry, "file_names");
  ASSERT_EQ(named.status, 0) << named.err;
  for (const auto* text : {"languages from the file names: --src-lang es, --tgt-lang en", "<unk>): Spanish ",
                           " words, English ", "longest Spanish sentence"}) {
    expect_in_pair_output(named.err, text);
  }
  EXPECT_EQ(named.err.find("assumed"), std::string::npos) << named.err;

  const auto flag = pair_train(spanish_english_files(dir, "train", "es", "en") + " --src-lang pt" + dry, "file_flag");
  ASSERT_EQ(flag.status, 0) << flag.err;
  expect_in_pair_output(flag.err, "languages from the file names: --tgt-lang en");
  expect_in_pair_output(flag.err, "longest Portuguese sentence");

  const auto unnamed = pair_train(spanish_english_files(dir, "pairs", "a.txt", "b.txt") + dry, "file_unnamed");
  ASSERT_EQ(unnamed.status, 0) << unnamed.err;
  expect_in_pair_output(unnamed.err, "assumed --src-lang en, --tgt-lang es");
  expect_in_pair_output(unnamed.err, "longest English sentence");
  // One line: the warning alone, at the level the test environment shows (warn).
  const auto quiet = pair_train(spanish_english_files(dir, "pairs", "a.txt", "b.txt") + dry, "file_quiet", false);
  ASSERT_EQ(quiet.status, 0) << quiet.err;
  EXPECT_EQ(test::count_lines(quiet.err), 1u) << quiet.err;
}

// DLStudio's English -> Spanish the other way round: the same corpus, the names swapped.
TEST(LanguagePairsApp, ReverseTrainsSpanishToEnglish) {
  const auto dir = test::fresh_temp_dir("language_pairs_reverse");
  const std::string tsv = " --data " + dls::testing::sample_corpus();
  const auto run =
      pair_train(tsv + " --reverse" + kTiny + " --max-iters 3 --run-dir " + (dir / "run").string(), "reverse");
  ASSERT_EQ(run.status, 0) << run.err;
  for (const auto* text : {"by Spanish sentence", "<unk>): Spanish ", " words, English ", "longest Spanish sentence"}) {
    expect_in_pair_output(run.err, text);
  }
  const auto translated = pair_eval((dir / "run").string() + " --translate \"¿Dónde está la estación?\"", "reverse");
  ASSERT_EQ(translated.status, 0) << translated.err;
  EXPECT_EQ(test::count_lines(translated.out), 1u) << translated.out;
}

}  // namespace
}  // namespace dls
