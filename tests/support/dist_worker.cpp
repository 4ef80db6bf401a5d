// dls_dist_worker: one rank of a multi-process test of train/parallel/distributed.h. The tests
// (tests/train/parallel/distributed_test.cpp) start it twice with RANK, WORLD_SIZE, MASTER_ADDR and
// MASTER_PORT set, or under torchrun, and read its exit status and output.
//
//   dls_dist_worker collectives [TIMEOUT_S]   check every collective (and a refused one);
//                                             "rank R ok ..." on stdout
//   dls_dist_worker die [TIMEOUT_S]           rank 1 kills itself after joining; rank 0's
//                                             all-reduce must fail: "error: ..." and exit 1
//   dls_dist_worker hang [TIMEOUT_S]          rank 1 stays silent; rank 0 must time out
//   dls_dist_worker buckets [TIMEOUT_S]       gradient buckets all-reduced during backward
//                                             sum what one process computes from all ranks' data
//   dls_dist_worker bench NUMEL REPS          median wall time of all_reduce_gradients
// Exit status: 0 fine, 1 a std::exception (its message on stderr), 2 a wrong result.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <torch/torch.h>

#include "dls/train/parallel/distributed.h"
#include "dls/train/parallel/gradient_buckets.h"
#include "dls/train/parallel/gradient_buffer.h"
#include "dls/util/blas_kernels.h"
#include "dls/util/runtime.h"

namespace {

using dls::train::DistributedContext;
using dls::train::GradientBuffer;

int wrong(const DistributedContext& dist, const std::string& what) {
  std::fprintf(stderr, "rank %d: wrong %s\n", dist.rank(), what.c_str());
  return 2;
}

// Rank-specific values: rank r's tensors differ from every other rank's.
std::vector<torch::Tensor> rank_tensors(int rank) {
  torch::manual_seed(100 + static_cast<std::uint64_t>(rank));
  auto weight = torch::randn({3, 4}).requires_grad_(true);
  auto bias = torch::randn({5}).requires_grad_(true);
  auto counter = torch::full({2}, 10 * rank + 7, torch::kLong);  // an int64 buffer
  return {weight, bias, counter};
}

// A collective the backend refuses as it starts (Gloo takes no meta tensors; NCCL checks
// its communicator there) must be the one-line error of distributed.h too, and leave the
// group marked failed: "" when both hold, else what went wrong.
std::string refused_launch_problem(DistributedContext& dist) {
  const std::string what = "all-reduce of a meta tensor";
  try {
    dist.start_all_reduce(torch::empty({4}, torch::device(torch::kMeta)), what);
    return "a meta tensor's all-reduce started";
  } catch (const std::runtime_error& error) {
    const std::string message = error.what();
    if (message.rfind("rank " + std::to_string(dist.rank()) + ": " + what + " failed after ", 0) != 0 ||
        message.find('\n') != std::string::npos) {
      return "launch error '" + message + "'";
    }
  }
  try {
    dist.barrier();
    return "a barrier after a failed launch";
  } catch (const std::runtime_error& error) {
    if (std::string(error.what()).find("the process group failed before") == std::string::npos) {
      return std::string("error after a failed launch '") + error.what() + "'";
    }
  }
  return "";
}

int check_collectives(DistributedContext& dist) {
  const int world = dist.world_size();
  auto tensors = rank_tensors(dist.rank());
  dist.broadcast(tensors);
  const auto expected = rank_tensors(0);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (!torch::equal(tensors[i], expected[i])) return wrong(dist, "broadcast of tensor " + std::to_string(i));
  }

