#include "dls/eval/translator.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string_view>

#include <spdlog/fmt/fmt.h>
#include <torch/torch.h>

#include "dls/checkpoint/run_id.h"
#include "dls/data/detokenize.h"
#include "dls/data/languages.h"
#include "dls/data/normalize.h"
#include "dls/eval/long_sentences.h"
#include "dls/eval/unknown_words.h"
#include "dls/eval/word_alignment.h"
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

// Where a decoded row's output goes: a sentence translated whole, or one part of it.
struct RowOwner {
  SentenceTranslation* sentence;
  int part;  // -1: the whole sentence
  Translator::TokenList& output() const {
    return part < 0 ? sentence->output_tokens : sentence->parts[static_cast<std::size_t>(part)].output_tokens;
  }
  const Translator::TokenList& source() const {
    return part < 0 ? sentence->tokens : sentence->parts[static_cast<std::size_t>(part)].tokens;
  }
};

// Per layer [H, r_k, c_k] maps of each part -> [H, sum rows_k, sum cols_k], the parts along the
// diagonal, part k's block at the offsets of its labels (rows_k and cols_k of them). A block can
// be smaller than its labels -- a translation that filled every position has no query after its
// last token -- and keeps zeros there, so that every later part's rows stay under its own labels.
std::vector<torch::Tensor> block_diagonal(const std::vector<std::vector<torch::Tensor>>& parts,
                                          const std::vector<std::int64_t>& rows_k,
                                          const std::vector<std::int64_t>& cols_k) {
  std::vector<torch::Tensor> layers;
  const auto rows = std::accumulate(rows_k.begin(), rows_k.end(), std::int64_t{0});
  const auto cols = std::accumulate(cols_k.begin(), cols_k.end(), std::int64_t{0});
  for (std::size_t layer = 0; layer < parts.front().size(); ++layer) {
    auto joined = torch::zeros({parts.front()[layer].size(0), rows, cols}, torch::kFloat);
    std::int64_t r = 0, c = 0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
      const auto& block = parts[k][layer];
      const auto height = std::min(block.size(1), rows_k[k]), width = std::min(block.size(2), cols_k[k]);
      joined.narrow(1, r, height).narrow(2, c, width).copy_(block.narrow(1, 0, height).narrow(2, 0, width));
      r += rows_k[k], c += cols_k[k];
    }
    layers.push_back(joined);
  }
  return layers;
}

// Each part's [layers][H, rows_k] one after another along the rows (zero where a part has
// fewer rows than its labels) -> [layers][H, sum rows_k].
std::vector<torch::Tensor> stacked_rows(const std::vector<std::vector<torch::Tensor>>& parts,
                                        const std::vector<std::int64_t>& rows_k) {
  std::vector<torch::Tensor> layers;
  const auto rows = std::accumulate(rows_k.begin(), rows_k.end(), std::int64_t{0});
  for (std::size_t layer = 0; layer < parts.front().size(); ++layer) {
    auto joined = torch::zeros({parts.front()[layer].size(0), rows}, torch::kFloat);
    std::int64_t r = 0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
      const auto& block = parts[k][layer];
      const auto height = std::min(block.size(1), rows_k[k]);
      joined.narrow(1, r, height).copy_(block.narrow(1, 0, height));
      r += rows_k[k];
    }
    layers.push_back(joined);
  }
  return layers;
}

// "sentence ends, clause marks": where split_to_fit() cut.
std::string cut_places(const SplitSource& split) {
  std::vector<std::string> places;
  if (split.at_sentences) places.emplace_back("sentence ends");
  if (split.at_clauses) places.emplace_back("clause marks");
  if (split.at_word_limit || places.empty()) places.emplace_back("the word limit");
  std::string text;
  for (const auto& place : places) text += (text.empty() ? "" : ", ") + place;
  return text;
}

// The dlstudio layout: weights that span exactly L positions.
bool flattened(const TranslationModel& model) {
  return !model.is_rnn() && model.transformer()->config().transformer().flattened();
}

