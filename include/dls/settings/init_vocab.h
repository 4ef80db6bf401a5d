// --init-vocab: where a new run started from --init-from's weights takes its vocabularies
// (seq2seq_train's both sides, lm_train's one).
#pragma once

#include "dls/util/enum_names.h"

namespace dls::settings {

// The parent's, extended by this data's new words (kExtend); the parent's alone (kParent: new
// words are <unk>); or built from this data (kData), as a run without a parent does.
enum class InitVocab { kExtend, kParent, kData };
inline const util::EnumNames<InitVocab> kInitVocabNames("--init-vocab", {{InitVocab::kExtend, "extend"},
                                                                         {InitVocab::kParent, "parent"},
                                                                         {InitVocab::kData, "data"}});

}  // namespace dls::settings
