// DistributedContext's collectives: no-ops in one process (impl_ is null; it always is
// without c10d), else run on the group of process_group.h, each failure one line.
#include "train/parallel/process_group.h"

#include <string>
#include <vector>

#include "dls/train/parallel/gradient_buffer.h"

namespace dls::train {

#ifdef DLS_HAVE_C10D
using namespace process_group;
#endif

// Collectives: no-ops in one process (impl_ is null; it always is without c10d).

void DistributedContext::broadcast(const std::vector<torch::Tensor>& tensors, int root) {
  if (!impl_) return;
#ifdef DLS_HAVE_C10D
  torch::NoGradGuard no_grad;
  // One flat tensor per dtype (a model's float parameters, a buffer's int64 counter, …):
  // c10d's broadcast takes one tensor per device, not a list of differently shaped ones.
  std::vector<c10::ScalarType> dtypes;
  for (const auto& t : tensors) {
    if (std::find(dtypes.begin(), dtypes.end(), t.scalar_type()) == dtypes.end()) dtypes.push_back(t.scalar_type());
  }
  for (const auto dtype : dtypes) {
    std::vector<torch::Tensor> parts;
    for (const auto& t : tensors) {
      if (t.scalar_type() == dtype) parts.push_back(t.reshape({-1}));
    }
    std::vector<at::Tensor> flat{on_device(torch::cat(parts), device_)};  // [sum of numels]
    if (flat[0].numel() == 0) continue;
    c10d::BroadcastOptions options;
    options.rootRank = root;
    impl_->run(rank_, timeout_,
               "broadcast of " + std::to_string(parts.size()) + " " + c10::toString(dtype) + " tensors from rank " +
                   std::to_string(root),
               [&] { return impl_->group->broadcast(flat, options); });
    if (rank_ == root) continue;
    std::int64_t offset = 0;
    for (const auto& t : tensors) {
      if (t.scalar_type() != dtype) continue;
      t.copy_(flat[0].narrow(0, offset, t.numel()).view(t.sizes()));
      offset += t.numel();
    }
  }
#endif
}

void DistributedContext::all_reduce_sum(torch::Tensor& tensor, const std::string& what) {
  if (!impl_) return;
#ifdef DLS_HAVE_C10D
  if (!tensor.is_contiguous()) throw std::invalid_argument(what + ": all_reduce_sum needs a contiguous tensor");
  std::vector<at::Tensor> tensors{on_device(tensor, device_)};
  impl_->run(rank_, timeout_, what, [&] { return impl_->group->allreduce(tensors); });
  if (!tensors[0].is_same(tensor)) tensor.copy_(tensors[0]);
#endif
}

void DistributedContext::all_reduce_gradients(GradientBuffer& gradients) {
  start_all_reduce(gradients.flat(), "all-reduce of " + std::to_string(gradients.numel()) + " gradients");
  last_all_reduce_seconds_ = finish_all_reduces();
}

void DistributedContext::start_all_reduce(const torch::Tensor& tensor, const std::string& what) {
  if (!impl_) return;
#ifdef DLS_HAVE_C10D
  if (!tensor.is_contiguous()) throw std::invalid_argument(what + ": start_all_reduce needs a contiguous tensor");
  if (!impl_->failure.empty()) {
    throw std::runtime_error("rank " + std::to_string(rank_) + ": " + what + ": the process group failed before (" +
                             impl_->failure + ")");
  }
  std::vector<at::Tensor> tensors{tensor};
  impl_->pending.emplace_back(impl_->launch(rank_, timeout_, what, [&] { return impl_->group->allreduce(tensors); }),
                              what);
#endif
}

double DistributedContext::finish_all_reduces() {
  if (!impl_) return 0;
  double waited = 0;
#ifdef DLS_HAVE_C10D
  const auto begin = Clock::now();
  auto pending = std::move(impl_->pending);
  impl_->pending.clear();
  for (auto& [work, what] : pending) impl_->wait(rank_, timeout_, what, *work, begin);
  waited = seconds_since(begin);
#endif
  return waited;
}

std::vector<double> DistributedContext::all_reduce_sum(const std::vector<double>& values) {
  if (!impl_ || values.empty()) return values;
  auto tensor = torch::tensor(values, torch::kDouble);
  all_reduce_sum(tensor, "all-reduce of " + std::to_string(values.size()) + " numbers");
  return std::vector<double>(tensor.data_ptr<double>(), tensor.data_ptr<double>() + tensor.numel());
}

std::vector<torch::Tensor> DistributedContext::all_gather_rows(const torch::Tensor& rows) {
  if (rows.dim() == 0) throw std::invalid_argument("all_gather_rows: a tensor with rows, not a scalar");
  if (!impl_) return {rows};
  std::vector<torch::Tensor> gathered;
#ifdef DLS_HAVE_C10D
  const auto gather = [&](const torch::Tensor& mine, const std::string& what) {
    std::vector<std::vector<at::Tensor>> outputs(1);
    for (int r = 0; r < world_size_; ++r) outputs[0].push_back(torch::empty_like(mine));
    std::vector<at::Tensor> inputs{mine};
    impl_->run(rank_, timeout_, what, [&] { return impl_->group->allgather(outputs, inputs); });
    return outputs[0];
  };
  // The row counts first; then every rank's rows padded to the longest share.
  const auto counts =
      gather(torch::full({1}, rows.size(0), torch::dtype(torch::kLong).device(device_)), "all-gather of row counts");
  std::int64_t longest = 0;
  for (const auto& c : counts) longest = std::max(longest, c.item<std::int64_t>());
  if (longest == 0) return std::vector<torch::Tensor>(static_cast<std::size_t>(world_size_), rows);  // all empty
  auto shape = rows.sizes().vec();
  shape[0] = longest;
  auto padded = torch::zeros(shape, rows.options().device(device_));
  padded.narrow(0, 0, rows.size(0)).copy_(rows);
  const auto all = gather(padded, "all-gather of " + std::to_string(longest) + "-row blocks");
  for (int r = 0; r < world_size_; ++r) {
    gathered.push_back(all[static_cast<std::size_t>(r)]
                           .narrow(0, 0, counts[static_cast<std::size_t>(r)].item<std::int64_t>())
                           .to(rows.device()));
  }
#endif
  return gathered;
}

void DistributedContext::barrier() {
  if (!impl_) return;
#ifdef DLS_HAVE_C10D
  impl_->run(rank_, timeout_, "barrier", [&] { return impl_->group->barrier(); });
#endif
}

}  // namespace dls::train
