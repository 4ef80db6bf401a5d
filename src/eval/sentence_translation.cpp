#include "dls/eval/sentence_translation.h"

#include <algorithm>
#include <filesystem>
#include <istream>
#include <ostream>
#include <stdexcept>

#include <spdlog/fmt/fmt.h>
#include <torch/torch.h>

#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/data/normalize.h"
#include "dls/eval/seq2seq_evaluation.h"
#include "dls/models/attention_trace.h"
#include "dls/util/heat_map.h"
#include "dls/util/json.h"
#include "dls/util/device.h"
#include "dls/util/runtime.h"
#include "dls/util/utf8.h"

namespace dls::eval {

namespace fs = std::filesystem;

namespace {

struct Translation {
  std::vector<std::string> words;               // normalised English words
  std::vector<std::string> tokens;              // what the model reads: the words, or their pieces
  std::vector<std::string> unknown;             // those not in the English vocabulary
  std::vector<std::string> translation_tokens;  // what the model wrote, no SOS/EOS
  std::vector<std::string> translation;         // Spanish words (detokenised)
};

Translation translate_sentence(checkpoint::LoadedSeq2Seq& loaded, const std::string& sentence,
                               const DecodeOptions& decode, const torch::Device& device) {
  if (!util::is_valid_utf8(sentence)) throw std::runtime_error("the sentence is not valid UTF-8");
  Translation t;
  t.words = data::normalize_english(sentence);
  if (t.words.empty()) throw std::runtime_error("no words left after normalisation");
  // Any length up to the model's positional range: L positions hold SOS, the tokens, EOS.
  const int max_len = static_cast<int>(loaded.model->config().transformer().max_seq_length());
  t.tokens = loaded.english_subwords ? loaded.english_subwords->encode(t.words) : t.words;
  if (static_cast<int>(t.tokens.size()) + 2 > max_len) {
    throw std::runtime_error(fmt::format(
        "{} {}, but this model translates at most {} (its positional range L = {} holds SOS, the {} and EOS; "
        "train with a larger --max-words)",
        t.tokens.size(), loaded.english_subwords ? "subword pieces" : "words", max_len - 2, max_len,
        loaded.english_subwords ? "pieces" : "words"));
  }
  // Padded as the model was trained (an EOS-trained model never learnt <pad>'s embedding).
  const auto ids = loaded.english.encode(t.tokens, max_len, loaded.info.training.padding(), &t.unknown);
  const auto src = torch::tensor(ids, torch::kLong).unsqueeze(0).to(device);  // [1, L]
  const auto out = decode_batch(loaded.model, src, data::Vocabulary::kSos, data::Vocabulary::kEos, decode);
  t.translation_tokens = loaded.spanish.decode(out.front());
  t.translation =
      loaded.spanish_subwords ? loaded.spanish_subwords->decode(t.translation_tokens) : t.translation_tokens;
  return t;
}

// Heat maps of every layer and head of one translation: encoder self-attention (English x
// English), decoder self-attention (Spanish x Spanish) and cross-attention (Spanish x
// English), cropped to the real tokens.
std::vector<std::string> save_translation_attention_maps(checkpoint::LoadedSeq2Seq& loaded, const Translation& t,
                                                         const torch::Device& device, const std::string& dir) {
  const int max_len = static_cast<int>(loaded.model->config().transformer().max_seq_length());
  auto spanish = t.translation_tokens;
  if (static_cast<int>(spanish.size()) > max_len - 2) spanish.resize(static_cast<std::size_t>(max_len - 2));
  const auto padding = loaded.info.training.padding();
  const auto src =
      torch::tensor(loaded.english.encode(t.tokens, max_len, padding), torch::kLong).unsqueeze(0).to(device);
  const auto tgt =
      torch::tensor(loaded.spanish.encode(spanish, max_len, padding), torch::kLong).unsqueeze(0).to(device);
  AttentionTrace trace;
  {
    torch::NoGradGuard no_grad;
    loaded.model->eval();
    loaded.model->forward(src, tgt, &trace);
  }
  std::vector<std::string> en{"SOS"}, es{"SOS"};
  en.insert(en.end(), t.tokens.begin(), t.tokens.end());
  en.push_back("EOS");
  es.insert(es.end(), spanish.begin(), spanish.end());
  es.push_back("EOS");

  fs::create_directories(dir);
  std::vector<std::string> written;
  const auto save = [&](const std::vector<torch::Tensor>& layers, const std::string& name,
                        const std::vector<std::string>& rows, const std::vector<std::string>& cols) {
    for (std::size_t layer = 0; layer < layers.size(); ++layer) {
      const auto weights = layers[layer].to(torch::kCPU).to(torch::kDouble);  // [1, H, Lq, Lk]
      const auto r = std::min<std::int64_t>(static_cast<std::int64_t>(rows.size()), weights.size(2));
      const auto c = std::min<std::int64_t>(static_cast<std::int64_t>(cols.size()), weights.size(3));
      for (std::int64_t head = 0; head < weights.size(1); ++head) {
        const auto m = weights[0][head].narrow(0, 0, r).narrow(1, 0, c).contiguous();
        std::vector<double> values(m.data_ptr<double>(), m.data_ptr<double>() + r * c);
        const auto path = (fs::path(dir) / fmt::format("{}_layer{}_head{}.png", name, layer + 1, head + 1)).string();
        util::HeatMap(values, static_cast<int>(r), static_cast<int>(c))
            .title(fmt::format("{}, layer {}, head {}", name, layer + 1, head + 1))
            .row_labels(std::vector<std::string>(rows.begin(), rows.begin() + r))
            .col_labels(std::vector<std::string>(cols.begin(), cols.begin() + c))
            .y_label("query")
            .x_label("key")
            .save(path);
        written.push_back(path);
      }
    }
  };
  save(trace.encoder_self, "encoder_self", en, en);
  save(trace.decoder_self, "decoder_self", es, es);
  save(trace.decoder_cross, "cross", es, en);
  return written;
}

void write_translation_json(std::ostream& out, const std::string& sentence, const Translation* t,
                            const std::string& error) {
  util::JsonWriter json;
  json.begin_object().key("input").value(sentence);
  if (t != nullptr) {
    json.key("normalised").value(data::join_words(t->words)).key("unknown_words").begin_array();
    for (const auto& w : t->unknown) json.value(w);
    json.end_array().key("translation").value(data::join_words(t->translation));
  } else {
    json.key("error").value(error);
  }
  json.end_object();
  out << json.str() << std::endl;
}

}  // namespace

std::size_t translate_sentences(const std::string& checkpoint_file, const TranslateRequest& request,
                                std::istream& input, std::ostream& out, std::ostream& messages) {
  util::RuntimeOptions runtime;
  runtime.threads = request.threads;
  util::configure_runtime(runtime);
  const auto device = util::select_device(request.device);
  auto loaded = checkpoint::load_seq2seq_checkpoint(checkpoint_file, request.weights);
  loaded.model->to(device);
  messages << "translating with " << checkpoint_file << " (" << loaded.info.model.summary() << ")\n";

  std::size_t failures = 0;
  bool first = true;
  const auto handle = [&](const std::string& sentence) {
    try {
      const auto t = translate_sentence(loaded, sentence, request.decode, device);
      if (!t.unknown.empty()) {
        messages << "unknown words (translated as <unk>): " << data::join_words(t.unknown) << "\n";
      }
      if (request.json) {
        write_translation_json(out, sentence, &t, "");
      } else {
        out << data::join_words(t.translation) << std::endl;
      }
      if (first && !request.attention_maps_dir.empty()) {
        const auto files = save_translation_attention_maps(loaded, t, device, request.attention_maps_dir);
        messages << "wrote " << files.size() << " attention maps to " << request.attention_maps_dir << "\n";
      }
    } catch (const std::exception& e) {
      ++failures;
      messages << "error: \"" << sentence << "\": " << e.what() << "\n";
      if (request.json) write_translation_json(out, sentence, nullptr, e.what());
    }
    first = false;
  };
  for (const auto& sentence : request.sentences) handle(sentence);
  if (request.interactive) {
    std::string line;
    while (true) {
      if (request.prompt) messages << "english> " << std::flush;
      if (!std::getline(input, line)) break;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      handle(line);
    }
  }
  return failures;
}

}  // namespace dls::eval
