#include "dls/serve/serve_checkpoint.h"

#include <memory>
#include <ostream>
#include <string>
#include <utility>

#include <ATen/Parallel.h>
#include <spdlog/spdlog.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/run_id.h"
#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/data/languages.h"
#include "dls/eval/image_classifier.h"
#include "dls/eval/translator.h"
#include "dls/layers/int8_linear.h"
#include "dls/serve/translate_server.h"
#include "dls/util/device.h"
#include "dls/util/precision.h"
#include "dls/util/thread_policy.h"

namespace dls::serve {

namespace {

std::string page_note(const ServeSettings& settings) { return settings.page_dir.empty() ? "none" : settings.page_dir; }

// `reader`: the checkpoint, let go once its weights are the model's (before serving).
void serve_classifier(std::unique_ptr<checkpoint::CheckpointReader> reader, const ServedModel& model,
                      ServeSettings& settings, std::ostream& ready) {
  auto classifier = eval::ImageClassifier::load(*reader, model.device, model.weights);
  reader.reset();
  settings.checkpoint_file = classifier.checkpoint_file();
  spdlog::info("serving {} ({}) on {}; page: {}", classifier.checkpoint_file(), classifier.config().summary(),
               classifier.device().str(), page_note(settings));
  serve_until_signalled(classifier, settings, ready);
}

void serve_translator(std::unique_ptr<checkpoint::CheckpointReader> reader, const ServedModel& model,
                      ServeSettings& settings, std::ostream& ready) {
  eval::TranslatorOptions options;
  options.device = model.device;
  options.weights = model.weights;
  auto translator = eval::Translator::load(*reader, options);
  reader.reset();
  settings.checkpoint_file = translator.checkpoint_file();
  if (int8_linear_enabled()) {
    translator.translate("warm up");  // makes every weight's int8 form before the first request
    const auto made = int8_weight_stats();
    spdlog::info("int8 weights: {} matrices, {:.1f} MB ({:.1f} MB as fp32)", made.matrices, 1e-6 * made.int8_bytes,
                 1e-6 * made.fp32_bytes);
  }
  // Measured best on 2 cores (docs/serving.md): a batch's chunks on one thread each and, unless
  // --threads says otherwise, one intra-op thread (a lone sentence too: OpenMP's hand-offs
  // cost it more than the second core gives).
  settings.batching.decode_workers = util::batch_chunk_workers(
      translator.device(), model.decode_workers > 0 ? model.decode_workers : at::get_num_threads());
  if (!model.threads_given && translator.device().is_cpu()) at::set_num_threads(1);
  const auto& info = translator.model().info;
  const auto& languages = info.settings.data;
  spdlog::info("serving {} ({}; {}, {} -> {}) on {}; page: {}", translator.checkpoint_file(),
               checkpoint::progress_summary(info), info.settings.model_summary(),
               data::language_name(languages.source_language()), data::language_name(languages.target_language()),
               translator.device().str(), page_note(settings));
  serve_until_signalled(translator, settings, ready);
}

}  // namespace

void serve_checkpoint(const ServedModel& model, ServeSettings settings, std::ostream& ready) {
  // The rule of every program that translates (Translator::load, checkpoint_eval translate); the
  // file read once, for its kind and then its model.
  auto reader = std::make_unique<checkpoint::CheckpointReader>(checkpoint::open_run_checkpoint(model.checkpoint));
  const std::string kind = reader->kind();
  if (kind != checkpoint::kViTCheckpointKind && kind != checkpoint::kSeq2SeqKind) {
    throw checkpoint::CheckpointError(reader->path() + ": a " + kind +
                                      " checkpoint; the server serves seq2seq (translation) and vit "
                                      "(classification) checkpoints");
  }
  const auto precision = util::parse_precision(model.precision);
  const auto target = util::select_device(model.device);
  util::check_precision(precision, target);
  settings.batching.autocast = util::autocast_for(precision, target);
  apply_quantize(model.quantize, kind, target, precision != util::Precision::kFp32);
  if (kind == checkpoint::kViTCheckpointKind) {
    serve_classifier(std::move(reader), model, settings, ready);
  } else {
    serve_translator(std::move(reader), model, settings, ready);
  }
}

}  // namespace dls::serve
