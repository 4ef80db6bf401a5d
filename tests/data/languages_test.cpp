// Languages by ISO code: names for printouts, normalisation rules per language (Unicode-correct
// in any script), and which languages need subword units.
#include "dls/data/languages.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "dls/data/normalize.h"

namespace dls::data {
namespace {

TEST(Languages, NamesAndRulesByCode) {
  const std::pair<const char*, const char*> codes_and_names[] = {
      {"en", "English"}, {"es", "Spanish"}, {"de", "German"}, {"el", "Greek"}};
  for (const auto& [code, name] : codes_and_names) EXPECT_EQ(language_name(code), name);
  EXPECT_EQ(language_name("xx"), "xx") << "an unknown code prints as itself";
  EXPECT_EQ(language_label("ru"), "russian");
  EXPECT_EQ(language_rules("en"), Language::kEnglish);
  EXPECT_EQ(language_rules("es"), Language::kSpanish);
  EXPECT_EQ(language_rules("fr"), Language::kElision);
  EXPECT_EQ(language_rules("ru"), Language::kOther);
  EXPECT_EQ(language_rules("tr"), Language::kTurkish);
  EXPECT_EQ(language_rules("tur"), Language::kTurkish);
  EXPECT_EQ(language_rules("aze"), Language::kTurkish);
  EXPECT_EQ(base_language("urd"), "ur");
  EXPECT_TRUE(written_without_spaces("ja"));
  EXPECT_TRUE(written_without_spaces("zh"));
  EXPECT_FALSE(written_without_spaces("ko")) << "Korean separates its words by spaces";
  EXPECT_FALSE(written_without_spaces("de"));
  // Three-letter codes of ISO 639-2 and 639-3 are their languages, rules included ("eng" took
  // no contractions, "jpn" and "cmn" passed as written with spaces).
  EXPECT_EQ(language_name("spa"), "Spanish");
  EXPECT_EQ(language_name("ger"), "German");
  EXPECT_EQ(language_rules("eng"), Language::kEnglish);
  EXPECT_EQ(language_rules("fra"), Language::kElision);
  for (const char* code : {"jpn", "zho", "chi", "cmn", "tha"}) EXPECT_TRUE(written_without_spaces(code)) << code;
  EXPECT_EQ(language_name("ast"), "ast") << "a code the table does not know prints as itself";
}

// Parallel files named by language (train.de, news.es.gz) give their codes; other
// extensions (.txt, .tsv, a code the table does not know) give none.
TEST(Languages, FileNamesGiveTheirLanguage) {
  const std::pair<const char*, const char*> files_and_codes[] = {
      {"train.es", "es"},
      {"/data/europarl/news-commentary.de", "de"},
      {"corpus/train.en.gz", "en"},
      {"train.txt", ""},
      {"pairs.tsv", ""},
      {"train.xx", ""},  // not a code of the table
      {"train.gz", ""},
      {"de", ""},
      {".de", ""},          // a hidden file's name, not an extension
      {"dir.de/train", ""}  // the file's own name counts, not its folder's
  };
  for (const auto& [file, code] : files_and_codes) EXPECT_EQ(language_of_file(file), code) << file;
}

// A TSV corpus's name gives its pair by its last two parts, or Tatoeba's one code (English,
// then that language); anything else, none.
TEST(Languages, ACorpusFilesNameGivesItsPair) {
  const std::vector<std::tuple<std::string, std::string, std::string>> files_and_pairs = {
      {"data/de_en.tsv", "de", "en"},
      {"sample_en_es.tsv", "en", "es"},
      {"news.fr-en.tsv.gz", "fr", "en"},
      {"/data/spa-eng/spa.txt", "en", "es"},
      {"deu.txt", "en", "de"},
      {"eng.txt", "", ""},               // English alone says no pair
      {"corpus.tsv", "", ""},            // no code
      {"pairs_de.tsv", "", ""},          // one code
      {"en_xx.tsv", "", ""},             // a code printouts do not know
      {"en_es_8_90000.tar.gz", "", ""},  // DLStudio's archive: codes, but not last
  };
  for (const auto& [file, src, tgt] : files_and_pairs) {
    const auto pair = languages_of_corpus_file(file);
    EXPECT_EQ(pair.src, src) << file;
    EXPECT_EQ(pair.tgt, tgt) << file;
  }
}

TEST(Languages, CodesAreTwoOrThreeLowercaseLetters) {
  EXPECT_NO_THROW(check_language_code("de", "--src-lang"));
  EXPECT_NO_THROW(check_language_code("ast", "--src-lang"));
  for (const char* bad : {"", "e", "EN", "english", "e1", "pt-BR"}) {
    try {
      check_language_code(bad, "--tgt-lang");
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--tgt-lang: '" + std::string(bad) + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(Languages, NormalisationKeepsEveryScriptsLetters) {
  // German: umlauts and ß kept, capitals lowered (ẞ's simple lowercase is ß).
  EXPECT_EQ(join_words(normalize_words("Der Käse ist SÜẞ, nicht böse!", language_rules("de"))),
            "der käse ist süß nicht böse");
  // Russian: Cyrillic lowered; ё kept apart from е.
  EXPECT_EQ(join_words(normalize_words("Где ЁЛКА? Это дом.", language_rules("ru"))), "где ёлка это дом");
  // Greek: the question mark ';' separates, accents kept, a capital final Σ becomes ς.
  EXPECT_EQ(join_words(normalize_words("Πού είναι ο ΔΡΟΜΟΣ;", language_rules("el"))), "πού είναι ο δρομος");
  // French: an elision's apostrophe ends a word (Spanish rules would glue "lhomme").
  EXPECT_EQ(join_words(normalize_words("L'homme d’affaires", language_rules("fr"))), "l homme d affaires");
  EXPECT_EQ(join_words(normalize_words("L'homme", Language::kSpanish)), "lhomme");
  // Japanese: no spaces, so a clause between punctuation marks is one "word".
  EXPECT_EQ(normalize_words("これは家です。家はどこですか？", language_rules("ja")).size(), 2u);
  // English keeps its contractions rule; another language does not expand "n't".
  EXPECT_EQ(join_words(normalize_words("I can't", language_rules("en"))), "i cannot");
  EXPECT_EQ(join_words(normalize_words("I can't", language_rules("de"))), "i cant");
}

}  // namespace
}  // namespace dls::data
