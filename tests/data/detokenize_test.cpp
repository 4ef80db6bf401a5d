// The display form of a translation: capitalised, closed as the source sentence, in the
// target language's writing.
#include "dls/data/detokenize.h"

#include <gtest/gtest.h>

namespace dls::data {
namespace {

TEST(Detokenize, CapitalisesAndRepeatsTheSourcesClosingMark) {
  EXPECT_EQ(detokenize({"tengo", "hambre"}, "I am hungry.", "en", "es"), "Tengo hambre.");
  EXPECT_EQ(detokenize({"tengo", "hambre"}, "I am hungry", "en", "es"), "Tengo hambre");
  EXPECT_EQ(detokenize({"tengo", "hambre"}, "I am hungry!  ", "en", "es"), "¡Tengo hambre!");
  EXPECT_EQ(detokenize({"tengo", "hambre"}, "I am hungry…", "en", "es"), "Tengo hambre…");
  EXPECT_EQ(detokenize({"i", "am"}, "Tengo hambre?", "es", "en"), "I am?") << "no ¿ outside Spanish";
  EXPECT_EQ(detokenize({"i", "am"}, "Tengo hambre?", "spa", "eng"), "I am?") << "three-letter codes";
}

TEST(Detokenize, QuestionsGetSpanishsOpeningMarkAndAccentedCapitals) {
  EXPECT_EQ(detokenize({"dónde", "está", "mi", "perro"}, "Where is my dog?", "en", "es"), "¿Dónde está mi perro?");
  EXPECT_EQ(detokenize({"él", "es", "alto"}, "\"He is tall.\"", "en", "es"), "Él es alto.")
      << "a closing quote is looked through; é capitalises to É";
}

// Names, places and acronyms keep the capitals the source writes them with inside a sentence;
// a sentence's first word, single letters and German nouns do not lend theirs.
TEST(Detokenize, WordsTheSourceCapitalisesInsideASentenceKeepTheirCapitals) {
  EXPECT_EQ(detokenize({"vi", "a", "tom", "en", "boston"}, "I saw Tom in Boston.", "en", "es"), "Vi a Tom en Boston.");
  EXPECT_EQ(detokenize({"tom", "trabaja", "para", "la", "nasa"}, "Tom works for \"NASA\".", "en", "es"),
            "Tom trabaja para la NASA.")
      << "the first word capitalised as the sentence's; quotes are not part of the word";
  EXPECT_EQ(detokenize({"no", "sé", "no"}, "No, I do not know.", "en", "es"), "No sé no.")
      << "a sentence-initial capital lends nothing";
  EXPECT_EQ(detokenize({"vine", "the", "end"}, "I came. The end.", "en", "es"), "Vine the end.")
      << "nor the first word of a second sentence";
  EXPECT_EQ(detokenize({"ieri", "ho", "visto", "i", "cani"}, "Yesterday I saw the dogs.", "en", "it"),
            "Ieri ho visto i cani.")
      << "English 'I' is not a name";
  EXPECT_EQ(detokenize({"i", "play", "tennis"}, "Ich spiele Tennis.", "de", "en"), "I play tennis.")
      << "German capitalises every noun";
  EXPECT_EQ(detokenize({"j", "aime", "anne"}, "I love Anne.", "en", "fr"), "J'aime Anne.");
  EXPECT_EQ(detokenize({"es", "de", "émile"}, "It is Émile's, not ÉMILE.", "en", "es"), "Es de ÉMILE.")
      << "\"Émile's\" is two words; the one that is a word lends its capitals, accented ones too";
  EXPECT_EQ(detokenize({"tengo", "3000"}, "I have 3,000.", "en", "es"), "Tengo 3000.") << "not a case difference";
}

// A title's or an initial's period ends no sentence, so the name after it keeps its capitals.
TEST(Detokenize, ANameAfterATitleOrAnInitialKeepsItsCapitals) {
  EXPECT_EQ(detokenize({"conocí", "al", "señor", "smith"}, "I met Mr. Smith.", "en", "es"), "Conocí al señor Smith.");
  EXPECT_EQ(detokenize({"la", "sra", "lópez", "viene"}, "Mrs. López is coming.", "en", "es"), "La sra López viene.");
  EXPECT_EQ(detokenize({"leí", "a", "j", "rowling"}, "I read J. Rowling.", "en", "es"), "Leí a j Rowling.")
      << "an initial";
  EXPECT_EQ(detokenize({"es", "el", "plan", "b", "the", "end"}, "It is plan b. The end.", "en", "es"),
            "Es el plan b the end.")
      << "a small letter's period ends its sentence";
}

// Every script's closing marks are read, and the target's own are written (they all ended in
// ASCII . ? ! before, and a source ending in 。 ؟ । ; ended in none).
TEST(Detokenize, TheEndingIsReadAndWrittenInEachScript) {
  EXPECT_EQ(detokenize({"πού", "είναι", "ο", "δρόμος"}, "Where is the road?", "en", "el"), "Πού είναι ο δρόμος;");
  EXPECT_EQ(detokenize({"where", "is", "the", "road"}, "Πού είναι ο δρόμος;", "el", "en"), "Where is the road?");
  EXPECT_EQ(detokenize({"and", "then"}, "Und dann;", "de", "en"), "And then") << "';' is a question only in Greek";
  EXPECT_EQ(detokenize({"أين", "الكتاب"}, "Where is the book?", "en", "ar"), "أين الكتاب؟");
  EXPECT_EQ(detokenize({"where", "is", "the", "book"}, "أين الكتاب؟", "ar", "en"), "Where is the book?");
  EXPECT_EQ(detokenize({"यह", "चाय", "है"}, "This is the tea.", "en", "hi"), "यह चाय है।");
  EXPECT_EQ(detokenize({"this", "is", "the", "tea"}, "यह चाय है।", "hi", "en"), "This is the tea.");
  EXPECT_EQ(detokenize({"你今天喜欢猫吗"}, "Do you like cats today?", "en", "zh"), "你今天喜欢猫吗？");
  EXPECT_EQ(detokenize({"do", "you", "like", "cats"}, "你喜欢猫吗？", "zh", "en"), "Do you like cats?");
  EXPECT_EQ(detokenize({"it", "is", "good"}, "「いいです。」", "ja", "en"), "It is good.") << "a closing 」";
  EXPECT_EQ(detokenize({"好"}, "Good!", "en", "zh"), "好！");
}

// The capital a sentence starts with, as the target language writes it.
TEST(Detokenize, TheFirstLetterAsEachLanguageCapitalisesIt) {
  EXPECT_EQ(detokenize({"izmir", "eski"}, "Izmir is old.", "en", "tr"), "İzmir eski.");
  EXPECT_EQ(detokenize({"სად", "არის", "სახლი"}, "Where is the house?", "en", "ka"), "სად არის სახლი?")
      << "Georgian has no sentence capitals";
  EXPECT_EQ(detokenize({"ǆep"}, "x.", "en", "hr"), "ǅep.") << "a digraph's titlecase, not its uppercase";
}

// French, Italian and Catalan elisions come back; the apostrophe normalisation parted.
TEST(Detokenize, ElisionsAreJoinedAgain) {
  EXPECT_EQ(detokenize({"j", "aime", "l", "homme", "aujourd", "hui"}, "I like the man today.", "en", "fr"),
            "J'aime l'homme aujourd'hui.");
  EXPECT_EQ(detokenize({"c", "est", "l", "eau", "de", "la", "vie"}, "x.", "en", "fr"), "C'est l'eau de la vie.");
  EXPECT_EQ(detokenize({"le", "livre", "d", "or"}, "x", "en", "fr"), "Le livre d'or");
  EXPECT_EQ(detokenize({"l", "livre"}, "x", "en", "fr"), "L livre") << "only before a vowel or h";
  EXPECT_EQ(detokenize({"dell", "acqua"}, "x", "en", "it"), "Dell'acqua");
  EXPECT_EQ(detokenize({"quelqu", "un"}, "x", "en", "fr"), "Quelqu'un");
  EXPECT_EQ(detokenize({"quest", "anno"}, "x", "en", "it"), "Quest'anno");
  EXPECT_EQ(detokenize({"un", "amico"}, "x", "en", "it"), "Un amico") << "un before a vowel is no elision";
  EXPECT_EQ(detokenize({"l", "home"}, "x", "en", "ca"), "L'home");
  EXPECT_EQ(detokenize({"l", "homme"}, "x", "en", "es"), "L homme") << "only in those languages";
}

TEST(Detokenize, NothingToShowForNoWords) { EXPECT_EQ(detokenize({}, "Hello.", "en", "es"), ""); }

}  // namespace
}  // namespace dls::data