// What keeps `member` from decoding in an ensemble with `model` (they must read and write the
// same tokens, at the same positions, padded alike), or nullptr when nothing does.
const char* ensemble_mismatch(const checkpoint::LoadedSeq2Seq& member, const checkpoint::LoadedSeq2Seq& model) {
  const auto proto = [](const std::optional<data::SubwordModel>& subwords) {
    return subwords ? subwords->serialized_proto() : std::string();
  };
  if (member.english.words() != model.english.words()) return "source vocabulary";
  if (member.spanish.words() != model.spanish.words()) return "target vocabulary";
  if (proto(member.english_subwords) != proto(model.english_subwords) ||
      proto(member.spanish_subwords) != proto(model.spanish_subwords))
    return "subword model";
  if (member.model.max_seq_length() != model.model.max_seq_length()) return "length L";
  if (flattened(member.model) != flattened(model.model)) return "layout";
  if (member.info.settings.padding() != model.info.settings.padding()) return "padding";
  return nullptr;
}

// The output `words` of `tokens` for people: the words that replaced an <unk> (`tokens` in
// `aligned`) spelt as in the source sentence `input` ("Tom", not "tom").
std::vector<std::string> shown_words(const checkpoint::LoadedSeq2Seq& loaded, const Translator::TokenList& tokens,
                                     const std::vector<std::string>& words,
                                     const std::map<const Translator::TokenList*, std::vector<AlignmentPoint>>& aligned,
                                     const std::string& input) {
  if (aligned.find(&tokens) == aligned.end()) return words;
  const auto decoded = loaded.spanish_subwords ? loaded.spanish_subwords->decode(tokens) : tokens;
  return spelt_as_source(decoded, words, input, data::language_rules(loaded.info.settings.data.source_language()));
}

}  // namespace

Translator Translator::load(const std::string& checkpoint_or_run, const TranslatorOptions& options) {
  return load(checkpoint::open_run_checkpoint(checkpoint_or_run, checkpoint::kSeq2SeqKind), options);
}

Translator Translator::load(const checkpoint::CheckpointReader& reader, const TranslatorOptions& options) {
  reader.check_kind(checkpoint::kSeq2SeqKind);
  return Translator(checkpoint::load_seq2seq_checkpoint(reader, options.weights), reader.path(), options);
}

Translator::Translator(checkpoint::LoadedSeq2Seq loaded, std::string checkpoint_file, const TranslatorOptions& options)
    : loaded_(std::move(loaded)),
      checkpoint_file_(std::move(checkpoint_file)),
      device_(options.device.empty() ? loaded_.model.module().parameters().front().device()
                                     : util::select_device(options.device)),
      scores_(options.scores) {
  loaded_.model.module().to(device_);
  models_.push_back(loaded_.model);
  for (const auto& other : options.ensemble) {
    const auto reader = checkpoint::open_run_checkpoint(other, checkpoint::kSeq2SeqKind);
    const auto& file = reader.path();
    auto member = checkpoint::load_seq2seq_checkpoint(reader, options.weights);
    const char* differs = ensemble_mismatch(member, loaded_);
    if (differs != nullptr) {
      throw std::invalid_argument(file + ": its " + std::string(differs) + " differs from " + checkpoint_file_ +
                                  "'s; an ensemble needs checkpoints of one run (or runs on the same data)");
    }
    member.model.module().to(device_);
    member.model.module().eval();
    models_.push_back(member.model);
    ensemble_files_.push_back(file);
  }
  loaded_.model.module().eval();
}

void Translator::check_decoding(const DecodeOptions& decode) const {
  if (decode.method == DecodeMethod::kDLStudioOneShot && loaded_.model.is_rnn()) {
    throw std::invalid_argument("DLStudio's one-shot decoding reads a transformer's outputs only (" +
                                loaded_.model.name() + ")");
  }
}

int Translator::max_source_tokens() const { return static_cast<int>(loaded_.model.max_seq_length()) - 2; }

bool Translator::splits_long_sentences() const { return flattened(loaded_.model); }

int Translator::max_whole_source_tokens() const {
  return splits_long_sentences() ? 0 : kWholeSentenceFactor * max_source_tokens();
}

