#include "dls/report/seq2seq_checkpoint_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <optional>
#include <ostream>
#include <stdexcept>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/data/corpus.h"
#include "dls/data/languages.h"
#include "dls/data/pair_tensors.h"
#include "dls/data/seq2seq_dataset.h"
#include "dls/data/token_batches.h"
#include "dls/layers/int8_linear.h"
#include "dls/eval/pair_translation.h"
#include "dls/eval/seq2seq_evaluation.h"
#include "dls/models/seq2seq_loss.h"
#include "dls/util/thread_policy.h"
#include "dls/util/csv.h"
#include "dls/util/file_io.h"
#include "dls/util/json.h"
#include "dls/util/line_plot.h"
#include "dls/util/device.h"
#include "dls/util/runtime.h"
#include "dls/util/table.h"
#include "dls/util/create_folder.h"
#include "report/checkpoint_progress.h"
#include "report/score_json.h"
#include "report/output_folder.h"

namespace dls::report {

using eval::BleuScore;
using eval::ChrfScore;
using eval::format_sample;
using eval::SacreBleuScore;
using eval::sample_indices;

namespace fs = std::filesystem;

void mark_diverged(std::vector<CheckpointBleu>& results) {
  double best_before = 0;
  for (auto& r : results) {
    r.diverged = (r.loss_measured && !std::isfinite(r.val_loss)) || (best_before >= 0.01 && r.bleu < 0.2 * best_before);
    best_before = std::max(best_before, r.bleu);
  }
}

std::size_t best_checkpoint(const std::vector<CheckpointBleu>& results) {
  if (results.empty()) throw std::invalid_argument("best_checkpoint: no results");
  std::size_t best = results.size();
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i].diverged) continue;
    if (best == results.size() || results[i].bleu > results[best].bleu) best = i;
  }
  return best == results.size() ? 0 : best;
}

util::LinePlot checkpoint_bleu_plot(const std::vector<CheckpointBleu>& results, const std::string& what) {
  std::vector<double> x, bleus, sacrebleus;
  for (const auto& r : results) {
    x.push_back(r.epochs_done);
    bleus.push_back(100 * r.bleu);  // one scale with sacreBLEU's
    sacrebleus.push_back(r.sacrebleu);
  }
  util::LinePlot plot("BLEU of every checkpoint (" + what + ")");
  plot.x_label("epochs trained").y_label("BLEU (0-100)").add_series("corpus BLEU (NLTK) x 100", x, bleus);
  if (std::any_of(sacrebleus.begin(), sacrebleus.end(), [](double v) { return std::isfinite(v); })) {
    plot.add_series("sacreBLEU", std::move(x), std::move(sacrebleus));
  }
  return plot;
}

