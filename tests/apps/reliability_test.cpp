// Reliability from outside (issue 18): the programs under signals, write faults and SIGKILL
// at random moments, and a table of wrong values for every numeric or named flag.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "dls/train/stop_signals.h"
#include "dls/util/file_io.h"
#include "support/child_processes.h"
#include "support/idx_files.h"
#include "support/program_run.h"
#include "support/tmpfs_mount.h"
#include "util/temp_files.h"

namespace dls {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const std::string kCorpusForFaults = dls::testing::sample_corpus();
const std::string kSmallSeq2Seq =
    " --threads 1 --preset cpu --embedding-size 32 --heads 2 --encoders 1 --decoders 1 --ffn-multiplier 2"
    " --validation-pairs 100 --bleu-sentences 10 --samples 0 --log-every 1 --data " +
    kCorpusForFaults;

std::string program_path(const std::string& name) { return testing::binary_dir() + "/apps/" + name; }

std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> args;
  std::string word;
  for (const char c : text + " ") {
    if (c == ' ') {
      if (!word.empty()) args.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  return args;
}

// Files named *.tmp-* anywhere below `dir`.
std::vector<std::string> temporary_files(const fs::path& dir) {
  std::vector<std::string> found;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(dir, error); it != fs::recursive_directory_iterator(); ++it) {
    if (it->path().filename().string().find(".tmp-") != std::string::npos) found.push_back(it->path().string());
  }
  return found;
}

// Waits (up to `limit`) until `path` exists.
bool wait_for_file(const fs::path& path, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!fs::exists(path)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

// SIGTERM, SIGINT and SIGHUP (a closed SSH session) stop a run at the next step with a
// checkpoint and exit 143 / 130 / 129; the checkpoint resumes. The signal comes twice, as a terminal's Ctrl-C under
// torchrun does (to the worker, then forwarded): the second, at once after the first, is the same request.
TEST(Reliability, SignalsStopWithACheckpoint) {
  for (const int signal : {SIGTERM, SIGINT, SIGHUP}) {
    const auto dir = test::fresh_temp_dir("reliability_signal_" + std::to_string(signal));
    const auto run_dir = dir / "run";
    test::ChildProcesses children;
    const auto i = children.start(
        words_of(program_path("seq2seq_train") + kSmallSeq2Seq + " --epochs 1000 --run-dir " + run_dir.string()),
        {"DLS_LOG_LEVEL=off"}, dir, "train");
    ASSERT_TRUE(wait_for_file(run_dir / "metrics.csv", 60s));
    std::this_thread::sleep_for(300ms);  // some steps
    children.signal(i, signal);
    children.signal(i, signal);
    ASSERT_TRUE(children.wait(i, 60s)) << "did not stop";
    EXPECT_EQ(children[i].exit_code, 128 + signal) << children[i].stderr_text();
    const std::string err = children[i].stderr_text();
    EXPECT_EQ(test::count_lines(err), 1u) << err;
    EXPECT_NE(err.find("stopped by " + train::signal_name(signal)), std::string::npos) << err;
    const auto checkpoint = checkpoint::latest_checkpoint(run_dir.string());
    EXPECT_NE(err.find(checkpoint), std::string::npos) << err;
    EXPECT_NO_THROW(checkpoint::CheckpointReader(checkpoint, "seq2seq"));
    EXPECT_TRUE(temporary_files(run_dir).empty());
    // A time limit stops the resumed run after its first step, with a checkpoint.
    const auto resumed =
        test::run_program("apps/seq2seq_train", "--threads 1 --time-limit 0.01 --resume " + run_dir.string(),
                          "reliability_signal_resume");
    EXPECT_EQ(resumed.status, 0) << resumed.err;
  }
}

// A full disk in the middle of a run: one line naming the file with the errno text, exit 1,
// the earlier checkpoint intact, no temporary left; then a read-only disk refuses a resume
// the same way.
TEST(Reliability, DiskFullAndReadOnlyAreOneLineErrors) {
  // The size of one checkpoint of this model, written on an ordinary disk first.
  const auto probe = test::fresh_temp_dir("reliability_disk_probe");
  const std::string args = kSmallSeq2Seq + " --checkpoint-every 1 --run-dir ";
  const auto first = test::run_program(
      "apps/seq2seq_train", args + (probe / "run").string() + " --epochs 1 --max-iters 2", "reliability_disk_probe");
  ASSERT_EQ(first.status, 0) << first.err;
  const auto size = fs::file_size(probe / "run" / "checkpoints" / checkpoint::checkpoint_file_name(1));

  // Room for one checkpoint and a half, plus the small files (4 KiB pages each).
  test::TmpfsMount disk("reliability_disk_full", size * 3 / 2 + 64 * 1024);
  if (!disk.available()) GTEST_SKIP() << disk.why_not();
  const auto run_dir = disk.dir() / "run";
  const auto full =
      test::run_program("apps/seq2seq_train", args + run_dir.string() + " --epochs 3", "reliability_disk_full");
  test::expect_one_line_error(full, std::strerror(ENOSPC));
  EXPECT_NE(full.err.find(run_dir.string()), std::string::npos) << "names the file: " << full.err;
  const auto kept = run_dir / "checkpoints" / checkpoint::checkpoint_file_name(1);
  EXPECT_NO_THROW(checkpoint::CheckpointReader(kept.string(), "seq2seq"));
  EXPECT_TRUE(temporary_files(run_dir).empty());

  ASSERT_TRUE(disk.make_read_only());
  const auto read_only =
      test::run_program("apps/seq2seq_train", "--threads 1 --resume " + run_dir.string(), "reliability_read_only");
  test::expect_one_line_error(read_only, std::strerror(EROFS));
  EXPECT_NO_THROW(checkpoint::CheckpointReader(kept.string(), "seq2seq"));
}

// checkpoint_eval writes bleu.csv and its plot into the run directory: on a read-only one it
// says, before evaluating, in one line, to give --output-dir; with it the evaluation runs.
TEST(Reliability, CheckpointEvalOnAReadOnlyRunSaysToUseOutputDir) {
  const auto probe = test::fresh_temp_dir("reliability_eval_read_only");
  const auto trained = test::run_program(
      "apps/seq2seq_train", kSmallSeq2Seq + " --run-dir " + (probe / "run").string() + " --epochs 1 --max-iters 2",
      "reliability_eval_read_only_train");
  ASSERT_EQ(trained.status, 0) << trained.err;
  // Root ignores permissions, so a read-only tmpfs makes the fault real; elsewhere chmod does.
  test::TmpfsMount disk("reliability_eval_read_only", 16 << 20);
  fs::path run_dir = probe / "run";
  if (disk.available()) {
    run_dir = disk.dir() / "run";
    fs::copy(probe / "run", run_dir, fs::copy_options::recursive);
    ASSERT_TRUE(disk.make_read_only());
  } else if (::geteuid() != 0) {
    fs::permissions(run_dir, fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                    fs::perm_options::remove);
  } else {
    GTEST_SKIP() << disk.why_not() << ", and root writes into a folder without write permission";
  }
  const auto refused = test::run_program("apps/checkpoint_eval", "--threads 1 " + run_dir.string(),
                                         "reliability_eval_read_only_refused");
  test::expect_one_line_error(refused, run_dir.string() + ": cannot write bleu.csv");
  EXPECT_NE(refused.err.find("give --output-dir"), std::string::npos) << refused.err;
  const auto elsewhere = probe / "report";
  const auto written = test::run_program("apps/checkpoint_eval",
                                         "--threads 1 " + run_dir.string() + " --output-dir " + elsewhere.string(),
                                         "reliability_eval_read_only_elsewhere");
  EXPECT_EQ(written.status, 0) << written.err;
  EXPECT_TRUE(fs::exists(elsewhere / "bleu.csv"));
  if (!disk.available()) fs::permissions(run_dir, fs::perms::owner_write, fs::perm_options::add);
}

// The run directory removed while the run goes on: the next write fails with one line.
TEST(Reliability, ARemovedRunDirectoryIsAOneLineError) {
  const auto dir = test::fresh_temp_dir("reliability_removed");
  const auto run_dir = dir / "run";
  test::ChildProcesses children;
  const auto i = children.start(
      words_of(program_path("seq2seq_train") + kSmallSeq2Seq + " --epochs 1000 --run-dir " + run_dir.string()),
      {"DLS_LOG_LEVEL=off"}, dir, "train");
  ASSERT_TRUE(wait_for_file(run_dir / "checkpoints" / checkpoint::checkpoint_file_name(1), 60s));
  test::remove_tree(run_dir);
  ASSERT_TRUE(children.wait(i, 60s)) << "did not notice";
  EXPECT_EQ(children[i].exit_code, 1);
  const std::string err = children[i].stderr_text();
  EXPECT_EQ(test::count_lines(err), 1u) << err;
  EXPECT_NE(err.find(std::strerror(ENOENT)), std::string::npos) << err;
  EXPECT_NE(err.find(run_dir.string()), std::string::npos) << err;
}

// SIGKILL at random moments of training, many near or inside checkpoint writes (a
// checkpoint every 4 steps): every checkpoint that is visible afterwards loads, and the run
// resumes from the newest.
TEST(Reliability, KilledAtRandomMomentsEveryVisibleCheckpointLoadsAndResumes) {
  constexpr int kKills = 10;
  const auto dir = test::fresh_temp_dir("reliability_kill");
  const auto data = dir / "data";
  fs::create_directories(data);
  test::write_fake_fashion_mnist(data, 64, 20);
  const auto run_dir = dir / "run";
  const auto metrics = run_dir / "metrics.csv";
  const std::string model = " --threads 1 --data-dir " + data.string() + " --run-dir " + run_dir.string() +
                            " --checkpoint-every 1 --log-every 1 --embedding-size 16 --heads 2 --encoders 1"
                            " --stem 4,8/2 --patch-size 7 --batch-size 16 --test-subset 4";
  std::mt19937 random(2024);
  std::uniform_int_distribution<int> delay_ms(0, 400);
  int checkpoints_seen = 0, inside_writes = 0;
  for (int k = 0; k < kKills; ++k) {
    bool has_checkpoint = true;
    try {
      checkpoint::find_checkpoints(run_dir.string());
    } catch (const std::exception&) {
      has_checkpoint = false;
    }
    const std::string args = has_checkpoint
                                 ? " --threads 1 --log-every 1 --resume " + run_dir.string() + " --epochs 100000"
                                 : model + " --epochs 100000 --overwrite";
    std::error_code no_file;
    const auto rows_before = fs::exists(metrics) ? fs::file_size(metrics, no_file) : 0;
    test::ChildProcesses children;
    const auto i = children.start(words_of(program_path("vit_train") + args), {"DLS_LOG_LEVEL=off"}, dir, "train");
    // Training has begun when metrics.csv gains a row; then a random moment of it.
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < deadline &&
           !(fs::exists(metrics) && fs::file_size(metrics, no_file) > rows_before + 60)) {
      std::this_thread::sleep_for(5ms);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(random)));
    children.kill(i);
    inside_writes += temporary_files(run_dir).empty() ? 0 : 1;
    for (const auto& entry : fs::directory_iterator(run_dir / "checkpoints")) {
      if (!checkpoint::is_checkpoint_file_name(entry.path().filename().string())) continue;
      EXPECT_NO_THROW(checkpoint::CheckpointReader(entry.path().string(), "vit")) << "after kill " << k;
      ++checkpoints_seen;
    }
  }
  std::cout << kKills << " kills, " << inside_writes << " of them inside a write (a temporary file left), "
            << checkpoints_seen << " visible checkpoints checked" << std::endl;
  EXPECT_GT(checkpoints_seen, 0);
  // A time limit stops the resumed run after its first step, with a checkpoint.
  const auto resumed = test::run_program("apps/vit_train", "--threads 1 --time-limit 0.01 --resume " + run_dir.string(),
                                         "reliability_kill_resume");
  EXPECT_EQ(resumed.status, 0) << resumed.err;
  const auto left = temporary_files(run_dir);
  EXPECT_TRUE(left.empty()) << "stale temporaries are removed at start: " << (left.empty() ? "" : left.front());
}

