#include "dls/train/parallel/rank_agreement.h"

#include <exception>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <torch/torch.h>

#include "dls/train/parallel/distributed.h"
#include "dls/util/digest.h"

namespace dls::train {

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Every rank's text, in rank order (one all-gather of its bytes).
std::vector<std::string> all_gather_text(DistributedContext& dist, const std::string& text) {
  std::vector<std::int32_t> bytes(text.begin(), text.end());
  bytes.insert(bytes.begin(), 0);  // never an empty tensor; dropped below
  const auto all = dist.all_gather_rows(torch::tensor(bytes, torch::kInt));
  std::vector<std::string> texts;
  for (const auto& rows : all) {
    const auto values = rows.contiguous();
    const auto* data = values.data_ptr<std::int32_t>();
    texts.emplace_back(data + 1, data + values.numel());
  }
  return texts;
}

}  // namespace

std::string from_main_rank(DistributedContext& dist, const std::function<std::string()>& work) {
  if (dist.world_size() <= 1) return work();
  std::string answer;
  std::exception_ptr failure;
  if (dist.is_main()) {
    try {
      answer = "v" + work();
    } catch (const std::exception& error) {
      failure = std::current_exception();
      answer = std::string("e") + error.what();
    }
  }
  const auto shared = all_gather_text(dist, answer).front();
  if (failure) std::rethrow_exception(failure);
  if (!shared.empty() && shared[0] == 'e') throw std::runtime_error(shared.substr(1));
  return shared.empty() ? "" : shared.substr(1);
}

std::string rank_description(const std::string& config_toml, const torch::nn::Module& model,
                             std::int64_t steps_per_epoch, std::uint64_t training_data_digest,
                             std::int64_t resumed_step) {
  std::string text;
  for (const auto& line : lines_of(config_toml)) {
    const auto equals = line.find('=');
    if (line.empty() || line[0] == '#' || equals == std::string::npos) continue;
    const auto key = line.substr(0, equals);
    const bool absolute_path = line.compare(equals + 1, 2, "\"/") == 0;
    if (absolute_path || key == "device") continue;
    text += line + "\n";
  }
  std::int64_t values = 0;
  std::string shapes;
  for (const auto& item : model.named_parameters()) {
    values += item.value().numel();
    shapes += item.key();
    for (const auto size : item.value().sizes()) shapes += " " + std::to_string(size);
    shapes += ";";
  }
  std::ostringstream model_lines;
  model_lines << "model values=" << values << "\nmodel tensors=" << std::hex << util::digest(util::kDigestStart, shapes)
              << std::dec << "\nsteps per epoch=" << steps_per_epoch << "\ntraining data digest=" << std::hex
              << training_data_digest << std::dec << "\nresumed at step=" << resumed_step << "\n";
  return text + model_lines.str();
}

std::uint64_t tensor_digest(std::uint64_t hash, const torch::Tensor& values) {
  for (const auto size : values.sizes()) hash = util::digest(hash, &size, sizeof(size));
  const auto dense = values.to(torch::kCPU).contiguous();
  return util::digest(hash, dense.data_ptr(), dense.nbytes());
}

void check_ranks_agree(DistributedContext& dist, const std::function<std::string()>& describe) {
  if (dist.world_size() <= 1) return;
  const auto all = all_gather_text(dist, describe());
  const auto first = lines_of(all.front());
  for (std::size_t rank = 1; rank < all.size(); ++rank) {
    const auto theirs = lines_of(all[rank]);
    if (theirs == first) continue;
    std::size_t i = 0;
    while (i < first.size() && i < theirs.size() && first[i] == theirs[i]) ++i;
    const std::string there = i < theirs.size() ? theirs[i] : "(nothing)";
    const std::string here = i < first.size() ? first[i] : "(nothing)";
    throw std::runtime_error("rank " + std::to_string(rank) + " was started unlike rank 0: " + there + " there, " +
                             here +
                             " on rank 0; every rank takes the same flags and the same data (a path may differ)");
  }
}

}  // namespace dls::train
