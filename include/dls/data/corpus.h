// Reading translation pairs from a Tatoeba/Anki TSV file, a DLStudio archive or two
// parallel text files, normalised per language (normalize.h, languages.h) and filtered by
// length. DLStudio's English-Spanish is the default; any pair, either direction, reads the same.
//
// Formats, detected from the content (after an optional gzip layer):
//  - DLStudio archive: a pickle (first byte 0x80) of (dataset, vocab_en, vocab_es) or of
//    the dataset alone; dataset is a dict int -> [english, spanish] whose strings carry
//    the delimiters, "SOS i will kill him EOS". Entries are read in the dict's order; the
//    SOS and EOS markers are removed and the rest normalised like TSV text. The archive's
//    own vocabularies are not used (the Vocabulary is built from the training split).
//  - TSV text (UTF-8): the source and target sentences in the columns src_column and
//    tgt_column (1-based, as `cut -f` counts; default 1 and 2: Tatoeba's
//    "English<TAB>Spanish<TAB>attribution"); a line needs the highest of the two columns
//    and may have one field more (an attribution); '\r\n' line ends and a leading
//    byte-order mark are accepted.
// A bad TSV line or archive entry is never an exception: it is counted in CorpusStats and
// skipped (the first few are logged at debug level as "<file>:<line>: <why>").
//  - Parallel files (read_parallel_corpus): line n of the source file translates line n of
//    the target file, as Marian, OpenNMT and fairseq read them. Stricter, since a slip there
//    shifts every pair after it: different line counts, a blank line on either side, or
//    invalid UTF-8 is an error naming the file and line ("train.de:17: invalid UTF-8").
//    Pairs empty after normalisation or too long are counted and skipped, as in TSV.
// A missing or empty file, or one with no usable pair, is an error naming the file.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace dls::data {

// One translation pair as normalised words, without SOS/EOS. The fields keep DLStudio's
// names: `english` is the source side and `spanish` the target side, whatever the
// languages (Corpus::source_language, target_language).
struct SentencePair {
  std::vector<std::string> english;  // source
  std::vector<std::string> spanish;  // target
};

// The most sentence text a DLStudio archive may hold, counted as its strings are taken
// out (a pickle's memo lets one string be shared by any number of entries, so a 2.6 KB file
// could stand for gigabytes): 256 MiB, 30 times the whole Tatoeba English-Spanish corpus (8 MB).
inline constexpr std::size_t kMaxCorpusTextBytes = std::size_t{256} << 20;

struct CorpusOptions {
  int max_words = 8;  // longest sentence kept, per side, in words (DLStudio: 8, so L = 10)
  std::size_t max_text_bytes = kMaxCorpusTextBytes;  // archives: past this, refused
  int src_column = 1;                                // TSV: 1-based column of the source sentence
  int tgt_column = 2;                                // TSV: 1-based column of the target sentence
  std::string src_lang = "en";  // ISO code of the source column/file: its normalisation (languages.h)
  std::string tgt_lang = "es";  // ISO code of the target column/file
  bool reverse = false;         // swap the sides after reading: pairs tgt_lang -> src_lang
};

enum class CorpusFormat { kTsv, kDlstudioArchive, kParallelFiles };

// What happened to every line (TSV) or dataset entry (archive):
// lines_read = pairs_kept + too_long + empty + malformed + invalid_utf8 + blank.
struct CorpusStats {
  std::size_t lines_read = 0;
  std::size_t pairs_kept = 0;
  std::size_t too_long = 0;      // a side has more than max_words words
  std::size_t empty = 0;         // a side has no word left after normalisation
  std::size_t malformed = 0;     // TSV: not 2 or 3 tab-separated fields; archive: entry
                                 // not [str, str] (or key not an int)
  std::size_t invalid_utf8 = 0;  // the line (or a string of the entry) is not valid UTF-8
  std::size_t blank = 0;         // TSV: nothing but whitespace on the line

  // One line, e.g. "115964 lines read, 88594 pairs kept; dropped: 27370 too long
  // (> 8 words), 0 empty, 0 malformed, 0 invalid UTF-8, 0 blank".
  std::string summary(int max_words) const;
};

struct Corpus {
  std::vector<SentencePair> pairs;
  CorpusStats stats;
  std::string source;  // file name or the name given to parse_*
  CorpusFormat format = CorpusFormat::kTsv;
  int max_words = 8;                   // the limit the pairs were filtered with
  std::string source_language = "en";  // ISO codes of the pairs' sides (after CorpusOptions::reverse)
  std::string target_language = "es";
};

// Reads `path`, detecting gzip and the format from the content.
Corpus read_corpus(const std::string& path, const CorpusOptions& options = {});

// Parses TSV text held in memory; `name` is used in messages and as Corpus::source.
Corpus parse_tsv_corpus(const std::string& text, const std::string& name, const CorpusOptions& options = {});

// Reads two parallel files (gzip detected), strictly (see above).
Corpus read_parallel_corpus(const std::string& src_path, const std::string& tgt_path,
                            const CorpusOptions& options = {});

// Parses two parallel texts held in memory; the names are used in messages.
Corpus parse_parallel_corpus(const std::string& src_text, const std::string& tgt_text, const std::string& src_name,
                             const std::string& tgt_name, const CorpusOptions& options = {});

// Parses an uncompressed DLStudio archive (pickle bytes) held in memory.
Corpus parse_archive_corpus(const std::string& pickle_bytes, const std::string& name,
                            const CorpusOptions& options = {});

}  // namespace dls::data
