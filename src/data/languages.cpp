#include "dls/data/languages.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <stdexcept>
#include <utility>
#include <vector>

namespace dls::data {

namespace {

// The codes printouts name; any other valid code prints as itself.
constexpr std::array<std::pair<const char*, const char*>, 40> kLanguageNames{{
    {"ar", "Arabic"},     {"bg", "Bulgarian"},  {"bo", "Tibetan"},  {"ca", "Catalan"},    {"cs", "Czech"},
    {"da", "Danish"},     {"de", "German"},     {"el", "Greek"},    {"en", "English"},    {"eo", "Esperanto"},
    {"es", "Spanish"},    {"fa", "Persian"},    {"fi", "Finnish"},  {"fr", "French"},     {"he", "Hebrew"},
    {"hi", "Hindi"},      {"hu", "Hungarian"},  {"it", "Italian"},  {"ja", "Japanese"},   {"km", "Khmer"},
    {"ko", "Korean"},     {"lo", "Lao"},        {"my", "Burmese"},  {"nl", "Dutch"},      {"no", "Norwegian"},
    {"pl", "Polish"},     {"pt", "Portuguese"}, {"ro", "Romanian"}, {"ru", "Russian"},    {"sk", "Slovak"},
    {"sr", "Serbian"},    {"sv", "Swedish"},    {"th", "Thai"},     {"tr", "Turkish"},    {"uk", "Ukrainian"},
    {"vi", "Vietnamese"}, {"zh", "Chinese"},    {"hr", "Croatian"}, {"lt", "Lithuanian"}, {"id", "Indonesian"},
}};

// ISO 639-2 (bibliographic and terminology) and 639-3 codes of the languages above, so that
// "eng" expands contractions as "en" does and "jpn" or "cmn" is known to need subword units
// (before, a three-letter code took no language's rules and passed every check).
constexpr std::array<std::pair<const char*, const char*>, 63> kThreeLetterCodes{{
    {"ara", "ar"},
    {"bul", "bg"},
    {"bod", "bo"},
    {"tib", "bo"},
    {"cat", "ca"},
    {"ces", "cs"},
    {"cze", "cs"},
    {"dan", "da"},
    {"deu", "de"},
    {"ger", "de"},
    {"ell", "el"},
    {"gre", "el"},
    {"eng", "en"},
    {"epo", "eo"},
    {"spa", "es"},
    {"fas", "fa"},
    {"per", "fa"},
    {"pes", "fa"},
    {"fin", "fi"},
    {"fra", "fr"},
    {"fre", "fr"},
    {"heb", "he"},
    {"hin", "hi"},
    {"hun", "hu"},
    {"ita", "it"},
    {"jpn", "ja"},
    {"khm", "km"},
    {"kor", "ko"},
    {"lao", "lo"},
    {"mya", "my"},
    {"bur", "my"},
    {"nld", "nl"},
    {"dut", "nl"},
    {"nor", "no"},
    {"nob", "no"},
    {"nno", "no"},
    {"pol", "pl"},
    {"por", "pt"},
    {"ron", "ro"},
    {"rum", "ro"},
    {"rus", "ru"},
    {"slk", "sk"},
    {"slo", "sk"},
    {"srp", "sr"},
    {"swe", "sv"},
    {"tha", "th"},
    {"tur", "tr"},
    {"ukr", "uk"},
    {"vie", "vi"},
    {"zho", "zh"},
    {"chi", "zh"},
    {"cmn", "zh"},
    {"yue", "zh"},
    {"hrv", "hr"},
    {"lit", "lt"},
    {"ind", "id"},
    // Languages with rules of their own here, not named in printouts.
    {"aze", "az"},
    {"azj", "az"},
    {"azb", "az"},
    {"mar", "mr"},
    {"nep", "ne"},
    {"npi", "ne"},
    {"urd", "ur"},
}};

// `code` as the two-letter code the tables above use, when it is a three-letter one of them.
std::string two_letter(const std::string& code) {
  for (const auto& [three, two] : kThreeLetterCodes) {
    if (code == three) return two;
  }
  return code;
}

}  // namespace

void check_language_code(const std::string& code, const std::string& flag) {
  const bool letters = std::all_of(code.begin(), code.end(), [](char c) { return c >= 'a' && c <= 'z'; });
  if (code.size() < 2 || code.size() > 3 || !letters) {
    throw std::invalid_argument(flag + ": '" + code +
                                "' is not an ISO 639 code (2 or 3 lowercase letters: en, es, de)");
  }
}

std::string language_name(const std::string& code) {
  const auto two = two_letter(code);
  for (const auto& [known, name] : kLanguageNames) {
    if (two == known) return name;
  }
  return code;
}

std::string language_label(const std::string& code) {
  std::string label = language_name(code);
  for (auto& c : label) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return label;
}

std::string base_language(const std::string& code) { return two_letter(code); }

Language language_rules(const std::string& given) {
  const auto code = two_letter(given);
  if (code == "en") return Language::kEnglish;
  if (code == "es") return Language::kSpanish;
  if (code == "fr" || code == "it" || code == "ca") return Language::kElision;
  if (code == "tr" || code == "az") return Language::kTurkish;
  return Language::kOther;
}

bool written_without_spaces(const std::string& given) {
  const auto code = two_letter(given);
  for (const char* c : {"ja", "zh", "th", "lo", "km", "my", "bo"}) {
    if (code == c) return true;
  }
  return false;
}

std::string language_of_file(const std::string& path) {
  std::filesystem::path name = std::filesystem::path(path).filename();
  if (name.extension() == ".gz") name = name.stem();
  const std::string code = name.extension().string().substr(name.has_extension() ? 1 : 0);
  return !name.stem().empty() && language_name(code) != code ? code : "";
}

LanguagePair languages_of_corpus_file(const std::string& path) {
  std::filesystem::path name = std::filesystem::path(path).filename();
  if (name.extension() == ".gz") name = name.stem();
  const std::string stem = name.stem().string();
  const auto known = [](const std::string& code) {
    return code.size() >= 2 && code.size() <= 3 && language_name(code) != code;
  };
  std::vector<std::string> parts;
  for (std::size_t at = 0; at <= stem.size();) {
    const auto end = std::min(stem.find_first_of("_-.", at), stem.size());
    parts.push_back(stem.substr(at, end - at));
    at = end + 1;
  }
  if (parts.size() >= 2 && known(parts[parts.size() - 2]) && known(parts.back())) {
    return {parts[parts.size() - 2], parts.back()};
  }
  if (parts.size() == 1 && stem.size() == 3 && known(stem) && base_language(stem) != "en") {
    return {"en", base_language(stem)};
  }
  return {};
}

}  // namespace dls::data
