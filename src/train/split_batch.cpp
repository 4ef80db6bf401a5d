#include "dls/train/split_batch.h"

#include <algorithm>
#include <exception>
#include <thread>

#include <ATen/Parallel.h>
#include <torch/torch.h>

namespace dls::train {

namespace {

struct ChunkResult {
  torch::Tensor loss;
  torch::Tensor outputs;
  std::vector<torch::Tensor> gradients;  // one per parameter, undefined if unreached
  std::exception_ptr error;
};

void run_chunk(const std::vector<torch::Tensor>& parameters, const torch::Tensor& inputs,
               const torch::Tensor& targets, const ChunkLossFn& loss_fn, ChunkResult& result) {
  try {
    // The OpenMP thread count is per thread: this one computes alone, without barriers.
    at::set_num_threads(1);
    torch::Tensor outputs;
    result.loss = loss_fn(inputs, targets, &outputs);
    result.outputs = outputs.detach();
    result.gradients = torch::autograd::grad({result.loss}, parameters, /*grad_outputs=*/{},
                                             /*retain_graph=*/false, /*create_graph=*/false,
                                             /*allow_unused=*/true);
  } catch (...) {
    result.error = std::current_exception();
  }
}

}  // namespace

ScopedIntraOpThreads::ScopedIntraOpThreads(int threads) : saved_(at::get_num_threads()) {
  at::set_num_threads(threads);
}

ScopedIntraOpThreads::~ScopedIntraOpThreads() { at::set_num_threads(saved_); }

SplitStepResult split_forward_backward(const std::vector<torch::Tensor>& parameters,
                                       const torch::Tensor& inputs, const torch::Tensor& targets,
                                       int chunks, const ChunkLossFn& loss_fn) {
  SplitStepResult step;
  const auto batch = inputs.size(0);
  chunks = static_cast<int>(std::min<std::int64_t>(std::max(chunks, 1), batch));
  if (chunks == 1) {
    for (const auto& p : parameters) {
      if (p.grad().defined()) p.mutable_grad().zero_();
    }
    torch::Tensor outputs;
    const auto loss = loss_fn(inputs, targets, &outputs);
    loss.backward();
    step.loss = loss.item<double>();
    step.outputs = outputs.detach();
    return step;
  }

  // Chunk k covers rows [k * batch / chunks, (k + 1) * batch / chunks).
  std::vector<ChunkResult> results(static_cast<std::size_t>(chunks));
  std::vector<std::thread> threads;
  // A new thread takes the process-wide thread count when it first runs an operator, and
  // at::set_num_threads in the chunks changes that count: keep ours to put it back.
  const int intra_op_threads = at::get_num_threads();
  for (int k = 0; k < chunks; ++k) {
    const auto begin = k * batch / chunks, end = (k + 1) * batch / chunks;
    threads.emplace_back(run_chunk, std::cref(parameters), inputs.slice(0, begin, end),
                         targets.slice(0, begin, end), std::cref(loss_fn), std::ref(results[k]));
  }
  for (auto& t : threads) t.join();
  at::set_num_threads(intra_op_threads);
  for (const auto& r : results) {
    if (r.error) std::rethrow_exception(r.error);
  }

  std::vector<torch::Tensor> outputs;
  torch::NoGradGuard no_grad;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    torch::Tensor sum;
    for (const auto& r : results) {
      const auto& g = r.gradients[i];
      if (!g.defined()) continue;
      sum = sum.defined() ? sum.add_(g) : g.clone();
    }
    if (!sum.defined()) sum = torch::zeros_like(parameters[i]);
    auto param = parameters[i];
    param.mutable_grad() = sum;
  }
  for (const auto& r : results) {
    step.loss += r.loss.item<double>();
    outputs.push_back(r.outputs);
  }
  step.outputs = torch::cat(outputs, 0);
  return step;
}

}  // namespace dls::train
