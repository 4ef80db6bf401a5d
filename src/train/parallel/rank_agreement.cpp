#include "dls/train/parallel/rank_agreement.h"

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

}  // namespace

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
  const auto description = describe();
  std::vector<std::int32_t> bytes(description.begin(), description.end());
  const auto mine = torch::tensor(bytes, torch::kInt);
  const auto all = dist.all_gather_rows(mine.numel() > 0 ? mine : torch::zeros({1}, torch::kInt));
  const auto text_of = [](const torch::Tensor& rows) {
    const auto values = rows.contiguous();
    const auto* data = values.data_ptr<std::int32_t>();
    return std::string(data, data + values.numel());
  };
  const auto first = lines_of(text_of(all.front()));
  for (std::size_t rank = 1; rank < all.size(); ++rank) {
    const auto theirs = lines_of(text_of(all[rank]));
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
