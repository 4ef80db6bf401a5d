#include "dls/report/vit_checkpoint_report.h"

#include <cstdio>
#include <filesystem>
#include <optional>
#include <ostream>
#include <set>
#include <stdexcept>

#include <spdlog/fmt/fmt.h>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/vit_checkpoint.h"
#include "dls/eval/confusion_matrix.h"
#include "dls/util/json.h"
#include "dls/util/device.h"
#include "dls/util/runtime.h"
#include "dls/util/create_folder.h"
#include "report/checkpoint_progress.h"
#include "report/output_folder.h"

namespace dls::report {

using eval::best_result;
using eval::class_token_attention_maps;
using eval::evaluate_vit_model;
using eval::format_checkpoint_table;
using eval::format_dlstudio_accuracies;
using eval::format_dlstudio_confusion;
using eval::load_test_images;
using eval::save_confusion_png;
using eval::ViTEvalOptions;

namespace fs = std::filesystem;

namespace {

void write_vit_json(std::ostream& out, const std::vector<ViTCheckpointResult>& results, std::size_t best,
                    const std::vector<std::string>& names, const std::vector<std::string>& written) {
  util::JsonWriter json;
  json.begin_object().key("checkpoints").begin_array();
  for (const auto& r : results) {
    json.begin_object()
        .field("path", r.path)
        .field("epoch", r.contents.state.epochs_done())
        .field("test_accuracy", r.confusion.accuracy())
        .field("mean_class_accuracy", r.confusion.mean_class_accuracy())
        .field("test_loss", r.test_loss)
        .field("train_loss", r.contents.state.train_loss)
        .field("train_images_per_s", r.contents.state.examples_per_s)
        .field("eval_images_per_s", r.images_per_s)
        .key("class_accuracy")
        .begin_object();
    for (std::size_t k = 0; k < names.size(); ++k) json.key(names[k]).value(r.confusion.class_accuracy(k));
    json.end_object().end_object();
  }
  json.end_array().field("best", results[best].path).key("files").begin_array();
  for (const auto& path : written) json.value(path);
  json.end_array().end_object();
  out << json.str() << std::endl;
}

}  // namespace

ViTCheckpointReport report_vit_checkpoints(const std::vector<std::string>& checkpoint_files,
                                           const VitEvalRequest& request, std::ostream& out, std::ostream& messages) {
  if (checkpoint_files.empty()) throw std::invalid_argument("no checkpoint to evaluate");
  if (!request.attention_maps_dir.empty() && request.attention_images == 0)
    throw std::invalid_argument("--attention-maps with --attention-images 0 draws nothing: give 1 or more");
  util::RuntimeOptions runtime;
  runtime.threads = request.threads;
  util::configure_runtime(runtime);
  ViTEvalOptions options;
  options.data_dir = request.data_dir;
  options.test_subset = request.test_subset;
  options.device = util::select_device(request.device);
  options.weights = request.weights;

  // Each file is read once: a corrupt or unreadable checkpoint among others is reported and
  // skipped, as is another run's (copied in); the test set of the first serves all of them
  // when they agree on the data.
  ViTCheckpointReport report;
  auto& results = report.results;
  std::optional<data::ImageSet> test;
  std::set<std::string> folders_checked;
  visTransformer best_model{nullptr};  // for the attention maps
  CheckpointProgress progress(checkpoint_files.size());
  for (const auto& path : checkpoint_files) {
    checkpoint::ViTCheckpointContents contents;
    visTransformer model{nullptr};
    try {
      const checkpoint::CheckpointReader reader(path, checkpoint::kViTCheckpointKind);  // let go before the evaluation
      if (const auto why = request.run.left_out(reader); !why.empty()) {
        progress.say(messages, why);
        continue;
      }
      contents = checkpoint::read_vit_contents(reader);
      model = checkpoint::load_vit_model(reader, contents.settings, request.weights);
    } catch (const checkpoint::CheckpointError& error) {
      if (checkpoint_files.size() == 1) throw;
      const std::string what = error.what();
      progress.say(messages, "skipped: " + what.substr(0, what.find('\n')));
      continue;
    }
    // The best checkpoint's run is the default folder of the PNGs: each run's checked before
    // its first evaluation.
    if (request.output_dir.empty() && folders_checked.insert(checkpoint::run_dir_of(path)).second)
      check_output_folder(checkpoint::run_dir_of(path), "confusion_*.png");
    if (!test) {
      test = load_test_images(contents, options);
    } else if (contents.settings.data.dataset != results.front().contents.settings.data.dataset) {
      throw std::runtime_error(path + ": trained on " + contents.settings.data.dataset + ", the others on " +
                               results.front().contents.settings.data.dataset);
    }
    model->to(options.device);
    results.push_back(evaluate_vit_model(model, path, std::move(contents), *test, options));
    const auto& r = results.back();
    progress.evaluated(results.size(), fmt::format("{}: accuracy {:.2f} %, test loss {:.4f}, {:.0f} images/s",
                                                   fs::path(path).filename().string(), 100 * r.confusion.accuracy(),
                                                   r.test_loss, r.images_per_s));
    if (!request.attention_maps_dir.empty() && best_result(results) == results.size() - 1) best_model = model;
  }
  progress.finish();
  if (results.empty()) throw std::runtime_error("none of the checkpoints is readable");
  const std::size_t best = report.best = best_result(results);
  const auto& names = test->display_names;

  auto& written = report.files;
  const fs::path out_dir =
      request.output_dir.empty() ? fs::path(checkpoint::run_dir_of(results[best].path)) : fs::path(request.output_dir);
  util::create_folder(out_dir.string());
  for (const auto& r : results) {
    const auto png = out_dir / ("confusion_" + fs::path(r.path).stem().string() + ".png");
    char title[160];
    std::snprintf(title, sizeof(title), "%s, epoch %.2f: %.2f%% correct", r.contents.settings.data.dataset.c_str(),
                  r.contents.state.epochs_done(), 100 * r.confusion.accuracy());
    save_confusion_png(r.confusion, names, title, png.string());
    written.push_back(png.string());
  }
  if (!request.attention_maps_dir.empty()) {
    const auto maps = class_token_attention_maps(best_model, *test, results[best].contents.normalization,
                                                 request.attention_images, options.device);
    for (const auto& path :
         save_attention_maps(maps, *test, best_model->config().grid_size(), request.attention_maps_dir)) {
      written.push_back(path);
    }
  }

  if (request.json) {
    write_vit_json(out, results, best, names, written);
    return report;
  }
  const auto& shown = results[best];
  out << "Checkpoint: " << shown.path << "  (" << shown.contents.settings.model.summary() << ")\n"
      << "Test images: " << test->size() << " of " << shown.contents.settings.data.dataset << "\n\n"
      << format_dlstudio_accuracies(shown.confusion, names) << "\n"
      << format_dlstudio_confusion(shown.confusion, names) << "\n";
  if (results.size() > 1) out << "All checkpoints:\n" << format_checkpoint_table(results);
  for (const auto& path : written) out << "wrote " << path << "\n";
  out.flush();
  return report;
}

}  // namespace dls::report
