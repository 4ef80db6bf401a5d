// DLStudio's own vocabularies, read from its archive as DLStudio reads them: the lists
// vocab_en and vocab_es of the (dataset, vocab_en, vocab_es) pickle, 'SOS', 'EOS', then the
// words -- without the <pad> and <unk> this project's Vocabulary adds.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace dls::dlstudio {

struct DLStudioVocabularies {
  std::vector<std::string> english;  // vocab_en: 11,258 words in en_es_xformer_8_90000
  std::vector<std::string> spanish;  // vocab_es: 21,823 words
};

// The word lists an export of this project writes (export.cpp): vocab_en.txt (the source
// side's) and vocab_es.txt (the target side's), one word a line, and languages.toml, the pair.
inline constexpr const char* kSourceWordList = "vocab_en.txt";
inline constexpr const char* kTargetWordList = "vocab_es.txt";
inline constexpr const char* kLanguagesFile = "languages.toml";

// The folder of an export's word lists when `path` names them -- the folder, or one of its two
// lists -- else "" (DLStudio's archive).
std::string word_list_folder(const std::string& path);

// Throws std::runtime_error "<path>: ..." when the file is no such archive or a vocabulary
// does not start 'SOS', 'EOS'. `path` may name an export's word lists (word_list_folder()).
DLStudioVocabularies read_dlstudio_vocabularies(const std::string& path);

// The pair an export recorded beside its word lists (languages.toml: source = "de",
// target = "en"); {"", ""} when there is none. Throws "<file>: ..." for a damaged one.
std::pair<std::string, std::string> read_export_languages(const std::string& folder);
// languages.toml's text for a model translating `source` into `target`.
std::string export_languages_text(const std::string& source, const std::string& target);

}  // namespace dls::dlstudio
