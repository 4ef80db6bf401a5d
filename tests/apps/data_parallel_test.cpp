// Data-parallel training end to end: the training programs run as two ranks on 127.0.0.1
// (launched here with RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT, or by torchrun) train the
// same global batches as one process and end with the same weights; gradient accumulation
// in one process too; a rank that dies ends the other with one clear error, and the run's
// checkpoints still load and resume.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/checkpoint/vit_checkpoint.h"
#include "dls/layers/saved_tensors.h"
#include "dls/train/parallel/distributed.h"
#include "dls/util/file_io.h"
#include "support/child_processes.h"
#include "support/outside_needs.h"
#include "support/idx_files.h"
#include "support/program_run.h"
#include "support/test_paths.h"
#include "util/temp_files.h"

namespace dls {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Runs `program` with `args` as `world` ranks (world 1: alone, no distributed environment);
// every rank must exit 0 within two minutes. Returns each rank's standard error.
std::vector<std::string> run_ranks(const std::string& program, const std::string& args, int world,
                                   const fs::path& dir) {
  test::ChildProcesses children;
  const int port = test::free_local_port();
  std::vector<std::string> argv{testing::binary_dir() + "/apps/" + program};
  for (const auto& w : words(args)) argv.push_back(w);
  for (int rank = 0; rank < world; ++rank) {
    std::vector<std::string> env;
    if (world > 1) {
      env = {"RANK=" + std::to_string(rank), "WORLD_SIZE=" + std::to_string(world), "MASTER_ADDR=127.0.0.1",
             "MASTER_PORT=" + std::to_string(port), "LOCAL_RANK=" + std::to_string(rank)};
    }
    children.start(argv, env, dir, "rank" + std::to_string(rank));
  }
  std::vector<std::string> errors;
  for (int rank = 0; rank < world; ++rank) {
    const bool finished = children.wait(static_cast<std::size_t>(rank), 120s);
    EXPECT_TRUE(finished) << "rank " << rank << " did not finish";
    errors.push_back(children[static_cast<std::size_t>(rank)].stderr_text());
    if (finished) {
      EXPECT_EQ(children[static_cast<std::size_t>(rank)].exit_code, 0) << "rank " << rank << ":\n" << errors.back();
    }
  }
  return errors;
}

const std::string kTorchrun = "/usr/bin/torchrun";

// Runs `program args` under torchrun with `launch` flags (e.g. --nproc_per_node 2) as the
// node `name`; returns its index in `children`. Debian's torchrun 1.13 on Python 3.11 needs
// --redirects/--tee/--log_dir (without them it fails in its log handling before starting).
std::size_t start_torchrun(test::ChildProcesses& children, const std::vector<std::string>& launch,
                           const std::string& program, const std::string& args, const fs::path& dir,
                           const std::string& name) {
  std::vector<std::string> argv{kTorchrun};
  argv.insert(argv.end(), launch.begin(), launch.end());
  for (const std::string flag : {"--no_python", "--redirects", "1", "--tee", "1", "--log_dir"}) argv.push_back(flag);
  argv.push_back((dir / ("logs_" + name)).string());
  argv.push_back(testing::binary_dir() + "/apps/" + program);
  for (const auto& w : words(args)) argv.push_back(w);
  return children.start(argv, {}, dir, name);
}

// Why torchrun cannot start a worker on this machine, "" when it can. Debian's torchrun is a
// Python script: installed without a Python that imports torch, or with an agent that cannot
// start, it fails before the program it launches runs, and a test would fail for the
// machine's sake. Probed by launching `vit_train --version` as one worker.
std::string torchrun_cannot_start(const fs::path& dir) {
  test::ChildProcesses children;
  const std::vector<std::string> launch{"--nproc_per_node", "1", "--master_port",
                                        std::to_string(test::free_local_port())};
  const auto i = start_torchrun(children, launch, "vit_train", "--version", dir, "torchrun_probe");
  if (!children.wait(i, 60s)) return "torchrun did not start one worker (vit_train --version) within 60 s";
  if (children[i].exit_code == 0) return "";
  std::istringstream lines(children[i].stderr_text());
  std::string line, last;
  while (std::getline(lines, line)) {
    if (line.find_first_not_of(" \t") != std::string::npos) last = line;
  }
  return "torchrun cannot start a worker here (" + kTorchrun + " exited " + std::to_string(children[i].exit_code) +
         (last.empty() ? "" : ": " + last) + ")";
}

// In a test body: skips, naming what is missing, where torchrun is absent or cannot start.
#define DLS_REQUIRE_TORCHRUN(dir)                                                           \
  DLS_REQUIRE_OUTSIDE("/usr/bin/torchrun");                                                 \
  if (const std::string dls_torchrun_ = torchrun_cannot_start(dir); !dls_torchrun_.empty()) \
  GTEST_SKIP() << dls_torchrun_

void expect_finished(test::ChildProcesses& children, std::size_t i) {
  ASSERT_TRUE(children.wait(i, 180s)) << "process " << i << " did not finish";
  ASSERT_EQ(children[i].exit_code, 0) << children[i].stderr_text();
}

// 40 fake Fashion-MNIST images (44, 4 of them held out for validation) in global batches of
// 12 (the last batch has 4, two per rank), a tiny model, no dropout; `dir`/data holds them.
std::string tiny_vit_args(const fs::path& dir) {
  fs::create_directories(dir / "data");
  test::write_fake_fashion_mnist(dir / "data", 44, 10);
  return "--data-dir " + (dir / "data").string() +
         " --epochs 1 --embedding-size 16 --heads 2 --encoders 1 --stem 4,8/2 --patch-size 7"
         " --batch-size 12 --dropout 0 --head-dropout 0 --threads 1 --workers 1 --log-level warn";
}

std::map<std::string, torch::Tensor> seq2seq_weights(const fs::path& run) {
  const auto loaded = checkpoint::load_seq2seq_checkpoint(checkpoint::latest_checkpoint(run.string()));
  std::map<std::string, torch::Tensor> weights;
  for (const auto& [name, p] : saved_parameters(loaded.model.module())) weights[name] = p.detach().clone();
  return weights;
}

std::map<std::string, torch::Tensor> vit_weights(const fs::path& run) {
  const checkpoint::CheckpointReader reader(checkpoint::latest_checkpoint(run.string()),
                                            checkpoint::kViTCheckpointKind);
  const auto model = checkpoint::load_vit_model(reader, checkpoint::read_vit_contents(reader).settings);
  std::map<std::string, torch::Tensor> weights;
  for (const auto& [name, p] : saved_parameters(*model)) weights[name] = p.detach().clone();
  return weights;
}

// Equal within fp32 rounding: the ranks add the same gradients in another order, and a few
// Adam steps (which divide by the gradients' running RMS) carry the difference forward.
// Except the keys' biases: a bias added to every key shifts all of a query's scores alike,
// which the softmax ignores, so their exact gradient is zero and what backward computes is
// rounding noise -- which Adam's normalisation turns into steps of the full learning rate.
void expect_same_weights(const std::map<std::string, torch::Tensor>& a, const std::map<std::string, torch::Tensor>& b,
                         const std::string& what) {
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, tensor] : a) {
    if (name.size() >= 7 && name.compare(name.size() - 7, 7, "WK.bias") == 0) continue;
    const auto& other = b.at(name);
    EXPECT_TRUE(torch::allclose(tensor, other, /*rtol=*/1e-4, /*atol=*/2e-5))
        << what << ": " << name << " differs by up to " << (tensor - other).abs().max().item<double>();
  }
}

