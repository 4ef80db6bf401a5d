// Adam's and AdamW's saved state loads whichever LibTorch wrote it: the state keys of 1.x
// ("0x55d0...", a pointer as a stream writes it) and of 2.x (the same address in decimal),
// matched as strings, the same moments back at the same parameters. LibTorch 2.x's own load
// parses every key as decimal: a 1.x file then gave one parameter's moments to another and
// left null states that crashed the first step after a resume (the older-checkpoint tests,
// run against LibTorch 2.6 by .ci/libtorch2_chroot.sh).
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "dls/train/optim/optimizer.h"
#include "dls/util/key_values.h"

namespace dls {
namespace adam_archive_test {
namespace {

using KeyOf = std::function<std::string(const torch::Tensor&)>;

std::string pointer_as_stream_writes_it(const torch::Tensor& p) {  // LibTorch 1.x
  std::ostringstream key;
  key << p.unsafeGetTensorImpl();
  return key.str();
}

std::string pointer_in_decimal(const torch::Tensor& p) {  // LibTorch 2.x
  return std::to_string(reinterpret_cast<std::uintptr_t>(p.unsafeGetTensorImpl()));
}

// The state's entry for p in the optimizer's map (string keys in 1.x, the address in 2.x).
template <typename Map>
auto& entry_of(Map& state, const torch::Tensor& p) {
  if constexpr (std::is_same_v<typename Map::key_type, std::string>) {
    return state.at(pointer_as_stream_writes_it(p));
  } else {
    return state.at(p.unsafeGetTensorImpl());
  }
}

// What LibTorch's Adam save writes (torch/optim/serialize.h, format "1.5.0"), with each
// parameter's key made by key_of: a file as either LibTorch would have written it.
torch::serialize::InputArchive adam_archive_keyed(torch::optim::Optimizer& optimizer, const KeyOf& key_of) {
  torch::serialize::OutputArchive out;
  out.write("pytorch_version", c10::IValue("1.5.0"));
  torch::serialize::OutputArchive state(out.compilation_unit());
  torch::serialize::OutputArchive groups(out.compilation_unit());
  groups.write("param_groups/size", torch::tensor(static_cast<std::int64_t>(1)));
  torch::serialize::OutputArchive group(out.compilation_unit());
  const auto& params = optimizer.param_groups().front().params();
  group.write("params/size", torch::tensor(static_cast<std::int64_t>(params.size())));
  for (std::size_t i = 0; i < params.size(); ++i) {
    group.write("params/" + std::to_string(i), c10::IValue(key_of(params[i])));
    torch::serialize::OutputArchive one(out.compilation_unit());
    entry_of(optimizer.state(), params[i])->serialize(one);
    state.write(key_of(params[i]), one);
  }
  torch::serialize::OutputArchive options(out.compilation_unit());
  optimizer.param_groups().front().options().serialize(options);
  group.write("options", options);
  groups.write("param_groups/0", group);
  out.write("state", state);
  out.write("param_groups", groups);
  std::stringstream bytes;
  out.save_to(bytes);
  torch::serialize::InputArchive in;
  in.load_from(bytes);
  return in;
}

// Adam's and AdamW's state types are siblings with the same fields.
struct Moments {
  std::int64_t step;
  torch::Tensor exp_avg, exp_avg_sq;
};
Moments moments_of(torch::optim::OptimizerParamState& state) {
  if (auto* adam = dynamic_cast<torch::optim::AdamParamState*>(&state)) {
    return {adam->step(), adam->exp_avg(), adam->exp_avg_sq()};
  }
  auto& adamw = dynamic_cast<torch::optim::AdamWParamState&>(state);
  return {adamw.step(), adamw.exp_avg(), adamw.exp_avg_sq()};
}

// Three parameters of different shapes, two steps of the optimizer `options` ask for.
std::vector<torch::Tensor> stepped_parameters(const settings::OptimizerSettings& options,
                                              std::unique_ptr<torch::optim::Optimizer>* optimizer) {
  torch::manual_seed(3);
  std::vector<torch::Tensor> params{torch::randn({4, 3}, torch::requires_grad()),
                                    torch::randn({5}, torch::requires_grad()),
                                    torch::randn({2, 2}, torch::requires_grad())};
  *optimizer = train::make_optimizer(params, options, 1e-2);
  for (int step = 0; step < 2; ++step) {
    (*optimizer)->zero_grad();
    (params[0].square().sum() + params[1].sin().sum() + params[2].exp().sum()).backward();
    (*optimizer)->step();
  }
  return params;
}

TEST(AdamArchive, LoadsTheKeysOfEitherLibTorch) {
  for (const auto kind : {settings::OptimizerKind::kAdam, settings::OptimizerKind::kAdamW}) {
    for (const bool fused : {true, false}) {
      for (const auto& [style, key_of] : {std::pair<std::string, KeyOf>{"1.x", pointer_as_stream_writes_it},
                                          std::pair<std::string, KeyOf>{"2.x", pointer_in_decimal}}) {
        settings::OptimizerSettings options;
        options.kind = kind;
        options.fused = fused;
        std::unique_ptr<torch::optim::Optimizer> saved, loaded;
        const auto saved_params = stepped_parameters(options, &saved);
        auto archive = adam_archive_keyed(*saved, key_of);
        const auto loaded_params = stepped_parameters(options, &loaded);  // the same shapes, other tensors
        loaded->state().clear();
        loaded->load(archive);
        const std::string what = std::string(fused ? "fused " : "plain ") +
                                 (kind == settings::OptimizerKind::kAdam ? "Adam" : "AdamW") + ", keys as LibTorch " +
                                 style;
        ASSERT_EQ(loaded->state().size(), 3u) << what;
        for (std::size_t i = 0; i < saved_params.size(); ++i) {
          const auto from = moments_of(*entry_of(saved->state(), saved_params[i]));
          const auto to = moments_of(*entry_of(loaded->state(), loaded_params[i]));
          EXPECT_EQ(to.step, from.step) << what << ", parameter " << i;
          EXPECT_TRUE(torch::equal(to.exp_avg, from.exp_avg)) << what << ", parameter " << i;
          EXPECT_TRUE(torch::equal(to.exp_avg_sq, from.exp_avg_sq)) << what << ", parameter " << i;
        }
      }
    }
  }
}

// A file of another parameter count is one error, not a crash.
TEST(AdamArchive, AnotherParameterCountIsRefused) {
  std::unique_ptr<torch::optim::Optimizer> saved;
  stepped_parameters(settings::OptimizerSettings{}, &saved);
  auto archive = adam_archive_keyed(*saved, pointer_as_stream_writes_it);
  auto one = torch::randn({4, 3}, torch::requires_grad());
  auto other = train::make_optimizer({one}, settings::OptimizerSettings{}, 1e-2);
  try {
    other->load(archive);
    ADD_FAILURE() << "expected a refusal";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("parameter group 0 saved with 3 parameters, the optimizer's has 1"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace adam_archive_test
}  // namespace dls
