// The end of a seq2seq run, as in DLStudio: translations of random validation pairs printed
// with [CORRECT]/[WRONG] (private to the trainer).
#pragma once

#include "dls/eval/seq2seq_evaluation.h"
#include "dls/train/run/run_directory.h"
#include "dls/data/seq2seq_dataset.h"
#include "dls/settings/seq2seq_settings.h"

namespace dls::train {

// Prints settings.samples random validation pairs (greedy decoding) in DLStudio's format and
// saves them to <run>/translations.txt; with `last` (the last epoch's validation decoding)
// also writes every validation translation to <run>/validation_translations.tsv
// (english, reference, translation, correct).
void write_samples(const TranslationModel& model, const data::Seq2SeqDataset& data,
                   const settings::Seq2SeqTrainSettings& settings, const RunDirectory& run,
                   const eval::TranslationResult* last);

}  // namespace dls::train
