// A deterministic held-out split by English sentence: pairs that share an English
// sentence (the corpus has many: "i love you" -> "te quiero" / "te amo") are always on
// the same side, so validation never sees a source sentence seen in training.
//
// Algorithm (portable: the same split with any compiler and standard library):
//  1. Group the pairs by English sentence, groups in order of first appearance.
//  2. Shuffle the groups with Fisher-Yates driven by std::mt19937_64(seed) (whose output
//     the C++ standard fixes), for i = n-1 down to 1 swapping group i with group
//     j = bounded(i + 1), where bounded(m) draws 64-bit values and rejects those below
//     2^64 mod m, then returns value mod m (no std::uniform_int_distribution).
//  3. Take whole groups in shuffled order until at least `validation_pairs` pairs are in
//     the validation set; everything else is training.
// Both index lists are returned in corpus order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dls/data/corpus.h"

namespace dls::data {

constexpr std::uint64_t kDefaultSplitSeed = 1234;
constexpr std::size_t kDefaultValidationPairs = 2000;
// A tenth of the pairs, at most kDefaultValidationPairs: the real corpus (88,594 pairs of
// up to 8 words) keeps its 2,000 held-out pairs, the 1,264-pair sample holds out 126.
constexpr double kDefaultValidationFraction = 0.1;

// The validation pairs to ask split_by_english for: round(fraction x pairs), at least one
// (for a corpus of two or more pairs), at most `cap`. fraction <= 0: `cap` itself (how runs
// asked before the fraction existed).
std::size_t validation_size(std::size_t pairs, double fraction, std::size_t cap);

// Everything needed to redo a split, e.g. stored in a checkpoint.
struct SplitDefinition {
  std::uint64_t seed = kDefaultSplitSeed;
  std::uint64_t validation_pairs = kDefaultValidationPairs;  // requested (at least this many)
  std::uint64_t corpus_pairs = 0;                            // pairs of the corpus split
  std::uint64_t corpus_fingerprint = 0;                      // corpus_fingerprint(pairs)
};

struct CorpusSplit {
  std::vector<std::size_t> training;    // indices into the pairs, ascending
  std::vector<std::size_t> validation;  // indices into the pairs, ascending
  SplitDefinition definition;
};

// 64-bit FNV-1a over the normalised pairs, each hashed as
// "<english words joined by spaces>\t<spanish words joined by spaces>\n".
std::uint64_t corpus_fingerprint(const std::vector<SentencePair>& pairs);

// Splits `pairs` as described above. validation_pairs = 0 gives an empty validation set.
// Throws std::invalid_argument when the validation set would take every pair.
CorpusSplit split_by_english(const std::vector<SentencePair>& pairs, std::uint64_t seed = kDefaultSplitSeed,
                             std::size_t validation_pairs = kDefaultValidationPairs);

// A split given by the files: the first `training_pairs` pairs train, the rest validate
// (--valid-src/--valid-tgt appended to the training pairs). `seed` is only recorded.
CorpusSplit split_given(const std::vector<SentencePair>& pairs, std::size_t training_pairs,
                        std::uint64_t seed = kDefaultSplitSeed);

// Throws std::runtime_error (one line, naming `corpus_name`) unless `pairs` has the
// number of pairs and the fingerprint recorded in `definition`.
void verify_split_definition(const SplitDefinition& definition, const std::vector<SentencePair>& pairs,
                             const std::string& corpus_name);

// verify_split_definition, then the split the definition describes.
CorpusSplit apply_split_definition(const SplitDefinition& definition, const std::vector<SentencePair>& pairs,
                                   const std::string& corpus_name);

}  // namespace dls::data