namespace {

// The sentences one checkpoint is scored on, with the words for references and samples.
struct ScoredSentences {
  std::vector<data::SentencePair> pairs;
  std::string description;          // "validation split of spa.txt (2001 pairs)"
  std::int64_t training_pairs = 0;  // of the checkpoint's run (0: unknown, --test)
  std::int64_t training_steps = 0;  // steps per epoch of the checkpoint's run (0: unknown, --test)
};

// A test file whose words the model mostly does not know (80 % or more: its sides the other
// way round, another language): said, as training says its validation <unk> rate, instead of
// a BLEU of 0 without a word. Word-level runs; subword units know every word.
void warn_of_unknown_words(const checkpoint::Seq2SeqCheckpointInfo& info, const std::vector<data::SentencePair>& pairs,
                           const std::string& source) {
  if (!info.english_subwords.empty()) return;
  for (const bool english : {true, false}) {
    const auto& known = english ? info.english_words : info.spanish_words;
    const std::set<std::string> vocabulary(known.begin(), known.end());
    std::size_t words = 0, unknown = 0;
    for (const auto& pair : pairs) {
      for (const auto& word : english ? pair.english : pair.spanish) {
        ++words;
        unknown += vocabulary.count(word) == 0 ? 1 : 0;
      }
    }
    if (words == 0 || unknown * 5 < words * 4) continue;
    const auto& data = info.settings.data;
    spdlog::warn(
        "{}: {:.1f} % of its {} words are not in the model's vocabulary: the sides the other way round, "
        "or another language than the run's ({} -> {})?",
        source, 100.0 * static_cast<double>(unknown) / static_cast<double>(words),
        data::language_name(english ? data.source_language() : data.target_language()), data.source_language(),
        data.target_language());
  }
}

// Test files are read once per (files, how the run reads them), whichever checkpoint asks
// first: with the run's languages, direction and (unless the request names others) columns;
// `every_pair` (a test set): however long, as sacreBLEU scores every line (model_pairs), else
// (a run's validation files) within --max-words, as training read them.
class CorpusCache {
 public:
  const data::Corpus& get(const Seq2SeqEvalRequest& request, const checkpoint::Seq2SeqCheckpointInfo& info,
                          bool every_pair) {
    auto options = info.settings.data.corpus_options();
    if (every_pair) options.max_words = std::numeric_limits<int>::max();
    if (request.src_column > 0) options.src_column = request.src_column;
    if (request.tgt_column > 0) options.tgt_column = request.tgt_column;
    const auto key = fmt::format("{}\n{}\n{}\n{} {} {} {} {} {}", request.test_file, request.test_src, request.test_tgt,
                                 options.max_words, options.src_column, options.tgt_column, options.src_lang,
                                 options.tgt_lang, options.reverse);
    auto it = corpora_.find(key);
    if (it == corpora_.end()) {
      auto corpus = request.test_file.empty() ? data::read_parallel_corpus(request.test_src, request.test_tgt, options)
                                              : data::read_corpus(request.test_file, options);
      it = corpora_.emplace(key, std::move(corpus)).first;
      spdlog::info("{}: {}", it->second.source, it->second.stats.summary(options.max_words));
      warn_of_unknown_words(info, it->second.pairs, it->second.source);
    }
    return it->second;
  }

 private:
  std::map<std::string, data::Corpus> corpora_;
};

// The data of the checkpoints' runs, built as training built it (checkpoint::seq2seq_dataset:
// the same corpus, split and vocabularies), once per run whichever checkpoint asks first.
class DatasetCache {
 public:
  const data::Seq2SeqDataset& get(const checkpoint::Seq2SeqCheckpointInfo& info, const std::string& path) {
    auto settings = info.settings.data;
    if (settings.train_src.empty()) settings.data_path = path;
    settings.test_src.clear();  // the validation split needs no test files
    settings.test_tgt.clear();
    const auto key = key_of(info, settings);
    auto it = datasets_.find(key);
    if (it == datasets_.end()) {
      it = datasets_.emplace(key, checkpoint::seq2seq_dataset(settings, info.settings.padding(), &info)).first;
      spdlog::info("{}: {}", settings.corpus_name(), it->second.corpus.stats.summary(settings.max_words));
    }
    return it->second;
  }

 private:
  // What the dataset is built from: checkpoints of one run share it.
  static std::string key_of(const checkpoint::Seq2SeqCheckpointInfo& info, const data::Seq2SeqDataSettings& settings) {
    const auto& s = info.split;
    std::string key = fmt::format("{}\n{}\n{}\n{}\n{} {} {} {}\n{}\n{}\n", settings.corpus_name(), settings.max_words,
                                  settings.subword_units, info.settings.dlstudio_loss, s.seed, s.validation_pairs,
                                  s.corpus_pairs, s.corpus_fingerprint, info.english_subwords, info.spanish_subwords);
    for (const auto* words : {&info.english_words, &info.spanish_words}) {
      for (const auto& w : *words) key += w + "\n";
      key += "\n";
    }
    return key;
  }

