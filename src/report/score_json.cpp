#include "report/score_json.h"

namespace dls::report::detail {

using dls::eval::ChrfScore;
using dls::eval::SacreBleuScore;

void add_field_scores(util::JsonWriter& json, const SacreBleuScore& sacrebleu, const ChrfScore& chrf) {
  json.key("sacrebleu")
      .begin_object()
      .key("score")
      .value(sacrebleu.score)
      .key("signature")
      .value(sacrebleu.signature)
      .key("line")
      .value(sacrebleu.line())
      .end_object()
      .key("chrf")
      .begin_object()
      .key("score")
      .value(chrf.score)
      .key("signature")
      .value(chrf.signature)
      .end_object();
}

}  // namespace dls::report::detail
