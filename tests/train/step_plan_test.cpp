#include "dls/train/step_plan.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace dls::train::step_plan_test {
namespace {

using util::Precision;
const torch::Device kCpu(torch::kCPU);
const torch::Device kCuda(torch::kCUDA, 0);

StepPlan plan(CudaGraphs wanted, const torch::Device& device, bool built = true, int world = 1,
              Precision precision = Precision::kFp32, int accum = 1, bool capturable = true) {
  return plan_step(wanted, device, built, world, precision, accum, capturable);
}

TEST(StepPlan, OneGpuProcessReplaysGraphsWithTheGraphSafeOptimizer) {
  for (const auto precision : {Precision::kFp32, Precision::kBf16}) {
    const auto p = plan(CudaGraphs::kAuto, kCuda, true, 1, precision);
    EXPECT_TRUE(p.captured);
    EXPECT_TRUE(p.graph_safe_optimizer);
    EXPECT_EQ(p.why_not, "");
  }
}

TEST(StepPlan, TheCpuStaysEagerWithItsOwnOptimizer) {
  const auto p = plan(CudaGraphs::kAuto, kCpu);
  EXPECT_FALSE(p.captured);
  EXPECT_FALSE(p.graph_safe_optimizer);
  EXPECT_NE(p.why_not.find("not CUDA"), std::string::npos) << p.why_not;
}

// How the steps ran, as the start-up line, the summary and --json say it: a GPU run that
// fell back to eager says why, the plan's reason or the recording's failure.
TEST(StepPlan, TheDescriptionSaysWhyAGpuStepIsEager) {
  EXPECT_EQ(step_description(plan(CudaGraphs::kAuto, kCpu), kCpu, ""), "eager");
  EXPECT_EQ(step_description(plan(CudaGraphs::kAuto, kCuda), kCuda, ""), "CUDA graphs");
  EXPECT_EQ(step_description(plan(CudaGraphs::kOff, kCuda), kCuda, ""), "eager (--cuda-graphs off)");
  EXPECT_EQ(step_description(plan(CudaGraphs::kAuto, kCuda), kCuda, "CUDA graphs: recording the step failed: X"),
            "eager (recording failed: CUDA graphs: recording the step failed: X)");
}

TEST(StepPlan, WhatAReplayCannotDoKeepsTheStepEagerOnCuda) {
  const std::vector<std::pair<StepPlan, std::string>> cases = {
      {plan(CudaGraphs::kOff, kCuda), "--cuda-graphs off"},
      {plan(CudaGraphs::kAuto, kCuda, /*built=*/false), "no CUDA graphs"},
      {plan(CudaGraphs::kAuto, kCuda, true, /*world=*/2), "data-parallel"},
      {plan(CudaGraphs::kAuto, kCuda, true, 1, Precision::kFp16), "fp16"},
      {plan(CudaGraphs::kAuto, kCuda, true, 1, Precision::kFp32, /*accum=*/2), "--accum-steps"},
      {plan(CudaGraphs::kAuto, kCuda, true, 1, Precision::kFp32, 1, /*capturable=*/false), "cannot be recorded"},
  };
  for (const auto& [p, reason] : cases) {
    EXPECT_FALSE(p.captured) << reason;
    EXPECT_TRUE(p.graph_safe_optimizer) << reason;  // the flat optimizer on CUDA all the same
    EXPECT_NE(p.why_not.find(reason), std::string::npos) << p.why_not;
  }
}

TEST(StepPlan, OnIsRefusedWhereTheStepCannotBeCaptured) {
  try {
    plan(CudaGraphs::kOn, kCpu);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--cuda-graphs on: the step cannot be captured: the device is cpu, not CUDA");
  }
  EXPECT_THROW(plan(CudaGraphs::kOn, kCuda, true, 2), std::invalid_argument);
  EXPECT_TRUE(plan(CudaGraphs::kOn, kCuda).captured);
}

TEST(StepPlan, ParsesItsFlag) {
  EXPECT_EQ(parse_cuda_graphs("auto"), CudaGraphs::kAuto);
  EXPECT_EQ(parse_cuda_graphs("on"), CudaGraphs::kOn);
  EXPECT_EQ(parse_cuda_graphs("off"), CudaGraphs::kOff);
  EXPECT_THROW(parse_cuda_graphs("yes"), std::invalid_argument);
}

}  // namespace
}  // namespace dls::train::step_plan_test
