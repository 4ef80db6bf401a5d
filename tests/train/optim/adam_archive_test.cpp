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
#include "dls/train/parallel/gradient_buffer.h"
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

enum class Made { kPlain, kFused, kGraphSafe };

// An optimizer as the trainers make one, over three parameters of different shapes (the same
// values for the same seed), with the gradients it steps on set by step().
struct Stepped {
  std::vector<torch::Tensor> params;
  std::shared_ptr<train::GradientBuffer> gradients;  // the graph-safe one's flat gradients
  std::unique_ptr<torch::optim::Optimizer> optimizer;

  Stepped(settings::OptimizerSettings options, Made made, double lr) {
    torch::manual_seed(3);
    params = {torch::randn({4, 3}, torch::requires_grad()), torch::randn({5}, torch::requires_grad()),
              torch::randn({2, 2}, torch::requires_grad())};
    options.fused = made == Made::kFused;
    if (made == Made::kGraphSafe) {
      gradients = std::make_shared<train::GradientBuffer>(params);
      optimizer = train::make_graph_safe_optimizer(params, gradients->flat(), options, lr);
    } else {
      optimizer = train::make_optimizer(params, options, lr);
    }
  }
  // One step on the gradients of a fixed function of the parameters.
  void step() {
    const auto loss = params[0].square().sum() + params[1].sin().sum() + params[2].exp().sum();
    const auto grads = torch::autograd::grad({loss}, params);
    torch::NoGradGuard no_grad;
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (!params[i].grad().defined()) params[i].mutable_grad() = torch::zeros_like(params[i]);
      params[i].mutable_grad().copy_(grads[i]);
    }
    optimizer->step();
  }
};

double group_lr(torch::optim::Optimizer& optimizer) {
  auto& options = optimizer.param_groups().front().options();
  if (auto* adam = dynamic_cast<torch::optim::AdamOptions*>(&options)) return adam->lr();
  return dynamic_cast<torch::optim::AdamWOptions&>(options).lr();
}

TEST(AdamArchive, LoadsTheKeysOfEitherLibTorch) {
  for (const auto kind : {settings::OptimizerKind::kAdam, settings::OptimizerKind::kAdamW}) {
    for (const auto made : {Made::kPlain, Made::kFused, Made::kGraphSafe}) {
      for (const auto& [style, key_of] : {std::pair<std::string, KeyOf>{"1.x", pointer_as_stream_writes_it},
                                          std::pair<std::string, KeyOf>{"2.x", pointer_in_decimal}}) {
        settings::OptimizerSettings options;
        options.kind = kind;
        const std::string what = std::string(made == Made::kPlain   ? "plain "
                                             : made == Made::kFused ? "fused "
                                                                    : "graph-safe ") +
                                 (kind == settings::OptimizerKind::kAdam ? "Adam" : "AdamW") + ", keys as LibTorch " +
                                 style;
        // Two steps saved; the same two steps in another optimizer, its state dropped, its rate
        // changed, then both loaded from the file.
        Stepped saved(options, made, 1e-2), loaded(options, made, 1e-2);
        for (auto* run : {&saved, &loaded}) {
          run->step();
          run->step();
        }
        auto archive = adam_archive_keyed(*saved.optimizer, key_of);
        loaded.optimizer->state().clear();
        train::set_learning_rate(*loaded.optimizer, 0.5);
        loaded.optimizer->load(archive);
        ASSERT_EQ(loaded.optimizer->state().size(), 3u) << what;
        EXPECT_EQ(group_lr(*loaded.optimizer), 1e-2) << what << ": the saved group's options";
        for (std::size_t i = 0; i < saved.params.size(); ++i) {
          const auto from = moments_of(*entry_of(saved.optimizer->state(), saved.params[i]));
          const auto to = moments_of(*entry_of(loaded.optimizer->state(), loaded.params[i]));
          EXPECT_EQ(to.step, from.step) << what << ", parameter " << i;
          EXPECT_TRUE(torch::equal(to.exp_avg, from.exp_avg)) << what << ", parameter " << i;
          EXPECT_TRUE(torch::equal(to.exp_avg_sq, from.exp_avg_sq)) << what << ", parameter " << i;
        }
        // A step after the load lands where the saved optimizer's next step lands.
        for (auto* run : {&saved, &loaded}) {
          train::set_learning_rate(*run->optimizer, 1e-2);
          run->step();
        }
        for (std::size_t i = 0; i < saved.params.size(); ++i) {
          EXPECT_TRUE(torch::allclose(loaded.params[i], saved.params[i], 1e-6, 1e-7))
              << what << ", parameter " << i << " after a step";
        }
      }
    }
  }
}

// A file of another parameter count is one error, not a crash.
TEST(AdamArchive, AnotherParameterCountIsRefused) {
  Stepped saved(settings::OptimizerSettings{}, Made::kFused, 1e-2);
  saved.step();
  auto archive = adam_archive_keyed(*saved.optimizer, pointer_as_stream_writes_it);
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