bool distributed_available() { return train::distributed_backend_available("gloo"); }

// `program` with `args` trained three times under `dir` -- by one process ("one"), by two
// ranks with `two_rank_flags` too ("two") and by one process in two micro-batches ("accum")
// -- ends on the same weights (`weights` reads a run's).
template <typename ReadWeights>
void expect_ranks_and_accumulation_agree(const std::string& program, const std::string& args,
                                         const std::string& two_rank_flags, const fs::path& dir, ReadWeights weights,
                                         const std::string& what) {
  run_ranks(program, args + " --run-dir " + (dir / "one").string(), 1, dir);
  run_ranks(program, args + two_rank_flags + " --run-dir " + (dir / "two").string(), 2, dir);
  run_ranks(program, args + " --accum-steps 2 --run-dir " + (dir / "accum").string(), 1, dir);
  const auto one = weights(dir / "one");
  expect_same_weights(one, weights(dir / "two"), what + "2 ranks");
  expect_same_weights(one, weights(dir / "accum"), what + "--accum-steps 2");
}

const std::string kSeq2Seq =
    "--data " + testing::sample_corpus() +
    " --preset cpu --embedding-size 32 --heads 2"
    " --encoders 1 --decoders 1 --ffn-multiplier 2 --dropout 0 --validation-pairs 100 --bleu-sentences 10"
    " --samples 0 --epochs 1 --max-iters 3 --batch-size 24 --threads 1 --workers 1 --log-level warn";

