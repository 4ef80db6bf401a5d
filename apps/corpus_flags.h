// seq2seq_train's corpus flags (declared in settings/seq2seq_settings.h) where they depend on
// each other: the languages that parallel files' names give, and the checks one line each
// (data/corpus.h, data/languages.h). DLStudio's default (--data spa.txt, English -> Spanish)
// needs none.
#pragma once

#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "config_file.h"
#include "dls/data/languages.h"
#include "dls/settings/seq2seq_settings.h"

namespace dls::apps {

// A fresh run on parallel files: a side whose --src-lang/--tgt-lang is not given takes the
// language its --train-src/--train-tgt file's name gives (train.es -> es), so that Spanish
// is not read, and normalised, as the default English; a side whose file names none keeps
// the default, and one warning says which codes were assumed. A flag always wins.
inline void languages_from_file_names(const CLI::App& app, settings::Seq2SeqTrainSettings& setup) {
  auto& data = setup.data;
  if (data.train_src.empty() || data.train_tgt.empty()) return;  // check_corpus_flags refuses half a pair
  std::string named, assumed;
  const auto side = [&](const char* flag, const std::string& file, std::string& code) {
    if (app.count(flag) > 0) return;
    const auto from_name = data::language_of_file(file);
    if (!from_name.empty()) code = from_name;
    auto& said = from_name.empty() ? assumed : named;
    said += (said.empty() ? "" : ", ") + std::string(flag) + " " + code;
  };
  side("--src-lang", data.train_src, data.src_lang);
  side("--tgt-lang", data.train_tgt, data.tgt_lang);
  if (!named.empty()) spdlog::info("languages from the file names: {}", named);
  if (!assumed.empty()) {
    spdlog::warn(
        "the file names name no language (a code such as .de or .en, data/languages.h): assumed {}; give "
        "the flag to say otherwise",
        assumed);
  }
}

// The corpus flags' checks, one line each, after the flags are applied. A --train-src run
// drops the default corpus that the preset put in --data's place.
inline void check_corpus_flags(const CLI::App& app, settings::Seq2SeqTrainSettings& setup) {
  auto& data = setup.data;
  const auto both = [](const std::string& src, const std::string& tgt, const char* name) {
    if (src.empty() != tgt.empty()) {
      throw std::runtime_error(std::string("--") + name + (src.empty() ? "-tgt needs --" : "-src needs --") + name +
                               (src.empty() ? "-src" : "-tgt"));
    }
  };
  both(data.train_src, data.train_tgt, "train");
  both(data.valid_src, data.valid_tgt, "valid");
  both(data.test_src, data.test_tgt, "test");
  if (!data.train_src.empty()) {
    if (app.count("--data") > 0 && !data.data_path.empty()) {
      throw std::runtime_error("--data and --train-src: give one corpus, a TSV/archive file or parallel files");
    }
    data.data_path.clear();
    for (const char* flag : {"--src-column", "--tgt-column"}) {
      if (app.count(flag) > 0 && !from_config_file(app, flag)) {
        throw std::runtime_error(std::string(flag) + ": only for a TSV corpus (--data), not parallel files");
      }
    }
  }
  if (data.src_column == data.tgt_column) {
    throw std::runtime_error("--src-column and --tgt-column: both are column " + std::to_string(data.src_column));
  }
  data::check_language_code(data.src_lang, "--src-lang");
  data::check_language_code(data.tgt_lang, "--tgt-lang");
  if (data.src_lang == data.tgt_lang) {
    throw std::runtime_error("--src-lang and --tgt-lang: both are " + data.src_lang);
  }
  for (const auto* code : {&data.src_lang, &data.tgt_lang}) {
    if (data::written_without_spaces(*code) && !data.subword_units) {
      throw std::runtime_error(data::language_name(*code) + " (" + *code +
                               ") is written without spaces between words, so word-level tokens would be whole "
                               "clauses: add --tokenizer sentencepiece");
    }
  }
}

}  // namespace dls::apps
