// The display form of a translation: capitalised, with the source's closing mark.
#include "dls/data/detokenize.h"

#include <gtest/gtest.h>

namespace dls::data {
namespace {

TEST(Detokenize, CapitalisesAndRepeatsTheSourcesClosingMark) {
  EXPECT_EQ(detokenize({"tengo", "hambre"}, "I am hungry.", Language::kSpanish), "Tengo hambre.");
  EXPECT_EQ(detokenize({"tengo", "hambre"}, "I am hungry", Language::kSpanish), "Tengo hambre");
  EXPECT_EQ(detokenize({"tengo", "hambre"}, "I am hungry!  ", Language::kSpanish), "\xC2\xA1Tengo hambre!");
  EXPECT_EQ(detokenize({"tengo", "hambre"}, "I am hungry…", Language::kSpanish), "Tengo hambre…");
  EXPECT_EQ(detokenize({"i", "am"}, "Tengo hambre?", Language::kEnglish), "I am?") << "no ¿ outside Spanish";
}

TEST(Detokenize, QuestionsGetSpanishsOpeningMarkAndAccentedCapitals) {
  EXPECT_EQ(detokenize({"dónde", "está", "mi", "perro"}, "Where is my dog?", Language::kSpanish),
            "\xC2\xBF"
            "D\xC3\xB3nde est\xC3\xA1 mi perro?");
  EXPECT_EQ(detokenize({"él", "es", "alto"}, "\"He is tall.\"", Language::kSpanish), "\xC3\x89l es alto.")
      << "a closing quote is looked through; é capitalises to É";
}

TEST(Detokenize, NothingToShowForNoWords) { EXPECT_EQ(detokenize({}, "Hello.", Language::kSpanish), ""); }

}  // namespace
}  // namespace dls::data
