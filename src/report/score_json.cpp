#include "report/score_json.h"

namespace dls::report::detail {

using dls::eval::ChrfScore;
using dls::eval::SacreBleuScore;

void add_field_scores(util::JsonWriter& json, const SacreBleuScore& sacrebleu, const ChrfScore& chrf) {
  json.key("sacrebleu")
      .begin_object()
      .field("score", sacrebleu.score)
      .field("signature", sacrebleu.signature)
      .field("line", sacrebleu.line())
      .end_object()
      .key("chrf")
      .begin_object()
      .field("score", chrf.score)
      .field("signature", chrf.signature)
      .end_object();
}

}  // namespace dls::report::detail
