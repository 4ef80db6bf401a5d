#include "dls/data/normalize.h"

#include <gtest/gtest.h>

#include <string>

namespace dls::data {
namespace {

std::string en(std::string_view text) { return join_words(normalize_english(text)); }
std::string es(std::string_view text) { return join_words(normalize_spanish(text)); }

TEST(Normalize, LowercasesAndStripsPunctuation) {
  EXPECT_EQ(en("Go."), "go");
  EXPECT_EQ(en("Tom, come here!"), "tom come here");
  EXPECT_EQ(es("¿Dónde está la estación?"), "dónde está la estación");
  EXPECT_EQ(es("¡Corre!"), "corre");
  EXPECT_EQ(es("«Hola», dijo…"), "hola dijo");
  EXPECT_EQ(en("“Really?” — “Yes.”"), "really yes");
  EXPECT_EQ(en("(a) [b] {c} <d> e/f g;h i:j k@l m#n"), "a b c d e f g h i j k l m n");
}

TEST(Normalize, CapitalAccentedLettersBecomeSmall) {
  EXPECT_EQ(es("ÉL ES ÁLVARO, EL ÑANDÚ DE ÓSCAR"), "él es álvaro el ñandú de óscar");
  EXPECT_EQ(es("PINGÜINO Ínsula Úrsula"), "pingüino ínsula úrsula");
  EXPECT_EQ(es("ŁÓDŹ ČEŠKÁ"), "łódź češká");
}

TEST(Normalize, ExpandsEnglishContractions) {
  EXPECT_EQ(en("It's I'm don't"), "it is i am do not");
  EXPECT_EQ(en("I can't, I won't."), "i cannot i will not");
  EXPECT_EQ(en("You're we're they're"), "you are we are they are");
  EXPECT_EQ(en("He's she's that's there's what's"), "he is she is that is there is what is");
  EXPECT_EQ(en("Let's go"), "let us go");
  EXPECT_EQ(en("I'll you've he'd isn't doesn't"), "i will you have he would is not does not");
  EXPECT_EQ(en("wouldn't've shan't ain't y'all"), "would not have shall not is not you all");
  EXPECT_EQ(en("Who's where's how's here's"), "who is where is how is here is");
}

TEST(Normalize, CurlyApostrophesCountAsApostrophes) {
  EXPECT_EQ(en("It’s Tom’s and I‘m"), "it is toms and i am");
  EXPECT_EQ(en("Let’s drink, I can’t"), "let us drink i cannot");
}

TEST(Normalize, OtherApostrophesAndHyphens) {
  // A possessive loses its apostrophe; a hyphen separates words.
  EXPECT_EQ(en("John's car at 5 o'clock"), "johns car at 5 oclock");
  EXPECT_EQ(en("He's dead-tired, a well-known fact"), "he is dead tired a well known fact");
  EXPECT_EQ(en("'quoted' words''"), "quoted words");
  EXPECT_EQ(es("l'été d'Anna"), "lété danna");
  EXPECT_EQ(es("Una Coca-Cola"), "una coca cola");
  // Spanish words are never expanded.
  EXPECT_EQ(es("don't"), "dont");
}

TEST(Normalize, DigitsAndNumbers) {
  EXPECT_EQ(en("I owe you 3,000 yen."), "i owe you 3000 yen");
  EXPECT_EQ(es("Te debo 3.000 yenes."), "te debo 3000 yenes");
  EXPECT_EQ(en("At 7:30, 2 or 3."), "at 7 30 2 or 3");
  EXPECT_EQ(en("50% off, $10."), "50 off 10");
  EXPECT_EQ(es("su 70º cumpleaños, a 0°C"), "su 70º cumpleaños a 0 c");
}

TEST(Normalize, WhitespaceIsCollapsed) {
  EXPECT_EQ(en("  many \t spaces\u00a0here\r\n"), "many spaces here");
  EXPECT_EQ(es("zero\u200bwidth"), "zerowidth");
  EXPECT_TRUE(normalize_english("  ... !? ").empty());
  EXPECT_TRUE(normalize_spanish("").empty());
  const auto words = normalize_english(" a  b ");
  ASSERT_EQ(words.size(), 2u);
  EXPECT_EQ(words[0], "a");
  EXPECT_EQ(words[1], "b");
}

TEST(Normalize, IsIdempotentOnNormalisedText) {
  for (const char* text : {"I can't do it, it's Tom's.", "¿Qué hora es, ÁLVARO?"}) {
    const std::string once = en(text);
    EXPECT_EQ(en(once), once);
  }
}

TEST(Normalize, AppendingOverloadKeepsEarlierWords) {
  std::vector<std::string> words = {"x"};
  normalize_words("Hi there", Language::kEnglish, words);
  EXPECT_EQ(join_words(words), "x hi there");
}

}  // namespace
}  // namespace dls::data
