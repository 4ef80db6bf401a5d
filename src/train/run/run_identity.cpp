#include "dls/train/run/run_identity.h"

#include <filesystem>
#include <random>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/train/run/run_directory.h"
#include "dls/util/file_io.h"

namespace dls::train {

namespace fs = std::filesystem;

namespace {

using checkpoint::kRunIdFile;

bool same_folder(const fs::path& a, const fs::path& b) {
  std::error_code error;
  return fs::equivalent(a, b, error);
}

}  // namespace

std::string new_run_id() {
  std::random_device device;
  std::uniform_int_distribution<int> digit(0, 15);
  std::string id;
  for (int i = 0; i < 16; ++i) id += "0123456789abcdef"[digit(device)];
  return id;
}

std::string start_run_identity(const RunDirectory& run, const checkpoint::CheckpointReader* resume) {
  const std::string id_file = run.file(kRunIdFile);
  if (resume == nullptr) {
    const std::string id = new_run_id();
    util::write_text_atomically(id_file, id + "\n");
    return id;
  }
  const std::string here = read_run_id(run.path());
  const std::string theirs = checkpoint::run_id_in(*resume);
  const bool in_this_run = same_folder(fs::path(resume->path()).parent_path(), fs::path(run.path()) / "checkpoints");
  if (!here.empty()) {
    if (theirs == here) return here;
    if (!theirs.empty()) {
      throw std::runtime_error(resume->path() + ": belongs to run " + theirs + ", but " + run.path() + " holds run " +
                               here + " (its RUN_ID): resume it into its own run directory or a new --run-dir");
    }
    if (!in_this_run) {
      throw std::runtime_error(resume->path() + ": a checkpoint without a run id from outside " + run.path() +
                               ", which holds run " + here + ": resume it into a new --run-dir");
    }
    spdlog::info("{}: written before run ids; continuing run {}", resume->path(), here);
    return here;
  }
  const std::string earlier = earlier_run(run.path());
  if (!earlier.empty() && !in_this_run) {
    throw std::runtime_error(resume->path() + " is not a checkpoint of " + run.path() + ", which holds another run (" +
                             earlier + "): resume it into its own run directory or a new --run-dir");
  }
  const std::string id = theirs.empty() ? new_run_id() : theirs;
  util::write_text_atomically(id_file, id + "\n");
  return id;
}

void remove_stale_run_temporaries(const RunDirectory& run) {
  for (const auto& dir : {run.path(), run.file("checkpoints")}) {
    for (const auto& path : util::remove_stale_temporaries(dir)) {
      spdlog::info("removed {}, a temporary file left by a writer that was killed", path);
    }
  }
}

}  // namespace dls::train
