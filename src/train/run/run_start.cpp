#include "dls/train/run/run_start.h"
#include "dls/train/run/run_directory.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <filesystem>
#include <system_error>

#include <spdlog/spdlog.h>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/run_state.h"
#include "dls/train/parallel/rank_agreement.h"
#include "dls/util/file_io.h"
#include "dls/util/resolved_path.h"
#include "train/training_support.h"

namespace dls::train {

namespace {

namespace fs = std::filesystem;

// The outermost missing folder of `dir`, which creating it creates; "" when it exists.
std::string outermost_missing(const std::string& dir) {
  std::error_code error;
  fs::path path = fs::absolute(dir, error), missing;
  if (error) return "";
  path = path.lexically_normal();
  if (!path.has_filename()) path = path.parent_path();  // "runs/a/" -> "runs/a"
  while (!path.empty() && !fs::exists(path, error) && !error) {
    missing = path;
    if (path.parent_path() == path) break;
    path = path.parent_path();
  }
  return missing.string();
}

// A resume into its own run writes checkpoints from the resumed epoch on: one of the run's
// that is newer (--resume RUN/checkpoints/checkpoint_epoch_0003.pt, or best.pt, of a run at
// epoch 6; or a best.pt saved alone after the file resumed) would be written over, and
// metrics.csv's rows after it replaced. Refused, naming
// the way to keep both: a branch in another directory.
void refuse_writing_over_newer_checkpoints(const std::string& run_dir, const checkpoint::CheckpointReader& resume) {
  const auto resumed = checkpoint::RunState::from_settings(resume.settings());
  std::vector<std::string> newer;
  std::error_code error;
  const fs::path folder = fs::path(run_dir) / "checkpoints";
  if (!fs::is_directory(folder, error)) return;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    const auto name = entry.path().filename().string();
    if (!checkpoint::is_checkpoint_file_name(name) || checkpoint::checkpoint_epoch(name) <= resumed.completed_epochs) {
      continue;
    }
    if (fs::equivalent(entry.path(), resume.path(), error)) continue;  // the file resumed (or best.pt's link to it)
    newer.push_back(name);
  }
  std::sort(newer.begin(), newer.end(), checkpoint::checkpoint_order);
  // best.pt written alone after them all (where the run stopped, checkpoint_files.h), which
  // the resumed run's next better score would replace.
  const auto best = fs::path(run_dir) / "best.pt";
  if (fs::is_regular_file(best, error) && !fs::equivalent(best, resume.path(), error) &&
      fs::path(checkpoint::latest_checkpoint(run_dir)).filename() == "best.pt") {
    newer.push_back("best.pt");
  }
  if (newer.empty()) return;
  // The newest is the way on only when it reads (a damaged one would be refused in turn).
  std::string newest_problem;
  try {
    checkpoint::CheckpointReader((newer.back() == "best.pt" ? best : folder / newer.back()).string(), resume.kind());
  } catch (const std::exception& unreadable) {
    newest_problem = unreadable.what();
  }
  const std::string problem =
      "--resume " + resume.path() + ": " + run_dir + " has " + std::to_string(newer.size()) + " newer checkpoint" +
      (newer.size() > 1 ? "s (" + newer.front() + " .. " + newer.back() + ")" : " (" + newer.front() + ")") +
      " that continuing from epoch " + std::to_string(resumed.file_epoch()) +
      " would write over; continue from there in another directory (--run-dir NEW), or " +
      (newest_problem.empty() ? "from the newest (--resume " + run_dir + ")"
                              : "here once the newer ones are moved aside (the newest is unreadable: " +
                                    newest_problem.substr(0, newest_problem.find('\n')) + ")");
  throw std::runtime_error(problem);  // a dry run's error too: --overwrite cannot decide it
}

// Rank 0's checks of the directory a start writes in (start_run shares their refusal).
void check_run_directory(StartedRun& started, const settings::RunSettings& run, bool claims) {
  if (!run.dry_run) {
    // Locked before the check for an earlier run, so that of two runs started at once in
    // one directory the second stops here.
    started.created_dir = outermost_missing(started.run.run_dir);
    started.lock = std::make_unique<RunDirectoryLock>(started.run.run_dir);
    // torchrun restarted this job before its first checkpoint: what the failed attempt left
    // (metrics.csv, the settings) goes aside, and the run starts again. Only this job's: an
    // earlier run of the user's in the directory stays refused, as attempt 0 refused it.
    const bool restarted_afresh = claims && restart_count() > 0 && written_by_this_job(started.run.run_dir);
    if (restarted_afresh) spdlog::warn("restart {} of the job: no checkpoint yet, starting afresh", restart_count());
    started.overwrite = run.overwrite || restarted_afresh;
    // Refused at once when the earlier run may not go aside; with --overwrite it goes aside
    // only once the task is built (claim_directory): a start that fails -- an --init-from
    // that does not fit, read from that very run -- leaves it where it was.
    if (claims && !started.overwrite) claim_run_directory(started.run.run_dir, false);
  }
  if (run.dry_run) {
    // A dry run stands for a start: what would stop one is an error, what only a real start
    // decides (an earlier run, which --overwrite moves aside) a warning.
    check_run_directory_usable(started.run.run_dir);
    if (claims && !run.overwrite) {
      try {
        claim_run_directory(started.run.run_dir, false);  // never moves anything without overwrite
      } catch (const std::exception& refusal) {
        spdlog::warn("a start would stop here: {}", refusal.what());
      }
    }
  }
  if (started.resume != nullptr && !started.branch) {
    refuse_writing_over_newer_checkpoints(started.run.run_dir, *started.resume);
  }
}

}  // namespace