  std::map<std::string, data::Seq2SeqDataset> datasets_;
};

ScoredSentences sentences_for(const checkpoint::Seq2SeqCheckpointInfo& info, const Seq2SeqEvalRequest& request,
                              CorpusCache& cache, DatasetCache& datasets) {
  ScoredSentences out;
  if (!request.test_file.empty() || !request.test_src.empty()) {
    const auto& corpus = cache.get(request, info, true);
    out.pairs = corpus.pairs;
    out.description = "test file " + corpus.source + " [" + corpus.stats.summary(std::numeric_limits<int>::max()) + "]";
  } else {
    const auto& data = info.settings.data;
    if (!data.train_src.empty() && !request.data_path.empty()) {
      throw std::runtime_error("--data: the run trained on parallel files (" + data.corpus_name() +
                               "), not one corpus file");
    }
    const std::string path = request.data_path.empty() ? data.data_path : request.data_path;
    std::error_code error;
    const bool training_files_moved = !data.valid_src.empty() &&
                                      (!fs::exists(data.train_src, error) || !fs::exists(data.train_tgt, error)) &&
                                      fs::exists(data.valid_src, error) && fs::exists(data.valid_tgt, error);
    if (training_files_moved) {
      // The validation pairs of a run with validation files are those files, read as training
      // read them: scored from them alone (the training split's size is then not known).
      auto files = request;
      files.test_file.clear();
      files.test_src = data.valid_src;
      files.test_tgt = data.valid_tgt;
      out.pairs = cache.get(files, info, false).pairs;
      out.description = "validation files " + data.valid_src + " + " + data.valid_tgt;
      spdlog::info("the training files {} + {} have moved: scoring the validation files alone", data.train_src,
                   data.train_tgt);
    } else {
      if (path.empty() && data.train_src.empty()) {  // an import of an export's word lists
        throw std::runtime_error(
            "the checkpoint has no pairs of its own to score (imported from word lists): give --test FILE or "
            "--test-src FILE --test-tgt FILE");
      }
      for (const auto& file : data.train_src.empty() ? std::vector<std::string>{path}
                                                     : std::vector<std::string>{data.train_src, data.train_tgt,
                                                                                data.valid_src, data.valid_tgt}) {
        if (file.empty() || fs::exists(file)) continue;
        const bool validation = file == data.valid_src || file == data.valid_tgt;
        // A parallel-files run is read from its files alone (no --data): another test set is the way on.
        const std::string way_on = !data.train_src.empty()
                                       ? " (moved? score other pairs: --test-src FILE --test-tgt FILE)"
                                   : request.data_path.empty() ? " (moved? give --data FILE or --test FILE)"
                                                               : "";
        throw std::runtime_error(std::string(validation ? "the validation file " : "the training corpus ") + file +
                                 " is missing" + way_on);
      }
      // The pairs training held out, by construction: its dataset type, its split.
      const auto& dataset = datasets.get(info, path);
      for (const auto i : dataset.split.validation) out.pairs.push_back(dataset.corpus.pairs[i]);
      out.training_pairs = static_cast<std::int64_t>(dataset.split.training.size());
      const auto batch = std::max<std::int64_t>(1, info.settings.batch_size);
      out.training_steps =
          info.settings.max_tokens > 0  // the run's token batches, planned again
              ? static_cast<std::int64_t>(
                    data::plan_token_batches(data::longer_side_lengths(dataset.train, data::Vocabulary::kPad),
                                             info.settings.max_tokens, info.settings.seed)
                        .size())
              : (out.training_pairs + batch - 1) / batch;
      out.description = !data.valid_src.empty()
                            ? "validation files " + data.valid_src + " + " + data.valid_tgt
                            : "validation split of " + (data.train_src.empty() ? path : data.corpus_name());
    }
  }
  if (request.limit > 0 && out.pairs.size() > request.limit) out.pairs.resize(request.limit);
  if (out.pairs.empty()) throw std::runtime_error(out.description + " holds no sentence pair to score");
  out.description += fmt::format(" ({} pairs)", out.pairs.size());
  return out;
}

// Completed epochs at the checkpoint, with the finished part of the epoch in progress, as its
// state counts them; a file from before RunState does not say how many steps its epochs had:
// `training_steps`, the run's training split in its batches (0: unknown).
double epochs_done(const checkpoint::Seq2SeqCheckpointInfo& info, std::int64_t training_steps) {
  auto state = info.state;
  if (state.steps_per_epoch > 0) return state.epochs_done();
  state.steps_per_epoch = training_steps;
  return std::min(state.epochs_done(), static_cast<double>(state.completed_epochs + 1));
}

struct Evaluated {
  CheckpointBleu summary;
  BleuScore score;
  SacreBleuScore sacrebleu;
  ChrfScore chrf;
  std::string model_name;
  std::vector<std::vector<std::string>> hypotheses;
  std::vector<bool> finished;        // per hypothesis: ended by EOS
  std::size_t unknown_replaced = 0;  // --replace-unk: the <unk> words replaced by source words
  std::size_t longer_pairs = 0;      // with a source longer than the model's L - 2 tokens
  std::size_t loss_pairs = 0;        // whose sides both fit: the validation loss's
};

Evaluated evaluate_one(checkpoint::LoadedSeq2Seq loaded, const std::string& path, const Seq2SeqEvalRequest& request,
                       const torch::Device& device, CorpusCache& cache, DatasetCache& datasets,
                       ScoredSentences* sentences) {
  loaded.model.module().to(device);
  *sentences = sentences_for(loaded.info, request, cache, datasets);
  const auto& options = loaded.info.settings;
  const auto padding = options.padding();
  const auto pairs = eval::model_pairs(loaded, sentences->pairs);
  const auto length = static_cast<int>(loaded.model.max_seq_length());
  LossOptions loss_options;
  loss_options.dlstudio = options.dlstudio_loss;

  Evaluated e;
  e.summary.path = path;
  e.longer_pairs = pairs.longer.size();
  e.loss_pairs = pairs.loss_pairs.size();
  e.summary.loss_measured = !pairs.loss_pairs.empty();
  e.summary.val_loss =
      pairs.loss_pairs.empty()
          ? NAN
          : dataset_loss(loaded.model,
                         data::encode_pairs(pairs.loss_pairs, {}, loaded.english, loaded.spanish, length, padding),
                         loss_options);
  // One chunk per thread, but one in all for the dlstudio layout and off the CPU
  // (util/thread_policy.h).
  auto decode = request.decode;
  decode.workers = util::batch_chunk_workers(
      device,
      util::default_batch_chunks(
          !loaded.model.is_rnn() && loaded.model.transformer()->config().transformer().flattened(), decode.workers));
  auto translated = eval::translate_every_pair(loaded, path, sentences->pairs, pairs, decode, request.device);
  e.summary.bleu = translated.bleu.bleu;
  e.summary.sacrebleu = translated.sacrebleu.score;
  e.summary.sentences_per_s = translated.sentences_per_s;
  e.summary.step = loaded.info.state.global_step;
  e.summary.epochs_done = epochs_done(loaded.info, sentences->training_steps);
  e.score = translated.bleu;
  e.sacrebleu = translated.sacrebleu;
  e.chrf = translated.chrf;
  e.model_name = loaded.model.name();
  e.hypotheses = std::move(translated.hypotheses);
  e.finished = std::move(translated.finished);
  e.unknown_replaced = translated.unknown_replaced;
  return e;
}

// A table or CSV number with `decimals` decimals; "nan" when not finite.
std::string fixed_or_nan(double value, int decimals) {
  return std::isfinite(value) ? fmt::format("{:.{}f}", value, decimals) : "nan";
}

std::string status_of(const std::vector<CheckpointBleu>& results, std::size_t i, std::size_t best) {
  if (results[i].diverged) return "diverged";
  return i == best ? "best" : "";
}

void write_bleu_csv(const std::string& path, const std::vector<Evaluated>& all) {
  std::string text =
      util::csv_line({"checkpoint", "epochs_done", "step", "bleu", "p1", "p2", "p3", "p4", "bp", "ratio", "hyp_len",
                      "ref_len", "val_loss", "sentences_per_s", "diverged", "sacrebleu", "chrf"});
  for (const auto& e : all) {
    std::vector<std::string> row{e.summary.path, fixed_or_nan(e.summary.epochs_done, 4), std::to_string(e.summary.step),
                                 util::json_number(e.score.bleu)};
    for (std::size_t n = 0; n < 4; ++n) {
      row.push_back(n < e.score.precisions.size() ? util::json_number(e.score.precisions[n]) : "");
    }
    row.insert(row.end(),
               {util::json_number(e.score.bp), util::json_number(e.score.ratio), std::to_string(e.score.hyp_len),
                std::to_string(e.score.ref_len), util::json_number(e.summary.val_loss),
                fixed_or_nan(e.summary.sentences_per_s, 1), e.summary.diverged ? "1" : "0",
                util::json_number(e.sacrebleu.score), util::json_number(e.chrf.score)});
    text += util::csv_line(row);
  }
  util::write_text_atomically(path, text);
}

void write_seq2seq_json(std::ostream& out, const std::vector<Evaluated>& all, std::size_t best,
                        const ScoredSentences& sentences, const Seq2SeqEvalRequest& request,
                        const std::vector<std::string>& files, const std::vector<std::string>& skipped) {
  util::JsonWriter json;
  json.begin_object()
      .field("kind", "seq2seq")
      .field("decode", to_string(request.decode.method))
      .field("replace_unk", request.decode.replace_unknown)
      .field("linear_weights", int8_linear_enabled() ? "int8" : "fp32")  // "int8" under --quantize int8
      .field("sentences", sentences.pairs.size())
      .field("longer_pairs", all[best].longer_pairs)
      .field("loss_pairs", all[best].loss_pairs)
      .field("data", sentences.description)
      .key("checkpoints")
      .begin_array();
  for (const auto& e : all) {
    json.begin_object()
        .field("path", e.summary.path)
        .field("epochs_done", e.summary.epochs_done)
        .field("step", e.summary.step)
        .field("bleu", e.score.bleu)
        .key("precisions")
        .begin_array();
    for (const double p : e.score.precisions) json.value(p);
    json.end_array()
        .field("bp", e.score.bp)
        .field("ratio", e.score.ratio)
        .field("hyp_len", e.score.hyp_len)
        .field("ref_len", e.score.ref_len);
    detail::add_field_scores(json, e.sacrebleu, e.chrf);
    json.field("val_loss", e.summary.val_loss)
        .field("sentences_per_s", e.summary.sentences_per_s)
        .field("diverged", e.summary.diverged);
    if (request.decode.replace_unknown) json.field("unknown_replaced", e.unknown_replaced);
    json.end_object();
  }
  json.end_array().field("best", all[best].summary.path).key("skipped").begin_array();
  for (const auto& f : skipped) json.value(f);
  json.end_array().key("files").begin_array();
  for (const auto& f : files) json.value(f);
  json.end_array().end_object();
  out << json.str() << std::endl;
}

// The NLTK BLEU column's header: its scale beside its name, as the 0-100 columns have theirs
// (a 0.8965 beside a sacreBLEU of 100.0 read as a bug when both said just "BLEU").
constexpr const char* kNltkBleuHeader = "NLTK BLEU 0-1";

void write_seq2seq_table(std::ostream& out, const std::vector<Evaluated>& all,
                         const std::vector<CheckpointBleu>& results, std::size_t best, const ScoredSentences& sentences,
                         const Seq2SeqEvalRequest& request, const std::vector<std::string>& files,
                         const std::vector<std::string>& skipped) {
  out << "Scored on the " << sentences.description << ", " << to_string(request.decode.method) << " decoding"
      << (request.decode.replace_unknown ? ", each <unk> replaced by its aligned source word (--replace-unk)" : "")
      << "\n";
  if (all[best].longer_pairs > 0) {
    out << all[best].longer_pairs << " of the " << sentences.pairs.size()
        << " pairs have a source longer than the model reads at once: translated as `translate` translates them "
           "(whole, or in parts by the dlstudio layout) and scored with the others; the validation loss covers the "
        << all[best].loss_pairs << " pairs whose sides both fit\n";
  }
  util::Table table(
      {"checkpoint", "epochs", "step", kNltkBleuHeader, "sacreBLEU 0-100", "chrF2 0-100", "val loss", "sent/s", ""},
      {util::Align::kLeft, util::Align::kRight, util::Align::kRight, util::Align::kRight, util::Align::kRight,
       util::Align::kRight, util::Align::kRight, util::Align::kRight, util::Align::kLeft});
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto& r = results[i];
    table.add_row({fs::path(r.path).filename().string(), fixed_or_nan(r.epochs_done, 2), std::to_string(r.step),
                   fixed_or_nan(r.bleu, 4), fixed_or_nan(all[i].sacrebleu.score, 1), fixed_or_nan(all[i].chrf.score, 1),
                   fixed_or_nan(r.val_loss, 4), fixed_or_nan(r.sentences_per_s, 0), status_of(results, i, best)});
  }
  out << table.to_string();
  // What the columns are: NLTK's BLEU on its 0-1 scale, and the two 0-100 scores, sacreBLEU's
  // (of this project's code), on the normalised words (lowercase, no punctuation) joined by
  // spaces. The scales differ by 100 and the two BLEUs on short sentences (docs/evaluation.md).
  out << "NLTK BLEU: NLTK's corpus BLEU, 0-1 (DLStudio's number). It counts the missing 3- and 4-grams of\n"
      << "  sentences under 4 words as misses: short sentences keep it below 1 even when word for word.\n"
      << "sacreBLEU, chrF2: sacreBLEU's BLEU and chrF2, 0-100, on the normalised words; signatures:\n"
      << "  sacreBLEU " << all[best].sacrebleu.signature << "\n"
      << "  chrF2     " << all[best].chrf.signature << "\n";
  const auto diverged = std::count_if(results.begin(), results.end(), [](const auto& r) { return r.diverged; });
  if (diverged > 0) {
    out << diverged << " checkpoint(s) diverged: BLEU fell below a fifth of an earlier best\n";
  }
  for (const auto& path : skipped) out << "skipped (unreadable): " << path << "\n";
  if (request.decode.replace_unknown) {
    out << "--replace-unk: " << all[best].unknown_replaced
        << " <unk> words replaced by source words in the best checkpoint's translations\n";
  }
  out << "Best checkpoint: " << results[best].path << " (NLTK BLEU " << fixed_or_nan(results[best].bleu, 4) << " of 1; "
      << all[best].model_name << ")\n  sacreBLEU: " << all[best].sacrebleu.line() << ", " << all[best].chrf.line()
      << "\n";
  for (const auto& f : files) out << "wrote " << f << "\n";
  if (request.samples > 0) {
    out << "\nSample translations by the best checkpoint:\n\n";
    for (const auto i : sample_indices(sentences.pairs.size(), request.samples, request.seed)) {
      out << format_sample(sentences.pairs[i].english, sentences.pairs[i].spanish, all[best].hypotheses[i],
                           all[best].model_name, all[best].finished[i])
          << "\n\n";
    }
  }
  out.flush();
}

}  // namespace

