#include "dls/data/split.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <unordered_map>

#include "dls/data/normalize.h"
#include "dls/util/digest.h"

namespace dls::data {

namespace {

// Uniform in [0, bound) by rejection: values below 2^64 mod bound are redrawn, so every
// residue is reached by the same number of 64-bit values.
std::uint64_t bounded(std::mt19937_64& rng, std::uint64_t bound) {
  const std::uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
  while (true) {
    const std::uint64_t value = rng();
    if (value >= threshold) return value % bound;
  }
}

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%016llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

std::uint64_t corpus_fingerprint(const std::vector<SentencePair>& pairs) {
  std::uint64_t hash = util::kDigestStart;
  for (const SentencePair& pair : pairs) {
    hash = util::digest(hash, join_words(pair.english) + '\t' + join_words(pair.spanish) + '\n');
  }
  return hash;
}

std::size_t validation_size(std::size_t pairs, double fraction, std::size_t cap) {
  if (fraction <= 0) return cap;
  const auto share = static_cast<std::size_t>(std::llround(fraction * static_cast<double>(pairs)));
  return std::min(cap, std::max<std::size_t>(share, pairs > 1 ? 1 : 0));
}

CorpusSplit split_by_english(const std::vector<SentencePair>& pairs, std::uint64_t seed, std::size_t validation_pairs) {
  if (validation_pairs >= pairs.size() && validation_pairs > 0) {
    throw std::invalid_argument("split: " + std::to_string(validation_pairs) +
                                " validation pairs requested from a corpus of " + std::to_string(pairs.size()) +
                                " pairs leave no training pair");
  }
  // Groups of pair indices sharing an English sentence, in order of first appearance.
  std::vector<std::vector<std::size_t>> groups;
  std::unordered_map<std::string, std::size_t> group_of;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto [found, inserted] = group_of.emplace(join_words(pairs[i].english), groups.size());
    if (inserted) groups.emplace_back();
    groups[found->second].push_back(i);
  }

  std::mt19937_64 rng(seed);
  for (std::size_t i = groups.size(); i > 1; --i) {
    const std::uint64_t j = bounded(rng, i);
    std::swap(groups[i - 1], groups[static_cast<std::size_t>(j)]);
  }

  std::vector<bool> in_validation(pairs.size(), false);
  std::size_t taken = 0;
  for (std::size_t g = 0; g < groups.size() && taken < validation_pairs; ++g) {
    for (const std::size_t i : groups[g]) in_validation[i] = true;
    taken += groups[g].size();
  }
  if (taken == pairs.size()) {
    throw std::invalid_argument("split: " + std::to_string(validation_pairs) + " held out of " +
                                std::to_string(pairs.size()) + " leave nothing to train on: copies of a sentence " +
                                "are held out together, and the corpus has only " + std::to_string(groups.size()) +
                                " different ones");
  }

  CorpusSplit split;
  split.validation.reserve(taken);
  split.training.reserve(pairs.size() - taken);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    (in_validation[i] ? split.validation : split.training).push_back(i);
  }
  split.definition = {seed, validation_pairs, pairs.size(), corpus_fingerprint(pairs)};
  return split;
}

CorpusSplit split_given(const std::vector<SentencePair>& pairs, std::size_t training_pairs, std::uint64_t seed) {
  if (training_pairs == 0 || training_pairs > pairs.size()) {
    throw std::invalid_argument("split: " + std::to_string(training_pairs) + " training pairs of " +
                                std::to_string(pairs.size()));
  }
  CorpusSplit split;
  for (std::size_t i = 0; i < pairs.size(); ++i) (i < training_pairs ? split.training : split.validation).push_back(i);
  split.definition = {seed, pairs.size() - training_pairs, pairs.size(), corpus_fingerprint(pairs)};
  return split;
}

void verify_split_definition(const SplitDefinition& definition, const std::vector<SentencePair>& pairs,
                             const std::string& corpus_name) {
  const std::uint64_t fingerprint = corpus_fingerprint(pairs);
  if (definition.corpus_pairs != pairs.size() || definition.corpus_fingerprint != fingerprint) {
    throw std::runtime_error(corpus_name + ": not the corpus the split was made from: expected " +
                             std::to_string(definition.corpus_pairs) + " pairs with fingerprint " +
                             hex(definition.corpus_fingerprint) + ", found " + std::to_string(pairs.size()) +
                             " pairs with fingerprint " + hex(fingerprint) + " (other file, edition or max_words?)");
  }
}

CorpusSplit apply_split_definition(const SplitDefinition& definition, const std::vector<SentencePair>& pairs,
                                   const std::string& corpus_name) {
  verify_split_definition(definition, pairs, corpus_name);
  return split_by_english(pairs, definition.seed, static_cast<std::size_t>(definition.validation_pairs));
}

}  // namespace dls::data
