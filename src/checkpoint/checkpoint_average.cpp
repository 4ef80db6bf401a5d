#include "dls/checkpoint/checkpoint_average.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include <torch/torch.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/run_id.h"
#include "dls/checkpoint/run_lineage.h"
#include "dls/util/file_io.h"
#include "dls/util/resolved_path.h"

namespace dls::checkpoint {

namespace {

bool is_floating(const torch::Tensor& tensor) { return tensor.defined() && tensor.is_floating_point(); }

// Where `tensors` differ in names or shapes from `reference`: "" when nowhere.
std::string layout_difference(const NamedTensors& tensors, const NamedTensors& reference) {
  if (tensors.size() != reference.size()) {
    return std::to_string(tensors.size()) + " tensors where the newest has " + std::to_string(reference.size());
  }
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].first != reference[i].first)
      return "tensor '" + tensors[i].first + "' where the newest has '" + reference[i].first + "'";
    if (tensors[i].second.defined() != reference[i].second.defined() ||
        (tensors[i].second.defined() && tensors[i].second.sizes() != reference[i].second.sizes()))
      return "tensor '" + tensors[i].first + "' has another shape";
  }
  return "";
}

// An average never replaces a checkpoint it did not write (a training checkpoint holds the
// optimizer state --resume needs) nor lands among a run's checkpoints, where it would be taken
// for the newest.
void check_average_output(const std::string& output) {
  const std::filesystem::path path(output);
  if (path.parent_path().filename() == "checkpoints") {
    throw std::runtime_error(output +
                             ": an average goes beside a run's checkpoints/, not among them "
                             "(default RUN/average_last_N.pt)");
  }
  if (!std::filesystem::exists(path)) return;
  bool earlier_average = false;
  try {
    earlier_average = CheckpointReader(output).has_text("averaged_from");
  } catch (const std::exception&) {
    // not a checkpoint: refused below
  }
  if (!earlier_average) {
    throw std::runtime_error(output +
                             ": exists and is not an earlier average; --average writes a new file "
                             "or replaces an earlier average, never anything else");
  }
}

}  // namespace

void average_checkpoints(const std::vector<std::string>& paths, const std::string& output, Weights weights) {
  if (paths.empty()) throw std::invalid_argument("average_checkpoints: no checkpoints");
  check_average_output(output);
  const CheckpointReader newest(paths.back());
  const auto model_settings = newest.settings().section("model").entries();
  NamedTensors sums = newest.module_tensors(weights_module(newest, weights));
  for (auto& entry : sums) {
    if (is_floating(entry.second)) entry.second = entry.second.to(torch::kFloat64);
  }
  // The files by name when they are of one folder (one run's), else by their paths (runs averaged).
  bool one_folder = true;
  for (const auto& path : paths) {
    one_folder =
        one_folder && std::filesystem::path(path).parent_path() == std::filesystem::path(paths.back()).parent_path();
  }
  std::string sources;
  for (const auto& path : paths) {
    sources += (one_folder ? std::filesystem::path(path).filename().string() : util::absolute_path(path)) + "\n";
    if (&path == &paths.back()) continue;
    const CheckpointReader reader(path);
    if (reader.kind() != newest.kind()) {
      throw CheckpointError(path + ": a " + reader.kind() + " checkpoint, the newest (" + paths.back() + ") is " +
                            newest.kind());
    }
    if (reader.settings().section("model").entries() != model_settings) {
      throw CheckpointError(path + ": model settings differ from those of " + paths.back() + ": cannot average them");
    }
    // Rows of the embeddings and the output layer stand for these words, pieces or classes:
    // two runs of one shape with other vocabularies have weights of one shape that mean other
    // things (as --ensemble refuses them).
    for (const auto* meaning :
         {"vocab", "vocab_en", "vocab_es", "subwords", "subwords_en", "subwords_es", "class_names"}) {
      if (reader.has_text(meaning) != newest.has_text(meaning) ||
          (reader.has_text(meaning) && reader.text(meaning) != newest.text(meaning))) {
        throw CheckpointError(path + ": its " + meaning + " differs from " + paths.back() +
                              "'s: the same rows stand for other words or classes, so cannot average them");
      }
    }
    const auto tensors = reader.module_tensors(weights_module(reader, weights));
    const std::string difference = layout_difference(tensors, sums);
    if (!difference.empty())
      throw CheckpointError(path + ": weights do not match " + paths.back() + "'s: " + difference);
    for (std::size_t i = 0; i < sums.size(); ++i) {
      if (is_floating(sums[i].second)) sums[i].second.add_(tensors[i].second.to(torch::kFloat64));
    }
  }
  const auto reference = newest.module_tensors(weights_module(newest, weights));  // for the dtypes
  for (std::size_t i = 0; i < sums.size(); ++i) {
    if (is_floating(sums[i].second)) {
      sums[i].second = sums[i].second.div_(static_cast<double>(paths.size())).to(reference[i].second.scalar_type());
    }
  }
  CheckpointWriter writer(newest.kind());
  writer.add_settings(newest.settings());
  for (const auto& name : newest.text_names()) {
    if (name != "best") writer.add_text(name, newest.text(name));  // best.pt's score describes another file
  }
  writer.add_text("averaged_from", sources);
  writer.add_module_tensors("model", sums);
  writer.save(output);
}