void Translator::prepare(SentenceTranslation& t) const {
  if (!util::is_valid_utf8(t.input)) {
    t.error = "the sentence is not valid UTF-8";
    return;
  }
  t.words = data::normalize_words(t.input, data::language_rules(loaded_.info.settings.data.source_language()));
  if (t.words.empty()) {
    t.error = kNoWordsError;
    return;
  }
  t.tokens = loaded_.english_subwords ? loaded_.english_subwords->encode(t.words) : t.words;
}

std::size_t Translator::count_source_tokens(const std::string& sentence) const {
  SentenceTranslation t;
  t.input = sentence;
  prepare(t);
  return t.tokens.size();
}

std::vector<std::int64_t> Translator::source_ids(const TokenList& tokens, std::vector<std::string>* unknown) const {
  // Padded as the model was trained (an EOS-trained model never learnt <pad>'s embedding).
  const int length = std::max(max_source_tokens(), static_cast<int>(tokens.size())) + 2;
  return loaded_.english.encode(tokens, length, loaded_.info.settings.padding(), unknown);
}

std::vector<SentenceTranslation> Translator::translate(const std::vector<std::string>& sentences,
                                                       const DecodeOptions& decode) {
  check_decoding(decode);
  std::vector<SentenceTranslation> results(sentences.size());
  std::vector<SplitSource> splits(sentences.size());               // the sentences translated in parts
  std::vector<std::vector<std::int64_t>> rows;                     // [L] source ids of what fits the model
  std::vector<RowOwner> owners;                                    // whose output each row is
  std::vector<SentenceTranslation*> whole;                         // longer than L - 2, decoded alone
  std::map<SentenceTranslation*, std::vector<Hypothesis>> n_best;  // decode.n_best > 1: the hypotheses
  UnknownAlignments aligned;                                       // decode.replace_unknown
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    auto& t = results[i];
    t.input = sentences[i];
    prepare(t);
    if (!t.ok()) continue;
    if (static_cast<int>(t.tokens.size()) <= max_source_tokens()) {
      rows.push_back(source_ids(t.tokens, &t.unknown));
      owners.push_back({&t, -1});
    } else if (static_cast<int>(t.tokens.size()) <= max_whole_source_tokens()) {
      whole.push_back(&t);
    } else {
      auto part_rows = split_rows(t, splits[i]);
      for (std::size_t k = 0; k < part_rows.size(); ++k) {
        rows.push_back(std::move(part_rows[k]));
        owners.push_back({&t, static_cast<int>(k)});
      }
    }
  }
  if (!rows.empty()) {
    const auto length = static_cast<std::int64_t>(rows.front().size());
    const auto src = torch::tensor(flatten(rows), torch::kLong)
                         .view({static_cast<std::int64_t>(rows.size()), length})
                         .to(device_);  // [N, L]
    auto outputs = this->decode(src, decode);
    std::vector<const TokenList*> written;
    std::vector<double> decoded_scores;  // each row's best, before n_best takes its hypotheses
    for (std::size_t k = 0; k < owners.size(); ++k) {
      owners[k].output() = loaded_.spanish.decode(outputs[k].front().words);
      decoded_scores.push_back(outputs[k].front().log_probability);
      written.push_back(&owners[k].output());
      if (owners[k].part < 0 && decode.n_best > 1) n_best[owners[k].sentence] = std::move(outputs[k]);
    }
    if (decode.replace_unknown) {
      std::vector<const TokenList*> sources;
      for (const auto& owner : owners) sources.push_back(&owner.source());
      const auto found = unknown_word_alignments(loaded_.model, src, sources, written, loaded_.spanish,
                                                 std::max(length, decode.max_length), batch_rows(decode));
      for (std::size_t k = 0; k < owners.size(); ++k) {
        if (!found[k].empty()) aligned[written[k]] = found[k];
      }
    }
    if (scores_ && decoded_scores_apply(decode)) {
      for (std::size_t k = 0; k < owners.size(); ++k) {
        auto& total = owners[k].sentence->log_probability;
        total = owners[k].part <= 0 ? decoded_scores[k] : total + decoded_scores[k];
      }
    } else if (scores_) {
      const auto scores = log_probabilities(src, written, length, batch_rows(decode));
      for (std::size_t k = 0; k < owners.size(); ++k) {
        auto& total = owners[k].sentence->log_probability;
        total = owners[k].part <= 0 ? scores[k] : total + scores[k];
      }
    }
  }
  for (auto* t : whole) n_best[t] = translate_whole(*t, decode, aligned);
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i].ok()) finish(results[i], splits[i], aligned);
  }
  for (auto& [t, hypotheses] : n_best) {
    if (decode.n_best <= 1) continue;
    std::vector<TokenList> outputs;
    for (const auto& h : hypotheses) outputs.push_back(loaded_.spanish.decode(h.words));
    const auto aligned_n_best = decode.replace_unknown ? n_best_alignments(*t, outputs, decode) : UnknownAlignments{};
    for (std::size_t k = 0; k < hypotheses.size(); ++k) {
      t->n_best.push_back(alternative(*t, outputs[k], aligned_n_best));
      t->n_best.back().log_probability = hypotheses[k].log_probability;
    }
  }
  // A sentence translated in parts has one entry: the parts' best, joined (each part's n best
  // would not combine into whole-sentence alternatives).
  for (auto& t : results) {
    if (decode.n_best > 1 && t.ok() && !t.parts.empty()) t.n_best.push_back({t.text, t.raw, t.log_probability});
  }
  return results;
}

