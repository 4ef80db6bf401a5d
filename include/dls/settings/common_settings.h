// Declarations (util/declared.h) that more than one task's settings share: the tokenizer, the
// epochs and batch, the schedule, the seed and label smoothing. Each is called from a task's
// own declare(), which gives the keys their section; the model's keys are its config's own
// (Seq2SeqConfig::declare, ...).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dls/data/subword_model.h"
#include "dls/util/declared.h"
#include "dls/settings/init_vocab.h"
#include "dls/settings/lr_schedule.h"
#include "dls/settings/optimizer_settings.h"
#include "dls/settings/run_settings.h"
#include "dls/settings/selection_settings.h"

namespace dls::settings {

using util::Setting;

// "word" -> false, "sentencepiece" -> true; throws std::invalid_argument otherwise.
bool parse_tokenizer(const std::string& name);

// --tokenizer, --spm-model, --vocab-size (keys tokenizer, subwords.model, subwords.vocab_size),
// fixed by a run (its vocabulary). Checkpoints written before subword units read as words.
// char_units (language models): "char" is offered too, characters as tokens.
template <typename Fields>
void declare_tokenizer(bool& subword_units, data::SubwordOptions& subwords, Fields& f, bool* char_units = nullptr) {
  const bool chars = char_units != nullptr;
  f.property(
      Setting("tokenizer", "--tokenizer",
              chars ? "word (DLStudio's), char (characters, as written in running text) or sentencepiece (subword "
                      "units trained on the training split, kept in the checkpoint)"
                    : "word (DLStudio's) or sentencepiece (subword units trained on the training split, kept in the "
                      "checkpoint)")
          .one_of(chars ? std::vector<std::string>{"word", "char", "sentencepiece"}
                        : std::vector<std::string>{"word", "sentencepiece"})
          .default_when_absent()
          .fixed(),
      [&subword_units, char_units] {
        return std::string(subword_units ? "sentencepiece" : char_units != nullptr && *char_units ? "char" : "word");
      },
      [&subword_units, char_units](const std::string& name) {
        if (char_units != nullptr) *char_units = name == "char";
        subword_units = name != "char" && parse_tokenizer(name);
      });
  f.property(
      Setting("subwords.model", "--spm-model", "sentencepiece: unigram (default) or bpe")
          .one_of(data::kSubwordKindNames.names())
          .default_when_absent()
          .fixed(),
      [&] { return data::to_string(subwords.kind); },
      [&](const std::string& name) { subwords.kind = data::parse_subword_kind(name); });
  f(subwords.vocab_size,
    Setting("subwords.vocab_size", "--vocab-size", "sentencepiece: pieces per model, specials included (default 8000)")
        .range(8, 1000000)
        .default_when_absent()
        .fixed());
}

// --init-vocab (a recipe, not a key of the stored settings: a new run's choice), `help` saying
// what the parent's vocabularies are to this task.
template <typename Fields>
void declare_init_vocab(InitVocab& init_vocab, Fields& f, const std::string& help) {
  f.property(
      Setting("", "--init-vocab", help).one_of(kInitVocabNames.names()).recipe(),
      [&init_vocab] { return kInitVocabNames.name(init_vocab); },
      [&init_vocab](const std::string& name) { init_vocab = kInitVocabNames.parse(name); });
}

// --epochs and --batch-size (`examples`: what a batch counts, "pairs", "sentences", "images").
template <typename Count, typename Fields>
void declare_epochs(std::int64_t& epochs, Count& batch_size, const std::string& examples, Fields& f) {
  f(epochs, Setting("epochs", "--epochs", "epochs in all (a resumed run counts those done)").range(1, 1000000));
  f(batch_size, Setting("batch_size", "--batch-size", examples + " per step").range(1, 1000000));
}

// --schedule (constant or cosine), --lr, --min-lr for the tasks whose settings hold them
// side by side (lm_train, vit_train; seq2seq's schedule is LrSchedule, with DLStudio's warm-up).
template <typename Fields>
void declare_cosine_schedule(ScheduleKind& schedule, double& lr, double& min_lr, Fields& f) {
  f.property(
      Setting("schedule", "--schedule", "constant or cosine (linear warm-up, cosine decay)")
          .one_of({"constant", "cosine"}),
      [&] { return to_string(schedule); }, [&](const std::string& name) { schedule = parse_schedule(name); });
  f(lr, Setting("lr", "--lr", "learning rate (cosine: the peak)").range(1e-12, 100));
  f(min_lr, Setting("min_lr", "--min-lr", "cosine: final learning rate").range(0, 100));
}

// --label-smoothing and --seed (`seeded`: what the seed draws).
template <typename Fields>
void declare_smoothing_and_seed(double& label_smoothing, std::uint64_t& seed, const std::string& seeded, Fields& f) {
  f(label_smoothing, Setting("label_smoothing", "--label-smoothing",
                             "label smoothing of the training loss (0: off; validation reports the plain loss)")
                         .range(0, 0.99));
  f(seed, Setting("seed", "--seed", "seed of " + seeded).range(0, 18446744073709551615.0));
}

// What lm_train and vit_train declare alike after their data and model: under "train." the
// preset's name, --epochs, --batch-size (`examples` per step), the cosine schedule and the
// task's warm-up (`declare_warmup()`), then "optimizer.", "train." --label-smoothing and
// --seed (`seeded`: what it draws), and in the Output group "selection." (`metrics`) and
// "run.". The task's settings name these fields alike (LmTrainSettings, ViTTrainSettings).
template <typename TaskSettings, typename Fields, typename DeclareWarmup>
void declare_training_and_output(TaskSettings& s, Fields& f, const std::string& examples, const std::string& seeded,
                                 std::vector<std::string> metrics, DeclareWarmup declare_warmup) {
  f.group("Training");
  f.section("train", [&] {
    f(s.preset, Setting("preset", "", ""));
    declare_epochs(s.epochs, s.batch_size, examples, f);
    declare_cosine_schedule(s.schedule, s.lr, s.min_lr, f);
    declare_warmup();
  });
  f.section("optimizer", [&] { OptimizerSettings::declare(s.optimizer, f); });
  f.section("train", [&] { declare_smoothing_and_seed(s.label_smoothing, s.seed, seeded, f); });
  f.group("Output");
  f.section("selection", [&] { SelectionSettings::declare(s.selection, f, std::move(metrics)); });
  f.section("run", [&] { RunSettings::declare(s.run, f); });
}

}  // namespace dls::settings
