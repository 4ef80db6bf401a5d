// seq2seq_train's --init-from and --init-vocab: a new run from another run's weights builds
// that run's model with its vocabularies (init_from_parent.h; apps/seq2seq_train.cpp).
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/settings/seq2seq_settings.h"
#include "init_from_parent.h"

namespace dls::apps {

// A new seq2seq run's settings before its flags (`preset`) take from its --init-from run
// (`parent`, read from `path`): the architecture and model (variant, layout, sizes, dropout,
// tied embeddings); unless --init-vocab data, the tokenizer's settings, so that the parent's
// SentencePiece models serve; and at word level in the flattened layouts --max-words, since L
// is in their weights' shapes. The flags given then change any of them, as they would change
// a preset's (`variant`: seq2seq_train's --variant, which chose the preset).
inline void take_parent_model(const CLI::App& app, settings::Seq2SeqTrainSettings& preset,
                              const std::pair<std::string, settings::Seq2SeqTrainSettings>& parent,
                              const settings::Seq2SeqTrainSettings& flags, const std::string& variant) {
  const auto& [path, theirs] = parent;
  if (theirs.architecture != Architecture::kTransformer) {
    throw std::runtime_error("--init-from " + path +
                             ": an RNN encoder-decoder's checkpoint; --init-from starts a transformer from a "
                             "transformer's weights");
  }
  preset.architecture = theirs.architecture;
  preset.model = theirs.model;
  if (app.count("--variant") > 0) preset.model.transformer().variant(parse_variant(variant));
  if (flags.init_vocab != settings::InitVocab::kData) {
    preset.data.subword_units = theirs.data.subword_units;
    preset.data.subwords = theirs.data.subwords;
  }
  if (!theirs.data.subword_units && theirs.model.transformer().flattened()) {
    preset.data.max_words = theirs.data.max_words;
  }
  preset.preset_note += "; the model from --init-from " + path + ": " + theirs.model_summary();
}

}  // namespace dls::apps
