#include "dls/settings/common_settings.h"

#include <stdexcept>

namespace dls::settings {

bool parse_tokenizer(const std::string& name) {
  if (name == "word" || name == "sentencepiece") return name == "sentencepiece";
  throw std::invalid_argument("unknown tokenizer '" + name + "' (expected word or sentencepiece)");
}

}  // namespace dls::settings
