// The JSON of sacreBLEU's BLEU and chrF, as checkpoint_eval's reports write them (private to
// src/eval): "sacrebleu": {"score", "signature", "line"}, "chrf": {"score", "signature"}.
#pragma once

#include "dls/eval/chrf.h"
#include "dls/eval/sacrebleu.h"
#include "dls/util/json.h"

namespace dls::report::detail {

using dls::eval::ChrfScore;
using dls::eval::SacreBleuScore;

// Adds the two keys to the object being written.
void add_field_scores(util::JsonWriter& json, const SacreBleuScore& sacrebleu, const ChrfScore& chrf);

}  // namespace dls::report::detail