StartedRun start_run(const settings::RunSettings& run, const std::string& default_run_dir,
                     const std::string& checkpoint_kind, checkpoint::OpenedCheckpoint* opened_resume) {
  StartedRun started;
  started.started = std::chrono::steady_clock::now();
  started.placement = place_training(run.device, run.precision, run.workers, run.parallel);
  started.run = run;
  const std::string asked_dir = run.run_dir.empty() ? default_run_dir : run.run_dir;
  auto& dist = started.placement.dist;
  // Whether a torchrun restart resumes is rank 0's to say: it alone refuses a run that is not
  // its job's, and the others follow it.
  const auto restarted_from = [&](const std::string& dir) {
    const bool resumes = !from_main_rank(dist, [&] { return resume_after_restart(dir, true); }).empty();
    return resumes && !dist.is_main() ? resume_after_restart(dir, false) : resumes ? dir : std::string();
  };
  started.run.resume = run.resume.empty() ? restarted_from(asked_dir) : run.resume;
  // A torchrun restart of a resume from a named checkpoint (--resume RUN/checkpoints/X.pt, or
  // a branch: --run-dir NEW) continues the directory it writes from its newest checkpoint of
  // this job's, not from X again (whose newer checkpoints the first attempt wrote).
  if (!run.resume.empty()) {
    const auto written = !run.run_dir.empty() ? run.run_dir : checkpoint::run_dir_of(run.resume);
    const auto restarted = restarted_from(written);
    if (!restarted.empty()) started.run.resume = restarted;
  }
  const bool resuming = !started.run.resume.empty();
  // A resumed run's own, absolute as a fresh run's --run-dir is made (its --json and
  // checkpoint paths read the same from any folder).
  started.run.run_dir = !run.run_dir.empty() ? run.run_dir
                        : resuming           ? util::absolute_path(checkpoint::run_dir_of(started.run.resume))
                                             : default_run_dir;
  started.branch = resuming && util::resolved_path(checkpoint::run_dir_of(started.run.resume)) !=
                                   util::resolved_path(started.run.run_dir);
  const bool claims = !resuming || started.branch;  // the directory must hold no other run
  if (!run.resume.empty() && !started.branch && run.overwrite && started.placement.dist.is_main()) {
    spdlog::warn(
        "--overwrite: nothing goes aside when a run continues in its own directory (with --run-dir NEW, a "
        "branch, it moves an earlier run in NEW aside)");
  }
  if (resuming) {
    checkpoint::OpenedCheckpoint none(checkpoint::OpenedCheckpoint::Pick::kLatest);
    started.resume = (opened_resume != nullptr ? *opened_resume : none).take(started.run.resume, checkpoint_kind);
  }
  // Rank 0's checks of the run directory, whose refusal every rank gives.
  from_main_rank(dist, [&] {
    check_run_directory(started, run, claims);
    return std::string();
  });
  return started;
}

