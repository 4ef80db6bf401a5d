// Small generated translation corpora in other scripts, English beside each: German (with
// umlauts and ß), Russian (Cyrillic), Greek (with its question mark ';' and final sigma) and
// Japanese (no spaces between words). Sentences from a few patterns over a dozen nouns,
// grammatical in each language; enough pairs for a few training steps and a split.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace dls::test {

// English and the other language's sentences, pair by pair.
using GeneratedPairs = std::vector<std::pair<std::string, std::string>>;

// `code`: "de", "ru", "el" or "ja".
inline GeneratedPairs generated_pairs(const std::string& code) {
  // A word or a pattern in the five languages.
  struct Words {
    const char* en;
    const char* de;
    const char* ru;
    const char* el;
    const char* ja;
  };
  // The nouns (with their article where the language has one).
  static const Words kNouns[] = {
      {"house", "das Haus", "дом", "το σπίτι", "家"},        {"cheese", "der Käse", "сыр", "το τυρί", "チーズ"},
      {"bear", "der Bär", "медведь", "η αρκούδα", "熊"},     {"girl", "das Mädchen", "девочка", "το κορίτσι", "少女"},
      {"bridge", "die Brücke", "мост", "η γέφυρα", "橋"},    {"key", "der Schlüssel", "ключ", "το κλειδί", "鍵"},
      {"apple", "der Apfel", "яблоко", "το μήλο", "りんご"}, {"door", "die Tür", "дверь", "η πόρτα", "ドア"},
      {"street", "die Straße", "улица", "ο δρόμος", "道"},   {"bird", "der Vogel", "птица", "το πουλί", "鳥"},
      {"book", "das Buch", "книга", "το βιβλίο", "本"},      {"station", "der Bahnhof", "вокзал", "ο σταθμός", "駅"},
      {"dog", "der Hund", "собака", "ο σκύλος", "犬"},       {"tree", "der Baum", "дерево", "το δέντρο", "木"},
  };
  // The patterns, "%" for the noun.
  static const Words kPatterns[] = {
      {"Where is the %?", "Wo ist %?", "Где %?", "Πού είναι %;", "%はどこですか。"},
      {"This is the %.", "Das ist %.", "Это %.", "Αυτό είναι %.", "これは%です。"},
      {"The % is here.", "% ist hier.", "% здесь.", "% είναι εδώ.", "%はここにあります。"},
      {"The % is there.", "% ist dort.", "% там.", "% είναι εκεί.", "%はあそこにあります。"},
      {"I see the %.", "Ich sehe %.", "Я вижу: %.", "Βλέπω %.", "%が見えます。"},
      {"Is that the %?", "Ist das %?", "Это %?", "Είναι αυτό %;", "あれは%ですか。"},
  };
  const auto fill = [](std::string pattern, std::string noun, bool capital) {
    // German sentences start with a capital: "Der Käse ist hier."
    if (capital && !noun.empty() && noun[0] >= 'a' && noun[0] <= 'z') noun[0] = static_cast<char>(noun[0] - 'a' + 'A');
    return pattern.replace(pattern.find('%'), 1, noun);
  };
  GeneratedPairs pairs;
  for (const auto& p : kPatterns) {
    for (const auto& n : kNouns) {
      const char* other = code == "de" ? p.de : code == "ru" ? p.ru : code == "el" ? p.el : p.ja;
      const char* noun = code == "de" ? n.de : code == "ru" ? n.ru : code == "el" ? n.el : n.ja;
      pairs.emplace_back(fill(p.en, n.en, false), fill(other, noun, std::string(other).rfind('%', 0) == 0));
    }
  }
  return pairs;
}

// The pairs as "English<TAB>other<TAB>attribution" lines (Tatoeba's three columns).
inline std::string generated_tsv(const GeneratedPairs& pairs) {
  std::string text;
  for (const auto& [en, other] : pairs) text += en + "\t" + other + "\tgenerated\n";
  return text;
}

// One side of the pairs, one sentence a line (parallel files): `english` or the other.
inline std::string generated_side(const GeneratedPairs& pairs, bool english) {
  std::string text;
  for (const auto& [en, other] : pairs) text += (english ? en : other) + "\n";
  return text;
}

}  // namespace dls::test
