// Translates English sentences into Spanish with a model trained by seq2seq_train, through the
// installed library (docs/library.md):
//
//   translate runs/seq2seq "I want to go home." "Where is the station?"
//   translate runs/seq2seq/best.pt < sentences.txt      # one sentence a line
//   translate runs/seq2seq/checkpoints/checkpoint_epoch_0001.pt "I am hungry."
//
// The first argument is what dls::eval::Translator::load takes: a run directory (its best.pt,
// else its newest checkpoint), its checkpoints/ folder, or one checkpoint file -- best.pt
// sits in the run directory itself, beside checkpoints/ (docs/training.md).
//
// One output line per sentence: its translation, or an empty line for one that cannot be
// translated (the reason on standard error). Exit status 1 when any could not.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <dls/eval/translator.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << " RUN_DIR|CHECKPOINT [SENTENCE...]  (none: one a line on stdin)\n";
    return 2;
  }
  // The library logs (warnings, mostly) through spdlog's default logger: to stderr, so that
  // standard output holds the translations alone.
  spdlog::set_default_logger(spdlog::stderr_color_mt("translate"));
  try {
    // A run directory (its best checkpoint) or one checkpoint file; on the CPU by default.
    auto translator = dls::eval::Translator::load(argv[1]);

    std::vector<std::string> sentences(argv + 2, argv + argc);
    if (sentences.empty())
      for (std::string line; std::getline(std::cin, line);) sentences.push_back(line);

    // Decoded together, greedily (dls::eval::DecodeOptions: beam, batch size, lengths).
    int failed = 0;
    for (const auto& t : translator.translate(sentences)) {
      if (!t.ok()) {
        std::cerr << "cannot translate \"" << t.input << "\": " << t.error << "\n";
        ++failed;
      } else if (!t.unknown.empty()) {
        std::cerr << "\"" << t.input << "\": " << t.unknown.size() << " unknown word(s), e.g. " << t.unknown[0] << "\n";
      }
      std::cout << t.text << "\n";  // empty when !t.ok()
    }
    return failed == 0 ? 0 : 1;
  } catch (const std::exception& error) {  // no such file, not a seq2seq checkpoint, ...
    std::cerr << "error: " << error.what() << "\n";
    return 1;
  }
}