class Seq2SeqDataParallel : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

// The same three global batches of 24 pairs trained by one process, by two ranks, and by one
// process in two micro-batches: the same weights.
TEST_P(Seq2SeqDataParallel, TwoRanksAndAccumulationEqualOneProcess) {
  if (!distributed_available()) GTEST_SKIP() << "built without Gloo";
  const auto& [layout, variant] = GetParam();
  const std::string name = "dp_seq2seq_" + layout + "_" + variant;
  const auto dir = test::fresh_temp_dir(name);
  const std::string args = kSeq2Seq + " --layout " + layout + " --variant " + variant;
  // Gradient buckets of 1 KiB: dozens of all-reduces, most started during backward.
  expect_ranks_and_accumulation_agree("seq2seq_train", args, " --bucket-mb 0.001", dir, seq2seq_weights, "");
  // The checkpoint says how many processes trained it.
  const checkpoint::CheckpointReader reader(checkpoint::latest_checkpoint((dir / "two").string()));
  EXPECT_NE(reader.text("distributed").find("world_size=2"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(LayoutsAndVariants, Seq2SeqDataParallel,
                         ::testing::Values(std::make_pair("vaswani", "FG"), std::make_pair("vaswani", "PreLN"),
                                           std::make_pair("dlstudio", "FG"), std::make_pair("dlstudio", "PreLN")),
                         [](const auto& info) { return info.param.first + "_" + info.param.second; });

// The RNN encoder-decoder through the same loop: two ranks, and one process in two
// micro-batches, train the weights of one process (teacher-forced, no dropout).
TEST(Seq2SeqDataParallelRnn, TwoRanksAndAccumulationEqualOneProcess) {
  if (!distributed_available()) GTEST_SKIP() << "built without Gloo";
  const auto dir = test::fresh_temp_dir("dp_seq2seq_rnn");
  const std::string args = "--data " + testing::sample_corpus() +
                           " --preset rnn-luong --rnn-embedding-size 16 --rnn-hidden-size 32"
                           " --rnn-dropout 0 --validation-pairs 100 --bleu-sentences 10 --samples 0 --epochs 1"
                           " --max-iters 3 --batch-size 24 --threads 1 --workers 1 --log-level warn";
  expect_ranks_and_accumulation_agree("seq2seq_train", args, "", dir, seq2seq_weights, "RNN, ");
}

// --max-tokens: every rank takes a strided share of each token batch (data/token_batches.h)
// and the loss is over the whole batch's target tokens: the weights of one process.
TEST(Seq2SeqDataParallelTokens, TwoRanksEqualOneProcess) {
  if (!distributed_available()) GTEST_SKIP() << "built without Gloo";
  const auto dir = test::fresh_temp_dir("dp_seq2seq_tokens");
  const std::string args = kSeq2Seq + " --layout vaswani --max-tokens 160";
  run_ranks("seq2seq_train", args + " --run-dir " + (dir / "one").string(), 1, dir);
  run_ranks("seq2seq_train", args + " --run-dir " + (dir / "two").string(), 2, dir);
  expect_same_weights(seq2seq_weights(dir / "one"), seq2seq_weights(dir / "two"), "2 ranks, token batches");
}

// Every rank reads the same data, so its warnings (here: validation files of words training
// never saw) are the first rank's to give, once.
TEST(Seq2SeqDataParallelTokens, DataWarningsComeFromTheFirstRankAlone) {
  if (!distributed_available()) GTEST_SKIP() << "built without Gloo";
  const auto dir = test::fresh_temp_dir("dp_seq2seq_warnings");
  test::write_bytes(dir / "valid.en", "zorbly quaxes.\nflim flam.\n");
  test::write_bytes(dir / "valid.es", "zorblo quaxa.\nflimo flamo.\n");
  const auto errors = run_ranks("seq2seq_train",
                                kSeq2Seq + " --valid-src " + (dir / "valid.en").string() + " --valid-tgt " +
                                    (dir / "valid.es").string() + " --run-dir " + (dir / "run").string(),
                                2, dir);
  ASSERT_EQ(errors.size(), 2u);
  const std::string warning = "English: 100.0 % of the validation words are <unk>";
  EXPECT_NE(errors[0].find(warning), std::string::npos) << errors[0];
  EXPECT_EQ(errors[1].find(warning), std::string::npos) << errors[1];
}

TEST(ViTDataParallel, TwoRanksAndAccumulationEqualOneProcess) {
  if (!distributed_available()) GTEST_SKIP() << "built without Gloo";
  const auto dir = test::fresh_temp_dir("dp_vit");
  const auto args = tiny_vit_args(dir);
  expect_ranks_and_accumulation_agree("vit_train", args, " --bucket-mb 0.001", dir, vit_weights, "");
}

// `program` with `args` trained under `dir` by one process ("one") and by two workers that
// torchrun starts ("two"): the same weights (`weights` reads a run's).
template <typename ReadWeights>
void expect_torchrun_equals_one_process(const std::string& program, const std::string& args, const fs::path& dir,
                                        ReadWeights weights) {
  run_ranks(program, args + " --run-dir " + (dir / "one").string(), 1, dir);
  test::ChildProcesses children;
  const std::vector<std::string> launch{"--nproc_per_node", "2", "--master_port",
                                        std::to_string(test::free_local_port())};
  expect_finished(children, start_torchrun(children, launch, program, args + " --run-dir " + (dir / "two").string(),
                                           dir, "torchrun"));
  expect_same_weights(weights(dir / "one"), weights(dir / "two"), "torchrun, 2 workers");
}

// torchrun starts both ranks (its agent hosts the store); the result equals one process's.
TEST(Seq2SeqDataParallelTorchrun, TwoWorkersUnderTorchrunEqualOneProcess) {
  if (!distributed_available()) GTEST_SKIP() << "built without Gloo";
  const auto dir = test::fresh_temp_dir("dp_torchrun");
  DLS_REQUIRE_TORCHRUN(dir);
  expect_torchrun_equals_one_process("seq2seq_train", kSeq2Seq + " --layout vaswani", dir, seq2seq_weights);
}

TEST(ViTDataParallelTorchrun, TwoWorkersUnderTorchrunEqualOneProcess) {
  if (!distributed_available()) GTEST_SKIP() << "built without Gloo";
  const auto dir = test::fresh_temp_dir("dp_vit_torchrun");
  DLS_REQUIRE_TORCHRUN(dir);
  expect_torchrun_equals_one_process("vit_train", tiny_vit_args(dir), dir, vit_weights);
}

// Two "machines" on localhost: two torchrun invocations, one worker each, meeting at node
// 0's rendezvous endpoint (static rendezvous, as on real machines with --master_addr).
TEST(Seq2SeqDataParallelTorchrun, TwoNodesOfOneWorkerEqualOneProcess) {
  if (!distributed_available()) GTEST_SKIP() << "built without Gloo";
  const auto dir = test::fresh_temp_dir("dp_two_nodes");
  DLS_REQUIRE_TORCHRUN(dir);
  const std::string args = kSeq2Seq + " --layout vaswani";
  run_ranks("seq2seq_train", args + " --run-dir " + (dir / "one").string(), 1, dir);
  test::ChildProcesses children;
  const std::string port = std::to_string(test::free_local_port());
  for (int node = 0; node < 2; ++node) {
    const std::vector<std::string> launch{"--nnodes",         "2", "--node_rank",   std::to_string(node),
                                          "--nproc_per_node", "1", "--master_addr", "127.0.0.1",
                                          "--master_port",    port};
    start_torchrun(children, launch, "seq2seq_train", args + " --run-dir " + (dir / "two").string(), dir,
                   "node" + std::to_string(node));
  }
  expect_finished(children, 0);
  expect_finished(children, 1);
  expect_same_weights(seq2seq_weights(dir / "one"), seq2seq_weights(dir / "two"), "2 nodes");
}

// Runs seq2seq_train `args` as torchrun's attempt `attempt` would (TORCHELASTIC_RESTART_COUNT),
// a child of this process as every attempt is a child of torchrun's agent; exit 0 expected
// unless `status` says otherwise. Returns the child's output and errors.
std::pair<std::string, std::string> run_attempt(const std::string& args, int attempt, const fs::path& dir,
                                                const std::string& name, int status = 0) {
  test::ChildProcesses children;
  std::vector<std::string> argv{testing::binary_dir() + "/apps/seq2seq_train"};
  for (const auto& w : words(args)) argv.push_back(w);
  const auto i = children.start(argv, {"TORCHELASTIC_RESTART_COUNT=" + std::to_string(attempt)}, dir, name);
  EXPECT_TRUE(children.wait(i, 120s)) << name;
  EXPECT_EQ(children[i].exit_code, status) << name << ": " << children[i].stderr_text();
  return {children[i].stdout_text(), children[i].stderr_text()};
}

// After torchrun restarts a failed job (TORCHELASTIC_RESTART_COUNT > 0), the same command
// line continues from the run directory's newest checkpoint instead of starting afresh.
TEST(Seq2SeqDataParallelTorchrun, RestartedJobResumesItsRunDirectory) {
  const auto dir = test::fresh_temp_dir("dp_restart");
  std::string args = kSeq2Seq + " --layout vaswani --json --run-dir " + (dir / "run").string();
  const auto first = run_attempt(args, 0, dir, "first");
  ASSERT_NE(first.first.find("\"iterations\":3"), std::string::npos) << first.first;
  args.replace(args.find("--max-iters 3"), 13, "--max-iters 5");
  const auto again = run_attempt(args, 1, dir, "again");
  EXPECT_NE(again.first.find("\"iterations\":5"), std::string::npos) << "resumed at step 3: " << again.first;
  EXPECT_NE(again.second.find("resuming"), std::string::npos) << again.second;
}

// A restart before the job's first checkpoint starts the run again (the failed attempt's
// files moved aside): it refused its own run directory, wasting the restart. A run of the
// user's already in the directory is another job's: attempt 0 refused it, and a restart
// neither moves it aside nor resumes it (it did both).
TEST(Seq2SeqDataParallelTorchrun, RestartBeforeTheFirstCheckpointStartsAgain) {
  const auto dir = test::fresh_temp_dir("dp_restart_early");
  const auto run = dir / "run";
  const std::string args = kSeq2Seq + " --layout vaswani --json --run-dir " + run.string();
  // Attempt 0 starts the run and fails before its first checkpoint (here: its directory is
  // left as such a failure leaves it).
  std::string first_args = args;
  first_args.replace(first_args.find("--max-iters 3"), 13, "--max-iters 1");
  run_attempt(first_args, 0, dir, "attempt0");
  for (const auto& entry : fs::directory_iterator(run / "checkpoints")) fs::remove(entry.path());
  const auto again = run_attempt(args, 1, dir, "attempt1");
  EXPECT_NE(again.first.find("\"iterations\":3"), std::string::npos) << again.first;
  EXPECT_NE(again.second.find("restart 1 of the job: no checkpoint yet, starting afresh"), std::string::npos)
      << again.second;
  EXPECT_TRUE(fs::exists(dir / "run.old-1" / "metrics.csv")) << again.second;

  // Another job's run (a user's, with and without checkpoints): refused by every attempt, untouched.
  for (const bool checkpoints : {false, true}) {
    const auto theirs = dir / (checkpoints ? "theirs_saved" : "theirs");
    const auto first = test::run_program("apps/seq2seq_train", kSeq2Seq + " --run-dir " + theirs.string(),
                                         "dp_restart_theirs" + std::to_string(checkpoints));
    ASSERT_EQ(first.status, 0) << first.err;
    if (!checkpoints) {
      for (const auto& entry : fs::directory_iterator(theirs / "checkpoints")) fs::remove(entry.path());
    }
    const auto metrics = util::read_file((theirs / "metrics.csv").string());
    std::string other = kSeq2Seq + " --run-dir " + theirs.string();
    other.replace(other.find("--max-iters 3"), 13, "--max-iters 5");
    run_attempt(other, 1, dir, "theirs_restart" + std::to_string(checkpoints), 1);
    EXPECT_EQ(util::read_file((theirs / "metrics.csv").string()), metrics) << "the user's run was changed";
    EXPECT_FALSE(fs::exists(theirs.string() + ".old-1"));
  }
}

// A rank killed mid-run ends the other within the timeout with one error line naming what
// happened; the checkpoints rank 0 wrote before still load and resume in one process.
// Ranks started with other flags or other data are refused on every rank in one line naming
// the difference, before any work: another --batch-size trained on silently (a loss that
// rose), and another --data (other vocabularies) ended rank 1 in a Gloo abort while rank 0
// waited out --dist-timeout. A path may differ (ranks on other machines).
TEST(Seq2SeqDataParallelFaults, RanksStartedUnlikeAreRefusedOnEveryRank) {
  if (!distributed_available()) GTEST_SKIP() << "built without Gloo";
  const auto dir = test::fresh_temp_dir("dp_unlike");
  fs::copy_file(testing::sample_corpus(), dir / "same.tsv");  // the same data at another path
  std::string fewer;
  {
    std::ifstream in(testing::sample_corpus());
    std::string line;
    for (int i = 0; i < 400 && std::getline(in, line); ++i) fewer += line + "\n";
  }
  test::write_bytes(dir / "fewer.tsv", fewer);
  // The same sentences with the Spanish sides of some pairs swapped between pairs of as many
  // words: the same vocabularies, pair count and steps, other training data.
  std::vector<std::string> lines;
  {
    std::ifstream in(testing::sample_corpus());
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  const auto field = [](const std::string& line, int n) {
    std::size_t start = 0;
    for (int i = 0; i < n; ++i) start = line.find('\t', start) + 1;
    return line.substr(start, line.find('\t', start) - start);
  };
  int swapped = 0;
  for (std::size_t i = 0; i + 2 < 200; ++i) {
    const auto a = field(lines[i], 1), b = field(lines[i + 2], 1);
    if (a == b || std::count(a.begin(), a.end(), ' ') != std::count(b.begin(), b.end(), ' ')) continue;
    lines[i] = field(lines[i], 0) + "\t" + b;
    lines[i + 2] = field(lines[i + 2], 0) + "\t" + a;
    ++swapped;
    ++i;
  }
  ASSERT_GT(swapped, 20);
  std::string swapped_text;
  for (const auto& line : lines) swapped_text += line + "\n";
  test::write_bytes(dir / "swapped.tsv", swapped_text);
  const std::string common =
      " --preset cpu --embedding-size 32 --heads 2 --encoders 1 --decoders 1"
      " --ffn-multiplier 2 --validation-pairs 100 --bleu-sentences 10 --samples 0 --epochs 1"
      " --max-iters 2 --threads 1 --workers 1 --dist-timeout 60 --log-level warn";
  const auto start = [&](const std::string& name, const std::string& rank0, const std::string& rank1,
                         int exit_code = 1) {
    test::ChildProcesses children;
    const int port = test::free_local_port();
    for (int rank = 0; rank < 2; ++rank) {
      std::vector<std::string> argv{testing::binary_dir() + "/apps/seq2seq_train"};
      for (const auto& w : words((rank == 0 ? rank0 : rank1) + common + " --run-dir " + (dir / name).string()))
        argv.push_back(w);
      children.start(argv,
                     {"RANK=" + std::to_string(rank), "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1",
                      "MASTER_PORT=" + std::to_string(port)},
                     dir, name + std::to_string(rank));
    }
    std::vector<std::string> errors;
    for (std::size_t rank = 0; rank < 2; ++rank) {
      EXPECT_TRUE(children.wait(rank, 60s)) << name << ": rank " << rank << " did not stop";
      EXPECT_EQ(children[rank].exit_code, exit_code) << children[rank].stderr_text();
      errors.push_back(children[rank].stderr_text());
    }
    return errors;
  };
  const std::string data = "--data " + testing::sample_corpus();
  for (const auto& err : start("batch", data + " --batch-size 24", data + " --batch-size 16")) {
    EXPECT_NE(err.find("rank 1 was started unlike rank 0: batch-size=16 there, batch-size=24 on rank 0"),
              std::string::npos)
        << err;
  }
  for (const auto& err :
       start("data", data + " --batch-size 24", "--data " + (dir / "fewer.tsv").string() + " --batch-size 24")) {
    EXPECT_NE(err.find("rank 1 was started unlike rank 0: model values="), std::string::npos) << err;
  }
  for (const auto& err :
       start("swapped", data + " --batch-size 24", "--data " + (dir / "swapped.tsv").string() + " --batch-size 24")) {
    EXPECT_NE(err.find("rank 1 was started unlike rank 0: training data digest="), std::string::npos) << err;
  }
  // A refused start leaves no run directory (rank 0 had created it, with its lock).
  for (const char* refused : {"batch", "data", "swapped"}) EXPECT_FALSE(fs::exists(dir / refused)) << refused;
  start("alike", data + " --batch-size 24", "--data " + (dir / "same.tsv").string() + " --batch-size 24", 0);
  // A directory that holds a run: rank 0 refuses it, and every rank says so in the same one
  // line (rank 1 went on to its first collective and reported a lost peer).
  fs::copy(dir / "alike", dir / "occupied", fs::copy_options::recursive);
  for (const auto& err : start("occupied", data + " --batch-size 24", data + " --batch-size 24")) {
    EXPECT_NE(err.find("already holds a training run"), std::string::npos) << err;
    EXPECT_EQ(err.find("failed after"), std::string::npos) << err;
  }
}

TEST(Seq2SeqDataParallelFaults, KilledRankEndsTheOtherWithOneErrorAndTheRunResumes) {
  if (!distributed_available()) GTEST_SKIP() << "built without Gloo";
  const auto dir = test::fresh_temp_dir("dp_fault");
  const auto run = dir / "run";
  // Many steps of one epoch each; a checkpoint after every epoch.
  const std::string args = "--data " + testing::sample_corpus() +
                           " --preset cpu --embedding-size 32 --heads 2 --encoders 1"
                           " --decoders 1 --ffn-multiplier 2 --validation-pairs 100 --bleu-sentences 10 --samples 0"
                           " --epochs 100000 --checkpoint-every 1 --batch-size 24 --threads 1 --workers 1"
                           " --dist-timeout 20 --log-level warn --run-dir " +
                           run.string();
  test::ChildProcesses children;
  const int port = test::free_local_port();
  std::vector<std::string> argv{testing::binary_dir() + "/apps/seq2seq_train"};
  for (const auto& w : words(args)) argv.push_back(w);
  for (int rank = 0; rank < 2; ++rank) {
    children.start(argv,
                   {"RANK=" + std::to_string(rank), "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1",
                    "MASTER_PORT=" + std::to_string(port)},
                   dir, "rank" + std::to_string(rank));
  }
  // Wait for two checkpoints, then kill rank 1.
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  while (std::chrono::steady_clock::now() < deadline) {
    try {
      if (checkpoint::find_checkpoints(run.string()).size() >= 2) break;
    } catch (const std::exception&) {
    }
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_GE(checkpoint::find_checkpoints(run.string()).size(), 2u) << children[0].stderr_text();
  const auto killed_at = std::chrono::steady_clock::now();
  children.kill(1);
  ASSERT_TRUE(children.wait(0, 60s)) << "rank 0 kept waiting for the dead rank";
  EXPECT_LT(std::chrono::steady_clock::now() - killed_at, 25s) << "longer than --dist-timeout";
  EXPECT_EQ(children[0].exit_code, 1);
  // One line of ours, naming the rank and the collective (LibTorch may add glog lines).
  const auto err = children[0].stderr_text();
  EXPECT_NE(err.find("error: rank 0: "), std::string::npos) << err;
  // No half-written checkpoint: every visible one loads, and the run resumes in one process.
  for (const auto& file : checkpoint::find_checkpoints(run.string())) {
    EXPECT_NO_THROW(checkpoint::load_seq2seq_checkpoint(file)) << file;
  }
  const auto resumed = test::run_program("apps/seq2seq_train",
                                         "--resume " + run.string() + " --max-iters 1000000 --epochs " +
                                             "100000 --time-limit 1 --threads 1 --log-level warn",
                                         "dp_fault_resume");
  EXPECT_EQ(resumed.status, 0) << resumed.err;
}

}  // namespace
}  // namespace dls
