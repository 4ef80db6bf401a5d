#include "dls/train/gradient_buckets.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <string>

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/torch.h>

#include "dls/train/distributed.h"
#include "dls/train/gradient_buffer.h"

namespace dls::train {

namespace {

constexpr std::int64_t kFirstBucketBytes = 1 << 20;  // DDP's first bucket: 1 MiB

// A post-hook on a parameter's AccumulateGrad node: tells the buckets its gradient is done.
class GradientCompleteHook : public torch::autograd::FunctionPostHook {
 public:
  GradientCompleteHook(std::function<void()> done) : done_(std::move(done)) {}
  torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                            const torch::autograd::variable_list& /*inputs*/) override {
    done_();
    return outputs;
  }

 private:
  std::function<void()> done_;
};

}  // namespace

GradientBuckets::GradientBuckets(GradientBuffer& buffer, DistributedContext& dist, std::int64_t bucket_bytes)
    : buffer_(buffer), dist_(dist) {
  const auto& parameters = buffer.parameters();
  const std::int64_t element_bytes = buffer.flat().element_size();
  // Walk the parameters from the last: backward reaches the model's last layers first. A
  // bucket closes once it reaches its size; its slice runs from its lowest parameter's
  // offset to the end of the bucket before it in the flat tensor.
  std::vector<std::size_t> bucket_of(parameters.size());
  std::int64_t end = buffer.numel(), size = 0;
  std::size_t count = 0;
  auto close = [&](std::int64_t begin) {
    buckets_.push_back({begin, end - begin, count, 0});
    end = begin;
    size = 0;
    count = 0;
  };
  std::int64_t offset = buffer.numel();
  for (std::size_t i = parameters.size(); i-- > 0;) {
    offset -= parameters[i].numel();
    bucket_of[i] = buckets_.size();
    size += parameters[i].numel() * element_bytes;
    count += 1;
    const std::int64_t cap = bucket_bytes <= 0 ? INT64_MAX : buckets_.empty() ? std::min(bucket_bytes, kFirstBucketBytes)
                                                                              : bucket_bytes;
    if (size >= cap && i > 0) close(offset);
  }
  if (count > 0 || buckets_.empty()) close(0);
  if (bucket_bytes <= 0) return;  // no hooks: finish() starts the one bucket
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    auto accumulator = torch::autograd::impl::grad_accumulator(parameters[i]);
    if (!accumulator) continue;  // cannot happen for a leaf that requires grad
    const std::size_t bucket = bucket_of[i];
    hook_keys_.push_back(accumulator->add_post_hook(
        std::make_unique<GradientCompleteHook>([this, bucket] { gradient_complete(bucket); })));
    accumulators_.push_back(std::move(accumulator));
  }
}

GradientBuckets::~GradientBuckets() {
  for (std::size_t i = 0; i < accumulators_.size(); ++i) accumulators_[i]->del_post_hook(hook_keys_[i]);
}

void GradientBuckets::arm() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& bucket : buckets_) bucket.pending = bucket.parameters;
  next_to_start_ = 0;
  started_during_backward_ = 0;
  armed_ = !accumulators_.empty();
}

void GradientBuckets::gradient_complete(std::size_t bucket) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!armed_) return;
  auto& b = buckets_[bucket];
  if (b.pending > 0) b.pending -= 1;
  start_ready_buckets();
}

void GradientBuckets::start_ready_buckets() {
  while (next_to_start_ < buckets_.size() && buckets_[next_to_start_].pending == 0) {
    start(next_to_start_++);
    started_during_backward_ += 1;
  }
}

void GradientBuckets::start(std::size_t bucket) {
  const auto& b = buckets_[bucket];
  if (b.numel == 0) return;
  dist_.start_all_reduce(buffer_.flat().narrow(0, b.offset, b.numel),
                         "all-reduce of gradient bucket " + std::to_string(bucket + 1) + " of " +
                             std::to_string(buckets_.size()) + " (" + std::to_string(b.numel) + " gradients)");
}

double GradientBuckets::finish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = false;
    while (next_to_start_ < buckets_.size()) start(next_to_start_++);
    next_to_start_ = 0;
  }
  return dist_.finish_all_reduces();
}

}  // namespace dls::train
