// What every trainer reports: the loop's share taken whole, and the --json object with the
// task's fields first, then the shared ones (NaN as null).
#include "dls/train/run_result.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace dls::train::run_result_test {
namespace {

TEST(RunResult, TakesTheLoopsShareAndWritesTheTasksFieldsFirst) {
  LoopResult done;
  done.final_loss = 1.5;
  done.epochs = 3;
  done.iterations = 120;
  done.wall_s = 9.25;
  done.checkpoints = {"a.pt", "b.pt"};
  done.stopped_by = "time-limit";
  done.world_size = 2;
  done.rank = 1;
  done.backend = "gloo";
  done.all_reduce_s = 0.004;
  done.training_step = "eager (recording failed: X)";
  RunResult result;
  result.parameters = 1234;
  result.run_dir = "runs/x";
  result.take(done);
  const auto text = run_result_json(
      result, "bf16", [](util::JsonWriter& json) { json.key("images_per_s").value(10.0).key("test_loss").value(NAN); });
  EXPECT_EQ(text.find("{\"images_per_s\":10"), 0u) << text;
  const auto json = nlohmann::json::parse(text);
  EXPECT_TRUE(json["test_loss"].is_null());
  EXPECT_EQ(json["final_loss"], 1.5);
  EXPECT_EQ(json["epochs"], 3);
  EXPECT_EQ(json["iterations"], 120);
  EXPECT_EQ(json["wall_s"], 9.25);
  EXPECT_EQ(json["parameters"], 1234);
  EXPECT_EQ(json["stopped_by"], "time-limit");
  EXPECT_EQ(json["precision"], "bf16");
  EXPECT_EQ(json["training_step"], "eager (recording failed: X)");
  EXPECT_EQ(json["run_dir"], "runs/x");
  EXPECT_EQ(json["world_size"], 2);
  EXPECT_EQ(json["rank"], 1);
  EXPECT_EQ(json["backend"], "gloo");
  EXPECT_EQ(json["all_reduce_s"], 0.004);
  EXPECT_EQ(json["checkpoints"], nlohmann::json::array({"a.pt", "b.pt"}));
}

}  // namespace
}  // namespace dls::train::run_result_test
