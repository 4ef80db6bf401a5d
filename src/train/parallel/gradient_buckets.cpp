#include "dls/train/parallel/gradient_buckets.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/torch.h>

#include "dls/train/parallel/distributed.h"
#include "dls/train/parallel/gradient_buffer.h"

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

GradientBuckets::GradientBuckets(GradientBuffer& buffer, DistributedContext& dist, std::int64_t bucket_bytes,
                                 const std::vector<torch::Tensor>& by_rows)
    : buffer_(buffer), dist_(dist) {
  const auto& parameters = buffer.parameters();
  const std::int64_t element_bytes = buffer.flat().element_size();
  const auto summed_by_rows = [&](const torch::Tensor& p) {
    return p.dim() == 2 && std::any_of(by_rows.begin(), by_rows.end(), [&](const auto& t) { return t.is_same(p); });
  };
  // Walk the parameters from the last: backward reaches the model's last layers first. A
  // bucket closes once it reaches its size, before a table summed by rows, and at the first
  // parameter; it spans its parameters' slices of the flat tensor, [begin, end).
  const std::size_t none = SIZE_MAX;
  std::vector<std::size_t> bucket_of(parameters.size(), none);
  std::int64_t end = buffer.numel(), offset = buffer.numel(), size = 0;
  std::size_t count = 0;
  const auto close = [&] {
    if (count > 0) buckets_.push_back({offset, end - offset, count, 0});
    end = offset;
    size = 0;
    count = 0;
  };
  for (std::size_t i = parameters.size(); i-- > 0;) {
    if (summed_by_rows(parameters[i])) {
      close();
      offset -= parameters[i].numel();
      end = offset;
      by_rows_.push_back(buffer.view(i));
      continue;
    }
    offset -= parameters[i].numel();
    bucket_of[i] = buckets_.size();
    size += parameters[i].numel() * element_bytes;
    count += 1;
    const std::int64_t cap = buckets_.empty() ? std::min(bucket_bytes, kFirstBucketBytes) : bucket_bytes;
    if (bucket_bytes > 0 && size >= cap) close();
  }
  close();
  if (bucket_bytes <= 0) return;  // no hooks: finish() starts the buckets
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (bucket_of[i] == none) continue;
    auto accumulator = torch::autograd::impl::grad_accumulator(parameters[i]);
    if (!accumulator) continue;  // cannot happen for a leaf that requires grad
    const std::size_t bucket = bucket_of[i];
    hook_keys_.push_back(accumulator->add_post_hook(
        std::make_unique<GradientCompleteHook>([this, bucket] { gradient_complete(bucket); })));
    accumulators_.push_back(std::move(accumulator));
  }
}

std::int64_t GradientBuckets::table_rows() const {
  std::int64_t rows = 0;
  for (const auto& table : by_rows_) rows += table.size(0);
  return rows;
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

void GradientBuckets::all_reduce_touched_rows(const torch::Tensor& table) {
  torch::NoGradGuard no_grad;
  const auto touched = table.ne(0).any(1).nonzero().squeeze(1);  // [n] this rank's rows
  const auto rows = std::get<0>(at::_unique(torch::cat(dist_.all_gather_rows(touched)), /*sorted=*/true));  // [u]
  rows_reduced_ += rows.numel();
  if (rows.numel() == 0) return;
  auto values = table.index_select(0, rows);  // [u, width]
  dist_.all_reduce_sum(values, "all-reduce of " + std::to_string(rows.numel()) + " embedding gradient rows");
  table.index_copy_(0, rows, values);
}

double GradientBuckets::finish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = false;
    while (next_to_start_ < buckets_.size()) start(next_to_start_++);
    next_to_start_ = 0;
  }
  const auto begin = std::chrono::steady_clock::now();
  rows_reduced_ = 0;
  for (const auto& table : by_rows_) all_reduce_touched_rows(table);
  dist_.finish_all_reduces();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
}

}  // namespace dls::train