std::string StartedRun::claim_directory() {
  if (run.dry_run || !placement.dist.is_main()) return "";
  const auto aside = run.resume.empty() || branch ? claim_run_directory(run.run_dir, overwrite) : "";
  if (!aside.empty()) lock = std::make_unique<RunDirectoryLock>(run.run_dir);  // the lock went aside with it
  const auto job = torchrun_job();
  if (!job.empty()) util::write_text_atomically((fs::path(run.run_dir) / kTorchrunJobFile).string(), job);
  return aside;
}

void StartedRun::remove_unused_directory() {
  if (created_dir.empty()) return;
  lock.reset();
  std::error_code error;
  fs::path dir = fs::absolute(run.run_dir, error).lexically_normal();
  if (error) return;
  if (!dir.has_filename()) dir = dir.parent_path();
  fs::remove(dir / ".lock", error);
  fs::remove(dir / kTorchrunJobFile, error);
  const fs::path outermost(created_dir);
  // fs::remove takes only an empty folder: whatever another program put there stays.
  while (fs::remove(dir, error) && dir != outermost && dir.parent_path() != dir) dir = dir.parent_path();
  created_dir.clear();
}

LoopOptions StartedRun::loop_options(std::int64_t epochs, const settings::OptimizerSettings& optimizer,
                                     const settings::SelectionSettings& selection) {
  LoopOptions loop;
  loop.started = started;
  loop.run = run;
  loop.epochs = epochs;
  loop.optimizer = optimizer;
  loop.selection = selection;
  loop.device = placement.device;
  loop.workers = placement.workers;
  loop.dist = &placement.dist;
  if (branch) loop.branch_of = checkpoint::run_dir_of(run.resume);
  return loop;
}

int restart_count() {
  const char* restarts = std::getenv("TORCHELASTIC_RESTART_COUNT");
  return restarts == nullptr ? 0 : std::atoi(restarts);
}

std::string torchrun_job() {
  if (std::getenv("TORCHELASTIC_RESTART_COUNT") == nullptr) return "";
  // The launcher's pid and start time (field 22 of /proc/PID/stat, after the command's
  // parenthesis), so that a later process with its pid is another.
  const auto parent = ::getppid();
  std::ifstream stat("/proc/" + std::to_string(parent) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 1));
  std::string field, started;
  for (int i = 3; i <= 22 && fields >> field; ++i) started = field;
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  return std::string(host) + " " + std::to_string(parent) + " " + started;
}

bool written_by_this_job(const std::string& run_dir) {
  const auto path = fs::path(run_dir) / kTorchrunJobFile;
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return false;
  std::ifstream in(path);
  std::string recorded;
  std::getline(in, recorded);
  const auto job = torchrun_job();
  return !job.empty() && recorded == job;
}

std::string resume_after_restart(const std::string& run_dir, bool main_rank) {
  // The other ranks follow the checkpoints rank 0 resumes: on another machine their launcher
  // is another process, and rank 0 alone refuses a run that is not its job's.
  if (restart_count() <= 0 || (main_rank && !written_by_this_job(run_dir))) return "";
  try {
    const auto newest = checkpoint::latest_checkpoint(run_dir);
    spdlog::warn("restart {} of the job: resuming {} from {}", restart_count(), run_dir, newest);
    return run_dir;
  } catch (const std::exception&) {
    return "";  // nothing saved yet: start afresh
  }
}

}  // namespace dls::train