std::string average_newest(const std::string& run, const std::vector<std::string>& files, std::size_t n,
                           const std::string& output, Weights weights) {
  if (files.size() < n) {
    throw std::runtime_error(run + ": " + std::to_string(files.size()) + " checkpoints, --average " +
                             std::to_string(n) + " needs that many");
  }
  const auto written =
      output.empty()
          ? (std::filesystem::path(run_dir_of(files.back())) / ("average_last_" + std::to_string(n) + ".pt")).string()
          : output;
  const std::vector<std::string> newest(files.end() - static_cast<std::ptrdiff_t>(n), files.end());
  average_checkpoints(newest, written, weights);
  return written;
}

std::vector<std::string> average_runs(const std::vector<std::string>& runs, std::size_t n, const std::string& output,
                                      std::ostream& messages, Weights weights) {
  if (runs.size() < 2) throw std::invalid_argument("average_runs: fewer than two runs");
  const auto first = run_lineage(runs.front());
  std::vector<std::string> named;
  for (const auto& run : runs) {
    named.push_back(util::resolved_path(run));
    if (std::count(named.begin(), named.end(), named.back()) > 1) throw std::runtime_error(run + ": named twice");
  }
  std::vector<std::string> files;
  for (const auto& run : runs) {
    if (&run != &runs.front() && shared_origin(first, run_lineage(run)).empty()) {
      throw std::runtime_error(run + ": not fine-tuned from the checkpoint " + runs.front() +
                               " was, nor its parent or child (config.toml's init-from): runs trained apart are not "
                               "averaged, the same unit sits at another place in each");
    }
    auto found = find_checkpoints(run);
    std::error_code error;
    if (std::filesystem::is_directory(run, error))
      found = this_runs_checkpoints(found, run_directory_of(run), messages, n);
    if (found.size() < n) {
      throw std::runtime_error(run + ": " + std::to_string(found.size()) + " checkpoint" +
                               (found.size() == 1 ? "" : "s") + ", --average " + std::to_string(n) +
                               " needs that many");
    }
    files.insert(files.end(), found.end() - static_cast<std::ptrdiff_t>(n), found.end());
  }
  // The first run's newest last: its settings and texts are the average's.
  std::rotate(files.begin(), files.begin() + static_cast<std::ptrdiff_t>(n), files.end());
  average_checkpoints(files, output, weights);
  return files;
}

}  // namespace dls::checkpoint
