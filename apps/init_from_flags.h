// seq2seq_train's --init-from and --init-vocab: a new run that starts from another run's
// weights builds that run's model, as OpenNMT's -train_from and fairseq's --restore-file keep
// the architecture, so that fine-tuning names the parent alone (apps/seq2seq_train.cpp).
#pragma once

#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "dls/checkpoint/run_id.h"
#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/cli/config_file.h"
#include "dls/settings/seq2seq_settings.h"

namespace dls::apps {

// A new run's settings before its flags (`preset`) take from its --init-from run: the
// architecture and model (variant, layout, sizes, dropout, tied embeddings); unless
// --init-vocab data, the tokenizer's settings, so that the parent's SentencePiece models
// serve; and at word level in the flattened layouts --max-words, since L is in their weights'
// shapes. The flags given then change any of them, as they would change a preset's
// (`variant`: seq2seq_train's --variant, which chose the preset). A language model's
// checkpoint gives nothing: its decoder goes in by name (train/tasks/init_plans.h).
inline void take_parent_model(const CLI::App& app, settings::Seq2SeqTrainSettings& preset,
                              const settings::Seq2SeqTrainSettings& flags, const std::string& variant) {
  const auto reader = checkpoint::open_run_checkpoint(flags.run.init_from, "", checkpoint::RunCheckpoint::kNewest);
  if (reader.kind() != checkpoint::kSeq2SeqKind) return;
  const auto parent = checkpoint::read_seq2seq_info(reader).settings;
  if (parent.architecture != Architecture::kTransformer) {
    throw std::runtime_error("--init-from " + reader.path() +
                             ": an RNN encoder-decoder's checkpoint; --init-from starts a transformer from a "
                             "transformer's weights");
  }
  preset.architecture = parent.architecture;
  preset.model = parent.model;
  if (app.count("--variant") > 0) preset.model.transformer().variant(parse_variant(variant));
  if (flags.init_vocab != settings::InitVocab::kData) {
    preset.data.subword_units = parent.data.subword_units;
    preset.data.subwords = parent.data.subwords;
  }
  if (!parent.data.subword_units && parent.model.transformer().flattened()) {
    preset.data.max_words = parent.data.max_words;
  }
  preset.preset_note += "; the model from --init-from " + reader.path() + ": " + parent.model_summary();
}

// --init-vocab typed on the command line chooses an --init-from run's vocabularies: refused
// without --init-from and on --resume (a config file lists it for every run).
inline void check_init_vocab_flag(const CLI::App& app, const settings::Seq2SeqTrainSettings& flags, bool resuming) {
  if (!cli::typed_on_command_line(app, "--init-vocab")) return;
  if (resuming) throw std::runtime_error("--init-vocab: a resumed run's vocabularies are its checkpoint's");
  if (flags.run.init_from.empty())
    throw std::runtime_error("--init-vocab: chooses the vocabularies of a run started with --init-from");
}

}  // namespace dls::apps
