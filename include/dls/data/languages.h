// The languages of a translation corpus, by ISO 639-1 code ("en", "es", "de", "ru", "el",
// "ja", ...): the name printouts use, which normalisation rules apply (normalize.h), and
// whether the language is written without spaces between words.
//
// Rules: "en" expands English contractions; "fr", "it", "ca" end a word at an elision's
// apostrophe ("l'homme" -> "l homme"); "tr" and "az" lowercase I as the dotless ı; "es" and
// every other code take Unicode's rules alone
// (any script: lowercase, punctuation and symbols as separators). Written without spaces:
// ja, zh, th, lo, km, my, bo — a whole clause is then one "word", so such a side needs
// subword units (--tokenizer sentencepiece; seq2seq_train refuses word level for it).
// A three-letter code of ISO 639-2 or 639-3 for one of the languages printouts name ("eng",
// "deu", "jpn", "cmn") is that language, with its rules.
#pragma once

#include <string>

#include "dls/data/normalize.h"

namespace dls::data {

// Throws std::invalid_argument unless `code` is 2 or 3 lowercase ASCII letters ("en",
// "ast"); any such code is accepted, a known one gets its name in printouts.
void check_language_code(const std::string& code, const std::string& flag);

// "en" -> "English", "de" -> "German"; an unknown code -> the code itself ("xx").
std::string language_name(const std::string& code);

// The name in lowercase ASCII: "english" (the interactive prompt, a TSV column).
std::string language_label(const std::string& code);

// The normalisation rules of `code` (see above).
Language language_rules(const std::string& code);

// The two-letter code of a three-letter one the tables know ("eng" -> "en"); `code` itself
// otherwise.
std::string base_language(const std::string& code);

// True for the languages written without spaces between words (see above).
bool written_without_spaces(const std::string& code);

// The language code a file's name gives, "" for none: its extension, after an optional
// ".gz" ("train.de", "news.de.gz" -> "de"), when it is a code whose name printouts know
// (so "train.txt" or "corpus.tsv" name no language). Parallel corpora are named so.
std::string language_of_file(const std::string& path);

struct LanguagePair {
  std::string src, tgt;  // "" for none
};

// The pair a TSV corpus's name gives, none ({"", ""}) when it gives none: the last two parts
// of its name before the extension, both codes printouts know ("de_en.tsv",
// "sample_en_es.tsv", "news.de-en.tsv.gz": source, then target); or a Tatoeba/ManyThings
// file, named by its one language's three-letter code and holding English, then that
// language ("spa-eng/spa.txt", "deu.txt": en, then es or de).
LanguagePair languages_of_corpus_file(const std::string& path);

}  // namespace dls::data
