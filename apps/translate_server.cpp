// translate_server: serves a trained seq2seq checkpoint over HTTP -- translations (greedy or
// beam, batched dynamically across clients), the attention weights of a translation, the
// model's settings -- and the web page that shows them (docs/serving.md). Given a ViT
// checkpoint it serves image classification and the ViT's attention instead: the kind is
// read from the checkpoint, so one program (and one page) serves both.
//
//   translate_server runs/seq2seq                      127.0.0.1:8080, the run's best checkpoint
//   translate_server runs/seq2seq/checkpoints/epoch_0010.pt --port 0   a free port (printed)
//   curl -s localhost:8080/translate -d '{"sentences": ["I am hungry."]}'
//   translate_server runs/vit; curl -s localhost:8080/classify --data-binary @shirt.png
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "dls/cli/command_line.h"
#include "dls/cli/config_file.h"
#include "dls/cli/declared_flags.h"
#include "dls/cli/error_line.h"
#include "dls/serve/server_command.h"
#include "dls/serve/stop_signals.h"
#include "dls/util/blas_kernels.h"

#ifndef DLS_SOURCE_PAGE_DIR
#define DLS_SOURCE_PAGE_DIR ""
#endif

int main(int argc, char** argv) {
  dls::util::choose_blas_kernels(argv);  // first of all: may start the program again (blas_kernels.h)
  // Before any thread starts: SIGTERM and SIGINT are waited for, not handled (a clean stop).
  dls::serve::block_stop_signals();
  CLI::App app{
      "Serve a trained seq2seq checkpoint over HTTP, translating in the direction its run trained\n"
      "(seq2seq_train's --src-lang, --tgt-lang, --reverse; GET /model names the languages):\n"
      "POST /translate, POST /attention, GET /health, GET /model, and the page at GET /\n"
      "(docs/serving.md). Requests of several clients are decoded together. A ViT checkpoint\n"
      "is served too: POST /classify (a PNG's or JPEG's bytes).\n"
      "Prints 'listening on http://HOST:PORT' when ready; SIGTERM or SIGINT\n"
      "stops it after the requests in flight are answered.\n"};
  app.footer("Exit status: 0 stopped by SIGTERM/SIGINT, 1 error (one line on stderr).");
  app.get_formatter()->column_width(40);
  dls::serve::ServerCommand command;
  dls::cli::add_option_flags(app, command, ~0u, "Network");
  dls::cli::add_version_flag(app, "translate_server");
  dls::cli::add_config_option(app);
  if (const auto stop = dls::cli::parse_command_line(app, argc, argv)) return *stop;
  spdlog::set_default_logger(spdlog::stderr_color_mt("translate_server"));
  try {
    dls::serve::run_server(command, DLS_SOURCE_PAGE_DIR, std::cout);
    return 0;
  } catch (const std::exception& error) {
    return dls::cli::print_error_line(error);
  }
}
