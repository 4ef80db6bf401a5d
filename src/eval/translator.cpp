#include "dls/eval/translator.h"

#include <algorithm>
#include <stdexcept>

#include <spdlog/fmt/fmt.h>
#include <torch/torch.h>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/data/detokenize.h"
#include "dls/data/languages.h"
#include "dls/data/normalize.h"
#include "dls/models/attention_trace.h"
#include "dls/util/device.h"
#include "dls/util/utf8.h"

namespace dls::eval {

namespace {

// The rows one after another (each [L]): the data of an [N, L] tensor.
std::vector<std::int64_t> flatten(const std::vector<std::vector<std::int64_t>>& rows) {
  std::vector<std::int64_t> flat;
  for (const auto& row : rows) flat.insert(flat.end(), row.begin(), row.end());
  return flat;
}

}  // namespace

Translator Translator::load(const std::string& checkpoint_or_run, const TranslatorOptions& options) {
  const auto file = checkpoint::best_or_latest_checkpoint(checkpoint_or_run);
  return Translator(checkpoint::load_seq2seq_checkpoint(file, options.weights), file, options);
}

Translator::Translator(checkpoint::LoadedSeq2Seq loaded, std::string checkpoint_file, const TranslatorOptions& options)
    : loaded_(std::move(loaded)),
      checkpoint_file_(std::move(checkpoint_file)),
      device_(util::select_device(options.device)),
      scores_(options.scores) {
  loaded_.model->to(device_);
  loaded_.model->eval();
}

int Translator::max_source_tokens() const {
  return static_cast<int>(loaded_.model->config().transformer().max_seq_length()) - 2;
}

void Translator::prepare(SentenceTranslation& t, std::vector<std::int64_t>& ids) const {
  if (!util::is_valid_utf8(t.input)) {
    t.error = "the sentence is not valid UTF-8";
    return;
  }
  t.words = data::normalize_words(t.input, data::language_rules(loaded_.info.settings.data.source_language()));
  if (t.words.empty()) {
    t.error = "no words left after normalisation";
    return;
  }
  t.tokens = loaded_.english_subwords ? loaded_.english_subwords->encode(t.words) : t.words;
  const int max_tokens = max_source_tokens();
  if (static_cast<int>(t.tokens.size()) > max_tokens) {
    const char* what = loaded_.english_subwords ? "pieces" : "words";
    t.error = fmt::format(
        "{} {}, but this model translates at most {} (its positional range L = {} holds SOS, the {} and EOS; "
        "train with a larger --max-words)",
        t.tokens.size(), loaded_.english_subwords ? "subword pieces" : "words", max_tokens, max_tokens + 2, what);
    t.tokens.clear();
    t.words.clear();
    return;
  }
  // Padded as the model was trained (an EOS-trained model never learnt <pad>'s embedding).
  ids = loaded_.english.encode(t.tokens, max_tokens + 2, loaded_.info.settings.padding(), &t.unknown);
}

std::vector<SentenceTranslation> Translator::translate(const std::vector<std::string>& sentences,
                                                       const DecodeOptions& decode) {
  std::vector<SentenceTranslation> results(sentences.size());
  std::vector<std::vector<std::int64_t>> rows;  // source ids of the translatable sentences
  std::vector<SentenceTranslation*> translatable;
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    results[i].input = sentences[i];
    std::vector<std::int64_t> ids;
    prepare(results[i], ids);
    if (!results[i].ok()) continue;
    rows.push_back(std::move(ids));
    translatable.push_back(&results[i]);
  }
  if (translatable.empty()) return results;
  const auto length = static_cast<std::int64_t>(rows.front().size());
  const auto src = torch::tensor(flatten(rows), torch::kLong)
                       .view({static_cast<std::int64_t>(rows.size()), length})
                       .to(device_);  // [N, L]
  const auto outputs = eval::translate(loaded_.model, src, data::Vocabulary::kSos, data::Vocabulary::kEos, decode);
  for (std::size_t k = 0; k < translatable.size(); ++k) {
    auto& t = *translatable[k];
    t.output_tokens = loaded_.spanish.decode(outputs[k]);
    t.output_words = loaded_.spanish_subwords ? loaded_.spanish_subwords->decode(t.output_tokens) : t.output_tokens;
    t.raw = data::join_words(t.output_words);
    t.text =
        data::detokenize(t.output_words, t.input, data::language_rules(loaded_.info.settings.data.target_language()));
  }
  if (scores_) score(translatable, src, std::max<std::int64_t>(1, decode.batch_size));
  return results;
}

