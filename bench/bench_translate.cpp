// translate-latency: one sentence through the library call that `checkpoint_eval --translate`
// makes (eval::Translator::translate), end to end, and its decoding taken apart: the encoder
// and the cross-attention memories once, then one decoder step per output word, each timed
// and its operators counted. Without a checkpoint, a random model of the preset decodes one
// random sentence (a random model never ends early: L-1 steps).
#include <algorithm>
#include <chrono>
#include <fstream>
#include <cstdio>
#include <optional>
#include <random>
#include <stdexcept>

#include <c10/core/InferenceMode.h>
#include <torch/torch.h>

#include "bench_profile.h"
#include "bench_tasks.h"
#include "dls/data/vocabulary.h"
#include "dls/eval/decoding.h"
#include "dls/eval/translator.h"
#include "dls/layers/int8_linear.h"
#include "dls/models/decoder_session.h"
#include "dls/util/thread_policy.h"

namespace dls::bench {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n == 0 ? 0.0 : n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// The decoding of src [1, L] taken apart, greedily: the session (encoder, memories) and each
// step (the decoder on one position, the output layer, the argmax) timed on their own.
struct StepTimes {
  double session_ms = 0;
  std::vector<double> step_ms;
};

StepTimes time_greedy_steps(Seq2SeqTransformer& model, const torch::Tensor& src) {
  const c10::InferenceMode inference;
  StepTimes times;
  auto start = Clock::now();
  DecoderSession session(model, src, data::Vocabulary::kSos);
  times.session_ms = ms_since(start);
  while (session.length() < session.max_length()) {
    start = Clock::now();
    const auto word = session.step(/*log_probabilities=*/false).argmax(-1);
    const bool done = word.item<std::int64_t>() == data::Vocabulary::kEos;
    times.step_ms.push_back(ms_since(start));
    if (done) break;
    session.append(word);
  }
  return times;
}

}  // namespace

BenchResult run_translate_latency_bench(const BenchOptions& o) {
  eval::DecodeOptions decode;
  decode.method = o.method == "beam" ? eval::DecodeMethod::kBeam : eval::DecodeMethod::kGreedy;
  decode.beam_size = o.beam;
  decode.workers = 1;  // one sentence: one chunk
  std::optional<eval::Translator> translator;
  Seq2SeqTransformer model{nullptr};
  torch::Tensor src;  // [1, L]
  BenchResult result;
  result.unit = "sentences/s";
  if (!o.checkpoint.empty()) {
    eval::TranslatorOptions translator_options;
    translator_options.scores = o.scores;
    translator.emplace(eval::Translator::load(o.checkpoint, translator_options));
    model = translator->model().model.transformer();  // the transformer's session is what this times
    const auto t = translator->translate(o.sentence, decode);
    if (!t.ok()) throw std::invalid_argument("cannot translate \"" + o.sentence + "\": " + t.error);
    const auto& loaded = translator->model();
    src = torch::tensor(
              loaded.english.encode(t.tokens, translator->max_source_tokens() + 2, loaded.info.settings.padding()),
              torch::kLong)
              .unsqueeze(0);
    std::fprintf(stderr, "translate-latency: \"%s\" -> \"%s\" (%zu output tokens)\n", o.sentence.c_str(),
                 t.text.c_str(), t.output_tokens.size());
    result.config = {{"checkpoint", translator->checkpoint_file()},
                     {"summary", loaded.info.settings.model_summary()},
                     {"sentence", o.sentence},
                     {"translation", t.raw},
                     {"scores", o.scores ? "on" : "off"}};
  } else {
    const std::string preset_name = o.preset.empty() ? "cpu" : o.preset;
    const auto config = seq2seq_bench_preset(preset_name, o).model;
    torch::manual_seed(o.seed);
    model = Seq2SeqTransformer(config);
    model->eval();
    const std::int64_t L = config.transformer().max_seq_length();
    src = torch::full({1, L}, data::Vocabulary::kPad, torch::kLong);
    std::mt19937_64 rng(o.seed + 1);
    std::uniform_int_distribution<std::int64_t> word(data::Vocabulary::kSpecialCount, o.src_vocab - 1);
    src[0][0] = data::Vocabulary::kSos;
    for (std::int64_t i = 1; i <= 5 && i < L - 1; ++i) src[0][i] = word(rng);
    src[0][std::min<std::int64_t>(6, L - 1)] = data::Vocabulary::kEos;
    result.config = {{"preset", preset_name}, {"summary", config.summary()}, {"sentence", "random, 5 words"}};
  }
  result.config.emplace_back("method", eval::to_string(decode.method));
  result.config.emplace_back("decoder_step", o.plain_decoder_step ? "operators" : "step_kernels");
  result.config.emplace_back("one_row_linear", o.int8_linear    ? "int8 " + int8_gemv_kernel()
                                               : o.plain_linear ? "gemm"
                                                                : "gemv");
  result.config.emplace_back("linear_weights", o.int8_linear ? "int8" : "fp32");
  if (decode.method == eval::DecodeMethod::kBeam) result.config.emplace_back("beam", std::to_string(o.beam));

  // The library call (with a checkpoint: the whole Translator::translate; without: decoding).
  const std::function<void(int)> translate = [&](int) {
    if (translator) {
      translator->translate(o.sentence, decode);
    } else {
      eval::decode_batch(model, src, data::Vocabulary::kSos, data::Vocabulary::kEos, decode);
    }
  };
  result.timing = time_steps(translate, o.warmup, o.repeats, o.iters, 1.0, result.unit);
  result.flops_per_item = count_matmul_flops([&] { translate(0); });
  result.ops_per_step = count_operators([&] { translate(0); });

  // Decoding taken apart (greedy): the session once, then each step.
  std::vector<double> session_ms, step_ms;
  std::size_t steps = 0;
  for (int r = 0; r < std::max(3, o.repeats); ++r) {
    const auto times = time_greedy_steps(model, src);
    session_ms.push_back(times.session_ms);
    step_ms.insert(step_ms.end(), times.step_ms.begin(), times.step_ms.end());
    steps = times.step_ms.size();
  }
  const auto step_ops = count_operators([&] {
    const c10::InferenceMode inference;
    DecoderSession session(model, src, data::Vocabulary::kSos);
    session.step(false).argmax(-1).item<std::int64_t>();
  });
  const auto session_ops = count_operators([&] {
    const c10::InferenceMode inference;
    DecoderSession session(model, src, data::Vocabulary::kSos);
  });
  const double latency_ms = result.timing.median > 0 ? 1000.0 / result.timing.median : 0.0;
  std::fprintf(stderr,
               "translate-latency: %.2f ms per sentence (%s), of which the greedy decoding: session (encoder, "
               "memories) %.2f ms and %zu steps of %.2f ms (median); a step dispatches %ld ATen operators (%ld "
               "top-level), the session %ld\n",
               latency_ms, translator ? "Translator::translate" : "decode_batch", median_of(session_ms), steps,
               median_of(step_ms), step_ops.aten_ops - session_ops.aten_ops,
               step_ops.top_level_ops - session_ops.top_level_ops, session_ops.aten_ops);
  result.config.emplace_back("latency_ms", std::to_string(latency_ms));
  result.config.emplace_back("session_ms", std::to_string(median_of(session_ms)));
  result.config.emplace_back("steps", std::to_string(steps));
  result.config.emplace_back("step_ms", std::to_string(median_of(step_ms)));
  result.config.emplace_back("step_aten_ops", std::to_string(step_ops.aten_ops - session_ops.aten_ops));
  result.config.emplace_back("step_top_level_ops", std::to_string(step_ops.top_level_ops - session_ops.top_level_ops));
  if (o.profile_rows > 0) {
    print_operator_profile(
        [&] {
          for (int i = 0; i < o.iters; ++i) translate(i);
        },
        o.profile_rows);
  }
  return result;
}

