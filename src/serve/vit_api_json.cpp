#include "dls/serve/vit_api_json.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <nlohmann/json.hpp>

#include "dls/serve/api_json.h"

namespace dls::serve {

namespace {

using nlohmann::json;

json rounded(const std::vector<double>& values) {
  json out = json::array();
  for (double v : values) out.push_back(round_significant(v, 5));
  return out;
}

}  // namespace

int parse_top_k(const std::string& text, int classes) {
  if (text.empty()) return std::min(5, classes);
  const bool digits =
      text.size() <= 4 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  const int k = digits ? std::stoi(text) : 0;
  if (k < 1 || k > 1000) throw ApiError(400, "\"top\" must be an integer between 1 and 1000, not \"" + text + "\"");
  return std::min(k, classes);
}

std::string classify_answer(const eval::ImageClassification& result, const eval::ImageClassifier& classifier, int top_k,
                            double decode_ms, double total_ms) {
  const auto& names = classifier.class_names();
  std::vector<std::size_t> order(result.probabilities.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return result.probabilities[a] > result.probabilities[b]; });
  json top = json::array();
  for (std::size_t i = 0; i < std::min<std::size_t>(order.size(), static_cast<std::size_t>(top_k)); ++i)
    top.push_back({{"class", names[order[i]]}, {"index", order[i]}, {"probability", result.probabilities[order[i]]}});
  json attention = json::array();
  for (const auto& layer : result.attention) {
    json heads = json::array();
    for (const auto& head : layer) heads.push_back(rounded(head));
    attention.push_back(std::move(heads));
  }
  const auto& config = classifier.config();
  const json answer = {{"class", names[static_cast<std::size_t>(result.predicted)]},
                       {"index", result.predicted},
                       {"top", std::move(top)},
                       {"probabilities", result.probabilities},
                       {"grid", config.grid_size()},
                       {"patch_size", config.patch_size()},
                       {"image_size", config.image_size()},
                       {"channels", config.channels()},
                       {"attention", std::move(attention)},
                       {"rollout", rounded(result.rollout)},
                       {"timings", {{"decode_ms", decode_ms}, {"model_ms", result.model_ms}, {"total_ms", total_ms}}}};
  return answer.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string vit_model_answer(const eval::ImageClassifier& classifier) {
  const auto& config = classifier.config();
  const auto& contents = classifier.contents();
  const auto& state = contents.state;
  json answer = {{"kind", "vit"},
                 {"checkpoint", classifier.checkpoint_file()},
                 {"summary", config.summary()},
                 {"encoder_layers", config.num_encoders()},
                 {"image_size", config.image_size()},
                 {"channels", config.channels()},
                 {"patch_size", config.patch_size()},
                 {"grid", config.grid_size()},
                 {"dataset", contents.settings.data.dataset},
                 {"classes", classifier.class_names()},
                 {"device", classifier.device().str()},
                 {"scores",
                  {{"epochs_done", state.epochs_done()},
                   {"global_step", state.global_step},
                   {"test_accuracy", contents.test_accuracy >= 0 ? json(contents.test_accuracy) : json(nullptr)}}}};
  answer.update(transformer_fields(config.transformer()));
  return answer.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace dls::serve
