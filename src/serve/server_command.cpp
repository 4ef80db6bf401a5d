#include "dls/serve/server_command.h"

#include "dls/checkpoint/checkpoint.h"
#include "dls/serve/page_files.h"
#include "dls/util/runtime.h"

namespace dls::serve {

void run_server(ServerCommand command, const std::string& source_page_dir, std::ostream& ready) {
  util::RuntimeOptions runtime;
  runtime.threads = command.threads;
  runtime.log_level = command.log_level;
  util::configure_runtime(runtime);
  auto& settings = command.settings;
  if (command.no_batching) settings.batching.wait_ms = 0, settings.batching.max_batch = 1;
  settings.page_dir = find_page_dir(command.page_dir, "/proc/self/exe", source_page_dir);
  command.model.weights = checkpoint::weights_named(command.weights);
  command.model.threads_given = command.threads > 0;
  serve_checkpoint(command.model, settings, ready);
}

}  // namespace dls::serve