BenchResult run_translate_file_bench(const BenchOptions& o) {
  if (o.checkpoint.empty() || o.sentences_file.empty()) {
    throw std::invalid_argument("translate-file: give --checkpoint RUN and --sentences FILE");
  }
  std::vector<std::string> sentences;
  std::ifstream in(o.sentences_file);
  if (!in) throw std::invalid_argument(o.sentences_file + ": cannot be read");
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) sentences.push_back(line);
  }
  if (sentences.empty()) throw std::invalid_argument(o.sentences_file + ": no sentences");
  auto translator = eval::Translator::load(o.checkpoint);
  eval::DecodeOptions decode;
  decode.method = o.method == "beam" ? eval::DecodeMethod::kBeam : eval::DecodeMethod::kGreedy;
  decode.beam_size = o.beam;
  decode.batch_size = o.batch > 0 ? o.batch : 256;
  // As checkpoint_eval's BLEU report: a batch's chunks on one thread each (--workers: that many).
  decode.workers = util::batch_chunk_workers(translator.device(), o.workers > 0 ? o.workers : at::get_num_threads());
  BenchResult result;
  result.unit = "sentences/s";
  result.config = {
      {"checkpoint", translator.checkpoint_file()},       {"summary", translator.model().info.settings.model_summary()},
      {"sentences", std::to_string(sentences.size())},    {"batch", std::to_string(decode.batch_size)},
      {"workers", std::to_string(decode.workers)},        {"method", eval::to_string(decode.method)},
      {"linear_weights", o.int8_linear ? "int8" : "fp32"}};
  const auto n = static_cast<double>(sentences.size());
  const std::function<void(int)> translate = [&](int) { translator.translate(sentences, decode); };
  result.timing = time_steps(translate, o.warmup, o.repeats, o.iters, n, result.unit);
  result.flops_per_item = count_matmul_flops([&] { translate(0); }) / n;
  result.ops_per_step = count_operators([&] { translate(0); });
  if (o.profile_rows > 0) print_operator_profile([&] { translate(0); }, o.profile_rows);
  return result;
}

}  // namespace dls::bench
