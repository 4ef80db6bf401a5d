#include "dls/checkpoint/checkpoint_average.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>

#include <spdlog/spdlog.h>
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

// The running sum of checkpoints' weights, each file read once as it is added. The first added
// (the newest) is the reference: its kind, model settings, vocabularies and tensor layout are
// what the others must have, and its settings, texts and dtypes are the average's.
class WeightSum {
 public:
  // `expected`: how many files will be added, for the progress lines.
  WeightSum(Weights weights, std::size_t expected) : weights_(weights), expected_(expected) {}

  // Reads `path` for the sum, saying so first: a `dlstudio`-preset checkpoint takes seconds.
  CheckpointReader read(const std::string& path) const {
    spdlog::info("reading {} ({} of {} to average)", path, count_ + 1, expected_);
    return CheckpointReader(path);
  }

  void add(CheckpointReader reader) {
    if (!reference_) {
      sums_ = reader.module_tensors(weights_module(reader, weights_));
      for (auto& entry : sums_) {
        if (is_floating(entry.second)) entry.second = entry.second.to(torch::kFloat64);
      }
      reference_.emplace(std::move(reader));
      count_ = 1;
      return;
    }
    check_matches(reader);
    const auto tensors = reader.module_tensors(weights_module(reader, weights_));
    const std::string difference = layout_difference(tensors, sums_);
    if (!difference.empty())
      throw CheckpointError(reader.path() + ": weights do not match " + reference_->path() + "'s: " + difference);
    for (std::size_t i = 0; i < sums_.size(); ++i) {
      if (is_floating(sums_[i].second)) sums_[i].second.add_(tensors[i].second.to(torch::kFloat64));
    }
    ++count_;
  }

  // Writes the mean to `output`, "averaged_from" naming `paths` (the files added, in the order
  // they are to be listed).
  void write(const std::vector<std::string>& paths, const std::string& output) const {
    const auto& newest = *reference_;
    const auto reference = newest.module_tensors(weights_module(newest, weights_));  // for the dtypes
    NamedTensors mean = sums_;
    for (std::size_t i = 0; i < mean.size(); ++i) {
      if (is_floating(mean[i].second)) {
        mean[i].second = (mean[i].second / static_cast<double>(count_)).to(reference[i].second.scalar_type());
      }
    }
    // The files by name when they are of one folder (one run's), else by their paths (runs averaged).
    bool one_folder = true;
    for (const auto& path : paths) {
      one_folder =
          one_folder && std::filesystem::path(path).parent_path() == std::filesystem::path(paths.back()).parent_path();
    }
    std::string sources;
    for (const auto& path : paths)
      sources += (one_folder ? std::filesystem::path(path).filename().string() : util::absolute_path(path)) + "\n";
    CheckpointWriter writer(newest.kind());
    writer.add_settings(newest.settings());
    for (const auto& name : newest.text_names()) {
      if (name != "best") writer.add_text(name, newest.text(name));  // best.pt's score describes another file
    }
    writer.add_text("averaged_from", sources);
    writer.add_module_tensors("model", mean);
    writer.save(output);
  }

 private:
  // The kind, model settings and vocabularies of `reader` are the reference's.
  void check_matches(const CheckpointReader& reader) const {
    const auto& newest = *reference_;
    const auto& path = reader.path();
    if (reader.kind() != newest.kind()) {
      throw CheckpointError(path + ": a " + reader.kind() + " checkpoint, the newest (" + newest.path() + ") is " +
                            newest.kind());
    }
    if (reader.settings().section("model").entries() != newest.settings().section("model").entries()) {
      throw CheckpointError(path + ": model settings differ from those of " + newest.path() + ": cannot average them");
    }
    // Rows of the embeddings and the output layer stand for these words, pieces or classes:
    // two runs of one shape with other vocabularies have weights of one shape that mean other
    // things (as --ensemble refuses them).
    for (const auto* meaning :
         {"vocab", "vocab_en", "vocab_es", "subwords", "subwords_en", "subwords_es", "class_names"}) {
      if (reader.has_text(meaning) != newest.has_text(meaning) ||
          (reader.has_text(meaning) && reader.text(meaning) != newest.text(meaning))) {
        throw CheckpointError(path + ": its " + meaning + " differs from " + newest.path() +
                              "'s: the same rows stand for other words or classes, so cannot average them");
      }
    }
  }

