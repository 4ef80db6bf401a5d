#include "dls/data/sentence_corpus.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "util/temp_files.h"

namespace dls::data {
namespace {

std::string sentence_file(const std::string& name, const std::string& text) {
  const auto path = test::fresh_temp_dir("sentence_corpus_" + name) / "sentences";
  test::write_bytes(path, text);
  return path.string();
}

TEST(SentenceCorpus, PlainTextOneSentencePerLine) {
  const auto corpus = read_sentence_corpus(
      sentence_file("text", "¡Hola, Mundo!\n\n  \nuno dos tres cuatro\n...\nÉl está aquí.\r\n"), Language::kSpanish, 3);
  EXPECT_EQ(corpus.format, "text");
  EXPECT_EQ(corpus.lines_read, 4u);  // blank lines are not counted
  EXPECT_EQ(corpus.too_long, 1u);
  EXPECT_EQ(corpus.empty, 1u);
  ASSERT_EQ(corpus.sentences.size(), 2u);
  EXPECT_EQ(corpus.sentences[0], (std::vector<std::string>{"hola", "mundo"}));
  EXPECT_EQ(corpus.sentences[1], (std::vector<std::string>{"él", "está", "aquí"}));
}

TEST(SentenceCorpus, OneSideOfATsvCorpus) {
  const std::string tsv = "I'm hungry!\t¡Tengo hambre!\nGo.\tVe.\nOne two three four.\tUno.\n";
  const auto es = read_sentence_corpus(sentence_file("tsv_es", tsv), Language::kSpanish, 3);
  EXPECT_EQ(es.format, "TSV file");
  ASSERT_EQ(es.sentences.size(), 3u);  // the length limit looks at the chosen side only
  EXPECT_EQ(es.sentences[0], (std::vector<std::string>{"tengo", "hambre"}));
  const auto en = read_sentence_corpus(sentence_file("tsv_en", tsv), Language::kEnglish, 3);
  ASSERT_EQ(en.sentences.size(), 2u);
  EXPECT_EQ(en.too_long, 1u);
  EXPECT_EQ(en.sentences[0], (std::vector<std::string>{"i", "am", "hungry"}));  // English contractions
}

// A stray tab does not make a text a TSV file (which kept one sentence of three); a line
// that is not UTF-8 is counted as unusable, as a TSV file's is, not read with U+FFFD.
TEST(SentenceCorpus, AStrayTabLeavesATextAText) {
  const auto corpus = read_sentence_corpus(
      sentence_file("stray_tab", "Ella dijo:\t\"hola\"\nuno dos\ntres cuatro\nmal \xff\xfe aqu\xed\n"),
      Language::kSpanish, 8);
  EXPECT_EQ(corpus.format, "text");
  EXPECT_EQ(corpus.lines_read, 4u);
  EXPECT_EQ(corpus.empty, 1u);
  ASSERT_EQ(corpus.sentences.size(), 3u);
  EXPECT_EQ(corpus.sentences[0], (std::vector<std::string>{"ella", "dijo", "hola"}));
  // Half the lines with a tab or more: a TSV file, whose lines without one are malformed.
  const auto tsv = read_sentence_corpus(sentence_file("half_tsv", "Go.\tVe.\nuno dos\n"), Language::kSpanish, 8);
  EXPECT_EQ(tsv.format, "TSV file");
  EXPECT_EQ(tsv.sentences.size(), 1u);
}

TEST(SentenceCorpus, NoUsableSentenceIsAnErrorNamingTheFile) {
  const auto path = sentence_file("none", "...\n!!!\n");
  try {
    read_sentence_corpus(path, Language::kSpanish, 8);
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find(path), std::string::npos) << error.what();
  }
  EXPECT_THROW(parse_side("fr"), std::invalid_argument);
  EXPECT_EQ(side_name(parse_side("en")), "en");
}

}  // namespace
}  // namespace dls::data
