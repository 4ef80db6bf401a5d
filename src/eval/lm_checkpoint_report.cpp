#include "dls/eval/lm_checkpoint_report.h"

#include <ostream>
#include <stdexcept>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "dls/checkpoint/lm_checkpoint.h"
#include "dls/data/normalize.h"
#include "dls/eval/lm_data.h"
#include "dls/eval/lm_evaluation.h"
#include "dls/util/json.h"
#include "dls/util/runtime.h"
#include "dls/util/table.h"

namespace dls::eval {

namespace {

using checkpoint::CheckpointReader;
using checkpoint::kLmCheckpointKind;
using data::Vocabulary;

struct Scored {
  std::string path;
  checkpoint::LmTrainState state;
  TokenLikelihood likelihood;
};

// The sentences every checkpoint is scored on, [N, L]: the run's validation split, or
// request.test_file's sentences; the first request.limit of them when limit > 0.
torch::Tensor sentences_to_score(const checkpoint::LmCheckpointContents& contents, const LmEvalRequest& request,
                                 std::string* what) {
  auto data_settings = contents.settings.data;
  if (!request.data_path.empty()) data_settings.path = request.data_path;
  torch::Tensor rows;
  if (request.test_file.empty()) {
    const auto d = prepare_lm_data(data_settings, &contents);
    rows = d.validation;
    *what = "validation split of " + data_settings.path;
  } else {
    const auto corpus = data::read_sentence_corpus(request.test_file, data::parse_side(data_settings.side),
                                                   data_settings.max_words);
    std::vector<std::size_t> all(corpus.sentences.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    rows = encode_sentences(corpus.sentences, all, Vocabulary::from_words(contents.words), data_settings.max_words + 2);
    *what = request.test_file;
  }
  if (request.limit > 0 && request.limit < rows.size(0)) rows = rows.narrow(0, 0, request.limit);
  if (rows.size(0) == 0) throw std::runtime_error("no sentences to score (the run has no validation split: give --test FILE)");
  return rows;
}

void print_table(const std::vector<Scored>& scored, const std::string& what, std::int64_t sentences, std::ostream& out) {
  util::Table table({"checkpoint", "epoch", "step", "NLL/token", "perplexity"},
                    {util::Align::kLeft, util::Align::kRight, util::Align::kRight, util::Align::kRight,
                     util::Align::kRight});
  for (const auto& s : scored) {
    table.add_row({s.path, std::to_string(s.state.completed_epochs), std::to_string(s.state.global_step),
                   fmt::format("{:.4f}", s.likelihood.mean_nll()), fmt::format("{:.2f}", s.likelihood.perplexity())});
  }
  out << "Perplexity on " << sentences << " sentences (" << scored.front().likelihood.tokens << " tokens) of the "
      << what << "\n"
      << table.to_string();
}

void print_json(const std::vector<Scored>& scored, const std::string& what, std::int64_t sentences, std::ostream& out) {
  util::JsonWriter json;
  json.begin_object().key("scored").value(what).key("sentences").value(sentences);
  json.key("checkpoints").begin_array();
  for (const auto& s : scored) {
    json.begin_object()
        .key("file").value(s.path)
        .key("epoch").value(s.state.completed_epochs)
        .key("step").value(s.state.global_step)
        .key("tokens").value(s.likelihood.tokens)
        .key("val_loss").value(s.likelihood.mean_nll())
        .key("val_perplexity").value(s.likelihood.perplexity())
        .end_object();
  }
  json.end_array().end_object();
  out << json.str() << "\n";
}

void generate_from_prompts(const std::string& path, const LmEvalRequest& request, const torch::Device& device,
                           std::ostream& out, std::ostream& messages) {
  const CheckpointReader reader(path, kLmCheckpointKind);
  const auto contents = checkpoint::read_lm_contents(reader);
  auto model = checkpoint::load_lm_model(reader, contents.settings);
  model->to(device);
  const auto vocabulary = Vocabulary::from_words(contents.words);
  const auto language = data::parse_side(contents.settings.data.side);
  util::JsonWriter json;
  json.begin_object().key("checkpoint").value(path).key("generated").begin_array();
  for (const auto& prompt : request.prompts) {
    const auto words = data::normalize_words(prompt, language);
    std::vector<std::int64_t> tokens{Vocabulary::kSos};
    for (const auto& word : words) {
      tokens.push_back(vocabulary.index_of(word));
      if (tokens.back() == Vocabulary::kUnk) messages << "warning: '" << word << "' is not in the vocabulary (<unk>)\n";
    }
    for (std::int64_t i = 0; i < request.samples; ++i) {
      auto sampling = request.sampling;
      sampling.seed += static_cast<std::uint64_t>(i);
      const auto generated = generate(model, tokens, Vocabulary::kEos, sampling);
      const auto continuation = data::join_words(vocabulary.decode(generated.tokens));
      const auto text = data::join_words(words) + (words.empty() || continuation.empty() ? "" : " ") + continuation;
      if (request.json) {
        json.begin_object().key("prompt").value(prompt).key("text").value(text)
            .key("generated_tokens").value(static_cast<std::int64_t>(generated.tokens.size())).end_object();
      } else {
        out << prompt << " -> " << text << "\n";
      }
    }
  }
  json.end_array().end_object();
  if (request.json) out << json.str() << "\n";
}

}  // namespace

void report_lm_checkpoints(const std::vector<std::string>& checkpoint_files, const LmEvalRequest& request,
                           std::ostream& out, std::ostream& messages) {
  if (checkpoint_files.empty()) throw std::invalid_argument("no checkpoint to evaluate");
  util::RuntimeOptions runtime;
  runtime.threads = request.threads;
  util::configure_runtime(runtime);
  const auto device = util::select_device(request.device);
  if (!request.prompts.empty()) return generate_from_prompts(checkpoint_files.back(), request, device, out, messages);

  std::vector<Scored> scored;
  torch::Tensor rows;
  std::vector<std::string> words;  // of the checkpoints the rows were encoded for
  std::string what;
  for (const auto& path : checkpoint_files) {
    std::unique_ptr<CheckpointReader> reader;
    checkpoint::LmCheckpointContents contents;
    try {
      reader = std::make_unique<CheckpointReader>(path, kLmCheckpointKind);
      contents = checkpoint::read_lm_contents(*reader);
    } catch (const checkpoint::CheckpointError& error) {
      if (checkpoint_files.size() == 1) throw;
      const std::string message = error.what();
      messages << "skipped: " << message.substr(0, message.find('\n')) << "\n";
      continue;
    }
    if (!rows.defined()) {
      rows = sentences_to_score(contents, request, &what);
      words = contents.words;
    } else if (contents.words != words) {
      throw std::runtime_error(path + ": another vocabulary than the run's other checkpoints");
    }
    auto model = checkpoint::load_lm_model(*reader, contents.settings);
    model->to(device);
    scored.push_back({path, contents.state, token_likelihood(model, rows, Vocabulary::kPad)});
  }
  if (scored.empty()) throw std::runtime_error("none of the checkpoints is readable");
  if (request.json) {
    print_json(scored, what, rows.size(0), out);
  } else {
    print_table(scored, what, rows.size(0), out);
  }
}

}  // namespace dls::eval