SentenceTranslation Translator::translate(const std::string& sentence, const DecodeOptions& decode) {
  return std::move(translate(std::vector<std::string>{sentence}, decode).front());
}

torch::Tensor Translator::target_ids(const std::vector<std::string>& output_tokens) const {
  const int length = max_source_tokens() + 2;
  // A translation that filled every position has no EOS: SOS and as many tokens as fit.
  auto tokens = output_tokens;
  if (static_cast<int>(tokens.size()) > length - 2) {
    std::vector<std::int64_t> ids{data::Vocabulary::kSos};
    for (int i = 0; i < length - 1; ++i) ids.push_back(loaded_.spanish.index_of(tokens[static_cast<std::size_t>(i)]));
    return torch::tensor(ids, torch::kLong);
  }
  return torch::tensor(loaded_.spanish.encode(tokens, length, loaded_.info.settings.padding()), torch::kLong);
}

void Translator::score(const std::vector<SentenceTranslation*>& done, const torch::Tensor& src,
                       std::int64_t batch_size) {
  torch::NoGradGuard no_grad;
  const auto rows = static_cast<std::int64_t>(done.size());
  for (std::int64_t first = 0; first < rows; first += batch_size) {
    const auto count = std::min(batch_size, rows - first);
    std::vector<torch::Tensor> targets;
    for (std::int64_t k = first; k < first + count; ++k) {
      targets.push_back(target_ids(done[static_cast<std::size_t>(k)]->output_tokens));
    }
    const auto tgt = torch::stack(targets).to(device_);                               // [n, L]
    const auto log_probs = loaded_.model->forward(src.narrow(0, first, count), tgt);  // [n, L-1, V]
    // log p of target words 1..L-1, read at the target's own ids: [n, L-1]
    const auto picked = log_probs.gather(2, tgt.narrow(1, 1, tgt.size(1) - 1).unsqueeze(2)).squeeze(2);
    const auto picked_cpu = picked.to(torch::kCPU).to(torch::kDouble).contiguous();
    for (std::int64_t k = 0; k < count; ++k) {
      auto& t = *done[static_cast<std::size_t>(first + k)];
      // The output tokens and the EOS after them (when it fitted).
      const auto counted =
          std::min<std::int64_t>(static_cast<std::int64_t>(t.output_tokens.size()) + 1, picked_cpu.size(1));
      t.log_probability = picked_cpu[k].narrow(0, 0, counted).sum().item<double>();
    }
  }
}

TranslationAttention Translator::attention(const SentenceTranslation& t) {
  if (!t.ok()) throw std::invalid_argument("no attention for a sentence not translated: " + t.error);
  const int length = max_source_tokens() + 2;
  auto output = t.output_tokens;
  if (static_cast<int>(output.size()) > length - 2) output.resize(static_cast<std::size_t>(length - 2));
  const auto padding = loaded_.info.settings.padding();
  const auto src = torch::tensor(loaded_.english.encode(t.tokens, length, padding), torch::kLong).unsqueeze(0);
  const auto tgt = torch::tensor(loaded_.spanish.encode(output, length, padding), torch::kLong).unsqueeze(0);
  AttentionTrace trace;
  {
    torch::NoGradGuard no_grad;
    loaded_.model->forward(src.to(device_), tgt.to(device_), &trace);
  }
  TranslationAttention maps;
  maps.source = {"SOS"};
  maps.source.insert(maps.source.end(), t.tokens.begin(), t.tokens.end());
  maps.source.push_back("EOS");
  maps.target = {"SOS"};
  maps.target.insert(maps.target.end(), output.begin(), output.end());
  maps.target.push_back("EOS");
  // [1, H, Lq, Lk] per layer -> [H, rows, cols] cropped to the real tokens.
  const auto crop = [](const std::vector<torch::Tensor>& layers, std::size_t rows, std::size_t cols) {
    std::vector<torch::Tensor> cropped;
    for (const auto& layer : layers) {
      const auto r = std::min<std::int64_t>(static_cast<std::int64_t>(rows), layer.size(2));
      const auto c = std::min<std::int64_t>(static_cast<std::int64_t>(cols), layer.size(3));
      cropped.push_back(layer[0].narrow(1, 0, r).narrow(2, 0, c).to(torch::kCPU).to(torch::kFloat).contiguous());
    }
    return cropped;
  };
  maps.encoder_self = crop(trace.encoder_self, maps.source.size(), maps.source.size());
  maps.decoder_self = crop(trace.decoder_self, maps.target.size(), maps.target.size());
  maps.cross = crop(trace.decoder_cross, maps.target.size(), maps.source.size());
  return maps;
}

}  // namespace dls::eval
