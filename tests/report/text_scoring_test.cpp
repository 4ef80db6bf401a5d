// checkpoint_eval --score: BLEU of text files equals the library's (and so NLTK's) numbers,
// several references, per-line scores, and one-line errors for bad files.
#include "dls/report/text_scoring.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "util/temp_files.h"

namespace dls::report {
namespace {

namespace fs = std::filesystem;

// NLTK's corpus_bleu docstring: the first hypothesis has three references, the second one.
// Both files of references need a line per hypothesis, so the second sentence's reference
// is repeated in every file (a repeated reference does not change BLEU).
const char* const kHyps =
    "It is a guide to action which ensures that the military always obeys the commands of the party\n"
    "he read the book because he was interested in world history\n";
const char* const kRefsA =
    "It is a guide to action that ensures that the military will forever heed Party commands\n"
    "he was interested in world history because he read the book\n";
const char* const kRefsB =
    "It is the guiding principle which guarantees the military forces always being under the command of the Party\n"
    "he was interested in world history because he read the book\n";
const char* const kRefsC =
    "It is the practical guide for the army always to heed the directions of the party\n"
    "he was interested in world history because he read the book";  // no final line break

ScoreRequest docstring_request(const fs::path& dir) {
  test::write_bytes(dir / "hyp.txt", kHyps);
  test::write_bytes(dir / "a.txt", kRefsA);
  test::write_bytes(dir / "b.txt", kRefsB);
  test::write_bytes(dir / "c.txt", kRefsC);
  ScoreRequest request;
  request.hypotheses = (dir / "hyp.txt").string();
  request.references = {(dir / "a.txt").string(), (dir / "b.txt").string(), (dir / "c.txt").string()};
  return request;
}

TEST(TextScoring, ReproducesNltksCorpusBleuDocstring) {
  auto request = docstring_request(test::fresh_temp_dir("score_docstring"));
  request.sentence = true;
  const auto scores = score_text_files(request);
  EXPECT_EQ(scores.lines, 2u);
  EXPECT_NEAR(scores.corpus.bleu, 0.5920778868801042, 1e-12);
  ASSERT_EQ(scores.sentence_bleu.size(), 2u);
  EXPECT_NEAR(scores.sentence_bleu[0], 0.5045666840058485, 1e-12);  // sentence_bleu docstring
}

// The lines as they are: "SOS" and "EOS" in a user's files are words (they were taken for
// the vocabulary's markers and dropped: 0.6352 where NLTK gives 0.3687), and words part at
// Unicode whitespace as Python's str.split() parts them (French puts a no-break space
// before ? and !: 6.7e-155 where NLTK gives 0.8409). Numbers from /usr/bin/python3's NLTK 3.8.
TEST(TextScoring, TheLinesAsTheyAreSplitAsPythonSplitsThem) {
  const auto dir = test::fresh_temp_dir("score_as_they_are");
  const auto scored = [&](const std::string& hypotheses, const std::string& references) {
    test::write_bytes(dir / "hyp.txt", hypotheses);
    test::write_bytes(dir / "ref.txt", references);
    ScoreRequest request;
    request.hypotheses = (dir / "hyp.txt").string();
    request.references = {(dir / "ref.txt").string()};
    return score_text_files(request);
  };
  const auto words = scored("They sent an SOS signal\nHe owns a Canon EOS camera\n",
                            "They sent a distress signal\nHe owns a Canon camera\n");
  EXPECT_NEAR(words.corpus.bleu, 0.3686541980185498, 1e-12);
  EXPECT_EQ(words.corpus.hyp_len, 11u);
  const auto spaces = scored("Où est-il\u00a0?\nJe suis là\u202f!\n", "Où est-il ?\nJe suis là !\n");
  EXPECT_NEAR(spaces.corpus.bleu, 0.8408964152537145, 1e-12);
  EXPECT_EQ(spaces.corpus.hyp_len, 7u);
  // An empty hypothesis line counts as a line without words.
  const auto empty = scored("estoy aquí\n\n", "estoy aquí\nhola\n");
  EXPECT_EQ(empty.lines, 2u);
  EXPECT_EQ(empty.corpus.hyp_len, 2u);
  EXPECT_EQ(empty.corpus.ref_len, 3u);
}

// sacreBLEU's numbers of test_bleu.py's README example, read from files: three hypotheses,
// two reference files; the lines are given to sacreBLEU as they are (punctuation, case).
TEST(TextScoring, SacreBleuOfTheFilesAsTheyAre) {
  const auto dir = test::fresh_temp_dir("score_sacrebleu");
  test::write_bytes(dir / "hyp.txt", "The dog bit the man.\nIt wasn't surprising.\nThe man had just bitten him.\n");
  test::write_bytes(dir / "a.txt", "The dog bit the man.\nIt was not unexpected.\nThe man bit him first.\n");
  test::write_bytes(dir / "b.txt", "The dog had bit the man.\nNo one was surprised.\nThe man had bitten the dog.\n");
  ScoreRequest request;
  request.hypotheses = (dir / "hyp.txt").string();
  request.references = {(dir / "a.txt").string(), (dir / "b.txt").string()};
  const auto scores = score_text_files(request);
  EXPECT_NEAR(scores.sacrebleu.score, 48.530827, 1e-6);  // sacreBLEU's test_bleu.py
  EXPECT_EQ(scores.sacrebleu.signature, "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:dls-cpp");
  EXPECT_EQ(scores.chrf.signature, "nrefs:2|case:mixed|eff:yes|nc:6|nw:0|space:no|version:dls-cpp");
}

// A byte-order mark at the start of a file is no text: the same lines with and without one
// score 100.
TEST(TextScoring, AByteOrderMarkIsNoText) {
  const auto dir = test::fresh_temp_dir("score_bom");
  test::write_bytes(dir / "hyp.txt", "el gato negro duerme aquí\nla casa grande es roja\n");
  test::write_bytes(dir / "ref.txt",
                    "\xEF\xBB\xBF"
                    "el gato negro duerme aquí\r\nla casa grande es roja\r\n");
  ScoreRequest request;
  request.hypotheses = (dir / "hyp.txt").string();
  request.references = {(dir / "ref.txt").string()};
  const auto scores = score_text_files(request);
  EXPECT_NEAR(scores.sacrebleu.score, 100.0, 1e-9);
  EXPECT_NEAR(scores.chrf.score, 100.0, 1e-9);
}

void expect_error(const ScoreRequest& request, const std::string& part) {
  try {
    score_text_files(request);
    ADD_FAILURE() << "no error; expected " << part;
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(part), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(TextScoring, BadFilesAreOneLineErrors) {
  const auto dir = test::fresh_temp_dir("score_errors");
  test::write_bytes(dir / "hyp.txt", "a b c\nd e f\n");
  test::write_bytes(dir / "short.txt", "a b c\n");
  test::write_bytes(dir / "empty.txt", "");
  test::write_bytes(dir / "latin1.txt", "a b c\nni\xf1o\n");
  ScoreRequest request;
  request.hypotheses = (dir / "hyp.txt").string();
  request.references = {(dir / "short.txt").string()};
  expect_error(request, "short.txt: 1 lines, but");
  request.references = {(dir / "empty.txt").string()};
  expect_error(request, "empty.txt: empty file");
  request.references = {(dir / "latin1.txt").string()};
  expect_error(request, "latin1.txt:2: not valid UTF-8");
  request.references = {(dir / "missing.txt").string()};
  expect_error(request, "missing.txt");
  request.references.clear();
  expect_error(request, "--ref");
}

}  // namespace
}  // namespace dls::report
