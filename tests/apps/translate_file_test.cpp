// checkpoint_eval --input/--output: a file translated line for line (one output line per
// input line, whatever the line holds), in batches, detokenised or --raw; the --raw output
// scored with --score gives the BLEU of scoring the checkpoint directly (long sentences:
// test_set_score_test.cpp).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cmath>
#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/data/normalize.h"
#include "dls/util/file_io.h"
#include "support/program_run.h"
#include "support/seq2seq_runs.h"
#include "support/test_paths.h"
#include "util/temp_files.h"

namespace dls::apps {
namespace {

namespace fs = std::filesystem;

test::ProgramRun translate_file_eval(const std::string& args, const std::string& name, const std::string& input = "") {
  return test::run_program("apps/checkpoint_eval", "--threads 1 --log-level warn " + args, "translate_file_" + name,
                           input);
}

TEST(TranslateFileApp, OneOutputLinePerInputLineWhateverItHolds) {
  const auto dir = test::fresh_temp_dir("translate_file_lines");
  const std::string run = test::trained_seq2seq_run().string();
  // A sentence, an empty line, one longer than the model was trained on (L = 10: 8 words;
  // translated whole, with a note), a blank one (a space, a no-break space and a zero-width
  // one), invalid UTF-8, a question, and a last line without its newline.
  test::write_bytes(dir / "src.txt",
                    "I'm here.\n\none two three four five six seven eight nine\n \xC2\xA0\xE2\x80\x8B\nbad \xff bytes\n"
                    "Where is my dog?\r\nShe is tall.");
  const auto file = translate_file_eval(
      run + " --input " + (dir / "src.txt").string() + " --output " + (dir / "out.txt").string(), "file");
  EXPECT_EQ(file.status, 1) << "some lines were not translated:\n" << file.err;
  const auto out = test::lines_of(util::read_file((dir / "out.txt").string()));
  ASSERT_EQ(out.size(), 7u) << util::read_file((dir / "out.txt").string());
  for (const std::size_t empty : {1, 3, 4}) EXPECT_EQ(out[empty], "") << "line " << empty + 1;
  for (const std::size_t full : {0, 2, 5, 6}) EXPECT_FALSE(out[full].empty()) << "line " << full + 1;
  EXPECT_NE(file.err.find("line 2: empty"), std::string::npos) << file.err;
  EXPECT_NE(file.err.find("line 3: note: 9 words, more than the 8 this model was trained on"), std::string::npos)
      << file.err;
  EXPECT_NE(file.err.find("line 5: error: the sentence is not valid UTF-8"), std::string::npos) << file.err;
  EXPECT_NE(file.err.find("translated 4 of 7 lines (1 could not be (their errors above); 2 blank, left empty"),
            std::string::npos)
      << file.err;
  // UTF-16 (a byte-order mark) is refused as a file, not line by line (each failed, and the
  // NUL after the last newline became a line "copied" into the output).
  test::write_bytes(dir / "utf16.txt", std::string("\xFF\xFEH\0i\0\n\0", 8));
  const auto utf16 = translate_file_eval(
      run + " --input " + (dir / "utf16.txt").string() + " --output " + (dir / "utf16.out").string(), "utf16");
  EXPECT_EQ(utf16.status, 1);
  EXPECT_NE(
      utf16.err.find("\nerror: " + (dir / "utf16.txt").string() +
                     ": UTF-16 text (its byte-order mark), not UTF-8; convert it first: iconv -f UTF-16 -t UTF-8\n"),
      std::string::npos)
      << utf16.err;
  EXPECT_EQ(utf16.err.find("line 1:"), std::string::npos) << "refused as a file, not line by line:\n" << utf16.err;
  EXPECT_FALSE(fs::exists(dir / "utf16.out"));
  // Capitalised, with the source's closing mark (Spanish's ¿ before a question).
  EXPECT_TRUE(out[5].rfind("\xC2\xBF", 0) == 0 && out[5].back() == '?') << out[5];
  EXPECT_EQ(out[6].back(), '.') << out[6];

  // The same lines from standard input to standard output; --raw gives --translate's words.
  const auto piped =
      translate_file_eval(run + " --input - --raw", "stdin", util::read_file((dir / "src.txt").string()));
  const auto raw = test::lines_of(piped.out);
  ASSERT_EQ(raw.size(), 7u) << piped.out;
  const auto one = translate_file_eval(run + " --raw --translate \"Where is my dog?\"", "one");
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(raw[5] + "\n", one.out);
  // --interactive names a bad line by its number and its size, not by writing it back (a
  // megabyte line of invalid UTF-8 was echoed whole).
  std::string big;
  for (int i = 0; i < 250000; ++i) big += "dog ";
  const auto interactive =
      translate_file_eval(run + " --interactive", "interactive_bad", "I'm here.\n" + big + "\xff\nShe is tall.\n");
  EXPECT_EQ(interactive.status, 1);
  EXPECT_EQ(test::lines_of(interactive.out).size(), 3u) << interactive.out;
  EXPECT_NE(interactive.err.find("line 2: error: a sentence of 1000001 bytes: the sentence is not valid UTF-8"),
            std::string::npos)
      << interactive.err.substr(0, 400);
  EXPECT_LT(interactive.err.size(), 1000u);
  // A closed standard input is an error, not an empty file translated ("0 of 0 lines", 0).
  const auto err = dir / "closed_stdin.err";
  for (const std::string mode : {"--input -", "--interactive"}) {
    const int closed = std::system((testing::binary_dir() + "/apps/checkpoint_eval translate " + run + " --threads 1 " +
                                    mode + " 0<&- 2>" + err.string())
                                       .c_str());
    EXPECT_EQ(WEXITSTATUS(closed), 1) << mode;
    EXPECT_NE(
        util::read_file(err.string()).find("error: " + mode + ": standard input cannot be read (Bad file descriptor)"),
        std::string::npos)
        << util::read_file(err.string());
  }
  // A line of many unknown words: the first ten named and the count, under the line's number.
  std::string unknown_line;
  for (int i = 0; i < 5000; ++i) unknown_line += "zq" + std::to_string(i) + " ";
  const auto unknown = translate_file_eval(run + " --interactive", "interactive_unknown", "I'm here.\n" + unknown_line);
  EXPECT_NE(
      unknown.err.find("line 2: unknown words (translated as <unk>): zq0 zq1 zq2 zq3 zq4 zq5 zq6 zq7 zq8 zq9 (5000 "
                       "in all)"),
      std::string::npos)
      << unknown.err.substr(0, 500);
  EXPECT_LT(unknown.err.size(), 1000u);
  test::expect_one_line_error(
      translate_file_eval(
          run + " --input " + (dir / "src.txt").string() + " --attention-maps " + (dir / "maps").string(),
          "input_maps"),
      "--attention-maps: of a sentence on the command line or --interactive's first, not --input");
}

TEST(TranslateFileApp, RawOutputScoresAsTheCheckpointScoresItself) {
  const auto dir = test::fresh_temp_dir("translate_file_bleu");
  // A test set of short pairs (both sides within the model's 8 words) from the sample corpus.
  std::ifstream corpus(dls::testing::sample_corpus());
  std::ofstream tsv(dir / "test.tsv"), src(dir / "src.txt"), ref(dir / "ref.txt");
  int kept = 0;
  std::string line;
  for (int n = 0; std::getline(corpus, line) && kept < 80; ++n) {
    if (n % 13 != 0) continue;
    const auto tab = line.find('\t'), tab2 = line.find('\t', tab + 1);
    const auto en = line.substr(0, tab), es = line.substr(tab + 1, tab2 - tab - 1);
    if (data::normalize_english(en).size() > 8 || data::normalize_spanish(es).size() > 8) continue;
    tsv << en << "\t" << es << "\n";
    src << en << "\n";
    ref << data::join_words(data::normalize_spanish(es)) << "\n";
    ++kept;
  }
  tsv.close(), src.close(), ref.close();
  const auto checkpoint = checkpoint::latest_checkpoint(test::trained_seq2seq_run().string());

  const auto direct = translate_file_eval(checkpoint + " --json --test " + (dir / "test.tsv").string(), "direct");
  ASSERT_EQ(direct.status, 0) << direct.err;
  const auto report = nlohmann::json::parse(direct.out);
  ASSERT_EQ(report["sentences"].get<int>(), kept) << direct.out;
  const double direct_bleu = report["checkpoints"].back()["bleu"].get<double>();

  const auto translated = translate_file_eval(
      checkpoint + " --raw --input " + (dir / "src.txt").string() + " --output " + (dir / "hyp.txt").string(), "hyp");
  ASSERT_EQ(translated.status, 0) << translated.err;
  const auto scored = translate_file_eval(
      "--json --score " + (dir / "hyp.txt").string() + " --ref " + (dir / "ref.txt").string(), "score");
  ASSERT_EQ(scored.status, 0) << scored.err;
  const double file_bleu = nlohmann::json::parse(scored.out)["bleu"].get<double>();
  EXPECT_GT(direct_bleu, 0.0) << "a BLEU of 0 would not tell the two apart";
  EXPECT_NEAR(file_bleu, direct_bleu, 1e-12);

  // --batch-size: other batches (7 sentences, the last shorter; 5 in the report), the same
  // translations and scores.
  const auto batched = translate_file_eval(checkpoint + " --raw --batch-size 7 --input " + (dir / "src.txt").string() +
                                               " --output " + (dir / "hyp7.txt").string(),
                                           "hyp7");
  ASSERT_EQ(batched.status, 0) << batched.err;
  EXPECT_EQ(util::read_file((dir / "hyp7.txt").string()), util::read_file((dir / "hyp.txt").string()));
  const auto direct5 =
      translate_file_eval(checkpoint + " --json --batch-size 5 --test " + (dir / "test.tsv").string(), "direct5");
  ASSERT_EQ(direct5.status, 0) << direct5.err;
  EXPECT_EQ(nlohmann::json::parse(direct5.out)["checkpoints"].back()["bleu"].get<double>(), direct_bleu);
  const auto zero = translate_file_eval(checkpoint + " --batch-size 0 --translate hello", "batch0");
  EXPECT_EQ(zero.status, 1);
  EXPECT_NE(zero.err.find("--batch-size"), std::string::npos) << zero.err;
}

TEST(TranslateFileApp, RefusesToWriteOverItsInputAndLeavesNoHalfFile) {
  const auto dir = test::fresh_temp_dir("translate_file_refusals");
  const std::string run = test::trained_seq2seq_run().string();
  test::write_bytes(dir / "src.txt", "I am here.\n");
  const auto same = translate_file_eval(
      run + " --input " + (dir / "src.txt").string() + " --output " + (dir / "src.txt").string(), "same");
  test::expect_one_line_error(same, "--output is the --input file");
  EXPECT_EQ(util::read_file((dir / "src.txt").string()), "I am here.\n");
  const auto missing = translate_file_eval(
      run + " --input " + (dir / "absent.txt").string() + " --output " + (dir / "out.txt").string(), "missing");
  test::expect_one_line_error(missing, "absent.txt: cannot open --input (No such file or directory)");
  EXPECT_FALSE(fs::exists(dir / "out.txt"));
}

}  // namespace
}  // namespace dls::apps
