// Running text for a GPT (lm_train --block-size): the stream of tokens, the held-out end,
// the windows and their offsets, what a checkpoint keeps, and the refusals.
#include "dls/data/running_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include <torch/torch.h>

#include "support/outside_needs.h"
#include "util/sentencepiece_available.h"
#include "util/temp_files.h"

namespace dls::data::running_text_test {
namespace {

// Ten lines of 19 characters each with its line break: 190 characters.
const std::string kTenLines =
    "Line 0 of the text\nLine 1 of the text\nLine 2 of the text\nLine 3 of the text\nLine 4 of the text\n"
    "Line 5 of the text\nLine 6 of the text\nLine 7 of the text\nLine 8 of the text\nLine 9 of the text\n";

std::string text_file(const std::string& name, const std::string& bytes) {
  const auto dir = test::fresh_temp_dir("running_text_" + name);
  const auto path = (dir / "text.txt").string();
  test::write_bytes(path, bytes);
  return path;
}

LmDataSettings char_settings(const std::string& path, int block) {
  LmDataSettings settings;
  settings.path = path;
  settings.side = "en";
  settings.char_units = true;
  settings.block_size = block;
  settings.validation_fraction = 0.2;
  return settings;
}

// The characters of window row `row` ([L] ids) of `data`.
std::string window_text(const LmDataset& data, const torch::Tensor& rows, std::int64_t row) {
  std::string text;
  for (std::int64_t i = 0; i < rows.size(1); ++i) text += data.vocabulary.word_at(rows[row][i].item<std::int64_t>());
  return text;
}

TEST(RunningText, CharactersAreCutIntoWindowsAndTheEndIsHeldOut) {
  const auto data = prepare_lm_dataset(char_settings(text_file("chars", kTenLines), 8), nullptr);
  EXPECT_EQ(data.block_size, 8);
  EXPECT_EQ(data.max_len, 9);
  // The last 2 lines (38 of 190 characters) are held out; 152 characters train.
  EXPECT_EQ(data.split.definition.validation_pairs, 2u);
  EXPECT_EQ(data.split.definition.corpus_pairs, 10u);
  ASSERT_EQ(data.train_stream.size(), 152u);
  // Windows of 9 characters, each starting 8 after the previous: (152 - 8) / 8 = 18 of them.
  ASSERT_EQ(data.train.rows.sizes(), (std::vector<std::int64_t>{18, 9}));
  EXPECT_EQ(window_text(data, data.train.rows, 0), "Line 0 of");
  EXPECT_EQ(window_text(data, data.train.rows, 1), "f the tex");
  EXPECT_EQ(window_text(data, data.train.rows, 2), "xt\nLine 1");
  // Validation: the held-out lines at offset 0, (38 - 1) / 8 = 4 windows, 32 predicted characters.
  ASSERT_EQ(data.validation.rows.size(0), 4);
  EXPECT_EQ(window_text(data, data.validation.rows, 0), "Line <unk> of");  // "8" is in no training line
  EXPECT_EQ(data.validation.tokens, 32);
  // Words counted for perplexity per word: word starts and line breaks among the predicted
  // characters: "ine 8 of" starts "8" and "of", " the tex" "the" and "text", "t\nLine 9"
  // has the line break, "Line" and "9", " of the " "of" and "the".
  EXPECT_EQ(data.validation.row_words, (std::vector<std::int64_t>{2, 2, 3, 2}));
  // The vocabulary: the training text's characters after the four specials, "\n" among them.
  EXPECT_EQ(data.vocabulary.word_at(4), "\n");
  EXPECT_TRUE(data.vocabulary.contains("L"));
  EXPECT_FALSE(data.vocabulary.contains("9"));  // only in the held-out lines, as "8" is
  EXPECT_EQ(data.validation.unknown, 2);        // that "8" and "9", predicted once each
}

// A translation corpus (a TSV: English<TAB>Spanish<TAB>attribution) gives the --side
// column's text, as the sentence mode does; it was read whole, every column in one stream.
// --min-count on running text counts the training lines' tokens: each of the digits 0-7 is
// in one line only, so with --min-count 2 they read as <unk>; --max-vocab keeps the most
// frequent.
TEST(RunningText, MinCountAndMaxVocabCountTheTrainingTextsTokens) {
  auto settings = char_settings(text_file("chars_counted", kTenLines), 8);
  settings.min_count = 2;
  const auto data = prepare_lm_dataset(settings, nullptr);
  for (const char* digit : {"0", "1", "7"}) EXPECT_FALSE(data.vocabulary.contains(digit)) << digit;
  EXPECT_TRUE(data.vocabulary.contains("L"));
  EXPECT_EQ(window_text(data, data.train.rows, 0), "Line <unk> of");
  const auto lines = describe_lm_dataset(data, settings);
  EXPECT_NE(lines.back().find("--min-count 2: the vocabulary keeps " +
                              std::to_string(data.vocabulary.size() - Vocabulary::kSpecialCount) +
                              " characters; <unk> in the training text: "),
            std::string::npos)
      << lines.back();
  settings.min_count = 1;
  settings.max_vocab = 3;  // ' ' 32 times, then e and t 24 times each
  const auto three = prepare_lm_dataset(settings, nullptr);
  ASSERT_EQ(three.vocabulary.size(), 3 + Vocabulary::kSpecialCount);
  for (const char* kept : {" ", "e", "t"}) EXPECT_TRUE(three.vocabulary.contains(kept)) << kept;
}

// A vocabulary inherited from --init-from's run: the parent's characters at their indices,
// then the training text's others (extend), or the parent's alone (new ones read as <unk>);
// the start-up lines name the parent and no longer call the vocabulary the training text's.
TEST(RunningText, AnInheritedVocabularyIsTheParentsExtendedAndSaysSo) {
  const auto settings = char_settings(text_file("chars_inherited", kTenLines), 8);
  InheritedLmVocabulary inherited{"parent.pt", true, Vocabulary::build({{"z", "L"}}), {}};
  const auto theirs = inherited.vocabulary.size();
  const auto extended = prepare_lm_dataset(settings, nullptr, &inherited);
  for (const char* kept : {"z", "L"})
    EXPECT_EQ(extended.vocabulary.index_of(kept), inherited.vocabulary.index_of(kept));
  EXPECT_TRUE(extended.vocabulary.contains("e"));
  std::string text;
  for (const auto& line : describe_lm_dataset(extended, settings)) text += line + "\n";
  EXPECT_NE(text.find("vocabulary from parent.pt: the parent's " + std::to_string(theirs) + " characters + " +
                      std::to_string(extended.vocabulary.size() - theirs) + " new"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("vocabulary (with SOS EOS <pad> <unk>): " + std::to_string(extended.vocabulary.size())),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("training text,"), std::string::npos) << text;

  inherited.extend = false;
  const auto alone = prepare_lm_dataset(settings, nullptr, &inherited);
  EXPECT_EQ(alone.vocabulary.size(), theirs);
  EXPECT_NE(alone.inherited_summary.find("(new ones read as <unk>)"), std::string::npos) << alone.inherited_summary;
  EXPECT_TRUE(prepare_lm_dataset(settings, nullptr).inherited_summary.empty());
}

TEST(RunningText, ATsvGivesItsSidesColumn) {
  std::string tsv;
  for (int i = 0; i < 10; ++i) tsv += "Line " + std::to_string(i) + " of the text\tLinea\tCC-BY 2.0 (France)\n";
  auto settings = char_settings(text_file("tsv", tsv), 8);
  const auto english = prepare_lm_dataset(settings, nullptr);
  EXPECT_EQ(english.train_stream.size(), 152u) << "the same characters as the ten lines alone";
  EXPECT_EQ(window_text(english, english.train.rows, 2), "xt\nLine 1");
  EXPECT_NE(english.text_summary.find("(the en column of a TSV)"), std::string::npos) << english.text_summary;
  settings.side = "es";
  const auto spanish = prepare_lm_dataset(settings, nullptr);
  EXPECT_EQ(window_text(spanish, spanish.train.rows, 0), "Linea\nLin");
  EXPECT_FALSE(spanish.vocabulary.contains("(")) << "nothing of the attribution";
  // A text with a stray tab on one line is text.
  const auto text = prepare_lm_dataset(char_settings(text_file("stray_tab", "a\tb\n" + kTenLines), 8), nullptr);
  EXPECT_TRUE(text.vocabulary.contains("\t"));
}

TEST(RunningText, EveryEpochHasItsOwnOffsetAndTheWindowsStayInTheText) {
  std::set<std::int64_t> offsets;
  for (std::int64_t epoch = 1; epoch <= 40; ++epoch) {
    const auto offset = window_offset(7, epoch, 8);
    ASSERT_GE(offset, 0);
    ASSERT_LT(offset, 8);
    EXPECT_EQ(offset, window_offset(7, epoch, 8));  // the same on resume
    offsets.insert(offset);
  }
  EXPECT_GE(offsets.size(), 6u);
  const auto data = prepare_lm_dataset(char_settings(text_file("offsets", kTenLines), 8), nullptr);
  const auto count = training_windows(data.train_stream.size(), 8);
  for (std::int64_t offset = 0; offset < 8; ++offset) {
    const auto rows = text_windows(data.train_stream, data.train_word_marks, 8, offset, count);
    EXPECT_EQ(rows.rows[0][0].item<std::int64_t>(), data.train_stream[static_cast<std::size_t>(offset)]);
    EXPECT_EQ(rows.rows[count - 1][8].item<std::int64_t>(),
              data.train_stream[static_cast<std::size_t>(offset + count * 8)]);
  }
}

TEST(RunningText, WordsEndEachLineWithEos) {
  auto settings = char_settings(text_file("words", kTenLines), 4);
  settings.char_units = false;
  const auto data = prepare_lm_dataset(settings, nullptr);
  // "line 0 of the text" EOS: 6 tokens a line, 8 lines train.
  ASSERT_EQ(data.train_stream.size(), 48u);
  EXPECT_EQ(data.train_stream[5], Vocabulary::kEos);
  EXPECT_EQ(data.vocabulary.word_at(data.train_stream[0]), "line");
  EXPECT_EQ(data.train.rows.size(1), 5);
  // Every word and EOS counts: perplexity per word is perplexity per token.
  EXPECT_EQ(data.validation.words(), data.validation.tokens);
}

// Pieces: a line's pieces then EOS; a word is counted where a piece starts one ("▁").
TEST(RunningText, PiecesCountTheirWordsForPerplexityPerWord) {
  DLS_SKIP_WITHOUT_SENTENCEPIECE();
  std::string text;
  for (int i = 0; i < 60; ++i) text += "the quick brown fox number " + std::to_string(i % 9) + " jumps\n";
  auto settings = char_settings(text_file("pieces", text), 8);
  settings.char_units = false;
  settings.subword_units = true;
  settings.subwords.vocab_size = 40;
  const auto data = prepare_lm_dataset(settings, nullptr);
  ASSERT_TRUE(data.tokenizer.subwords.has_value());
  EXPECT_STREQ(data.tokenizer.unit(), "pieces");
  // Every line: 7 words and its EOS; 48 lines train (the last 12 hold a fifth of the text).
  EXPECT_EQ(data.split.definition.validation_pairs, 12u);
  std::int64_t counted = 0;
  for (const auto mark : data.train_word_marks) counted += mark;
  EXPECT_EQ(counted, 48 * 8);
  EXPECT_GT(static_cast<std::int64_t>(data.train_stream.size()), counted);  // more pieces than words
  EXPECT_EQ(std::count(data.train_stream.begin(), data.train_stream.end(), Vocabulary::kEos), 48);
}

TEST(RunningText, StoredDataRedoesTheRunAndAnotherTextIsRefused) {
  const auto path = text_file("stored", kTenLines);
  const auto fresh = prepare_lm_dataset(char_settings(path, 8), nullptr);
  const LmStoredData stored{fresh.split.definition, fresh.tokenizer, fresh.vocabulary, fresh.max_len};
  auto other = char_settings(path, 8);
  other.validation_fraction = 0.5;  // the stored split wins
  const auto again = prepare_lm_dataset(other, &stored);
  EXPECT_EQ(again.train_stream, fresh.train_stream);
  EXPECT_TRUE(torch::equal(again.validation.rows, fresh.validation.rows));
  const auto changed = text_file("changed", kTenLines.substr(0, kTenLines.size() - 2) + "X\n");
  try {
    prepare_lm_dataset(char_settings(changed, 8), &stored);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not the text the run trained on (it had 10 lines, this file has 10, with "
                                         "other contents)"),
              std::string::npos)
        << e.what();
  }
  try {
    prepare_lm_dataset(char_settings(path, 16), &stored);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("the run's windows are 9 tokens, --block-size 16 asks 17"), std::string::npos)
        << e.what();
  }
}

TEST(RunningText, BadTextsAreOneLineNamingTheFile) {
  const auto expect_error = [](const std::string& bytes, int block, const std::string& part) {
    const auto path = text_file("bad", bytes);
    try {
      prepare_lm_dataset(char_settings(path, block), nullptr);
      ADD_FAILURE() << "no error; expected " << part;
    } catch (const std::runtime_error& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
      EXPECT_NE(message.find(part), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  };
  expect_error("", 8, "no text (empty, or blank lines only)");
  expect_error("\n  \n\n", 8, "no text");
  expect_error("fine\nbad \xC3\x28 byte\n", 8, "line 2 is not valid UTF-8");
  expect_error(kTenLines, 200, "the training text is 152 characters, too short for windows of --block-size 200");
  expect_error(kTenLines, 64, "the held-out text is 38 characters, less than one window of --block-size 64");
  // One line: nothing to hold out (it trained without validation, perplexity nan).
  std::string one_line;
  for (int i = 0; i < 50; ++i) one_line += "the words of one long line ";
  expect_error(one_line + "\n", 8, "the text is one line: none can be held out");
  // A few title lines, then the text on one line: the last line is most of it (it trained on
  // the titles); blank lines around it change nothing.
  expect_error("A Title\nby Someone\n\n" + one_line + "\n\n\n", 8, "line(s) hold ");
  auto without_validation = char_settings(text_file("one_line", one_line), 8);
  without_validation.validation_fraction = 0;
  EXPECT_NO_THROW(prepare_lm_dataset(without_validation, nullptr));
}

TEST(RunningText, CharactersOfSentencesRoundTrip) {
  LmTokenizer tokenizer;
  tokenizer.characters = true;
  const std::vector<std::string> words{"él", "dijo", "¿qué?"};
  const auto tokens = tokenizer.tokens(words);
  EXPECT_EQ(tokens.size(), 13u);
  EXPECT_EQ(tokens[0], "é");
  EXPECT_EQ(tokens[2], " ");
  EXPECT_EQ(tokenizer.words(tokens), words);
  EXPECT_STREQ(tokenizer.unit(), "characters");
}

// The demo corpus: the Jargon File as Debian's jargon-text installs it (gzip-compressed).
TEST(RunningText, TheJargonFileIsADemoCorpus) {
  const std::string jargon = "/usr/share/doc/jargon-text/jargon.txt.gz";
  DLS_REQUIRE_OUTSIDE(jargon);
  LmDataSettings settings = char_settings(jargon, 256);
  settings.validation_fraction = 0.1;
  const auto data = prepare_lm_dataset(settings, nullptr);
  EXPECT_GT(data.train_stream.size(), 1000000u);
  EXPECT_LT(data.vocabulary.size(), 300);  // characters, not words
  const double held_out =
      static_cast<double>(data.validation.tokens) /
      static_cast<double>(data.validation.tokens + static_cast<std::int64_t>(data.train_stream.size()));
  EXPECT_NEAR(held_out, 0.1, 0.01);
  EXPECT_LT(data.validation.unknown_rate(), 0.001);
}

}  // namespace
}  // namespace dls::data::running_text_test