bool Translator::decoded_scores_apply(const DecodeOptions& decode) const {
  return models_.size() == 1 && decode.method != DecodeMethod::kDLStudioOneShot;
}

std::vector<std::vector<Hypothesis>> Translator::decode(const torch::Tensor& src, const DecodeOptions& decode) const {
  auto options = decode;
  options.scores = scores_ && decoded_scores_apply(decode);
  return translate_n_best(models_, src, data::Vocabulary::kSos, data::Vocabulary::kEos, options);
}

std::int64_t Translator::batch_rows(const DecodeOptions& decode) {
  return std::max<std::int64_t>(1, decode.batch_size);
}

std::vector<std::string> Translator::source_words(const TokenList& tokens) const {
  return loaded_.english_subwords ? loaded_.english_subwords->decode(tokens) : tokens;
}

std::vector<std::string> Translator::output_words(const TokenList& tokens, const UnknownAlignments& aligned,
                                                  const TokenList& source) const {
  auto words = loaded_.spanish_subwords ? loaded_.spanish_subwords->decode(tokens) : tokens;
  const auto found = aligned.find(&tokens);
  if (found != aligned.end()) replace_unknown_words(words, source_words(source), found->second);
  return words;
}

Translator::UnknownAlignments Translator::n_best_alignments(const SentenceTranslation& t,
                                                            const std::vector<TokenList>& outputs,
                                                            const DecodeOptions& decode) const {
  const auto rows = static_cast<std::int64_t>(outputs.size());
  const auto src =
      torch::tensor(source_ids(t.tokens), torch::kLong).unsqueeze(0).expand({rows, -1}).to(device_);  // [K, S]
  const auto positions = std::max(decode_positions(static_cast<std::int64_t>(t.tokens.size()), max_source_tokens() + 2),
                                  decode.max_length);
  std::vector<const TokenList*> sources(outputs.size(), &t.tokens), written;
  for (const auto& output : outputs) written.push_back(&output);
  const auto found =
      unknown_word_alignments(loaded_.model, src, sources, written, loaded_.spanish, positions, batch_rows(decode));
  UnknownAlignments aligned;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    if (!found[k].empty()) aligned[written[k]] = found[k];
  }
  return aligned;
}

Alternative Translator::alternative(const SentenceTranslation& t, const TokenList& tokens,
                                    const UnknownAlignments& aligned) const {
  const auto words = output_words(tokens, aligned, t.tokens);
  Alternative a;
  a.raw = data::join_words(words);
  const auto& data = loaded_.info.settings.data;
  a.text = data::detokenize(shown_words(loaded_, tokens, words, aligned, t.input), t.input, data.source_language(),
                            data.target_language());
  return a;
}

