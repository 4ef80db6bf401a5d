#include "dls/eval/lm_generation.h"

#include <algorithm>
#include <limits>
#include <random>

#include <torch/torch.h>

namespace dls::eval {

namespace {

// A uniform double in [0, 1) from 53 bits of the engine (the same on every platform).
double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// The token chosen from logits [V].
std::int64_t choose(const torch::Tensor& logits, const SamplingOptions& options, std::mt19937_64& rng) {
  if (options.temperature <= 0) return logits.argmax().item<std::int64_t>();
  return sample_rows(logits.unsqueeze(0), options, {uniform(rng)})[0].item<std::int64_t>();
}

// One token after another from a prompt: the sequence so far, the keys/values cached for
// it, the sampling RNG; the model in eval mode without gradients until it is destroyed.
class TokenStepper {
 public:
  TokenStepper(LanguageModel& model, const std::vector<std::int64_t>& prompt, const SamplingOptions& options)
      : model_(model),
        was_training_(model->is_training()),
        device_(model->parameters().front().device()),
        options_(options),
        rng_(options.seed),
        sequence_(prompt),
        caches_(static_cast<std::size_t>(model->config().num_decoders())) {
    model_->eval();
  }
  ~TokenStepper() { model_->train(was_training_); }

  std::size_t length() const { return sequence_.size(); }

  // Chooses the next token and appends it to `out`. cached: only the tokens not yet in the
  // caches run; else the last `window` tokens of the sequence run whole.
  std::int64_t step(bool cached, std::size_t window, Generation& out, const std::vector<std::int64_t>& never = {}) {
    torch::Tensor logits;  // [V]
    if (cached) {
      logits = model_->next_logits(row(fed_), caches_).squeeze(0);
      fed_ = sequence_.size();
    } else {
      const auto states =
          model_->final_states(row(sequence_.size() - std::min(window, sequence_.size())));  // [1, T, M]
      logits = model_->master_decoder->scores(states.select(1, states.size(1) - 1)).to(torch::kFloat).squeeze(0);
    }
    logits = logits.to(torch::kCPU);
    for (const auto id : never) logits[id] = -std::numeric_limits<float>::infinity();
    const auto token = choose(logits, options_, rng_);
    out.logits.push_back(logits);
    out.tokens.push_back(token);
    sequence_.push_back(token);
    return token;
  }

 private:
  torch::Tensor row(std::size_t from) const {  // tokens sequence[from..] as [1, T]
    return torch::tensor(
               std::vector<std::int64_t>(sequence_.begin() + static_cast<std::ptrdiff_t>(from), sequence_.end()),
               torch::kInt64)
        .unsqueeze(0)
        .to(device_);
  }

  torch::NoGradGuard no_grad_;
  LanguageModel& model_;
  bool was_training_;
  torch::Device device_;
  SamplingOptions options_;
  std::mt19937_64 rng_;
  std::vector<std::int64_t> sequence_;
  std::vector<KeyValueCache> caches_;
  std::size_t fed_ = 0;  // tokens already in the caches
};

}  // namespace

Generation generate(LanguageModel& model, const std::vector<std::int64_t>& prompt, std::int64_t eos,
                    const SamplingOptions& options, bool cached, const std::vector<std::int64_t>& never) {
  TORCH_CHECK(!prompt.empty(), "the prompt needs at least the SOS token");
  const std::int64_t capacity = model->config().transformer().max_seq_length();
  TORCH_CHECK(static_cast<std::int64_t>(prompt.size()) < capacity, "a prompt of ", prompt.size(),
              " tokens leaves no room in L = ", capacity);
  Generation out;
  TokenStepper stepper(model, prompt, options);
  while (static_cast<std::int64_t>(stepper.length()) < capacity) {
    if (stepper.step(cached, stepper.length(), out, never) == eos) break;
  }
  return out;
}

Generation continue_text(LanguageModel& model, const std::vector<std::int64_t>& prompt, std::int64_t count,
                         const SamplingOptions& options, bool cached, const std::vector<std::int64_t>& never) {
  TORCH_CHECK(!prompt.empty(), "continuing a text needs at least one token");
  const auto block = static_cast<std::size_t>(model->config().transformer().max_seq_length() - 1);
  Generation out;
  TokenStepper stepper(model, prompt, options);
  for (std::int64_t i = 0; i < count; ++i) stepper.step(cached && stepper.length() <= block, block, out, never);
  return out;
}

std::string continue_running_text(LanguageModel& model, const data::LmTokenizer& tokenizer,
                                  const data::Vocabulary& vocabulary, data::Language language,
                                  const std::string& prompt, std::int64_t count, const SamplingOptions& options,
                                  std::vector<std::string>* unknown) {
  const std::string line_end = tokenizer.characters ? "\n" : data::Vocabulary::kSpecialWords[data::Vocabulary::kEos];
  std::vector<std::string> tokens{line_end};
  const auto prompt_tokens =
      tokenizer.characters ? data::characters_of(prompt) : tokenizer.tokens(data::normalize_words(prompt, language));
  tokens.insert(tokens.end(), prompt_tokens.begin(), prompt_tokens.end());
  std::vector<std::int64_t> ids;
  for (const auto& token : tokens) {
    ids.push_back(vocabulary.index_of(token));
    if (ids.back() == data::Vocabulary::kUnk && unknown != nullptr) unknown->push_back(token);
  }
  // What running text never holds: SOS, <pad>, <unk> (every character or word trained on is in
  // the vocabulary) and, between characters, EOS.
  auto never = kNotInSentences;
  if (tokenizer.characters) never.push_back(data::Vocabulary::kEos);
  for (const auto id : continue_text(model, ids, count, options, true, never).tokens)
    tokens.push_back(vocabulary.word_at(id));
  std::string text;
  if (tokenizer.characters) {
    for (std::size_t i = 1; i < tokens.size(); ++i) text += tokens[i];
    return text;
  }
  std::vector<std::string> line;  // tokens since the last line break
  const auto end_line = [&](bool last) {
    text += data::join_words(tokenizer.words(line));
    if (!last) text += "\n";
    line.clear();
  };
  for (std::size_t i = 1; i < tokens.size(); ++i) {
    if (tokens[i] == line_end) {
      end_line(false);
    } else {
      line.push_back(tokens[i]);
    }
  }
  end_line(true);
  return text;
}

}  // namespace dls::eval
