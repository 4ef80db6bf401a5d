#include "dls/report/vit_checkpoint_report.h"

#include <cstdio>
#include <filesystem>
#include <ostream>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/vit_checkpoint.h"
#include "dls/eval/confusion_matrix.h"
#include "dls/util/json.h"
#include "dls/util/device.h"
#include "dls/util/runtime.h"
#include "dls/util/create_folder.h"
#include "report/output_folder.h"

namespace dls::report {

using eval::best_result;
using eval::class_token_attention_maps;
using eval::evaluate_vit_checkpoint;
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

  // A corrupt or unreadable checkpoint among others is reported and skipped, as is another
  // run's (copied in).
  std::vector<std::string> readable;
  for (const auto& path : checkpoint_files) {
    try {
      const checkpoint::CheckpointReader reader(path, checkpoint::kViTCheckpointKind);
      const auto why = request.run.left_out(reader);
      if (why.empty()) {
        readable.push_back(path);
      } else {
        messages << why << "\n";
      }
    } catch (const checkpoint::CheckpointError& error) {
      if (checkpoint_files.size() == 1) throw;
      const std::string what = error.what();
      messages << "skipped: " << what.substr(0, what.find('\n')) << "\n";
    }
  }
  if (readable.empty()) throw std::runtime_error("none of the checkpoints is readable");
  // The best checkpoint's run is the default folder: all of them, checked before the evaluation.
  if (request.output_dir.empty()) {
    for (const auto& path : readable) check_output_folder(checkpoint::run_dir_of(path), "confusion_*.png");
  }
  // The test set of the first checkpoint serves all of them when they agree on the data.
  const checkpoint::CheckpointReader first(readable.front(), checkpoint::kViTCheckpointKind);
  const auto first_contents = checkpoint::read_vit_contents(first);
  const auto& first_settings = first_contents.settings;
  const auto test = load_test_images(first_contents, options);
  ViTCheckpointReport report;
  auto& results = report.results;
  for (const auto& path : readable) {
    results.push_back(evaluate_vit_checkpoint(path, test, options));
    const auto& r = results.back();
    if (r.contents.settings.data.dataset != first_settings.data.dataset) {
      throw std::runtime_error(path + ": trained on " + r.contents.settings.data.dataset + ", the others on " +
                               first_settings.data.dataset);
    }
    spdlog::debug("{}: accuracy {:.2f}%", path, 100 * r.confusion.accuracy());
  }
  const std::size_t best = report.best = best_result(results);
  const auto& names = test.display_names;

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
    const checkpoint::CheckpointReader reader(results[best].path, checkpoint::kViTCheckpointKind);
    auto model = checkpoint::load_vit_model(reader, results[best].contents.settings, request.weights);
    model->to(options.device);
    const auto maps = class_token_attention_maps(model, test, results[best].contents.normalization,
                                                 request.attention_images, options.device);
    for (const auto& path : save_attention_maps(maps, test, model->config().grid_size(), request.attention_maps_dir)) {
      written.push_back(path);
    }
  }

  if (request.json) {
    write_vit_json(out, results, best, names, written);
    return report;
  }
  const auto& shown = results[best];
  out << "Checkpoint: " << shown.path << "  (" << shown.contents.settings.model.summary() << ")\n"
      << "Test images: " << test.size() << " of " << shown.contents.settings.data.dataset << "\n\n"
      << format_dlstudio_accuracies(shown.confusion, names) << "\n"
      << format_dlstudio_confusion(shown.confusion, names) << "\n";
  if (results.size() > 1) out << "All checkpoints:\n" << format_checkpoint_table(results);
  for (const auto& path : written) out << "wrote " << path << "\n";
  out.flush();
  return report;
}

}  // namespace dls::report
