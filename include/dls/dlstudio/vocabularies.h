// DLStudio's own vocabularies, read from its archive as DLStudio reads them: the lists
// vocab_en and vocab_es of the (dataset, vocab_en, vocab_es) pickle, 'SOS', 'EOS', then the
// words -- without the <pad> and <unk> this project's Vocabulary adds.
#pragma once

#include <string>
#include <vector>

namespace dls::dlstudio {

struct DLStudioVocabularies {
  std::vector<std::string> english;  // vocab_en: 11,258 words in en_es_xformer_8_90000
  std::vector<std::string> spanish;  // vocab_es: 21,823 words
};

// Throws std::runtime_error "<path>: ..." when the file is no such archive or a vocabulary
// does not start 'SOS', 'EOS'.
DLStudioVocabularies read_dlstudio_vocabularies(const std::string& archive_path);

}  // namespace dls::dlstudio
