#include "vit_eval.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

#include <spdlog/spdlog.h>

#include "dls/eval/confusion_matrix.h"
#include "dls/eval/vit_evaluation.h"
#include "dls/util/json.h"
#include "dls/util/runtime.h"
#include "error_line.h"

namespace dls::apps {

namespace {

namespace fs = std::filesystem;

// <run>/checkpoints/x.pt -> <run>
fs::path run_dir_of(const std::string& checkpoint) {
  fs::path dir = fs::path(checkpoint).parent_path();
  if (dir.filename() == "checkpoints") dir = dir.parent_path();
  return dir.empty() ? fs::path(".") : dir;
}

void print_json(const std::vector<eval::ViTCheckpointResult>& results, std::size_t best,
                const std::vector<std::string>& names, const std::vector<std::string>& written) {
  util::JsonWriter json;
  json.begin_object().key("checkpoints").begin_array();
  for (const auto& r : results) {
    json.begin_object()
        .key("path").value(r.path)
        .key("epoch").value(r.contents.state.epochs_done())
        .key("test_accuracy").value(r.confusion.accuracy())
        .key("mean_class_accuracy").value(r.confusion.mean_class_accuracy())
        .key("test_loss").value(r.test_loss)
        .key("train_loss").value(r.contents.state.train_loss)
        .key("train_images_per_s").value(r.contents.state.images_per_s)
        .key("eval_images_per_s").value(r.images_per_s)
        .key("class_accuracy").begin_object();
    for (std::size_t k = 0; k < names.size(); ++k) json.key(names[k]).value(r.confusion.class_accuracy(k));
    json.end_object().end_object();
  }
  json.end_array().key("best").value(results[best].path).key("files").begin_array();
  for (const auto& path : written) json.value(path);
  json.end_array().end_object();
  std::cout << json.str() << std::endl;
}

}  // namespace

int run_vit_evaluation(const std::vector<std::string>& checkpoint_files, const VitEvalRequest& request) {
  try {
    if (checkpoint_files.empty()) throw std::invalid_argument("no checkpoint to evaluate");
    util::RuntimeOptions runtime;
    runtime.threads = request.threads;
    util::configure_runtime(runtime);
    eval::ViTEvalOptions options;
    options.data_dir = request.data_dir;
    options.test_subset = request.test_subset;
    options.device = util::select_device(request.device);

    // A corrupt or unreadable checkpoint among others is reported and skipped.
    std::vector<std::string> readable;
    for (const auto& path : checkpoint_files) {
      try {
        train::CheckpointReader reader(path, train::kViTCheckpointKind);
        readable.push_back(path);
      } catch (const train::CheckpointError& error) {
        if (checkpoint_files.size() == 1) throw;
        const std::string what = error.what();
        std::fprintf(stderr, "skipped: %s\n", what.substr(0, what.find('\n')).c_str());
      }
    }
    if (readable.empty()) throw std::runtime_error("none of the checkpoints is readable");
    // The test set of the first checkpoint serves all of them when they agree on the data.
    const train::CheckpointReader first(readable.front(), train::kViTCheckpointKind);
    const auto first_settings = train::read_vit_contents(first).settings;
    const auto test = eval::load_test_images(first_settings, options);
    std::vector<eval::ViTCheckpointResult> results;
    for (const auto& path : readable) {
      results.push_back(eval::evaluate_vit_checkpoint(path, test, options));
      const auto& r = results.back();
      if (r.contents.settings.data.dataset != first_settings.data.dataset) {
        throw std::runtime_error(path + ": trained on " + r.contents.settings.data.dataset + ", the others on " +
                                 first_settings.data.dataset);
      }
      spdlog::debug("{}: accuracy {:.2f}%", path, 100 * r.confusion.accuracy());
    }
    const std::size_t best = eval::best_result(results);
    const auto& names = test.display_names;

    std::vector<std::string> written;
    const fs::path out_dir = request.output_dir.empty() ? run_dir_of(results[best].path) : fs::path(request.output_dir);
    fs::create_directories(out_dir);
    for (const auto& r : results) {
      const auto png = out_dir / ("confusion_" + fs::path(r.path).stem().string() + ".png");
      char title[160];
      std::snprintf(title, sizeof(title), "%s, epoch %.2f: %.2f%% correct", r.contents.settings.data.dataset.c_str(),
                    r.contents.state.epochs_done(), 100 * r.confusion.accuracy());
      eval::save_confusion_png(r.confusion, names, title, png.string());
      written.push_back(png.string());
    }
    if (!request.attention_maps_dir.empty()) {
      const train::CheckpointReader reader(results[best].path, train::kViTCheckpointKind);
      auto model = train::load_vit_model(reader, results[best].contents.settings);
      model->to(options.device);
      const auto maps = eval::class_token_attention_maps(model, test, results[best].contents.normalization,
                                                         request.attention_images, options.device);
      for (const auto& path : eval::save_attention_maps(maps, test, model->config().grid_size(),
                                                        request.attention_maps_dir)) {
        written.push_back(path);
      }
    }

    if (request.json) {
      print_json(results, best, names, written);
      return 0;
    }
    const auto& shown = results[best];
    std::cout << "Checkpoint: " << shown.path << "  (" << shown.contents.settings.model.summary() << ")\n"
              << "Test images: " << test.size() << " of " << shown.contents.settings.data.dataset << "\n\n"
              << eval::format_dlstudio_accuracies(shown.confusion, names) << "\n"
              << eval::format_dlstudio_confusion(shown.confusion, names) << "\n";
    if (results.size() > 1) std::cout << "All checkpoints:\n" << eval::format_checkpoint_table(results);
    for (const auto& path : written) std::cout << "wrote " << path << "\n";
    std::cout.flush();
    return 0;
  } catch (const std::exception& error) {
    return print_error_line(error);
  }
}

}  // namespace dls::apps
