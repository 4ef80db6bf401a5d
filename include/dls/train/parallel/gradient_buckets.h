// Overlapping the gradient all-reduce with backward, as PyTorch's DistributedDataParallel
// does: the GradientBuffer's flat tensor is cut into buckets of consecutive parameters, and
// a bucket's all-reduce starts as soon as backward has finished every gradient in it, while
// backward goes on with the earlier layers.
//
//   flat [numel]: | p0 p1 p2 | p3 p4 | p5 p6 p7 |      bucket 0 = the last parameters
//                 | bucket 2 | bk 1  | bucket 0 |      (backward reaches them first)
//
// Every bucket is a contiguous slice of the flat tensor, so nothing is copied. Buckets start
// strictly in bucket order on every rank (a bucket that is ready waits for the ones before
// it), so that the ranks' collectives pair up whatever order their gradients complete in;
// finish() starts the rest (parameters the backward did not reach, or gradients computed
// where no hook fires: the multi-threaded chunk path's autograd::grad) and waits for all.
// The sums are the same numbers as one all-reduce of the whole buffer.
//
// Embedding tables are all-reduced by rows instead: a batch touches a few hundred of a
// table's tens of thousands of rows, and every other row's gradient is exactly zero on every
// rank. After backward, the ranks gather the indices of the rows each touched and sum only
// the union's rows (two small all-gathers, one all-reduce of [rows, width]); the untouched
// rows stay zero, as a dense sum would leave them, so the result is the same numbers. For
// the cpu preset this is 40 of the 76 MB per step.
//
// A parameter's gradient is complete when its AccumulateGrad node has run: the hook is a
// post-hook on that node, which fires once per backward, after the gradient was added into
// its view of the buffer (loss.backward() into defined grad() views, split_batch.h's
// kIntoExisting / kAccumulate on one chunk).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <torch/types.h>

namespace torch::autograd {
struct Node;
}

namespace dls::train {

class DistributedContext;
class GradientBuffer;

class GradientBuckets {
 public:
  // Buckets of about `bucket_bytes` (the first one, which backward completes first, of at
  // most 1 MiB so that communication starts early); bucket_bytes <= 0: one bucket, started
  // by finish() after backward (no overlap). `by_rows`: parameters of the buffer (2-D, e.g.
  // the weights of the model's torch::nn::Embedding modules) all-reduced by touched rows
  // (they split the buckets around them). Keeps `buffer` and `dist`, which must outlive it.
  GradientBuckets(GradientBuffer& buffer, DistributedContext& dist, std::int64_t bucket_bytes,
                  const std::vector<torch::Tensor>& by_rows = {});
  ~GradientBuckets();  // removes the hooks
  GradientBuckets(const GradientBuckets&) = delete;
  GradientBuckets& operator=(const GradientBuckets&) = delete;

  // The next backward pass starts buckets as it completes them (call before the backward
  // that finishes the step's gradients: the last micro-batch's).
  void arm();
  // Starts the buckets not started yet, waits for all of them, disarms. Returns the seconds
  // it waited: the communication that backward did not hide.
  double finish();

  std::size_t bucket_count() const { return buckets_.size(); }
  std::size_t tables_by_rows() const { return by_rows_.size(); }
  // Rows the last step summed over the ranks, of the tables' rows in all.
  std::int64_t rows_reduced() const { return rows_reduced_; }
  std::int64_t table_rows() const;
  // How many buckets the last step started during backward (the rest started in finish()).
  std::size_t started_during_backward() const { return started_during_backward_; }

 private:
  struct Bucket {
    std::int64_t offset = 0, numel = 0;  // its slice of the flat tensor
    std::size_t parameters = 0;          // how many parameters it holds
    std::size_t pending = 0;             // of those, gradients not complete in this backward
  };
  void gradient_complete(std::size_t bucket);  // a hook: one of `bucket`'s gradients is done
  void start_ready_buckets();                  // in order, up to the first not ready
  void start(std::size_t bucket);
  void all_reduce_touched_rows(const torch::Tensor& table);  // [rows, width], a view of the buffer

  GradientBuffer& buffer_;
  DistributedContext& dist_;
  std::vector<Bucket> buckets_;
  std::vector<torch::Tensor> by_rows_;  // the gradient views summed by rows
  std::int64_t rows_reduced_ = 0;
  // The parameters' AccumulateGrad nodes: held, so that the hooks live as long as this
  // object (a parameter keeps only a weak reference to its node), with the hooks' keys.
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
  std::vector<std::uintptr_t> hook_keys_;
  std::mutex mutex_;  // backward may run hooks on another thread than the caller's
  bool armed_ = false;
  std::size_t next_to_start_ = 0;
  std::size_t started_during_backward_ = 0;
};

}  // namespace dls::train
