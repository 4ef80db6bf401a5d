// Data parallelism inside one process: a batch cut into consecutive chunks whose forward and
// backward passes run concurrently (util::for_each_chunk: one thread per chunk, one intra-op
// thread each), and the chunks' gradients summed into the parameters' grad(). How many
// chunks suit a model: util/thread_policy.h.
#pragma once

#include <functional>
#include <vector>

#include <torch/types.h>

#include "dls/util/parallel_chunks.h"

namespace dls::train {

// The loss of one chunk as its share of the batch loss (e.g. the chunk's mean cross-entropy
// times chunk size / batch size, so that the chunks' losses add up to the batch's), and the
// chunk's model outputs in *outputs (which it may leave undefined).
using ChunkLossFn =
    std::function<torch::Tensor(const torch::Tensor& inputs, const torch::Tensor& targets, torch::Tensor* outputs)>;

struct SplitStepResult {
  double loss = 0;           // the sum of the chunks' losses: the batch loss (0 unless read_loss)
  torch::Tensor loss_value;  // the same as a detached float64 scalar on the batch's device
  torch::Tensor outputs;     // the chunks' outputs concatenated along dimension 0, detached (if given)
};

// Where split_forward_backward leaves the batch gradient.
enum class GradientOutput {
  // A fresh tensor in every grad(): backward's own buffers are handed over, no extra pass.
  kReplace,
  // Written into the grad() tensors already there (every one must be defined), so that
  // gradients that are views of a GradientBuffer (gradient_buffer.h) stay views: one pass
  // zeroing them, then backward adds into them (one chunk), or the chunks' sum is written
  // into them (a copy per gradient where kReplace reuses the first chunk's).
  kIntoExisting,
  // Added to the grad() tensors already there (every one must be defined): the second and
  // later micro-batches of an accumulated step. One chunk: backward adds in place; chunks:
  // their sum is added.
  kAccumulate,
};

// Computes loss_fn on `chunks` consecutive slices of (inputs, targets) along dimension 0 and
// leaves the batch gradient in every parameter's grad() (overwriting what was there).
// chunks <= 1: one loss_fn call and loss.backward() on the calling thread, the plain loop.
// chunks > 1: each chunk on its own thread; the gradients are added in chunk order, so the
// result does not depend on thread timing. Parameters the loss does not reach get zeros.
// Exceptions in a chunk are rethrown on the calling thread. `read_loss`: also read the loss
// into `loss` on the host (on a GPU the host then waits for the step); the training loop
// leaves it in `loss_value` and reads the losses of many steps at once.
SplitStepResult split_forward_backward(const std::vector<torch::Tensor>& parameters, const torch::Tensor& inputs,
                                       const torch::Tensor& targets, int chunks, const ChunkLossFn& loss_fn,
                                       GradientOutput output = GradientOutput::kReplace, bool read_loss = true);

// The guard a trainer that splits its batches keeps around its steps.
using util::ScopedIntraOpThreads;

}  // namespace dls::train
