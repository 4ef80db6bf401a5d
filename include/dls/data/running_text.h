// Running text for a GPT-style language model (lm_train --block-size N), as the lecture's
// GPT section and nanoGPT train one: a plain text file (gzip allowed) read whole as one
// stream of tokens and cut into context windows, not sentences.
//
//  - Tokens: characters (--tokenizer char: every code point of the text as written, NFC, each
//    line ending in "\n"), words (normalised as the corpus reader does, each line ending in
//    EOS) or the SentencePiece pieces of those words (each line ending in EOS).
//  - Split: the last lines holding `validation_fraction` of the text are held out (the end of
//    a book, not sentences drawn from all over it, so nothing held out is seen in training).
//  - Windows: block_size + 1 consecutive tokens; the model reads the first block_size and
//    predicts each next one (no SOS, no padding). The training windows start at an offset in
//    [0, block_size) drawn anew every epoch, so that every token is predicted from a
//    different context each epoch; validation windows start at 0.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dls/data/lm_dataset.h"

namespace dls::data {

struct RunningText {
  std::string source;                        // the file read
  std::vector<std::string> lines;            // line breaks ("\n", "\r\n") removed
  std::uint64_t fingerprint = 0;             // 64-bit FNV-1a over the lines, each followed by "\n"
  std::size_t characters = 0;                // code points, line breaks included
  std::vector<std::size_t> line_characters;  // per line: its code points and its line break
  std::string tsv_side;                      // "en"/"es" when the file is a TSV, whose column it read
};

// The text of `path`, or of a TSV (mostly_tab_separated: a translation corpus) its `side`'s
// column (en the first, es the second). Throws std::runtime_error naming the file when it is
// missing, empty, not UTF-8 (the line) or holds nothing but blank lines.
RunningText read_running_text(const std::string& path, Language side);

// Training windows of a stream: as many as fit at any offset below block_size,
// (tokens - block_size) / block_size.
std::int64_t training_windows(std::size_t tokens, int block_size);

// `count` windows [count, block_size + 1] of `stream`, the first at `offset`, each starting
// block_size after the previous one (they share their edge token: the last target of one is
// the first input of the next); row_words from word_marks over the predicted positions.
LmRows text_windows(const std::vector<std::int64_t>& stream, const std::vector<std::uint8_t>& word_marks,
                    int block_size, std::int64_t offset, std::int64_t count);

// The offset of epoch `epoch`'s training windows (the same on every platform and on resume).
std::int64_t window_offset(std::uint64_t seed, std::int64_t epoch, int block_size);

// prepare_lm_dataset for running text (settings.block_size > 0).
LmDataset prepare_running_text(const LmDataSettings& settings, const LmStoredData* stored,
                               const InheritedLmVocabulary* inherited = nullptr);

// The stream of a file's tokens as vocabulary ids and the windows that score it (checkpoint_eval --test FILE).
LmRows running_text_rows(const std::string& path, const LmTokenizer& tokenizer, const Vocabulary& vocabulary,
                         Language language, int block_size);

}  // namespace dls::data
