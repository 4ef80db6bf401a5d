#include "dls/train/parallel/split_batch.h"

#include <torch/torch.h>

#include "dls/layers/chunk_random.h"
#include "dls/util/parallel_chunks.h"

namespace dls::train {

namespace {

struct ChunkResult {
  torch::Tensor loss;
  torch::Tensor outputs;
  std::vector<torch::Tensor> gradients;  // one per parameter, undefined if unreached
};

}  // namespace

SplitStepResult split_forward_backward(const std::vector<torch::Tensor>& parameters, const torch::Tensor& inputs,
                                       const torch::Tensor& targets, int chunks, const ChunkLossFn& loss_fn,
                                       GradientOutput output, bool read_loss) {
  SplitStepResult step;
  const bool into_existing = output == GradientOutput::kIntoExisting;
  const bool accumulate = output == GradientOutput::kAccumulate;
  if (into_existing || accumulate) {
    for (const auto& p : parameters) {
      TORCH_CHECK(p.grad().defined(),
                  "split_forward_backward: GradientOutput::kIntoExisting needs every grad() defined");
    }
  }
  const auto batch = inputs.size(0);
  if (util::effective_chunks(batch, chunks) == 1) {
    // Undefined gradients rather than zeroed ones: backward() then hands each parameter
    // the buffer it computed instead of adding it to a zeroed one, two passes fewer over
    // every gradient (1.1 GB of them in the dlstudio config). Into existing gradients:
    // zeroed, and backward's AccumulateGrad adds into them in place (grad mode is off
    // during backward), which keeps views of a GradientBuffer.
    for (auto p : parameters) {
      if (into_existing) {
        p.mutable_grad().zero_();
      } else if (!accumulate) {
        p.mutable_grad() = torch::Tensor();
      }
    }
    torch::Tensor outputs;
    const auto loss = loss_fn(inputs, targets, &outputs);
    loss.backward();
    for (auto p : parameters) {
      if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);  // as the chunked path
    }
    step.loss_value = loss.detach().to(torch::kDouble);
    if (read_loss) step.loss = step.loss_value.item<double>();
    if (outputs.defined()) step.outputs = outputs.detach();
    return step;
  }

  std::vector<ChunkResult> results(static_cast<std::size_t>(util::effective_chunks(batch, chunks)));
  // Each chunk draws its dropout masks (and an RNN its teacher-forcing coins) from a stream
  // of its own, seeded once per step here: the same draws whichever thread runs first.
  const std::uint64_t step_seed = default_generator_draw();
  util::for_each_chunk(batch, chunks, [&](int k, std::int64_t begin, std::int64_t end) {
    const ChunkRandomScope random(step_seed, k);
    auto& r = results[static_cast<std::size_t>(k)];
    torch::Tensor outputs;
    r.loss = loss_fn(inputs.slice(0, begin, end), targets.slice(0, begin, end), &outputs);
    if (outputs.defined()) r.outputs = outputs.detach();
    r.gradients = torch::autograd::grad({r.loss}, parameters, /*grad_outputs=*/{}, /*retain_graph=*/false,
                                        /*create_graph=*/false, /*allow_unused=*/true);
  });

  // Sum in chunk order, so that the result does not depend on thread timing.
  torch::NoGradGuard no_grad;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    torch::Tensor sum;
    for (const auto& r : results) {
      const auto& g = r.gradients[i];
      if (!g.defined()) continue;
      if (sum.defined()) {
        sum.add_(g);
      } else {
        // The first chunk's gradient is ours alone (its graph is gone): accumulate into it
        // unless it is a view that cannot be written, e.g. an expanded (stride-0) tensor.
        sum = g.is_contiguous() ? g : g.clone();
      }
    }
    auto param = parameters[i];
    if (accumulate) {
      if (sum.defined()) param.mutable_grad().add_(sum);
      continue;
    }
    if (into_existing) {
      auto& grad = param.mutable_grad();
      if (sum.defined()) {
        grad.copy_(sum);
      } else {
        grad.zero_();
      }
      continue;
    }
    if (!sum.defined()) sum = torch::zeros_like(parameters[i]);
    param.mutable_grad() = sum;
  }
  std::vector<torch::Tensor> outputs;
  for (const auto& r : results) {
    // In chunk order, in double: the sum the host read before, one addition at a time.
    const auto value = r.loss.detach().to(torch::kDouble);
    step.loss_value = step.loss_value.defined() ? step.loss_value + value : value;
    if (r.outputs.defined()) outputs.push_back(r.outputs);
  }
  if (read_loss) step.loss = step.loss_value.item<double>();
  if (outputs.size() == results.size()) step.outputs = torch::cat(outputs, 0);
  return step;
}

}  // namespace dls::train