// Every numeric or named flag with a wrong value: a non-zero exit, one line naming the
// flag, and nothing written.
TEST(Reliability, WrongFlagValuesAreRefusedBeforeAnyWork) {
  const auto dir = test::fresh_temp_dir("reliability_flags");
  const auto run_dir = dir / "run";
  struct Case {
    std::string program, base;
    std::vector<std::string> flags;
  };
  const std::string seq2seq_base = "--dry-run --data " + kCorpusForFaults + " --run-dir " + run_dir.string();
  const std::string vit_base = "--data-dir " + dir.string() + " --run-dir " + run_dir.string();
  // The settings every trainer shares (settings/run_settings.h, optimizer_settings.h), each
  // with a wrong value; a trainer's case adds its own.
  const std::vector<std::string> shared_training_flags{
      "--epochs 0",        "--batch-size 0",      "--max-iters -1",      "--time-limit -1",       "--min-lr -1",
      "--weight-decay -1", "--clip-grad-norm -1", "--label-smoothing 1", "--optimizer sgd",       "--seed -1",
      "--threads 0",       "--workers 0",         "--device tpu",        "--precision fp8",       "--dist-backend mpi",
      "--dist-timeout 0",  "--accum-steps 0",     "--bucket-mb -1",      "--checkpoint-every -1", "--keep-last -1",
      "--patience -1",     "--log-every -1",      "--log-level loud"};
  const auto trainer_flags = [&](std::vector<std::string> own) {
    own.insert(own.end(), shared_training_flags.begin(), shared_training_flags.end());
    return own;
  };
  const std::vector<Case> cases{
      {"apps/seq2seq_train", seq2seq_base,
       trainer_flags({"--max-words 0",
                      "--validation-pairs -1",
                      "--preset x",
                      "--variant y",
                      "--embedding-size 0",
                      "--heads 0",
                      "--encoders 0",
                      "--decoders -1",
                      "--ffn-multiplier 0",
                      "--dropout 1",
                      "--lr 0",
                      "--lr nan",
                      "--warmup -1",
                      "--beta1 1",
                      "--beta2 -0.5",
                      "--eps 0",
                      "--samples -1",
                      "--bleu-sentences -1",
                      "--split-seed -2",
                      "--epochs 1e400",
                      "--best-metric accuracy",
                      "--ema-decay 1",
                      "--schedule x"})},
      {"apps/vit_train", vit_base,
       trainer_flags({"--lr inf", "--warmup-epochs -1", "--beta1 2", "--beta2 1", "--eps 0", "--train-subset -1",
                      "--test-subset -1", "--dataset mnist", "--preset x", "--best-metric bleu", "--ema-decay -0.1",
                      "--schedule dlstudio-warmup"})},
      {"apps/lm_train", seq2seq_base,
       trainer_flags({"--max-words 0", "--vocab-size 0", "--validation-sentences -1", "--split-seed -1",
                      "--embedding-size 0", "--heads 0", "--decoders 0", "--ffn-multiplier 0", "--variant x",
                      "--dropout 1", "--preset x", "--lr inf", "--schedule x", "--warmup-steps -1",
                      "--best-metric bleu", "--ema-decay 1", "--side fr", "--tokenizer x", "--spm-model x"})},
      {"apps/checkpoint_eval",
       run_dir.string(),
       {"--beam 0", "--limit -1", "--length-penalty -1", "--samples -1", "--test-subset -1", "--attention-images -1",
        "--smoothing method9", "--threads 0", "--device tpu", "--log-level loud", "--seed -1", "--average 0"}},
#ifdef DLS_HAVE_BENCH  // not built with -DDLS_BUILD_BENCH=OFF (make test-asan)
      {"bench/dls_bench",
       "--task gemm",
       {"--iters 0", "--repeats 0", "--warmup -1", "--batch 0", "--src-vocab 0", "--tgt-vocab -1", "--beam 0",
        "--gemm-size 0", "--threads 0", "--workers 0", "--profile -1", "--task x", "--preset x", "--layout x",
        "--variant x", "--device tpu", "--keep-freed-memory maybe", "--seed -1"}},
#endif
  };
  // Two programs at a time (most of each run is loading the libraries).
  for (const auto& c : cases) {
    for (std::size_t k = 0; k < c.flags.size(); k += 2) {
      test::ChildProcesses children;
      std::vector<std::size_t> started;
      for (std::size_t j = k; j < std::min(k + 2, c.flags.size()); ++j) {
        started.push_back(
            children.start(words_of(testing::binary_dir() + "/" + c.program + " " + c.base + " " + c.flags[j]), {}, dir,
                           "flag" + std::to_string(j - k)));
      }
      for (std::size_t j = 0; j < started.size(); ++j) {
        const auto& flag = c.flags[k + j];
        ASSERT_TRUE(children.wait(started[j], 60s)) << c.program << " " << flag;
        const std::string err = children[started[j]].stderr_text();
        const std::string name = flag.substr(0, flag.find(' '));
        EXPECT_NE(children[started[j]].exit_code, 0) << c.program << " " << flag;
        EXPECT_EQ(test::count_lines(err), 1u) << c.program << " " << flag << ":\n" << err;
        EXPECT_NE(err.find(name), std::string::npos) << c.program << " " << flag << ": " << err;
      }
    }
    EXPECT_FALSE(fs::exists(run_dir)) << c.program << " wrote " << run_dir;
  }
}

}  // namespace
}  // namespace dls
