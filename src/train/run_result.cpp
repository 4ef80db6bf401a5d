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
  json.key("final_loss")
      .value(result.final_loss)
      .key("epochs")
      .value(result.epochs)
      .key("iterations")
      .value(result.iterations)
      .key("wall_s")
      .value(result.wall_s)
      .key("parameters")
      .value(result.parameters)
      .key("stopped_by")
      .value(result.stopped_by)
      .key("precision")
      .value(precision)
      .key("training_step")
      .value(result.training_step)
      .key("run_dir")
      .value(result.run_dir)
      .key("world_size")
      .value(static_cast<std::int64_t>(result.parallel.world_size))
      .key("rank")
      .value(static_cast<std::int64_t>(result.parallel.rank))
      .key("backend")
      .value(result.parallel.backend)
      .key("all_reduce_s")
      .value(result.parallel.all_reduce_s)
      .key("checkpoints")
      .begin_array();
  for (const auto& path : result.checkpoints) json.value(path);
  json.end_array().end_object();
  return json.str();
}

}  // namespace dls::train