  // Gradient of parameter i on rank r: (r + 1) (i + 1) arange; summed: (i + 1) arange W(W+1)/2.
  GradientBuffer gradients({tensors[0], tensors[1]});
  for (std::size_t i = 0; i < 2; ++i) {
    gradients.view(i).copy_(torch::arange(gradients.view(i).numel()).view_as(gradients.view(i)) *
                            static_cast<double>((dist.rank() + 1) * (i + 1)));
  }
  dist.all_reduce_gradients(gradients);
  if (!gradients.views_intact()) return wrong(dist, "gradient views after the all-reduce");
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& grad = tensors[i].grad();
    const auto sum = torch::arange(grad.numel()).view_as(grad) * static_cast<double>((i + 1) * world * (world + 1) / 2);
    if (!torch::equal(grad, sum.to(torch::kFloat))) return wrong(dist, "all-reduced gradient " + std::to_string(i));
  }
  if (dist.last_all_reduce_seconds() <= 0) return wrong(dist, "all-reduce time");

  const auto numbers = dist.all_reduce_sum(std::vector<double>{1.5 * dist.rank(), 1.0});
  if (numbers != std::vector<double>{1.5 * world * (world - 1) / 2, static_cast<double>(world)}) {
    return wrong(dist, "all-reduced numbers");
  }

  // Rank r contributes r + 1 rows of the value r.
  const auto gathered = dist.all_gather_rows(torch::full({dist.rank() + 1, 2}, dist.rank(), torch::kLong));
  if (static_cast<int>(gathered.size()) != world) return wrong(dist, "number of gathered blocks");
  for (int r = 0; r < world; ++r) {
    if (!torch::equal(gathered[static_cast<std::size_t>(r)], torch::full({r + 1, 2}, r, torch::kLong))) {
      return wrong(dist, "gathered rows of rank " + std::to_string(r));
    }
  }
  // Non-integer sums come out bit for bit the same on every rank (Gloo reduces each part
  // once and sends the result around), which keeps the ranks' weights identical.
  torch::manual_seed(200 + static_cast<std::uint64_t>(dist.rank()));
  auto noise = torch::randn({100003});
  dist.all_reduce_sum(noise, "all-reduce of noise");
  const auto copies = dist.all_gather_rows(noise.view({1, -1}));
  for (const auto& copy : copies) {
    if (!torch::equal(copy, copies[0])) return wrong(dist, "sum: ranks got different bits");
  }

  dist.barrier();
  if (const auto problem = refused_launch_problem(dist); !problem.empty()) return wrong(dist, problem);
  const char* agent = std::getenv("TORCHELASTIC_USE_AGENT_STORE");
  std::printf("rank %d ok: world %d, local rank %d, backend %s, agent store %s\n", dist.rank(), world,
              dist.local_rank(), dist.backend().c_str(), agent ? agent : "unset");
  return 0;
}

