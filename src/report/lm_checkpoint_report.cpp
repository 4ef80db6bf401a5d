#include "dls/report/lm_checkpoint_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>

#include <spdlog/fmt/fmt.h>
#include <torch/torch.h>

#include "dls/checkpoint/lm_checkpoint.h"
#include "dls/data/normalize.h"
#include "dls/data/lm_dataset.h"
#include "dls/data/running_text.h"
#include "dls/eval/lm_evaluation.h"
#include "dls/util/json.h"
#include "dls/util/device.h"
#include "dls/util/runtime.h"
#include "dls/util/table.h"
#include "report/checkpoint_progress.h"

namespace dls::report {

using eval::continue_running_text;
using eval::token_likelihood;
using eval::TokenLikelihood;

namespace {

using checkpoint::CheckpointReader;
using checkpoint::kLmCheckpointKind;
using data::Vocabulary;

struct Scored {
  std::string path;
  checkpoint::RunState state;
  TokenLikelihood likelihood;
};

struct Scoring {
  data::LmRows sentences;          // [N, L] rows, and the words they hold
  std::string what;                // "validation split of FILE" or the test file
  std::string tokenizer = "word";  // "word", "char", "sentencepiece" (LmTokenizer::name)
  std::string rows = "sentences";  // what a row is: "sentences", or "windows" of running text
  double unknown = 0;              // the share of the scored tokens that are <unk>
  bool per_word() const { return tokenizer != "word"; }
};

// The share of the tokens of rows [N, L] (not SOS, EOS or padding) that are <unk>.
double unknown_share(const torch::Tensor& rows) {
  const auto real = (rows != Vocabulary::kSos) & (rows != Vocabulary::kEos) & (rows != Vocabulary::kPad);
  const auto count = real.sum().item<double>();
  return count > 0 ? (rows == Vocabulary::kUnk).sum().item<double>() / count : 0.0;
}

// The sentences every checkpoint is scored on: the run's validation split, or
// request.test_file's sentences (those longer than the model's L left out with a warning);
// the first request.limit of them when limit > 0.
Scoring sentences_to_score(const checkpoint::LmCheckpointContents& contents, const LmEvalRequest& request,
                           std::ostream& messages) {
  auto data_settings = contents.settings.data;
  if (!request.data_path.empty()) data_settings.path = request.data_path;
  Scoring scoring;
  if (request.test_file.empty()) {
    auto d = checkpoint::lm_dataset(data_settings, &contents);
    scoring.sentences = std::move(d.validation);
    scoring.what = "validation split of " + data_settings.path;
    scoring.tokenizer = d.tokenizer.name();
    if (d.block_size > 0) scoring.rows = "windows";
  } else if (data_settings.block_size > 0) {
    const auto tokenizer = checkpoint::lm_tokenizer(contents);
    scoring.sentences = data::running_text_rows(request.test_file, tokenizer, Vocabulary::from_words(contents.words),
                                                data::parse_side(data_settings.side), data_settings.block_size);
    scoring.what = request.test_file;
    scoring.tokenizer = tokenizer.name();
    scoring.rows = "windows";
  } else {
    const auto corpus =
        data::read_sentence_corpus(request.test_file, data::parse_side(data_settings.side), data_settings.max_words);
    std::vector<std::size_t> all(corpus.sentences.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    const auto tokenizer = checkpoint::lm_tokenizer(contents);
    const int max_len = static_cast<int>(contents.settings.model.transformer().max_seq_length());
    scoring.sentences =
        data::encode_sentences(corpus.sentences, all, tokenizer, Vocabulary::from_words(contents.words), max_len);
    if (scoring.sentences.too_long > 0) {
      messages << "warning: " << request.test_file << ": " << scoring.sentences.too_long
               << " sentences longer than the model's " << max_len - 2 << " " << tokenizer.unit() << " left out\n";
    }
    scoring.what = request.test_file;
    scoring.tokenizer = tokenizer.name();
  }
  if (request.limit > 0) scoring.sentences.keep_first(request.limit);
  const auto& rows = scoring.sentences.rows;
  if (rows.size(0) == 0)
    throw std::runtime_error("no sentences to score (the run has no validation split: give --test FILE)");
  scoring.unknown = unknown_share(rows);
  if (scoring.unknown >= 0.5) {
    messages << "warning: " << fmt::format("{:.1f}", 100 * scoring.unknown) << " % of the tokens of " << scoring.what
             << " are <unk>, never seen in training: its perplexity says how well the model predicts <unk>, not the "
                "text\n";
  }
  return scoring;
}

// The checkpoint of the lowest finite NLL (the first of equals), as the seq2seq report's best
// is its highest BLEU; scored.size() when none is finite.
std::size_t lowest_nll(const std::vector<Scored>& scored) {
  std::size_t best = scored.size();
  for (std::size_t i = 0; i < scored.size(); ++i) {
    const double nll = scored[i].likelihood.mean_nll();
    if (std::isfinite(nll) && (best == scored.size() || nll < scored[best].likelihood.mean_nll())) best = i;
  }
  return best;
}

void print_table(const std::vector<Scored>& scored, const Scoring& scoring, std::ostream& out) {
  const bool per_word = scoring.per_word();
  const std::string unit = scoring.tokenizer == "sentencepiece" ? "piece" : scoring.tokenizer == "char" ? "char" : "";
  std::vector<std::string> header{"checkpoint", "epoch", "step", per_word ? "NLL/" + unit : "NLL/token",
                                  per_word ? "perplexity/" + unit : "perplexity"};
  std::vector<util::Align> align{util::Align::kLeft, util::Align::kRight, util::Align::kRight, util::Align::kRight,
                                 util::Align::kRight};
  if (per_word) {
    header.push_back("perplexity/word");
    align.push_back(util::Align::kRight);
  }
  header.push_back("");
  align.push_back(util::Align::kLeft);
  util::Table table(header, align);
  const auto best = lowest_nll(scored);
  for (std::size_t i = 0; i < scored.size(); ++i) {
    const auto& s = scored[i];
    std::vector<std::string> row{s.path, std::to_string(s.state.completed_epochs), std::to_string(s.state.global_step),
                                 fmt::format("{:.4f}", s.likelihood.mean_nll()),
                                 fmt::format("{:.2f}", s.likelihood.perplexity())};
    if (per_word) row.push_back(fmt::format("{:.2f}", s.likelihood.perplexity_per(scoring.sentences.words())));
    row.push_back(i == best && scored.size() > 1 ? "best" : "");
    table.add_row(row);
  }
  out << "Perplexity on " << scoring.sentences.rows.size(0) << " " << scoring.rows << " ("
      << scored.front().likelihood.tokens << " tokens";
  if (per_word)
    out << ", " << scoring.sentences.words()
        << (scoring.rows == "windows" ? " words and line breaks" : " words with each EOS");
  // A text of words the model never saw scores well by predicting <unk>: the rate beside it.
  out << ") of the " << scoring.what << "; " << fmt::format("{:.1f} % of them <unk>", 100 * scoring.unknown) << "\n"
      << table.to_string();
}

void print_json(const std::vector<Scored>& scored, const Scoring& scoring, std::ostream& out) {
  util::JsonWriter json;
  json.begin_object().field("scored", scoring.what).field("sentences", scoring.sentences.rows.size(0));
  json.field("tokenizer", scoring.tokenizer).field("rows", scoring.rows);
  json.field("unknown_rate", scoring.unknown);
  json.key("checkpoints").begin_array();
  for (const auto& s : scored) {
    json.begin_object()
        .field("file", s.path)
        .field("epoch", s.state.completed_epochs)
        .field("step", s.state.global_step)
        .field("tokens", s.likelihood.tokens)
        .field("words", scoring.sentences.words())
        .field("val_loss", s.likelihood.mean_nll())
        .field("val_perplexity", s.likelihood.perplexity())
        .field("val_word_perplexity", s.likelihood.perplexity_per(scoring.sentences.words()))
        .end_object();
  }
  json.end_array();
  const auto best = lowest_nll(scored);
  if (best < scored.size()) json.field("best", scored[best].path);
  json.end_object();
  out << json.str() << "\n";
}

// One entry of --generate --json's "generated".
void add_generated(util::JsonWriter& json, const std::string& prompt, const std::string& text, std::int64_t tokens) {
  json.begin_object().field("prompt", prompt).field("text", text).field("generated_tokens", tokens);
  json.end_object();
}

// --generate for a running-text run: each sample is `request.tokens` tokens after the prompt.
void continue_running_texts(LanguageModel& model, const checkpoint::LmCheckpointContents& contents,
                            const std::string& prompt, const LmEvalRequest& request, std::ostream& out,
                            util::JsonWriter& json, std::ostream& messages) {
  const auto vocabulary = Vocabulary::from_words(contents.words);
  const auto tokenizer = checkpoint::lm_tokenizer(contents);
  for (std::int64_t i = 0; i < request.samples; ++i) {
    auto sampling = request.sampling;
    sampling.seed += static_cast<std::uint64_t>(i);
    std::vector<std::string> unknown;
    const auto text = continue_running_text(model, tokenizer, vocabulary, data::parse_side(contents.settings.data.side),
                                            prompt, request.tokens, sampling, i == 0 ? &unknown : nullptr);
    if (!unknown.empty()) {
      messages << "warning: " << unknown.size() << " " << tokenizer.unit()
               << " of the prompt not in the vocabulary (<unk>), the first: '" << unknown.front() << "'\n";
    }
    if (request.json) {
      add_generated(json, prompt, text, request.tokens);
    } else {
      out << "--- \"" << prompt << "\", sample " << i + 1 << " (seed " << sampling.seed << ", " << request.tokens << " "
          << tokenizer.unit() << "):\n"
          << text << "\n";
    }
  }
}

}  // namespace

void generate_lm_text(std::unique_ptr<CheckpointReader> checkpoint, const LmEvalRequest& request, std::ostream& out,
                      std::ostream& messages) {
  if (request.prompts.empty()) throw std::invalid_argument("no prompt to generate from");
  checkpoint->check_kind(kLmCheckpointKind);
  util::RuntimeOptions runtime;
  runtime.threads = request.threads;
  util::configure_runtime(runtime);
  const auto device = util::select_device(request.device);
  const auto path = checkpoint->path();
  const auto contents = checkpoint::read_lm_contents(*checkpoint);
  // Refused, as every flag a job would not read: it was ignored.
  if (contents.settings.data.block_size == 0 && request.tokens_asked) {
    throw std::runtime_error(
        "--tokens: for a running-text run (--block-size); a sentence model writes until its end "
        "of sentence, at most " +
        std::to_string(contents.settings.model.transformer().max_seq_length() - 1) + " tokens");
  }
  auto model = checkpoint::load_lm_model(*checkpoint, contents.settings, request.weights);
  checkpoint.reset();  // its weights are the model's now
  model->to(device);
  const auto vocabulary = Vocabulary::from_words(contents.words);
  const auto tokenizer = checkpoint::lm_tokenizer(contents);
  const auto language = data::parse_side(contents.settings.data.side);
  util::JsonWriter json;
  json.begin_object().field("checkpoint", path).key("generated").begin_array();
  for (const auto& prompt : request.prompts) {
    if (contents.settings.data.block_size > 0) {
      continue_running_texts(model, contents, prompt, request, out, json, messages);
      continue;
    }
    const auto words = data::normalize_words(prompt, language);
    const auto prompt_tokens = tokenizer.tokens(words);
    std::vector<std::int64_t> tokens{Vocabulary::kSos};
    std::vector<std::string> unknown;
    for (const auto& token : prompt_tokens) {
      tokens.push_back(vocabulary.index_of(token));
      if (tokens.back() == Vocabulary::kUnk) unknown.push_back(token);
    }
    // One line however many: the count and the first few.
    if (!unknown.empty()) {
      constexpr std::size_t kShown = 5;
      std::string shown;
      for (std::size_t i = 0; i < std::min(kShown, unknown.size()); ++i) shown += (i ? ", '" : "'") + unknown[i] + "'";
      messages << "warning: " << unknown.size() << " word(s) of the prompt not in the vocabulary (<unk>): " << shown
               << (unknown.size() > kShown ? ", ..." : "") << "\n";
    }
    for (std::int64_t i = 0; i < request.samples; ++i) {
      auto sampling = request.sampling;
      sampling.seed += static_cast<std::uint64_t>(i);
      const auto generated = generate(model, tokens, Vocabulary::kEos, sampling, true, eval::kNotInSentences);
      const auto continuation_tokens = vocabulary.decode(generated.tokens);
      // Pieces and characters are detokenised with the prompt's, so that a word the prompt
      // began can be completed ("yo qu" -> "yo quiero"); words are joined by spaces.
      auto all_tokens = prompt_tokens;
      all_tokens.insert(all_tokens.end(), continuation_tokens.begin(), continuation_tokens.end());
      const auto text = data::join_words(tokenizer.words(all_tokens));
      if (request.json) {
        add_generated(json, prompt, text, static_cast<std::int64_t>(generated.tokens.size()));
      } else {
        out << prompt << " -> " << text << "\n";
      }
    }
  }
  json.end_array().end_object();
  if (request.json) out << json.str() << "\n";
}

void report_lm_checkpoints(const std::vector<std::string>& checkpoint_files, const LmEvalRequest& request,
                           std::ostream& out, std::ostream& messages) {
  if (checkpoint_files.empty()) throw std::invalid_argument("no checkpoint to evaluate");
  if (!request.prompts.empty())  // sets the threads and device itself
    return generate_lm_text(std::make_unique<CheckpointReader>(checkpoint_files.back()), request, out, messages);
  util::RuntimeOptions runtime;
  runtime.threads = request.threads;
  util::configure_runtime(runtime);
  const auto device = util::select_device(request.device);

  std::vector<Scored> scored;
  std::optional<Scoring> scoring;
  std::vector<std::string> words;  // of the checkpoints the rows were encoded for
  CheckpointProgress progress(checkpoint_files.size());
  for (const auto& path : checkpoint_files) {
    std::unique_ptr<CheckpointReader> reader;
    checkpoint::LmCheckpointContents contents;
    try {
      reader = std::make_unique<CheckpointReader>(path, kLmCheckpointKind);
      contents = checkpoint::read_lm_contents(*reader);
    } catch (const checkpoint::CheckpointError& error) {
      if (checkpoint_files.size() == 1) throw;
      const std::string message = error.what();
      progress.say(messages, "skipped: " + message.substr(0, message.find('\n')));
      continue;
    }
    if (const auto why = request.run.left_out(*reader); !why.empty()) {
      progress.say(messages, why);
      continue;
    }
    if (!scoring) {
      scoring = sentences_to_score(contents, request, messages);
      words = contents.words;
    } else if (contents.words != words) {
      throw std::runtime_error(path + ": another vocabulary than the run's other checkpoints");
    }
    auto model = checkpoint::load_lm_model(*reader, contents.settings, request.weights);
    model->to(device);
    reader.reset();  // its weights are the model's now
    scored.push_back({path, contents.state, token_likelihood(model, scoring->sentences.rows, Vocabulary::kPad)});
    progress.evaluated(scored.size(),
                       fmt::format("{}: NLL {:.4f}, perplexity {:.2f}", std::filesystem::path(path).filename().string(),
                                   scored.back().likelihood.mean_nll(), scored.back().likelihood.perplexity()));
  }
  progress.finish();
  if (scored.empty()) throw std::runtime_error("none of the checkpoints is readable");
  if (request.json) {
    print_json(scored, *scoring, out);
  } else {
    print_table(scored, *scoring, out);
  }
}

}  // namespace dls::report
