// The display form of a translation: a model trained on normalised text writes lowercase
// words without punctuation ("dónde está la estación"); people read "¿Dónde está la estación?".
// Restored as far as the model's output and the source allow: the first letter capitalised,
// and the source sentence's closing mark (. ? ! …) repeated, with Spanish's opening ¿ or ¡
// when the target language is Spanish. Names and inner punctuation cannot be recovered.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dls/data/normalize.h"

namespace dls::data {

// "dónde está la estación" + source "Where is the station?" -> "¿Dónde está la estación?".
// An empty `words` gives "".
std::string detokenize(const std::vector<std::string>& words, std::string_view source, Language target);

}  // namespace dls::data
