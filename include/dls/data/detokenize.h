// The display form of a translation: a model trained on normalised text writes lowercase
// words without punctuation ("dónde está la estación"); people read "¿Dónde está la estación?".
// Restored as far as the model's output and the source allow, in the target language's
// writing:
//  - the first letter in its titlecase form (Turkish and Azerbaijani 'i' -> 'İ'; Georgian,
//    which has no sentence capitals, as it is);
//  - the kind of the source sentence's ending -- statement, question, exclamation,
//    ellipsis, whichever script wrote it (. ? ! … 。 ？ ！ ؟ । ۔, and the Greek ';' question
//    mark in Greek sources) -- written as the target writes it: Spanish ¿…? and ¡…!,
//    Chinese and Japanese 。？！, Arabic, Persian and Urdu ؟, Hindi, Marathi and Nepali
//    । for a statement, Greek ; for a question, else . ? ! …;
//  - French, Italian and Catalan elisions, which normalisation parts ("l homme" ->
//    "l'homme", "aujourd hui" -> "aujourd'hui");
//  - the capitals of a word that the source writes with them inside a sentence, as names,
//    places and acronyms are ("vi a tom" + "I saw Tom." -> "Vi a Tom."; "NASA"), when the
//    translation has the same word (capitalised_words in detokenize.cpp says which are left
//    out: sentence-initial words, single letters, German nouns).
// Names the translation spells otherwise, hyphens and inner punctuation cannot be recovered.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dls::data {

// "dónde está la estación" + source "Where is the station?" (en -> es) -> "¿Dónde está la
// estación?". Languages are ISO 639 codes (languages.h). An empty `words` gives "".
std::string detokenize(const std::vector<std::string>& words, std::string_view source,
                       const std::string& source_language, const std::string& target_language);

}  // namespace dls::data