std::vector<std::vector<std::int64_t>> Translator::split_rows(SentenceTranslation& t, SplitSource& split) const {
  const auto language = data::language_rules(loaded_.info.settings.data.source_language());
  const auto tokenize = [&](std::string_view text) {
    const auto words = data::normalize_words(text, language);
    return loaded_.english_subwords ? loaded_.english_subwords->encode(words) : words;
  };
  const auto limit = static_cast<std::size_t>(max_source_tokens());
  split = split_to_fit(t.input, tokenize, limit);
  std::vector<std::vector<std::int64_t>> rows;
  for (const auto& part : split.parts) {
    rows.push_back(source_ids(part.tokens, &t.unknown));
    t.parts.push_back({part.tokens, {}});
  }
  const auto why = splits_long_sentences()
                       ? fmt::format("the {} this model reads at once (its dlstudio layout spans L = {} positions)",
                                     limit, limit + 2)
                       : fmt::format("the {} this model translates whole ({} times the {} it was trained on)",
                                     max_whole_source_tokens(), kWholeSentenceFactor, limit);
  t.note = fmt::format("{} {}, more than {}: translated in {} parts, cut at {}, and joined", t.tokens.size(),
                       loaded_.english_subwords ? "subword pieces" : "words", why, t.parts.size(), cut_places(split));
  return rows;
}

void Translator::finish(SentenceTranslation& t, const SplitSource& split, const UnknownAlignments& aligned) const {
  const auto& source = loaded_.info.settings.data.source_language();
  const auto& target = loaded_.info.settings.data.target_language();
  if (t.parts.empty()) {
    t.output_words = output_words(t.output_tokens, aligned, t.tokens);
    t.text = data::detokenize(shown_words(loaded_, t.output_tokens, t.output_words, aligned, t.input), t.input, source,
                              target);
  } else {
    std::vector<std::vector<std::string>> part_words;
    for (const auto& part : t.parts) {
      t.output_tokens.insert(t.output_tokens.end(), part.output_tokens.begin(), part.output_tokens.end());
      const auto words = output_words(part.output_tokens, aligned, part.tokens);
      t.output_words.insert(t.output_words.end(), words.begin(), words.end());
      part_words.push_back(shown_words(loaded_, part.output_tokens, words, aligned, t.input));
    }
    t.text = join_parts(split, part_words, source, target);
  }
  t.raw = data::join_words(t.output_words);
}

std::vector<Hypothesis> Translator::translate_whole(SentenceTranslation& t, const DecodeOptions& decode,
                                                    UnknownAlignments& aligned) {
  const auto n = static_cast<std::int64_t>(t.tokens.size());
  auto options = decode;
  options.max_length = decode_positions(n, max_source_tokens() + 2);
  const auto src = torch::tensor(source_ids(t.tokens, &t.unknown), torch::kLong).unsqueeze(0).to(device_);  // [1, n+2]
  auto hypotheses = std::move(this->decode(src, options).front());
  t.output_tokens = loaded_.spanish.decode(hypotheses.front().words);
  if (decode.replace_unknown && has_unknown(t.output_tokens)) {
    aligned[&t.output_tokens] = unknown_word_alignments(loaded_.model, src, {&t.tokens}, {&t.output_tokens},
                                                        loaded_.spanish, options.max_length, 1)
                                    .front();
  }
  if (scores_) {
    t.log_probability = decoded_scores_apply(decode)
                            ? hypotheses.front().log_probability
                            : log_probabilities(src, {&t.output_tokens}, options.max_length, 1).front();
  }
  t.note = fmt::format("{} {}, more than the {} this model was trained on: translated whole (up to {} {} out)", n,
                       loaded_.english_subwords ? "subword pieces" : "words", max_source_tokens(),
                       options.max_length - 2, loaded_.spanish_subwords ? "pieces" : "words");
  return hypotheses;
}