  Weights weights_;
  std::size_t expected_;
  std::optional<CheckpointReader> reference_;
  NamedTensors sums_;  // in fp64 where floating
  std::size_t count_ = 0;
};

// "RUN: 1 checkpoint, --average 2 needs that many".
std::runtime_error too_few(const std::string& run, std::size_t found, std::size_t n) {
  return std::runtime_error(run + ": " + std::to_string(found) + " checkpoint" + (found == 1 ? "" : "s") +
                            ", --average " + std::to_string(n) + " needs that many");
}

// `run`'s checkpoints (find_checkpoints), refused when fewer than `n`.
std::vector<std::string> at_least(const std::string& run, std::size_t n) {
  auto files = find_checkpoints(run);
  if (files.size() < n) throw too_few(run, files.size(), n);
  return files;
}

// Adds to `sum` the newest `n` of `files`, `run`'s checkpoints (a run directory's own: one
// another run wrote, copied in, is passed over and named on `messages`; a file: itself), newest
// first, each read once; returns them oldest first.
std::vector<std::string> add_newest(const std::string& run, const std::vector<std::string>& files, std::size_t n,
                                    WeightSum& sum, std::ostream& messages) {
  const RunMembership membership(run);
  std::vector<std::string> added;  // newest first
  for (auto file = files.rbegin(); file != files.rend() && added.size() < n; ++file) {
    auto reader = sum.read(*file);
    if (const auto why = membership.left_out(reader); !why.empty()) {
      messages << why << "\n";
      continue;
    }
    sum.add(std::move(reader));
    added.push_back(*file);
  }
  if (added.size() < n) throw too_few(run, added.size(), n);
  return {added.rbegin(), added.rend()};
}

}  // namespace

void average_checkpoints(const std::vector<std::string>& paths, const std::string& output, Weights weights) {
  if (paths.empty()) throw std::invalid_argument("average_checkpoints: no checkpoints");
  check_average_output(output);
  WeightSum sum(weights, paths.size());
  sum.add(sum.read(paths.back()));
  for (auto path = paths.begin(); path + 1 != paths.end(); ++path) sum.add(sum.read(*path));
  sum.write(paths, output);
}

std::string average_output(const std::string& run, std::size_t n) {
  return (std::filesystem::path(run_dir_of(run)) / ("average_last_" + std::to_string(n) + ".pt")).string();
}

std::vector<std::string> average_newest(const std::string& run, std::size_t n, const std::string& output,
                                        std::ostream& messages, Weights weights) {
  check_average_output(output);
  WeightSum sum(weights, n);
  const auto files = add_newest(run, at_least(run, n), n, sum, messages);
  sum.write(files, output);
  return files;
}

std::vector<std::string> average_runs(const std::vector<std::string>& runs, std::size_t n, const std::string& output,
                                      std::ostream& messages, Weights weights) {
  if (runs.size() < 2) throw std::invalid_argument("average_runs: fewer than two runs");
  check_average_output(output);
  const auto first = run_lineage(runs.front());
  std::vector<std::string> named;
  for (const auto& run : runs) {
    named.push_back(util::resolved_path(run));
    if (std::count(named.begin(), named.end(), named.back()) > 1) throw std::runtime_error(run + ": named twice");
  }
  std::vector<std::vector<std::string>> found;  // each run's checkpoints
  for (const auto& run : runs) {                // refused before any checkpoint is read
    if (&run != &runs.front() && shared_origin(first, run_lineage(run)).empty()) {
      throw std::runtime_error(run + ": not fine-tuned from the checkpoint " + runs.front() +
                               " was, nor its parent or child (config.toml's init-from): runs trained apart are not "
                               "averaged, the same unit sits at another place in each");
    }
    found.push_back(at_least(run, n));
  }
  // The first run's newest is added first: its settings and texts are the average's; it is
  // listed last, as the newest is in a run's average.
  WeightSum sum(weights, n * runs.size());
  std::vector<std::string> files;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto added = add_newest(runs[i], found[i], n, sum, messages);
    files.insert(files.end(), added.begin(), added.end());
  }
  std::rotate(files.begin(), files.begin() + static_cast<std::ptrdiff_t>(n), files.end());
  sum.write(files, output);
  return files;
}

}  // namespace dls::checkpoint
