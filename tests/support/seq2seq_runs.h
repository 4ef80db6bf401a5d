// A tiny seq2seq training run shared by the checkpoint evaluation tests (library and program).
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "dls/train/tasks/seq2seq_presets.h"
#include "dls/train/tasks/seq2seq_trainer.h"
#include "support/test_paths.h"
#include "util/temp_files.h"

namespace dls::test {

// A small standard transformer on the sample corpus (the cpu preset's dropout stays on, so
// that resuming must restore the random generator): 3 epochs of batches of 32, a checkpoint
// after each, writing into `run_dir`.
inline settings::Seq2SeqTrainSettings tiny_seq2seq_setup(const std::filesystem::path& run_dir) {
  auto setup = train::seq2seq_preset("cpu", Variant::kPreLN);
  setup.model.transformer().embedding_size(32).num_heads(2).ffn_multiplier(2);
  setup.model.num_encoders(1).num_decoders(1);
  setup.data.data_path = dls::testing::sample_corpus();
  setup.data.validation_pairs = 100;
  setup.batch_size = 32;
  setup.epochs = 3;
  setup.schedule.warmup_steps = 20;
  setup.schedule.base_lr = 3e-3;
  setup.run.run_dir = run_dir.string();
  setup.run.checkpoint_every = 1;
  setup.run.log_every = 10;
  setup.samples = 5;
  setup.bleu_sentences = 50;
  return setup;
}

// `setup` shortened for the tests that train it more than once (a resumed run against an
// uninterrupted one): 2 epochs, no sample translations, BLEU on 20 validation sentences.
inline settings::Seq2SeqTrainSettings two_short_epochs(settings::Seq2SeqTrainSettings setup) {
  setup.epochs = 2;
  setup.samples = 0;
  setup.bleu_sentences = 20;
  return setup;
}

// Trains `setup` without sample translations, measuring BLEU on the whole validation split
// (bleu_sentences 0); returns its run directory.
inline std::filesystem::path train_fixture_run(settings::Seq2SeqTrainSettings setup) {
  setup.samples = 0;
  setup.bleu_sentences = 0;
  train::train_seq2seq(setup);
  return setup.run.run_dir;
}

// Three epochs of a tiny model on the sample corpus, a checkpoint after each, BLEU measured
// on the whole validation split. Trained once per process, on first use.
inline const std::filesystem::path& trained_seq2seq_run() {
  static const auto run = train_fixture_run(tiny_seq2seq_setup(fresh_temp_dir("checkpoint_eval_run")));
  return run;
}

// The tiny model trained the other way round, Spanish -> English (--reverse): the same
// corpus, 20 steps of one epoch -- a run whose languages are not DLStudio's, for the tests of
// what names them (translate_server's /model, its page). Trained once per process, on first use.
inline const std::filesystem::path& reversed_seq2seq_run() {
  static const auto run = [] {
    auto setup = tiny_seq2seq_setup(fresh_temp_dir("reversed_seq2seq_run"));
    setup.data.reverse = true;
    setup.epochs = 1;
    setup.run.max_iters = 20;
    return train_fixture_run(setup);
  }();
  return run;
}

// The tiny model with only the 30 most frequent training words of each language
// (--max-vocab 30), in `layout`: about half the nouns read and are written as <unk>, the runs
// that --replace-unk's tests translate. Trained once per process and layout, on first use.
inline const std::filesystem::path& small_vocabulary_seq2seq_run(Layout layout = Layout::kDLStudio) {
  static std::map<Layout, std::filesystem::path> runs;
  auto found = runs.find(layout);
  if (found != runs.end()) return found->second;
  auto setup = tiny_seq2seq_setup(fresh_temp_dir("small_vocabulary_seq2seq_run_" + to_string(layout)));
  setup.model.transformer().layout(layout);
  setup.data.max_vocab = 30;
  return runs.emplace(layout, train_fixture_run(setup)).first->second;
}

// The tiny run's settings with a small RNN encoder-decoder instead (--preset rnn-bahdanau's
// architecture: a bidirectional GRU, additive attention before each step), E = H = 32.
inline settings::Seq2SeqTrainSettings tiny_rnn_setup(const std::filesystem::path& run_dir) {
  auto setup = tiny_seq2seq_setup(run_dir);
  const auto preset = train::seq2seq_preset("rnn-bahdanau", Variant::kFG);
  setup.architecture = preset.architecture;
  setup.rnn = preset.rnn;
  setup.rnn.embedding_size = 32;
  setup.rnn.hidden_size = 32;
  return setup;
}

// Three epochs of the tiny RNN on the sample corpus, a checkpoint after each. Trained once
// per process, on first use.
inline const std::filesystem::path& trained_rnn_seq2seq_run() {
  static const auto run = train_fixture_run(tiny_rnn_setup(fresh_temp_dir("rnn_seq2seq_run")));
  return run;
}

// Three epochs of the tiny model in `layout` (DLStudio's flattened one, the position-wise one, ...),
// without dropout: the tests of what differs between the layouts (sentences longer than L).
// Trained once per process and layout, on first use.
inline const std::filesystem::path& seq2seq_run_in_layout(Layout layout) {
  static std::map<Layout, std::filesystem::path> runs;
  auto found = runs.find(layout);
  if (found != runs.end()) return found->second;
  auto setup = tiny_seq2seq_setup(fresh_temp_dir("seq2seq_run_" + to_string(layout)));
  setup.model.transformer().layout(layout).dropout(0.0);
  return runs.emplace(layout, train_fixture_run(setup)).first->second;
}

}  // namespace dls::test