SentenceTranslation Translator::translate(const std::string& sentence, const DecodeOptions& decode) {
  return std::move(translate(std::vector<std::string>{sentence}, decode).front());
}

torch::Tensor Translator::target_ids(const TokenList& output_tokens, std::int64_t max_length) const {
  // As many positions as the model was trained on, more for a longer output (up to max_length).
  const auto wanted = static_cast<std::int64_t>(output_tokens.size()) + 2;
  const auto length = static_cast<int>(std::max<std::int64_t>(max_source_tokens() + 2, std::min(wanted, max_length)));
  // A translation that filled every position has no EOS: SOS and as many tokens as fit.
  if (wanted > length) {
    std::vector<std::int64_t> ids{data::Vocabulary::kSos};
    for (int i = 0; i < length - 1; ++i)
      ids.push_back(loaded_.spanish.index_of(output_tokens[static_cast<std::size_t>(i)]));
    return torch::tensor(ids, torch::kLong);
  }
  return torch::tensor(loaded_.spanish.encode(output_tokens, length, loaded_.info.settings.padding()), torch::kLong);
}

std::vector<double> Translator::log_probabilities(const torch::Tensor& src,
                                                  const std::vector<const TokenList*>& outputs, std::int64_t max_length,
                                                  std::int64_t batch_size) {
  torch::NoGradGuard no_grad;
  std::vector<double> result;
  const auto rows = static_cast<std::int64_t>(outputs.size());
  for (std::int64_t first = 0; first < rows; first += batch_size) {
    const auto count = std::min(batch_size, rows - first);
    std::vector<torch::Tensor> targets;
    for (std::int64_t k = first; k < first + count; ++k) {
      targets.push_back(target_ids(*outputs[static_cast<std::size_t>(k)], max_length));
    }
    const auto tgt = torch::stack(targets).to(device_);                                        // [n, T]
    const auto log_probs = loaded_.model.log_probabilities(src.narrow(0, first, count), tgt);  // [n, T-1, V]
    // log p of target words 1..T-1, read at the target's own ids: [n, T-1]
    const auto picked = log_probs.gather(2, tgt.narrow(1, 1, tgt.size(1) - 1).unsqueeze(2)).squeeze(2);
    const auto picked_cpu = picked.to(torch::kCPU).to(torch::kDouble).contiguous();
    for (std::int64_t k = 0; k < count; ++k) {
      // The output tokens and the EOS after them (when it fitted).
      const auto counted = std::min<std::int64_t>(
          static_cast<std::int64_t>(outputs[static_cast<std::size_t>(first + k)]->size()) + 1, picked_cpu.size(1));
      result.push_back(picked_cpu[k].narrow(0, 0, counted).sum().item<double>());
    }
  }
  return result;
}

std::vector<AlignmentPoint> Translator::alignment(const SentenceTranslation& t) { return hard_alignment(attention(t)); }

TranslationAttention Translator::attention(const SentenceTranslation& t) {
  if (!t.ok()) throw std::invalid_argument("no attention for a sentence not translated: " + t.error);
  if (t.parts.empty()) return attention_of(t.tokens, t.output_tokens);
  TranslationAttention maps;
  std::vector<std::vector<torch::Tensor>> encoder_self, decoder_self, cross, encoder_self_rest, decoder_self_rest,
      cross_rest;
  std::vector<std::int64_t> sources, targets;  // each part's labels
  for (const auto& part : t.parts) {
    auto one = attention_of(part.tokens, part.output_tokens);
    maps.source.insert(maps.source.end(), one.source.begin(), one.source.end());
    maps.target.insert(maps.target.end(), one.target.begin(), one.target.end());
    maps.written.insert(maps.written.end(), one.written.begin(), one.written.end());
    sources.push_back(static_cast<std::int64_t>(one.source.size()));
    targets.push_back(static_cast<std::int64_t>(one.target.size()));
    encoder_self.push_back(std::move(one.encoder_self));
    decoder_self.push_back(std::move(one.decoder_self));
    cross.push_back(std::move(one.cross));
    encoder_self_rest.push_back(std::move(one.encoder_self_rest));
    decoder_self_rest.push_back(std::move(one.decoder_self_rest));
    cross_rest.push_back(std::move(one.cross_rest));
  }
  maps.encoder_self = block_diagonal(encoder_self, sources, sources);
  maps.decoder_self = block_diagonal(decoder_self, targets, targets);
  maps.cross = block_diagonal(cross, targets, sources);
  maps.encoder_self_rest = stacked_rows(encoder_self_rest, sources);
  maps.decoder_self_rest = stacked_rows(decoder_self_rest, targets);
  maps.cross_rest = stacked_rows(cross_rest, targets);
  return maps;
}