// Rank 1 leaves after the barrier (dies, or stops answering); rank 0's next all-reduce
// must end in the one-line error within the timeout.
int lose_a_peer(DistributedContext& dist, bool die) {
  GradientBuffer gradients({torch::ones({1000}).requires_grad_(true)});
  dist.all_reduce_gradients(gradients);
  dist.barrier();
  if (dist.rank() == 1) {
    if (die) ::raise(SIGKILL);
    std::this_thread::sleep_for(dist.timeout() * 3 + std::chrono::seconds(5));
    return 0;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  dist.all_reduce_gradients(gradients);
  return wrong(dist, "success of an all-reduce without its peer");
}

// An embedding table summed by touched rows: each rank looks up its own few rows of 50 (the
// ranks' rows overlap in part); the table's gradient must equal the dense sum of every
// rank's, with only the union's rows sent.
int check_embedding_rows(DistributedContext& dist) {
  torch::manual_seed(9);
  torch::nn::Embedding table(50, 3);
  torch::nn::Linear head(3, 2);
  const auto loss_of_rank = [&](int rank) {
    const auto tokens = torch::tensor({rank, rank + 1, 7, rank + 1, 40 + rank}, torch::kLong);  // [5]
    return head->forward(table->forward(tokens)).pow(2).sum();
  };
  auto parameters = table->parameters();
  for (const auto& p : head->parameters()) parameters.push_back(p);
  std::vector<torch::Tensor> expected(parameters.size());
  for (int r = 0; r < dist.world_size(); ++r) {
    const auto grads = torch::autograd::grad({loss_of_rank(r)}, parameters);
    for (std::size_t i = 0; i < grads.size(); ++i)
      expected[i] = expected[i].defined() ? expected[i] + grads[i] : grads[i];
  }
  GradientBuffer gradients(parameters);
  dls::train::GradientBuckets buckets(gradients, dist, 256, {table->weight});
  if (buckets.tables_by_rows() != 1 || buckets.table_rows() != 50) return wrong(dist, "embedding table count");
  for (int step = 0; step < 2; ++step) {
    gradients.zero();
    buckets.arm();
    loss_of_rank(dist.rank()).backward();
    buckets.finish();
    for (std::size_t i = 0; i < expected.size(); ++i) {
      if (!torch::allclose(gradients.view(i), expected[i], 1e-6, 1e-6)) {
        return wrong(dist, "embedding model gradient " + std::to_string(i));
      }
    }
    // Rows 0 .. world, 7, and 40 .. 40 + world - 1.
    const auto union_rows = 2 * dist.world_size() + 2;
    if (buckets.rows_reduced() != union_rows) {
      return wrong(
          dist, std::to_string(buckets.rows_reduced()) + " embedding rows summed, not " + std::to_string(union_rows));
    }
  }
  std::printf("rank %d ok: buckets\n", dist.rank());
  return 0;
}

// A small MLP's gradients, from rank-specific inputs, through GradientBuckets of 256 bytes:
// with an unused parameter first in the buffer (so in the last bucket), every other bucket
// must start during backward; with it last (in the first bucket, which then never becomes
// ready), none may, and finish() starts them all. Either way the buffer must end up
// holding the sum of every rank's gradient, computed here from all ranks' inputs.
int check_buckets(DistributedContext& dist) {
  torch::manual_seed(7);  // the same weights on every rank
  torch::nn::Sequential model(torch::nn::Linear(8, 16), torch::nn::Tanh(), torch::nn::Linear(16, 16), torch::nn::Tanh(),
                              torch::nn::Linear(16, 4));
  const auto unused = torch::zeros({10}).requires_grad_(true);
  const auto loss_of_rank = [&](int rank) {
    torch::manual_seed(200 + static_cast<std::uint64_t>(rank));
    return model->forward(torch::randn({5, 8})).pow(2).sum();
  };
  auto expected = [&] {
    std::vector<torch::Tensor> sum;
    for (int r = 0; r < dist.world_size(); ++r) {
      const auto grads = torch::autograd::grad({loss_of_rank(r)}, model->parameters());
      for (std::size_t i = 0; i < grads.size(); ++i) {
        if (sum.size() <= i) sum.push_back(torch::zeros_like(grads[i]));
        sum[i] += grads[i];
      }
    }
    return sum;
  }();
  for (const bool unused_first : {true, false}) {
    auto parameters = model->parameters();
    parameters.insert(unused_first ? parameters.begin() : parameters.end(), unused);
    GradientBuffer gradients(parameters);
    dls::train::GradientBuckets buckets(gradients, dist, 256);
    const std::string layout = unused_first ? "unused parameter first" : "unused parameter last";
    if (buckets.bucket_count() < 3) return wrong(dist, "bucket count " + std::to_string(buckets.bucket_count()));
    for (int step = 0; step < 2; ++step) {  // twice: the hooks serve every step
      gradients.zero();
      buckets.arm();
      loss_of_rank(dist.rank()).backward();
      const auto during = buckets.started_during_backward();
      buckets.finish();
      const auto wanted = unused_first ? buckets.bucket_count() - 1 : 0;
      if (during != wanted) {
        return wrong(dist, layout + ": " + std::to_string(during) + " buckets started during backward, not " +
                               std::to_string(wanted));
      }
      const std::size_t first = unused_first ? 1 : 0;
      for (std::size_t i = 0; i < expected.size(); ++i) {
        if (!torch::allclose(gradients.view(first + i), expected[i], 1e-6, 1e-6)) {
          return wrong(dist, layout + ": gradient " + std::to_string(i));
        }
      }
      if (!torch::equal(gradients.view(unused_first ? 0 : parameters.size() - 1), torch::zeros({10}))) {
        return wrong(dist, layout + ": unused gradient");
      }
    }
  }
  return check_embedding_rows(dist);
}

void print_times(const char* what, std::vector<double> seconds) {
  std::sort(seconds.begin(), seconds.end());
  std::printf("%s: median %.2f ms (min %.2f, max %.2f, %zu runs)\n", what, 1e3 * seconds[seconds.size() / 2],
              1e3 * seconds.front(), 1e3 * seconds.back(), seconds.size());
}

// The all-reduce of a flat buffer of `numel` floats, and what adopt_gradients() costs when a
// step replaced the gradients (a copy of every one into the buffer).
int bench(DistributedContext& dist, std::int64_t numel, int reps) {
  auto parameter = torch::ones({numel}).requires_grad_(true);
  GradientBuffer gradients({parameter});
  std::vector<double> reduce, adopt;
  for (int i = 0; i < reps + 2; ++i) {
    dist.all_reduce_gradients(gradients);
    if (i >= 2) reduce.push_back(dist.last_all_reduce_seconds());  // two warm-ups
    parameter.mutable_grad() = torch::ones({numel});
    const auto start = std::chrono::steady_clock::now();
    gradients.adopt_gradients();
    adopt.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  if (dist.rank() == 0) {
    std::printf("%lld floats, %d ranks\n", static_cast<long long>(numel), dist.world_size());
    print_times("all_reduce_gradients", reduce);
    print_times("adopt_gradients", adopt);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  dls::util::choose_blas_kernels(argv);  // first of all: may start the program again (blas_kernels.h)
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    dls::util::RuntimeOptions runtime;
    runtime.threads = 1;  // two ranks on a small machine: one core each
    runtime.quiet_blas_check = true;
    dls::util::configure_runtime(runtime);
    dls::train::DistributedOptions options;
    if (mode != "bench" && argc > 2) options.timeout = std::chrono::milliseconds(std::atoi(argv[2]) * 1000);
    auto dist = DistributedContext::from_environment(options);
    if (mode == "collectives") return check_collectives(dist);
    if (mode == "buckets") return check_buckets(dist);
    if (mode == "die" || mode == "hang") return lose_a_peer(dist, mode == "die");
    if (mode == "bench" && argc > 3) return bench(dist, std::atoll(argv[2]), std::atoi(argv[3]));
    std::fprintf(stderr, "usage: dls_dist_worker collectives|buckets|die|hang [TIMEOUT_S] | bench NUMEL REPS\n");
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
}
