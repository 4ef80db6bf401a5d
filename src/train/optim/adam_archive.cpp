#include "adam_archive.h"

#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/serialize.h>

#include "train/optim/adam_state.h"

namespace dls::train {

template <typename Base>
void load_adam_archive(torch::serialize::InputArchive& archive, Base& optimizer) {
  using State = AdamStateOf<Base>;
  using Options = AdamOptionsOf<Base>;
  c10::IValue version;
  archive.read("pytorch_version", version);
  TORCH_CHECK(version.isString() && version.toStringRef() == "1.5.0", "an optimizer state of an unknown format");
  torch::serialize::InputArchive state_archive;
  archive.read("state", state_archive);
  std::map<std::string, std::unique_ptr<State>> saved_state;  // by the key as written
  for (const auto& key : state_archive.keys()) {
    torch::serialize::InputArchive one;
    state_archive.read(key, one);
    auto state = std::make_unique<State>();
    state->serialize(one);
    saved_state.emplace(key, std::move(state));
  }
  torch::serialize::InputArchive groups_archive;
  archive.read("param_groups", groups_archive);
  std::vector<std::pair<std::vector<std::string>, std::unique_ptr<torch::optim::OptimizerOptions>>> saved_groups;
  torch::optim::detail::serialize<Options>(groups_archive, saved_groups);
  auto& groups = optimizer.param_groups();
  TORCH_CHECK(saved_groups.size() == groups.size(), "saved with ", saved_groups.size(),
              " parameter groups, the optimizer has ", groups.size());
  auto& state = optimizer.state();
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& saved_keys = saved_groups[g].first;
    const auto& params = groups[g].params();
    TORCH_CHECK(saved_keys.size() == params.size(), "parameter group ", g, " saved with ", saved_keys.size(),
                " parameters, the optimizer's has ", params.size());
    for (std::size_t i = 0; i < params.size(); ++i) {
      const auto found = saved_state.find(saved_keys[i]);
      if (found == saved_state.end()) continue;  // not stepped yet when saved
      state[state_key(state, params[i])] = std::move(found->second);
      saved_state.erase(found);
    }
    static_cast<Options&>(groups[g].options()) = static_cast<const Options&>(*saved_groups[g].second);
  }
}

template void load_adam_archive(torch::serialize::InputArchive&, torch::optim::Adam&);
template void load_adam_archive(torch::serialize::InputArchive&, torch::optim::AdamW&);

}  // namespace dls::train