TranslationAttention Translator::attention_of(const TokenList& tokens, const TokenList& output_tokens) {
  // The positions decoding had: L, more for a longer sentence (decode_positions()).
  const auto capacity = decode_positions(static_cast<std::int64_t>(tokens.size()), max_source_tokens() + 2);
  // A translation that filled every position has capacity - 1 tokens and no EOS.
  auto output = output_tokens;
  if (static_cast<std::int64_t>(output.size()) > capacity - 1) output.resize(static_cast<std::size_t>(capacity - 1));
  const bool ended = static_cast<std::int64_t>(output.size()) < capacity - 1;
  const auto src = torch::tensor(source_ids(tokens), torch::kLong).unsqueeze(0);
  const auto tgt = target_ids(output, capacity).unsqueeze(0);
  AttentionTrace trace;
  torch::Tensor rnn_weights;  // an RNN's one attention per step: [1, T-1, S]
  {
    torch::NoGradGuard no_grad;
    if (loaded_.model.is_rnn()) {
      loaded_.model.rnn()->forward_with_attention(src.to(device_), tgt.narrow(1, 0, tgt.size(1) - 1).to(device_),
                                                  &rnn_weights);
      trace.decoder_cross.push_back(rnn_weights.unsqueeze(1));  // as one layer of one head: [1, 1, T-1, S]
    } else {
      loaded_.model.transformer()->forward(src.to(device_), tgt.to(device_), &trace);
    }
  }
  TranslationAttention maps;
  maps.recurrent = loaded_.model.is_rnn();
  maps.source = {"SOS"};
  maps.source.insert(maps.source.end(), tokens.begin(), tokens.end());
  maps.source.push_back("EOS");
  // A row per step that wrote a token: the output's, and the EOS's when it ended. (The pass
  // also has a row for the EOS read, or the last token read, which writes nothing kept.)
  maps.written = output;
  if (ended) maps.written.push_back("EOS");
  maps.target = {"SOS"};
  maps.target.insert(maps.target.end(), output.begin(), output.end());
  maps.target.resize(maps.written.size());
  // [1, H, Lq, Lk] per layer -> [H, rows, cols] cropped to the real tokens, and [H, rows]: the
  // weight each row gives to the keys left out (padding; the dlstudio decoder's zeroed keys).
  const auto crop = [](const std::vector<torch::Tensor>& layers, std::size_t rows, std::size_t cols,
                       std::vector<torch::Tensor>& cropped, std::vector<torch::Tensor>& rest) {
    for (const auto& layer : layers) {
      const auto r = std::min<std::int64_t>(static_cast<std::int64_t>(rows), layer.size(2));
      const auto c = std::min<std::int64_t>(static_cast<std::int64_t>(cols), layer.size(3));
      cropped.push_back(layer[0].narrow(1, 0, r).narrow(2, 0, c).to(torch::kCPU).to(torch::kFloat).contiguous());
      rest.push_back((1 - cropped.back().sum(-1)).clamp_min(0));
    }
  };
  crop(trace.encoder_self, maps.source.size(), maps.source.size(), maps.encoder_self, maps.encoder_self_rest);
  const auto steps = maps.written.size();
  crop(trace.decoder_self, steps, steps, maps.decoder_self, maps.decoder_self_rest);
  crop(trace.decoder_cross, steps, maps.source.size(), maps.cross, maps.cross_rest);
  return maps;
}

}  // namespace dls::eval