Seq2SeqCheckpointReport report_seq2seq_checkpoints(const std::vector<std::string>& checkpoint_files,
                                                   const Seq2SeqEvalRequest& request, std::ostream& out,
                                                   std::ostream& messages) {
  if (checkpoint_files.empty()) throw std::invalid_argument("no checkpoint to evaluate");
  const fs::path out_dir = request.output_dir.empty() ? fs::path(checkpoint::run_dir_of(checkpoint_files.front()))
                                                      : fs::path(request.output_dir);
  // A file standing alone (an import's) names its outputs after itself: its folder is the
  // user's, whose bleu.csv is not this report's to replace.
  const std::string prefix = request.output_dir.empty() && checkpoint_files.size() == 1
                                 ? checkpoint::report_file_prefix(checkpoint_files.front())
                                 : "";
  // Before the evaluation, not after minutes of decoding.
  if (request.output_dir.empty()) {
    check_output_folder(out_dir.string(), prefix + "bleu.csv and " + prefix + "bleu_vs_epoch.png");
  }
  util::RuntimeOptions runtime;
  runtime.threads = request.threads;
  const auto runtime_info = util::configure_runtime(runtime);
  const auto device = util::select_device(request.device);
  // On a CPU, sentences decode in one chunk per thread (eval/decoding.h).
  auto chunked = request;
  if (device.is_cpu() && chunked.decode.workers <= 1) chunked.decode.workers = runtime_info.threads;

  CorpusCache cache;
  DatasetCache datasets;
  ScoredSentences sentences;
  std::vector<Evaluated> all;
  // A corrupt or unreadable checkpoint among others is reported and skipped.
  CheckpointProgress progress(checkpoint_files.size());
  Seq2SeqCheckpointReport report;
  for (const auto& path : checkpoint_files) {
    try {
      std::optional<checkpoint::LoadedSeq2Seq> loaded;
      {  // the file read once, and let go before the evaluation
        const checkpoint::CheckpointReader reader(path, checkpoint::kSeq2SeqKind);
        if (const auto why = request.run.left_out(reader); !why.empty()) {
          progress.say(messages, why);
          continue;
        }
        loaded = checkpoint::load_seq2seq_checkpoint(reader, request.weights);
      }
      all.push_back(evaluate_one(std::move(*loaded), path, chunked, device, cache, datasets, &sentences));
    } catch (const checkpoint::CheckpointError& error) {
      if (checkpoint_files.size() == 1) throw;
      const std::string what = error.what();
      progress.say(messages, "skipped: " + what.substr(0, what.find('\n')));
      report.skipped.push_back(path);
      continue;
    }
    const auto& s = all.back().summary;
    progress.evaluated(all.size(),
                       fmt::format("{}: BLEU {:.4f} (sacreBLEU {:.1f}, chrF2 {:.1f}), val loss {}, {:.0f} sentences/s",
                                   fs::path(path).filename().string(), s.bleu, all.back().sacrebleu.score,
                                   all.back().chrf.score, fixed_or_nan(s.val_loss, 4), s.sentences_per_s));
  }
  progress.finish();
  if (all.empty()) throw std::runtime_error("no readable checkpoint among " + std::to_string(report.skipped.size()));

  auto& results = report.checkpoints;
  for (const auto& e : all) results.push_back(e.summary);
  mark_diverged(results);
  for (std::size_t i = 0; i < all.size(); ++i) all[i].summary.diverged = results[i].diverged;
  report.best = best_checkpoint(results);

  util::create_folder(out_dir.string());
  report.files = {(out_dir / (prefix + "bleu.csv")).string(), (out_dir / (prefix + "bleu_vs_epoch.png")).string()};
  write_bleu_csv(report.files[0], all);
  checkpoint_bleu_plot(results, to_string(request.decode.method) + " decoding").save(report.files[1]);

  if (request.json) {
    write_seq2seq_json(out, all, report.best, sentences, request, report.files, report.skipped);
  } else {
    write_seq2seq_table(out, all, results, report.best, sentences, request, report.files, report.skipped);
  }
  return report;
}

}  // namespace dls::report
