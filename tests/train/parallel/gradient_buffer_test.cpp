#include "dls/train/parallel/gradient_buffer.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include <torch/torch.h>

#include "dls/train/parallel/distributed_sampler.h"
#include "dls/train/parallel/split_batch.h"

namespace dls::train {
namespace {

// A two-layer network with a deterministic forward pass.
torch::nn::Sequential buffer_test_model() {
  torch::manual_seed(17);
  return torch::nn::Sequential(torch::nn::Linear(6, 5), torch::nn::Tanh(), torch::nn::Linear(5, 3));
}

std::vector<torch::Tensor> grad_copies(const std::vector<torch::Tensor>& parameters) {
  std::vector<torch::Tensor> out;
  for (const auto& p : parameters) out.push_back(p.grad().clone());
  return out;
}

void expect_same_gradients(const std::vector<torch::Tensor>& got, const std::vector<torch::Tensor>& expected,
                           const std::string& where) {
  ASSERT_EQ(got.size(), expected.size()) << where;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(torch::allclose(got[i], expected[i], 1e-5, 1e-6)) << where << ", parameter " << i;
  }
}

TEST(GradientBuffer, EveryGradIsAViewOfOneFlatTensor) {
  auto model = buffer_test_model();
  auto frozen = torch::ones({4});  // requires no grad: no slice
  auto parameters = model->parameters();
  parameters.push_back(frozen);
  GradientBuffer buffer(parameters);
  EXPECT_EQ(buffer.numel(), 6 * 5 + 5 + 5 * 3 + 3);
  EXPECT_EQ(buffer.parameters().size(), 4u);
  EXPECT_TRUE(buffer.views_intact());
  buffer.flat().fill_(2.0);
  for (const auto& p : model->parameters()) EXPECT_TRUE(torch::equal(p.grad(), torch::full_like(p, 2.0)));
  EXPECT_EQ(buffer.view(1).data_ptr<float>(), buffer.flat().data_ptr<float>() + 30);  // the first bias follows W1
  buffer.zero();
  for (const auto& p : model->parameters()) EXPECT_EQ(p.grad().abs().sum().item<float>(), 0.0f);
  EXPECT_FALSE(frozen.grad().defined());
}

TEST(GradientBuffer, ParametersOfDifferentDtypesAreRejected) {
  const std::vector<torch::Tensor> mixed{torch::ones({2}).requires_grad_(true),
                                         torch::ones({2}, torch::kDouble).requires_grad_(true)};
  EXPECT_THROW(GradientBuffer{mixed}, std::invalid_argument);
}

// zero() + backward(): autograd adds into the existing views in place.
TEST(GradientBuffer, BackwardAccumulatesIntoTheViews) {
  auto model = buffer_test_model();
  const auto x = torch::randn({4, 6});
  const auto parameters = model->parameters();
  const auto expected = torch::autograd::grad({model->forward(x).square().sum()}, parameters);
  GradientBuffer buffer(parameters);
  buffer.flat().fill_(7.0);  // stale values that zero() must clear
  buffer.zero();
  model->forward(x).square().sum().backward();
  EXPECT_TRUE(buffer.views_intact());
  expect_same_gradients(grad_copies(parameters), {expected.begin(), expected.end()}, "backward");
  EXPECT_EQ(buffer.adopt_gradients(), 0u);
}

// split_forward_backward into existing gradients keeps the views and gives kReplace's
// gradients, in one chunk and in several; kReplace breaks the views, adopt_gradients()
// copies the gradients back in.
TEST(GradientBuffer, SplitStepWritesIntoTheViewsOrIsAdopted) {
  auto model = buffer_test_model();
  const auto parameters = model->parameters();
  const auto x = torch::randn({7, 6});
  const auto y = torch::randint(0, 3, {7}, torch::kLong);
  const ChunkLossFn loss_fn = [&](const torch::Tensor& in, const torch::Tensor& target, torch::Tensor* out) {
    *out = model->forward(in);
    return torch::nn::functional::cross_entropy(
               *out, target, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum)) /
           7.0;
  };
  for (const int chunks : {1, 3}) {
    const auto where = std::to_string(chunks) + " chunks";
    const auto replaced = split_forward_backward(parameters, x, y, chunks, loss_fn);
    const auto expected = grad_copies(parameters);
    GradientBuffer buffer(parameters);
    buffer.flat().fill_(3.0);
    const auto into = split_forward_backward(parameters, x, y, chunks, loss_fn, GradientOutput::kIntoExisting);
    EXPECT_NEAR(into.loss, replaced.loss, 1e-6) << where;
    EXPECT_TRUE(buffer.views_intact()) << where;
    expect_same_gradients(grad_copies(parameters), expected, where + ", into existing");

    split_forward_backward(parameters, x, y, chunks, loss_fn);  // kReplace
    EXPECT_FALSE(buffer.views_intact()) << where;
    EXPECT_EQ(buffer.adopt_gradients(), parameters.size()) << where;
    EXPECT_TRUE(buffer.views_intact()) << where;
    expect_same_gradients(grad_copies(parameters), expected, where + ", adopted");
  }
}

// The data-parallel contract of distributed_sampler.h: each rank's loss is its samples'
// loss sum over the *global* batch count; the SUM of the ranks' gradients (here: added in
// one buffer, as the all-reduce adds them) is the one-process gradient of the batch mean.
TEST(GradientBuffer, RankSharesSumToTheGlobalBatchGradient) {
  auto model = buffer_test_model();
  const auto parameters = model->parameters();
  const std::int64_t n = 10, batch = 4;
  const auto x = torch::randn({n, 6});
  const auto y = torch::randint(0, 3, {n}, torch::kLong);
  namespace F = torch::nn::functional;
  for (std::int64_t step = 0; step < DistributedSampler(n, batch).steps_per_epoch(); ++step) {
    const DistributedSampler one(n, batch);
    const auto rows = torch::tensor(one.positions(step), torch::kLong);
    const auto expected =
        torch::autograd::grad({F::cross_entropy(model->forward(x.index({rows})), y.index({rows}))}, parameters);
    for (int world = 2; world <= 3; ++world) {
      GradientBuffer buffer(parameters);
      for (int r = 0; r < world; ++r) {
        const DistributedSampler sampler(n, batch, world, r);
        const auto mine = torch::tensor(sampler.positions(step), torch::kLong);
        if (mine.numel() == 0) continue;  // an empty share adds zeros
        const auto loss = F::cross_entropy(model->forward(x.index({mine})), y.index({mine}),
                                           F::CrossEntropyFuncOptions().reduction(torch::kSum)) /
                          static_cast<double>(sampler.global_count(step));
        loss.backward();  // adds into the buffer, as the all-reduce's SUM would
      }
      expect_same_gradients(grad_copies(parameters), {expected.begin(), expected.end()},
                            "step " + std::to_string(step) + ", world " + std::to_string(world));
    }
  }
}

}  // namespace
}  // namespace dls::train
