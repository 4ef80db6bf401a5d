#include "train/tasks/seq2seq_samples.h"

#include <cstdio>

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "dls/data/languages.h"
#include "dls/data/normalize.h"
#include "dls/util/file_io.h"
#include "dls/util/random.h"

namespace dls::train {

void write_samples(const TranslationModel& model, const data::Seq2SeqDataset& data,
                   const settings::Seq2SeqTrainSettings& settings, const RunDirectory& run,
                   const eval::TranslationResult* last) {
  const auto n = data.split.validation.size();
  if (n == 0) return;
  try {
    if (last != nullptr) {
      // The first column named after the source language: "english" for DLStudio's run.
      std::string tsv = data::language_label(data.corpus.source_language) + "\treference\ttranslation\tcorrect\n";
      for (std::size_t i = 0; i < last->hypotheses.size(); ++i) {
        const auto& pair = data.corpus.pairs[data.split.validation[i]];
        const auto& translation = last->hypotheses[i];
        tsv += data::join_words(pair.english) + "\t" + data::join_words(pair.spanish) + "\t" +
               data::join_words(translation) + "\t" + (translation == pair.spanish ? "1" : "0") + "\n";
      }
      util::write_text_atomically(run.file("validation_translations.tsv"), tsv);
    }
    if (settings.samples <= 0) return;
    const auto picks = eval::sample_indices(n, static_cast<std::size_t>(settings.samples),
                                            util::derive_seed(settings.seed, 0x5a3b1e5));
    std::vector<std::int64_t> rows(picks.begin(), picks.end());
    std::vector<std::vector<std::string>> references;
    for (const auto i : picks) references.push_back(data.corpus.pairs[data.split.validation[i]].spanish);
    const auto src = data.validation.src.index_select(0, torch::tensor(rows, torch::kInt64));
    const auto result = eval::translate_and_score(model, src, data.spanish, references, {},
                                                  data.spanish_subwords ? &*data.spanish_subwords : nullptr);
    std::string text;
    int correct = 0;
    for (std::size_t k = 0; k < picks.size(); ++k) {
      const auto& pair = data.corpus.pairs[data.split.validation[picks[k]]];
      text += eval::format_sample(pair.english, pair.spanish, result.hypotheses[k], model.name(), result.finished[k]) +
              "\n\n";
      correct += result.hypotheses[k] == pair.spanish ? 1 : 0;
    }
    text += std::to_string(correct) + " of " + std::to_string(picks.size()) +
            " translations are word for word the reference\n";
    std::fputs(("\n" + text).c_str(), stderr);  // beside the logs; stdout stays for --json
    std::fflush(stderr);
    util::write_text_atomically(run.file("translations.txt"), text);
  } catch (const std::exception& error) {
    spdlog::warn("could not write the translations: {}", error.what());
  }
}

}  // namespace dls::train
