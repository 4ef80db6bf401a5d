#include "dls/train/parallel/distributed.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include <torch/torch.h>

#include "dls/train/parallel/gradient_buffer.h"
#include "support/error_of.h"
#include "support/child_processes.h"
#include "support/outside_needs.h"
#include "support/program_run.h"
#include "support/test_paths.h"
#include "util/temp_files.h"

namespace dls::train {
namespace {

using std::chrono::seconds;

// read_distributed_environment over a map instead of the process's environment.
std::optional<DistributedEnvironment> environment_of(const std::map<std::string, std::string>& vars) {
  return read_distributed_environment([&vars](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

// The one-line message of the runtime_error that `vars` cause.
std::string environment_error(const std::map<std::string, std::string>& vars) {
  return test::error_of<std::runtime_error>([&] { environment_of(vars); }, "no error");
}

TEST(DistributedEnvironment, NoRankNorWorldSizeIsOneProcess) {
  EXPECT_FALSE(environment_of({}).has_value());
  EXPECT_FALSE(environment_of({{"MASTER_ADDR", "127.0.0.1"}, {"LOCAL_RANK", "0"}}).has_value());
}

TEST(DistributedEnvironment, ReadsWhatTorchrunSets) {
  const auto env = environment_of({{"RANK", "3"},
                                   {"WORLD_SIZE", "4"},
                                   {"LOCAL_RANK", "1"},
                                   {"MASTER_ADDR", "10.0.0.2"},
                                   {"MASTER_PORT", "29500"},
                                   {"TORCHELASTIC_USE_AGENT_STORE", "True"},
                                   {"TORCHELASTIC_RESTART_COUNT", "2"},
                                   {"GLOO_SOCKET_IFNAME", "eth0,eth1"}});
  ASSERT_TRUE(env.has_value());
  EXPECT_EQ(env->rank, 3);
  EXPECT_EQ(env->world_size, 4);
  EXPECT_EQ(env->local_rank, 1);
  EXPECT_EQ(env->master_addr, "10.0.0.2");
  EXPECT_EQ(env->master_port, 29500);
  EXPECT_TRUE(env->use_agent_store);
  EXPECT_EQ(env->restart_count, "2");
  EXPECT_EQ(env->gloo_socket_ifname, "eth0,eth1");
  // Python's str(False), or a plain launch: rank 0 serves the store.
  const auto plain = environment_of({{"RANK", "1"},
                                     {"WORLD_SIZE", "2"},
                                     {"MASTER_ADDR", "h"},
                                     {"MASTER_PORT", "1"},
                                     {"TORCHELASTIC_USE_AGENT_STORE", "False"}});
  EXPECT_FALSE(plain->use_agent_store);
  EXPECT_EQ(plain->local_rank, 1);  // LOCAL_RANK unset: the rank
}

TEST(DistributedEnvironment, IncompleteOrBadVariablesNameTheVariable) {
  EXPECT_NE(environment_error({{"RANK", "0"}}).find("WORLD_SIZE expected"), std::string::npos);
  EXPECT_NE(environment_error({{"WORLD_SIZE", "2"}}).find("RANK expected"), std::string::npos);
  EXPECT_NE(environment_error({{"RANK", "0"}, {"WORLD_SIZE", "2"}}).find("MASTER_ADDR"), std::string::npos);
  EXPECT_NE(environment_error({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}).find("MASTER_PORT"),
            std::string::npos);
  EXPECT_NE(environment_error({{"RANK", "2"}, {"WORLD_SIZE", "2"}}).find("RANK='2'"), std::string::npos);
  EXPECT_NE(environment_error({{"RANK", "x"}, {"WORLD_SIZE", "2"}}).find("RANK='x'"), std::string::npos);
  EXPECT_NE(environment_error({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "70000"}})
                .find("MASTER_PORT='70000'"),
            std::string::npos);
  EXPECT_NE(environment_error({{"RANK", "0"},
                               {"WORLD_SIZE", "2"},
                               {"MASTER_ADDR", "h"},
                               {"MASTER_PORT", "9"},
                               {"TORCHELASTIC_USE_AGENT_STORE", "True"}})
                .find("TORCHELASTIC_RESTART_COUNT"),
            std::string::npos);
  // World size 1 needs no store.
  EXPECT_EQ(environment_of({{"RANK", "0"}, {"WORLD_SIZE", "1"}})->world_size, 1);
}

// Gloo listens on the store's loopback address when every rank is on this machine (no
// hostname lookup, which fails without an /etc/hosts line and makes Gloo warn on stderr), on
// the named interfaces when GLOO_SOCKET_IFNAME is set, else where the hostname resolves.
TEST(DistributedEnvironment, GlooListensOnTheStoresLoopbackOrTheNamedInterfaces) {
  const auto listening = [](const std::string& master, const std::string& interfaces) {
    DistributedEnvironment env;
    env.master_addr = master;
    env.gloo_socket_ifname = interfaces;
    return gloo_listening(env);
  };
  EXPECT_EQ(listening("127.0.0.1", "").address, "127.0.0.1");
  EXPECT_EQ(listening("127.0.1.1", "").address, "127.0.1.1");
  EXPECT_EQ(listening("localhost", "").address, "127.0.0.1");
  EXPECT_EQ(listening("::1", "").address, "::1");
  EXPECT_EQ(listening("10.0.0.2", "").address, "");  // other machines: the hostname's address
  EXPECT_EQ(listening("node7", "").address, "");
  EXPECT_TRUE(listening("127.0.0.1", "").interfaces.empty());
  const auto named = listening("127.0.0.1", "lo,eth0");
  EXPECT_EQ(named.interfaces, (std::vector<std::string>{"lo", "eth0"}));
  EXPECT_EQ(named.address, "");
}

// One process: no group, and every collective leaves its arguments as they are.
TEST(DistributedContext, OneProcessCollectivesAreNoOps) {
  DistributedContext dist;
  EXPECT_EQ(dist.rank(), 0);
  EXPECT_EQ(dist.world_size(), 1);
  EXPECT_FALSE(dist.is_distributed());
  EXPECT_TRUE(dist.is_main());
  EXPECT_EQ(dist.backend(), "none");
  EXPECT_FALSE(distributed_backend_available("mpi"));
  auto weight = torch::arange(6.0).view({2, 3}).requires_grad_(true);
  dist.broadcast({weight});
  EXPECT_TRUE(torch::equal(weight, torch::arange(6.0).view({2, 3})));
  GradientBuffer gradients({weight});
  gradients.view(0).fill_(2.0);
  dist.all_reduce_gradients(gradients);
  EXPECT_TRUE(torch::equal(weight.grad(), torch::full({2, 3}, 2.0)));
  EXPECT_EQ(dist.last_all_reduce_seconds(), 0.0);
  EXPECT_EQ(dist.all_reduce_sum(std::vector<double>{1.5, 2}), (std::vector<double>{1.5, 2}));
  const auto rows = torch::ones({3, 2});
  const auto gathered = dist.all_gather_rows(rows);
  ASSERT_EQ(gathered.size(), 1u);
  EXPECT_TRUE(torch::equal(gathered[0], rows));
  dist.barrier();

  DistributedEnvironment single;  // RANK=0 WORLD_SIZE=1: nothing to join either
  EXPECT_FALSE(DistributedContext(single).is_distributed());
}

// A context keeps the device it was given: in one process (with or without a launcher's
// environment) and in a group (where util::choose_device already gave the rank its GPU).
TEST(DistributedContext, KeepsTheDeviceItWasGiven) {
  const DistributedEnvironment alone;  // RANK=0 WORLD_SIZE=1
  for (const c10::Device device : {c10::Device(c10::DeviceType::CPU), c10::Device(c10::DeviceType::CUDA, 0),
                                   c10::Device(c10::DeviceType::CUDA, 3)}) {
    DistributedOptions options;
    options.device = device;
    EXPECT_EQ(DistributedContext(alone, options).device(), device);
    EXPECT_EQ(DistributedContext::from_environment(options).device(), device) << "no launcher environment";
  }
  EXPECT_EQ(DistributedContext().device(), c10::Device(c10::DeviceType::CPU));
}

TEST(DistributedContext, UnknownOrMissingBackendsAreOneLineErrors) {
  DistributedEnvironment env;
  DistributedOptions options;
  options.backend = "mpi";
  EXPECT_THROW({ DistributedContext dist(env, options); }, std::invalid_argument);
  // Debian's LibTorch has no NCCL: a clear error at once. (With a CUDA LibTorch this tries
  // to join a group nobody else joins and fails after the 1 s timeout.)
  env.world_size = 2;
  env.master_addr = "127.0.0.1";
  env.master_port = test::free_local_port();
  options.backend = "nccl";
  options.timeout = seconds(1);
  try {
    DistributedContext dist(env, options);
    FAIL() << "joined an nccl group alone";
  } catch (const std::runtime_error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("nccl"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

// ---------------------------------------------------------------------------------------
// Two processes of tests/support/dist_worker.cpp on 127.0.0.1.

std::string dist_worker_path() { return testing::binary_dir() + "/tests/dls_dist_worker"; }

// The multi-process tests need Gloo (libgloo-dev at build time).
#define DLS_SKIP_WITHOUT_GLOO() \
  if (!distributed_backend_available("gloo")) GTEST_SKIP() << "built without Gloo's headers"

// Starts `world` ranks of the worker in `mode`, as a plain launch (rank 0 serves the store).
std::vector<std::size_t> start_ranks(test::ChildProcesses& children, const std::filesystem::path& dir,
                                     const std::string& mode, int timeout_s, int world = 2) {
  const auto port = std::to_string(test::free_local_port());
  std::vector<std::size_t> ranks;
  for (int r = 0; r < world; ++r) {
    ranks.push_back(children.start({dist_worker_path(), mode, std::to_string(timeout_s)},
                                   {"RANK=" + std::to_string(r), "WORLD_SIZE=" + std::to_string(world),
                                    "MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + port, "DLS_LOG_LEVEL=warn"},
                                   dir, "rank" + std::to_string(r)));
  }
  return ranks;
}

TEST(DistributedContextProcesses, BroadcastAllReduceGatherAgreeOnTwoAndThreeRanks) {
  DLS_SKIP_WITHOUT_GLOO();
  for (const int world : {2, 3}) {
    const auto dir = test::fresh_temp_dir("dist_collectives" + std::to_string(world));
    test::ChildProcesses children;
    const auto ranks = start_ranks(children, dir, "collectives", 30, world);
    for (const auto r : ranks) {
      ASSERT_TRUE(children.wait(r, seconds(60))) << "rank " << r << " still running after 60 s";
      EXPECT_EQ(children[r].exit_code, 0) << children[r].stderr_text();
      const auto expected = "rank " + std::to_string(r) + " ok: world " + std::to_string(world);
      EXPECT_NE(children[r].stdout_text().find(expected), std::string::npos) << children[r].stdout_text();
    }
  }
}

// Gradient buckets all-reduced while backward runs (gradient_buckets.h) give the sum of the
// ranks' gradients, start during backward when their gradients are done, and wait in order
// for a bucket whose parameter backward never reaches.
TEST(DistributedContextProcesses, GradientBucketsStartDuringBackwardAndSumAllRanks) {
  DLS_SKIP_WITHOUT_GLOO();
  const auto dir = test::fresh_temp_dir("dist_buckets");
  test::ChildProcesses children;
  const auto ranks = start_ranks(children, dir, "buckets", 30);
  for (const auto r : ranks) {
    ASSERT_TRUE(children.wait(r, seconds(60))) << "rank " << r << " still running after 60 s";
    EXPECT_EQ(children[r].exit_code, 0) << children[r].stderr_text();
    EXPECT_NE(children[r].stdout_text().find("ok: buckets"), std::string::npos) << children[r].stdout_text();
  }
}

std::string last_line_of(const std::string& text) {
  const auto end = text.find_last_not_of('\n');
  if (end == std::string::npos) return "";
  const auto begin = text.rfind('\n', end);
  const auto first = begin == std::string::npos ? 0 : begin + 1;
  return text.substr(first, end + 1 - first);
}

// Two ranks in worker mode `mode` with a 5 s timeout: rank 1 leaves after a first
// all-reduce (dies, or stays alive without answering); rank 0's next all-reduce must end in
// the one-line error, after at least `at_least_s` and within the timeout (plus start-up).
void expect_peer_loss_error(const std::string& mode, double at_least_s) {
  DLS_SKIP_WITHOUT_GLOO();
  const auto dir = test::fresh_temp_dir("dist_" + mode);
  test::ChildProcesses children;
  const auto start = std::chrono::steady_clock::now();
  const auto ranks = start_ranks(children, dir, mode, 5);
  ASSERT_TRUE(children.wait(ranks[0], seconds(60))) << "rank 0 hung after losing its peer (" << mode << ")";
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const bool rank1_gone = children.wait(ranks[1], seconds(2));  // else killed now
  EXPECT_EQ(rank1_gone, mode == "die");
  const auto err = children[ranks[0]].stderr_text();
  EXPECT_EQ(children[ranks[0]].exit_code, 1) << err;
  EXPECT_EQ(test::count_lines(err), 1u) << err;
  EXPECT_EQ(err.rfind("error: rank 0: all-reduce of 1000 gradients failed after ", 0), 0u) << err;
  EXPECT_NE(err.find("(timeout 5 s): "), std::string::npos) << err;
  EXPECT_GE(elapsed, at_least_s) << err;
  EXPECT_LE(elapsed, 5.0 + 15.0) << err;
}

// Gloo sees the closed connection at once ("Connection closed by peer").
TEST(DistributedContextProcesses, DeadPeerFailsTheOtherRankWithinTheTimeout) { expect_peer_loss_error("die", 0.0); }

// Only the timeout ends the wait ("Timed out waiting 5000ms for recv operation").
TEST(DistributedContextProcesses, SilentPeerTimesOutTheOtherRank) { expect_peer_loss_error("hang", 5.0); }

// One rank of two started alone (a 3 s timeout): its join fails in one line, "error: rank R:
// joining ... failed after S s (timeout 3 s): ..."; returns the seconds S it reports.
double lone_rank_join_seconds(int rank) {
  const auto dir = test::fresh_temp_dir("dist_lone_rank" + std::to_string(rank));
  test::ChildProcesses children;
  const auto port = std::to_string(test::free_local_port());
  const auto lone =
      children.start({dist_worker_path(), "collectives", "3"},
                     {"RANK=" + std::to_string(rank), "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + port},
                     dir, "rank" + std::to_string(rank));
  EXPECT_TRUE(children.wait(lone, seconds(60))) << "rank " << rank << " waited for its peer forever";
  // LibTorch's TCPStore logs a failed connection itself (glog, lines before ours).
  const auto line = last_line_of(children[lone].stderr_text());
  EXPECT_EQ(children[lone].exit_code, 1) << line;
  const std::string prefix = "error: rank " + std::to_string(rank) + ": joining the gloo process group of 2 ranks at " +
                             "127.0.0.1:" + port + " failed after ";
  EXPECT_EQ(line.rfind(prefix, 0), 0u) << line;
  EXPECT_NE(line.find("(timeout 3 s): "), std::string::npos) << line;
  return line.rfind(prefix, 0) == 0 ? std::stod(line.substr(prefix.size())) : NAN;
}

TEST(DistributedContextProcesses, MissingRankZeroFailsTheJoinAfterTheTimeout) {
  DLS_SKIP_WITHOUT_GLOO();
  lone_rank_join_seconds(1);
}

// Rank 0 alone: the join ends after the timeout once (the store's wait for its clients and
// the group's for its peers each took the whole timeout: 11 s for 5).
TEST(DistributedContextProcesses, MissingRankOneFailsTheJoinAfterOneTimeout) {
  DLS_SKIP_WITHOUT_GLOO();
  EXPECT_LT(lone_rank_join_seconds(0), 2 * 3.0) << "the join's own figure";
}

// A Python rank (tests/support/dist_rank.py: torch.distributed's own init_process_group
// and collectives) and a C++ rank in one group: DistributedContext lays out the store and
// runs the collectives exactly as torch.distributed does. Either rank serves the store.
TEST(DistributedContextProcesses, PythonAndCppRanksShareOneGroup) {
  DLS_SKIP_WITHOUT_GLOO();
  DLS_REQUIRE_OUTSIDE("/usr/bin/python3", "torch");
  const std::string python = "/usr/bin/python3";
  const auto script = testing::source_dir() + "/tests/support/dist_rank.py";
  for (const int python_rank : {0, 1}) {
    const auto dir = test::fresh_temp_dir("dist_mixed" + std::to_string(python_rank));
    test::ChildProcesses children;
    const auto port = std::to_string(test::free_local_port());
    std::vector<std::size_t> ranks;
    for (int r = 0; r < 2; ++r) {
      const std::vector<std::string> program = r == python_rank
                                                   ? std::vector<std::string>{python, script}
                                                   : std::vector<std::string>{dist_worker_path(), "collectives", "30"};
      ranks.push_back(children.start(program,
                                     {"RANK=" + std::to_string(r), "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1",
                                      "MASTER_PORT=" + port, "DLS_LOG_LEVEL=warn"},
                                     dir, "rank" + std::to_string(r)));
    }
    for (int r = 0; r < 2; ++r) {
      const auto i = ranks[static_cast<std::size_t>(r)];
      ASSERT_TRUE(children.wait(i, seconds(90))) << "rank " << r << " still running after 90 s";
      EXPECT_EQ(children[i].exit_code, 0) << children[i].stderr_text();
      const auto expected = "rank " + std::to_string(r) + " ok: world 2, " +
                            (r == python_rank ? "python" : "local rank " + std::to_string(r) + ", backend gloo");
      EXPECT_NE(children[i].stdout_text().find(expected), std::string::npos) << children[i].stdout_text();
    }
  }
}

// Runs `program args` on two ranks under torchrun with its default (static) rendezvous: its
// agent serves the TCPStore and the workers join it as clients under /worker/attempt_0
// (TORCHELASTIC_USE_AGENT_STORE=True). Returns torchrun's stdout (the ranks' lines, tee'd).
std::string run_under_torchrun(const std::vector<std::string>& program, const std::string& name) {
  const std::string torchrun = "/usr/bin/torchrun";
  const auto dir = test::fresh_temp_dir(name);
  test::ChildProcesses children;
  // --redirects/--tee/--log_dir: Debian's torchrun 1.13 on Python 3.11 crashes without them
  // ('NoneType' object has no attribute 'get').
  std::vector<std::string> argv = {torchrun,
                                   "--nproc_per_node",
                                   "2",
                                   "--no_python",
                                   "--redirects",
                                   "1",
                                   "--tee",
                                   "1",
                                   "--log_dir",
                                   (dir / "logs").string(),
                                   "--master_port",
                                   std::to_string(test::free_local_port())};
  argv.insert(argv.end(), program.begin(), program.end());
  const auto run = children.start(argv, {"DLS_LOG_LEVEL=warn"}, dir, "torchrun");
  EXPECT_TRUE(children.wait(run, seconds(120))) << "torchrun still running after 120 s";
  const auto out = children[run].stdout_text();
  EXPECT_EQ(children[run].exit_code, 0) << out << children[run].stderr_text();
  return out;
}

#define DLS_SKIP_WITHOUT_TORCHRUN() \
  DLS_SKIP_WITHOUT_GLOO();          \
  DLS_REQUIRE_OUTSIDE("/usr/bin/torchrun")

TEST(DistributedContextProcesses, TorchrunLaunchUsesTheAgentStore) {
  DLS_SKIP_WITHOUT_TORCHRUN();
  const auto out = run_under_torchrun({dist_worker_path(), "collectives", "30"}, "dist_torchrun");
  for (const std::string rank : {"0", "1"}) {
    EXPECT_NE(out.find("rank " + rank + " ok: world 2, local rank " + rank + ", backend gloo, agent store True"),
              std::string::npos)
        << out;
  }
}

// Rank 0 in Python, rank 1 in C++, both under torchrun's agent store.
TEST(DistributedContextProcesses, TorchrunPythonAndCppRanksShareTheAgentStore) {
  DLS_SKIP_WITHOUT_TORCHRUN();
  DLS_REQUIRE_OUTSIDE("/usr/bin/python3", "torch");  // dist_rank_mixed.sh's rank 0
  const auto out = run_under_torchrun(
      {testing::source_dir() + "/tests/support/dist_rank_mixed.sh", dist_worker_path(), "30"}, "dist_torchrun_mixed");
  EXPECT_NE(out.find("rank 0 ok: world 2, python, agent store True"), std::string::npos) << out;
  EXPECT_NE(out.find("rank 1 ok: world 2, local rank 1, backend gloo, agent store True"), std::string::npos) << out;
}

}  // namespace
}  // namespace dls::train
