#include "dls/dlstudio/vocabularies.h"

#include <fstream>
#include <stdexcept>
#include <string>

#include "dls/data/pickle.h"
#include "dls/util/file_io.h"

namespace dls::dlstudio {

using data::PickleValue;
using data::read_pickle_file;

namespace {

std::vector<std::string> words_of(const PickleValue& list, const std::string& path, const char* name) {
  std::vector<std::string> words;
  for (const auto& word : list.items()) words.push_back(word.as_string());
  if (words.size() < 2 || words[0] != "SOS" || words[1] != "EOS") {
    throw std::runtime_error(path + ": " + name + " does not start 'SOS', 'EOS'");
  }
  return words;
}

}  // namespace

DLStudioVocabularies read_dlstudio_vocabularies(const std::string& archive_path) {
  // The word lists `export` writes (vocab_en.txt) are text, which the pickle reader would
  // refuse by its first byte.
  std::string head(2, '\0');
  std::ifstream file(archive_path, std::ios::binary);
  head.resize(file.read(&head[0], 2) ? 2 : static_cast<std::size_t>(file.gcount()));
  if (!head.empty() && static_cast<unsigned char>(head[0]) != 0x80 && !util::is_gzip(head)) {
    throw std::runtime_error(archive_path +
                             ": not DLStudio's archive (a pickle of (dataset, vocab_en, vocab_es), often gzipped); a "
                             "word list such as an export's vocab_en.txt is not read here");
  }
  const auto archive = read_pickle_file(archive_path);
  try {
    const auto& parts = archive.items();
    if (parts.size() != 3) throw std::runtime_error("not DLStudio's (dataset, vocab_en, vocab_es)");
    return {words_of(parts[1], archive_path, "vocab_en"), words_of(parts[2], archive_path, "vocab_es")};
  } catch (const std::runtime_error& error) {
    const std::string what = error.what();
    throw std::runtime_error(what.rfind(archive_path, 0) == 0 ? what : archive_path + ": " + what);
  }
}

}  // namespace dls::dlstudio
