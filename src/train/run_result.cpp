#include "dls/train/run_result.h"

namespace dls::train {

void RunResult::take(const LoopResult& done) {
  final_loss = done.final_loss;
  epochs = done.epochs;
  iterations = done.iterations;
  wall_s = done.wall_s;
  checkpoints = done.checkpoints;
  stopped_by = done.stopped_by;
  parallel = {done.world_size, done.rank, done.backend, done.all_reduce_s};
  training_step = done.training_step;
}

std::string run_result_json(const RunResult& result, const std::string& precision,
                            const std::function<void(util::JsonWriter&)>& task_fields) {
  util::JsonWriter json;
  json.begin_object();
  task_fields(json);
  json.field("final_loss", result.final_loss)
      .field("epochs", result.epochs)
      .field("iterations", result.iterations)
      .field("wall_s", result.wall_s)
      .field("parameters", result.parameters)
      .field("stopped_by", result.stopped_by)
      .field("precision", precision)
      .field("training_step", result.training_step)
      .field("run_dir", result.run_dir)
      .field("world_size", static_cast<std::int64_t>(result.parallel.world_size))
      .field("rank", static_cast<std::int64_t>(result.parallel.rank))
      .field("backend", result.parallel.backend)
      .field("all_reduce_s", result.parallel.all_reduce_s)
      .key("checkpoints")
      .begin_array();
  for (const auto& path : result.checkpoints) json.value(path);
  json.end_array().end_object();
  return json.str();
}

}  // namespace dls::train
