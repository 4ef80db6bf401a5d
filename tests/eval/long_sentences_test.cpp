// eval/long_sentences.h: where a sentence too long for the dlstudio layout is cut (sentence
// ends, then clause marks, then the word limit), that no part is over the limit and the parts
// keep the sentence's order, how their translations are joined, and how far a long sentence
// is decoded whole.
#include "dls/eval/long_sentences.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "dls/data/normalize.h"

namespace dls::eval {
namespace {

using Words = std::vector<std::string>;

const Tokenize kEnglishWords = [](std::string_view text) { return data::normalize_english(text); };

// Every part within the limit, and the parts' tokens, one after another, the text's.
void expect_parts_cover(const SplitSource& split, std::string_view text, std::size_t limit) {
  Words joined;
  for (const auto& part : split.parts) {
    EXPECT_LE(part.tokens.size(), limit) << data::join_words(part.tokens);
    EXPECT_FALSE(part.tokens.empty());
    EXPECT_LT(part.sentence, split.sentences.size());
    joined.insert(joined.end(), part.tokens.begin(), part.tokens.end());
  }
  EXPECT_EQ(joined, kEnglishWords(text));
}

TEST(SplitSentences, CutAfterClosingMarksFollowedByASpace) {
  EXPECT_EQ(split_sentences("I came home. I slept!  Did you?Yes... no"),
            (Words{"I came home.", "I slept!", "Did you?Yes...", "no"}));
  EXPECT_EQ(split_sentences("It costs 3.5 euros. See example.com now"),
            (Words{"It costs 3.5 euros.", "See example.com now"}));
  EXPECT_EQ(split_sentences("He said \"go home.\" Then he left."), (Words{"He said \"go home.\"", "Then he left."}));
  EXPECT_EQ(split_sentences("我来了。你好！好"), (Words{"我来了。", "你好！", "好"}));
  EXPECT_EQ(split_sentences("  no mark at all  "), (Words{"no mark at all"}));
  EXPECT_TRUE(split_sentences("   ").empty());
}

TEST(SplitClauses, CutAfterClauseMarksButNotInsideNumbers) {
  EXPECT_EQ(split_clauses("When I came home, I slept; then I ate: bread, cheese."),
            (Words{"When I came home,", "I slept;", "then I ate:", "bread,", "cheese."}));
  EXPECT_EQ(split_clauses("3,000 people came at 7:30."), (Words{"3,000 people came at 7:30."}));
  EXPECT_EQ(split_clauses("yes\u2014no - maybe"), (Words{"yes\u2014", "no -", "maybe"}));
  EXPECT_EQ(split_clauses("well-known"), (Words{"well-known"}));
}

TEST(SplitToFit, ATextThatFitsIsOnePart) {
  const auto split = split_to_fit("I came home. I slept.", kEnglishWords, 8);
  ASSERT_EQ(split.parts.size(), 1u);
  EXPECT_EQ(split.parts[0].tokens, (Words{"i", "came", "home", "i", "slept"}));
  EXPECT_FALSE(split.at_sentences || split.at_clauses || split.at_word_limit);
}

TEST(SplitToFit, SentencesFirstAndNeverPutTogether) {
  const std::string text = "I want to go home now. She does not want the red car. We eat.";
  const auto split = split_to_fit(text, kEnglishWords, 8);
  ASSERT_EQ(split.sentences.size(), 3u);
  ASSERT_EQ(split.parts.size(), 3u);  // "We eat." would fit beside the second, but is a sentence of its own
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(split.parts[i].sentence, i);
    EXPECT_EQ(split.parts[i].mark, "");
  }
  EXPECT_TRUE(split.at_sentences);
  EXPECT_FALSE(split.at_clauses || split.at_word_limit);
  expect_parts_cover(split, text, 8);
}

TEST(SplitToFit, ThenClausesAsManyTogetherAsFit) {
  const std::string text = "When I came home yesterday, I was tired, so I slept, and then I ate some bread.";
  const auto split = split_to_fit(text, kEnglishWords, 8);
  ASSERT_EQ(split.parts.size(), 3u);
  EXPECT_EQ(split.parts[0].tokens.size(), 8u);  // "when i came home yesterday" + "i was tired"
  EXPECT_EQ(split.parts[0].mark, ",");
  EXPECT_EQ(split.parts[1].tokens, (Words{"so", "i", "slept"}));
  EXPECT_EQ(split.parts[1].mark, ",");
  EXPECT_EQ(split.parts[2].mark, "");  // the sentence's end
  EXPECT_TRUE(split.at_clauses);
  EXPECT_FALSE(split.at_sentences || split.at_word_limit);
  expect_parts_cover(split, text, 8);
}

TEST(SplitToFit, AClauseOverTheLimitIsCutIntoPartsOfAboutEqualSize) {
  const std::string text =
      "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
      "eighteen nineteen twenty";
  const auto split = split_to_fit(text, kEnglishWords, 8);
  ASSERT_EQ(split.parts.size(), 3u);
  EXPECT_EQ(split.parts[0].tokens.size(), 7u);
  EXPECT_EQ(split.parts[1].tokens.size(), 7u);
  EXPECT_EQ(split.parts[2].tokens.size(), 6u);
  EXPECT_TRUE(split.at_word_limit);
  expect_parts_cover(split, text, 8);
  // A word that normalises to several ("wouldn't" -> "would not") is never cut in two.
  const std::string contractions =
      "I wouldn't go, they couldn't come and we shouldn't stay there when it's late at night";
  const auto parts = split_to_fit(contractions, kEnglishWords, 5);
  expect_parts_cover(parts, contractions, 5);
  EXPECT_EQ(parts.parts[0].tokens, (Words{"i", "would", "not", "go"}));
}

TEST(SplitToFit, AWordOfMoreTokensThanTheLimitIsCutIntoRuns) {
  // Subword pieces, here one per letter.
  const Tokenize letters = [](std::string_view text) {
    Words out;
    for (const char c : text) {
      if (c != ' ') out.emplace_back(1, c);
    }
    return out;
  };
  const auto split = split_to_fit("ab supercalifragilistic", letters, 8);
  std::vector<std::size_t> sizes;
  for (const auto& part : split.parts) sizes.push_back(part.tokens.size());
  EXPECT_EQ(sizes, (std::vector<std::size_t>{2, 6, 7, 7}));
  EXPECT_THROW(split_to_fit("a", letters, 0), std::invalid_argument);
}

TEST(SplitToFit, NoPartIsOverTheLimitWhateverTheText) {
  const std::vector<std::string> texts = {
      "Tom, Mary, John, Alice, Bob, Carol, Dave, Eve, Frank, Grace and Heidi came; we ate: bread, cheese, "
      "apples, pears. Why? Because!",
      "it is late and i want to go home because tomorrow i have to get up very early for work",
      "\"Stop,\" he said, \"or I will call the police, the army and the fire brigade right now.\"",
  };
  for (const std::size_t limit : {1u, 3u, 8u}) {
    for (const auto& text : texts) expect_parts_cover(split_to_fit(text, kEnglishWords, limit), text, limit);
  }
}

TEST(JoinParts, EachSentenceClosedAsItsSourceAndClauseMarksKept) {
  const std::string text = "When I came home, I was tired. Where is the dog?";
  const auto split = split_to_fit(text, kEnglishWords, 4);
  ASSERT_EQ(split.parts.size(), 3u);
  const std::vector<Words> words = {
      {"cuando", "llegué", "a", "casa"}, {"estaba", "cansado"}, {"dónde", "está", "el", "perro"}};
  EXPECT_EQ(join_parts(split, words, "en", "es"), "Cuando llegué a casa, estaba cansado. ¿Dónde está el perro?");
  // A part the model wrote nothing for leaves no mark behind.
  EXPECT_EQ(join_parts(split, {{}, {"estaba", "cansado"}, {"dónde"}}, "en", "es"), "Estaba cansado. ¿Dónde?");
  EXPECT_THROW(join_parts(split, {{"a"}}, "en", "es"), std::invalid_argument);
}

TEST(DecodePositions, AsTrainedWithinTheTrainingLengthRelativeToTheSourceBeyond) {
  EXPECT_EQ(decode_positions(3, 10), 10);
  EXPECT_EQ(decode_positions(8, 10), 10);
  EXPECT_EQ(decode_positions(9, 10), 2 + 14 + 10);  // SOS, EOS, ceil(1.5 * 9) + 10 words
  EXPECT_EQ(decode_positions(20, 10), 2 + 30 + 10);
}

}  // namespace
}  // namespace dls::eval
