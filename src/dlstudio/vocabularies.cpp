#include "dls/dlstudio/vocabularies.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dls/data/pickle.h"
#include "dls/data/languages.h"
#include "dls/util/file_io.h"
#include "dls/util/toml_subset.h"

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

// An export's word list: 'SOS', 'EOS', then one word a line.
std::vector<std::string> word_list(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    throw std::runtime_error(path + ": no such file (an export writes vocab_en.txt and vocab_es.txt together)");
  std::vector<std::string> words;
  std::istringstream lines(util::read_file(path));
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) throw std::runtime_error(path + ":" + std::to_string(words.size() + 1) + ": an empty line");
    words.push_back(line);
  }
  if (words.size() < 2 || words[0] != "SOS" || words[1] != "EOS")
    throw std::runtime_error(path + ": not an export's word list (it starts with the lines SOS and EOS)");
  return words;
}

}  // namespace

std::string word_list_folder(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::is_directory(path, error)) return path;
  const auto name = fs::path(path).filename().string();
  if (name == kSourceWordList || name == kTargetWordList) {
    const auto folder = fs::path(path).parent_path();
    return folder.empty() ? "." : folder.string();
  }
  return "";
}

DLStudioVocabularies read_dlstudio_vocabularies(const std::string& archive_path) {
  if (const auto folder = word_list_folder(archive_path); !folder.empty()) {
    const auto base = std::filesystem::path(folder);
    return {word_list((base / kSourceWordList).string()), word_list((base / kTargetWordList).string())};
  }
  // Other text (a word list renamed) would be refused by the pickle reader at its first byte.
  std::string head(2, '\0');
  std::ifstream file(archive_path, std::ios::binary);
  head.resize(file.read(&head[0], 2) ? 2 : static_cast<std::size_t>(file.gcount()));
  if (!head.empty() && static_cast<unsigned char>(head[0]) != 0x80 && !util::is_gzip(head)) {
    throw std::runtime_error(archive_path +
                             ": not DLStudio's archive (a pickle of (dataset, vocab_en, vocab_es), often gzipped); "
                             "an export's word lists are given by their folder (vocab_en.txt and vocab_es.txt)");
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

std::pair<std::string, std::string> read_export_languages(const std::string& folder) {
  const auto path = (std::filesystem::path(folder) / kLanguagesFile).string();
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return {};
  std::pair<std::string, std::string> pair;
  for (const auto& item : util::parse_toml_subset(util::read_file(path), path)) {
    auto* side = item.name == "source" ? &pair.first : item.name == "target" ? &pair.second : nullptr;
    if (side == nullptr || item.is_array)
      throw std::runtime_error(path + ":" + std::to_string(item.line) +
                               ": expected source = \"xx\" or target = \"xx\"");
    *side = item.values.front();
    data::check_language_code(*side, path + ": " + item.name);
  }
  if (pair.first.empty() || pair.second.empty()) throw std::runtime_error(path + ": needs both source and target");
  return pair;
}

std::string export_languages_text(const std::string& source, const std::string& target) {
  return "# The pair of this export's model: vocab_en.txt and embeddings_generator_en_* hold the source\n"
         "# side's, vocab_es.txt and embeddings_generator_es_* the target's (checkpoint_eval import reads it).\n"
         "source = " +
         util::toml_value(source) + "\ntarget = " + util::toml_value(target) + "\n";
}

}  // namespace dls::dlstudio
