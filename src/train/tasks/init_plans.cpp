#include "train/tasks/init_plans.h"

#include <sstream>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "dls/checkpoint/lm_checkpoint.h"
#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/checkpoint/vit_checkpoint.h"
#include "dls/util/file_io.h"
#include "dls/util/resolved_path.h"
#include "dls/util/toml_subset.h"

namespace dls::train {

namespace {

// A checkpoint of one of `kinds` passes; another is refused in one line.
void check_parent_kind(const checkpoint::CheckpointReader& reader, const std::vector<std::string>& kinds,
                       const std::string& program) {
  std::string listed;
  for (const auto& kind : kinds) {
    if (reader.kind() == kind) return;
    listed += (listed.empty() ? "" : " or ") + kind;
  }
  throw std::runtime_error("--init-from " + reader.path() + ": a " + reader.kind() + " checkpoint; " + program +
                           " starts from a " + listed + " checkpoint");
}

void check_variant(const checkpoint::CheckpointReader& reader, Variant theirs, Variant ours) {
  if (theirs == ours) return;
  throw std::runtime_error("--init-from " + reader.path() + ": a " + to_string(theirs) + " model, this run's is " +
                           to_string(ours) +
                           " (LayerNorm sits elsewhere, so its weights would compute something else); "
                           "give --variant " +
                           to_string(theirs));
}

InitReport init_with(const checkpoint::CheckpointReader& reader, torch::nn::Module& model, const InitPlan& plan) {
  const auto weights = checkpoint::weights_module(reader, checkpoint::Weights::kEvaluation);
  auto report = init_parameters(model, reader.module_tensors(weights), plan, reader.path());
  report.weights = weights;
  return report;
}

}  // namespace

InitReport init_seq2seq_from(const checkpoint::CheckpointReader& reader, torch::nn::Module& model, Variant variant,
                             const std::vector<std::string>& source_words,
                             const std::vector<std::string>& target_words) {
  check_parent_kind(reader, {checkpoint::kSeq2SeqKind, checkpoint::kLmCheckpointKind}, "seq2seq_train");
  InitPlan plan;
  if (reader.kind() == checkpoint::kSeq2SeqKind) {
    const auto info = checkpoint::read_seq2seq_info(reader);
    if (info.settings.architecture == Architecture::kTransformer)
      check_variant(reader, info.settings.model.transformer().variant(), variant);
    plan.token_rows = {{"embeddings_generator_en.embedding.weight", &source_words, &info.english_words},
                       {"embeddings_generator_es.embedding.weight", &target_words, &info.spanish_words},
                       {"master_decoder.out.weight", &target_words, &info.spanish_words},
                       {"master_decoder.out.bias", &target_words, &info.spanish_words}};
    return init_with(reader, model, plan);
  }
  // A language model is a target side: its embeddings and decoder blocks (no cross-attention).
  const auto contents = checkpoint::read_lm_contents(reader);
  check_variant(reader, contents.settings.model.transformer().variant(), variant);
  plan.renames = {{"embeddings_generator.", "embeddings_generator_es."}};
  plan.token_rows = {{"embeddings_generator_es.embedding.weight", &target_words, &contents.words},
                     {"master_decoder.out.weight", &target_words, &contents.words},
                     {"master_decoder.out.bias", &target_words, &contents.words}};
  return init_with(reader, model, plan);
}

InitReport init_lm_from(const checkpoint::CheckpointReader& reader, torch::nn::Module& model, Variant variant,
                        const std::vector<std::string>& words) {
  check_parent_kind(reader, {checkpoint::kLmCheckpointKind, checkpoint::kSeq2SeqKind}, "lm_train");
  InitPlan plan;
  std::vector<std::string> theirs;
  if (reader.kind() == checkpoint::kLmCheckpointKind) {
    const auto contents = checkpoint::read_lm_contents(reader);
    check_variant(reader, contents.settings.model.transformer().variant(), variant);
    theirs = contents.words;
  } else {  // a translation model's target side and decoder
    const auto info = checkpoint::read_seq2seq_info(reader);
    if (info.settings.architecture == Architecture::kTransformer)
      check_variant(reader, info.settings.model.transformer().variant(), variant);
    theirs = info.spanish_words;
    plan.renames = {{"embeddings_generator_es.", "embeddings_generator."}};
  }
  plan.token_rows = {{"embeddings_generator.embedding.weight", &words, &theirs},
                     {"master_decoder.out.weight", &words, &theirs},
                     {"master_decoder.out.bias", &words, &theirs}};
  return init_with(reader, model, plan);
}

InitReport init_vit_from(const checkpoint::CheckpointReader& reader, torch::nn::Module& model, std::int64_t channels,
                         const std::vector<std::string>& class_names) {
  check_parent_kind(reader, {checkpoint::kViTCheckpointKind}, "vit_train");
  InitPlan plan;
  // The head's rows are classes: by name, so that a run whose classes are others or in
  // another order (folders b, c after a, b) does not take class a's row for b (by position,
  // as before, a permuted head loaded "100 %").
  const auto contents = checkpoint::read_vit_contents(reader);
  const auto theirs = checkpoint::class_names_of(contents);
  if (!class_names.empty() && !theirs.empty()) {
    plan.token_rows = {{"head_fc2.weight", &class_names, &theirs, "class"},
                       {"head_fc2.bias", &class_names, &theirs, "class"}};
  }
  plan.fresh_when_resized = {"head_fc2."};  // another number of classes, names unknown
  // Another image size (--image-size, or a stem that shrinks the images otherwise): another grid.
  plan.resampled_grids = {"patch_embedding_generator.position_embedding"};
  // Grey images into a colour model's weights, or colour into a grey one's (--channels): the
  // first layer that reads the image, the stem's or (without one) the patch projection.
  using Layout = InitPlan::ChannelLayout;
  plan.input_channels = {{"stem.0.weight", Layout::kConv},
                         {"patch_embedding_generator.conv.weight", Layout::kConv},
                         {"patch_embedding_generator.linear.weight", Layout::kPatchLinear}};
  if (!contents.settings.model.stem().empty()) plan.input_channels.resize(1);
  plan.their_channels = contents.settings.model.channels();
  plan.our_channels = channels;
  plan.shape_flags = "--patch-size, --channels, --stem, --embedding-size, --heads, ...";
  return init_with(reader, model, plan);
}

std::string with_init_from_file(const std::string& config_toml, const std::string& file) {
  std::istringstream lines(config_toml);
  std::string text;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("init-from=", 0) == 0) line = "init-from=" + util::toml_value(util::absolute_path(file));
    text += line + "\n";
  }
  return text;
}

InitFileBeforeMove::InitFileBeforeMove(const std::string& file, const std::string& run_dir)
    : file_(file.empty() ? "" : util::resolved_path(file)), run_dir_(util::resolved_path(run_dir)) {}

std::string InitFileBeforeMove::after_move_to(const std::string& aside) const {
  if (aside.empty() || file_.rfind(run_dir_ + "/", 0) != 0) return file_;
  return util::resolved_path(aside) + file_.substr(run_dir_.size());
}

void log_init_report(const InitReport& report) {
  spdlog::info("{}\n{}", report.summary(), report.table(/*every_parameter=*/false));
  for (const auto& warning : report.warnings) spdlog::warn("--init-from {}: {}", report.source, warning);
  spdlog::debug("--init-from, parameter by parameter:\n{}", report.table(/*every_parameter=*/true));
}

}  // namespace dls::train
