// The flags the trainers share, in one place: the three task settings (settings/) name these
// fields alike (model.transformer(), epochs, batch_size, optimizer, label_smoothing, seed,
// data.subwords, ...), so each block reads them directly; each program adds its own flags
// around them.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "cli_overrides.h"
#include "dls/data/subword_model.h"
#include "dls/settings/lr_schedule.h"
#include "dls/settings/optimizer_settings.h"
#include "dls/settings/seq2seq_settings.h"  // settings::parse_tokenizer

namespace dls::apps {

// --embedding-size, --heads, --ffn-multiplier, --dropout: the model's TransformerConfig.
template <typename Settings>
void add_transformer_flags(CLI::App& app, Overrides<Settings>& overrides, const std::string& group) {
  setting(
      app, overrides, "--embedding-size", "M, width of every token",
      [](auto& s) -> auto& { return s.model.transformer().embedding_size(); })
      ->check(in_range(1, 65536))
      ->group(group);
  setting(
      app, overrides, "--heads", "attention heads (M divisible by it)",
      [](auto& s) -> auto& { return s.model.transformer().num_heads(); })
      ->check(in_range(1, 1024))
      ->group(group);
  setting(
      app, overrides, "--ffn-multiplier",
      "FFN hidden width in units of M (positionwise, vaswani; the dlstudio layout's is 2*L*M)",
      [](auto& s) -> auto& { return s.model.transformer().ffn_multiplier(); })
      ->check(in_range(1, 64))
      ->group(group);
  setting(
      app, overrides, "--dropout", "dropout on attention weights, sublayer outputs and embeddings (vaswani layout)",
      [](auto& s) -> auto& { return s.model.transformer().dropout(); })
      ->check(in_range(0, 0.99))
      ->group(group);
}

// --validation-fraction and --split-seed: the share of the data held out for validation
// (`fraction_help` says of what, and what chooses by it) and the seed that draws it; the
// settings' `data` holds validation_fraction and split_seed.
template <typename Settings>
void add_validation_split_flags(CLI::App& app, Overrides<Settings>& overrides, const std::string& fraction_help,
                                const std::string& group) {
  setting(
      app, overrides, "--validation-fraction", fraction_help,
      [](auto& s) -> auto& { return s.data.validation_fraction; })
      ->check(in_range(0, 0.9))
      ->group(group);
  setting(
      app, overrides, "--split-seed", "seed of the validation split (default 1234)",
      [](auto& s) -> auto& { return s.data.split_seed; })
      ->check(in_range(0, 18446744073709551615.0))
      ->group(group);
}

// --tokenizer, --spm-model, --vocab-size, for the trainers of text: their settings' `data`
// holds subword_units and subwords (data::SubwordOptions).
template <typename Settings>
void add_subword_flags(CLI::App& app, Overrides<Settings>& overrides, const std::string& group) {
  setting<std::string>(
      app, overrides, "--tokenizer",
      "word (DLStudio's) or sentencepiece (subword units trained on the training split, kept in the checkpoint)",
      [](auto& s, auto v) { s.data.subword_units = settings::parse_tokenizer(v); },
      [](const auto& s) { return s.data.subword_units ? "sentencepiece" : "word"; })
      ->check(CLI::IsMember({"word", "sentencepiece"}))
      ->group(group);
  setting<std::string>(
      app, overrides, "--spm-model", "sentencepiece: unigram (default) or bpe",
      [](auto& s, auto v) { s.data.subwords.kind = data::parse_subword_kind(v); },
      [](const auto& s) { return data::to_string(s.data.subwords.kind); })
      ->check(CLI::IsMember({"unigram", "bpe"}))
      ->group(group);
  setting(
      app, overrides, "--vocab-size", "sentencepiece: pieces per model, specials included (default 8000)",
      [](auto& s) -> auto& { return s.data.subwords.vocab_size; })
      ->check(in_range(8, 1000000))
      ->group(group);
}

// --lr, --schedule (constant or cosine) and --min-lr, for the trainers whose settings hold
// lr, schedule (settings::ScheduleKind) and min_lr themselves (lm_train, vit_train; seq2seq's
// schedule also has DLStudio's warm-up). Each adds its own warm-up flag (steps or epochs).
template <typename Settings>
void add_cosine_schedule_flags(CLI::App& app, Overrides<Settings>& overrides, const std::string& group) {
  setting(
      app, overrides, "--lr", "learning rate (cosine: the peak)", [](auto& s) -> auto& { return s.lr; })
      ->check(in_range(1e-12, 100))
      ->group(group);
  setting<std::string>(
      app, overrides, "--schedule", "constant or cosine (linear warm-up, cosine decay)",
      [](auto& s, auto v) { s.schedule = settings::parse_schedule(v); },
      [](const auto& s) { return settings::to_string(s.schedule); })
      ->check(CLI::IsMember({"constant", "cosine"}))
      ->group(group);
  setting(
      app, overrides, "--min-lr", "cosine: final learning rate", [](auto& s) -> auto& { return s.min_lr; })
      ->check(in_range(0, 100))
      ->group(group);
}

// --epochs and --batch-size (`examples`: what a batch counts, "pairs", "sentences",
// "images").
template <typename Settings>
void add_epoch_flags(CLI::App& app, Overrides<Settings>& overrides, const std::string& examples,
                     const std::string& group) {
  setting(
      app, overrides, "--epochs", "epochs in all (a resumed run counts those done)",
      [](auto& s) -> auto& { return s.epochs; })
      ->check(in_range(1, 1000000))
      ->group(group);
  setting(
      app, overrides, "--batch-size", examples + " per step", [](auto& s) -> auto& { return s.batch_size; })
      ->check(in_range(1, 1000000))
      ->group(group);
}

// --optimizer, --beta1, --beta2, --eps, --weight-decay, --clip-grad-norm, --label-smoothing
// and --seed (`seeded`: what the seed draws).
template <typename Settings>
void add_optimizer_flags(CLI::App& app, Overrides<Settings>& overrides, const std::string& seeded,
                         const std::string& group) {
  setting<std::string>(
      app, overrides, "--optimizer", "adam or adamw",
      [](auto& s, auto v) { s.optimizer.kind = settings::parse_optimizer(v); },
      [](const auto& s) { return settings::to_string(s.optimizer.kind); })
      ->check(optimizers())
      ->group(group);
  setting(
      app, overrides, "--beta1", "Adam beta1", [](auto& s) -> auto& { return s.optimizer.beta1; })
      ->check(in_range(0, 0.999999))
      ->group(group);
  setting(
      app, overrides, "--beta2", "Adam beta2", [](auto& s) -> auto& { return s.optimizer.beta2; })
      ->check(in_range(0, 0.999999))
      ->group(group);
  setting(
      app, overrides, "--eps", "Adam epsilon", [](auto& s) -> auto& { return s.optimizer.eps; })
      ->check(in_range(1e-30, 1))
      ->group(group);
  setting(
      app, overrides, "--weight-decay", "weight decay (AdamW: decoupled)",
      [](auto& s) -> auto& { return s.optimizer.weight_decay; })
      ->check(in_range(0, 10))
      ->group(group);
  setting(
      app, overrides, "--clip-grad-norm", "clip the gradient norm to this (0: off)",
      [](auto& s) -> auto& { return s.optimizer.clip_grad_norm; })
      ->check(in_range(0, 1000000))
      ->group(group);
  setting(
      app, overrides, "--label-smoothing",
      "label smoothing of the training loss (0: off; validation reports the plain loss)",
      [](auto& s) -> auto& { return s.label_smoothing; })
      ->check(in_range(0, 0.99))
      ->group(group);
  setting(
      app, overrides, "--seed", "seed of " + seeded, [](auto& s) -> auto& { return s.seed; })
      ->check(in_range(0, 18446744073709551615.0))
      ->group(group);
}

}  // namespace dls::apps
