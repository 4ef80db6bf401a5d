#include "dls/data/corpus.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dls/data/normalize.h"
#include "support/error_of.h"
#include "util/temp_files.h"
#include "support/test_paths.h"

namespace dls::data {
namespace {

namespace fs = std::filesystem;

const std::string kFixtures = dls::testing::fixtures_dir();

std::string write_temp(const std::string& name, const std::string& content) {
  const fs::path dir = test::process_temp_path("corpus");
  fs::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

void expect_mixed_counts(const Corpus& corpus) {
  const CorpusStats& s = corpus.stats;
  EXPECT_EQ(s.lines_read, 13u);
  EXPECT_EQ(s.pairs_kept, 6u);
  EXPECT_EQ(s.too_long, 2u);
  EXPECT_EQ(s.empty, 1u);
  EXPECT_EQ(s.malformed, 2u);
  EXPECT_EQ(s.invalid_utf8, 1u);
  EXPECT_EQ(s.blank, 1u);
  EXPECT_EQ(s.lines_read, s.pairs_kept + s.too_long + s.empty + s.malformed + s.invalid_utf8 + s.blank);
  ASSERT_EQ(corpus.pairs.size(), 6u);
  EXPECT_EQ(join_words(corpus.pairs[0].english), "go");
  EXPECT_EQ(join_words(corpus.pairs[1].spanish), "tengo hambre");  // attribution ignored
  EXPECT_EQ(join_words(corpus.pairs[2].english), "where is the station");
  EXPECT_EQ(join_words(corpus.pairs[2].spanish), "dónde está la estación");  // no '\r'
  EXPECT_EQ(join_words(corpus.pairs[3].english), "who is álvaro");
  EXPECT_EQ(join_words(corpus.pairs[3].spanish), "quién es álvaro");
  EXPECT_EQ(corpus.pairs[4].english.size(), 8u);
  EXPECT_EQ(join_words(corpus.pairs[5].english), "tom does not know it is 3000 yen");
  EXPECT_EQ(corpus.format, CorpusFormat::kTsv);
}

TEST(Corpus, TsvFixtureCountsEveryVerdict) {
  const Corpus corpus = read_corpus(kFixtures + "/corpus/mixed.tsv");
  expect_mixed_counts(corpus);
  EXPECT_EQ(corpus.source, kFixtures + "/corpus/mixed.tsv");
  EXPECT_EQ(corpus.stats.summary(8),
            "13 lines read, 6 pairs kept; dropped: 2 too long (> 8 words), 1 empty, "
            "2 malformed, 1 invalid UTF-8, 1 blank");
}

TEST(Corpus, FirstBadLinesAreLoggedWithFileAndLine) {
  std::ostringstream log;
  const auto previous = spdlog::default_logger();
  auto logger = std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(log));
  logger->set_level(spdlog::level::debug);
  logger->set_pattern("%v");
  spdlog::set_default_logger(logger);
  std::string text = "Hi.\tHola.\n";
  for (int i = 0; i < 10; ++i) text += "no tab here\n";
  const Corpus corpus = parse_tsv_corpus(text + "a\tb\tc\td\n", "mem.tsv");
  spdlog::set_default_logger(previous);

  EXPECT_EQ(corpus.stats.malformed, 11u);
  const std::string lines = log.str();
  EXPECT_NE(lines.find("mem.tsv:2: no tab (expected English<TAB>Spanish), skipped\n"), std::string::npos) << lines;
  EXPECT_NE(lines.find("mem.tsv:6: no tab"), std::string::npos) << lines;
  EXPECT_EQ(lines.find("mem.tsv:7:"), std::string::npos) << lines;  // only the first 5
  EXPECT_EQ(lines.find("mem.tsv:12:"), std::string::npos) << lines;
}

TEST(Corpus, GzipTsvIsDetected) { expect_mixed_counts(read_corpus(kFixtures + "/corpus/mixed.tsv.gz")); }

TEST(Corpus, MaxWordsLimitsBothSides) {
  // 8 words per side is kept with the default and dropped with max_words = 7.
  const std::string text = "a b c d e f g h\tuno\nuno\ta b c d e f g h\none two\tuno dos\n";
  const Corpus eight = parse_tsv_corpus(text, "mem");
  EXPECT_EQ(eight.stats.pairs_kept, 3u);
  CorpusOptions seven;
  seven.max_words = 7;
  const Corpus shorter = parse_tsv_corpus(text, "mem", seven);
  EXPECT_EQ(shorter.stats.pairs_kept, 1u);
  EXPECT_EQ(shorter.stats.too_long, 2u);
  EXPECT_EQ(shorter.max_words, 7);
  seven.max_words = 0;
  EXPECT_THROW(parse_tsv_corpus(text, "mem", seven), std::invalid_argument);
}

TEST(Corpus, ByteOrderMarkAndCrlfAreAccepted) {
  const Corpus corpus = parse_tsv_corpus("\xEF\xBB\xBFHi.\tHola.\r\nBye.\tAdiós.\r\n", "mem");
  ASSERT_EQ(corpus.pairs.size(), 2u);
  EXPECT_EQ(corpus.pairs[0].english[0], "hi");
  EXPECT_EQ(corpus.pairs[1].spanish[0], "adiós");
}

TEST(Corpus, EmptyOrUselessFilesAreErrors) {
  const std::string empty = write_temp("empty.tsv", "");
  EXPECT_EQ(test::error_of([&] { read_corpus(empty); }), empty + ": empty corpus file");
  const std::string useless = write_temp("useless.tsv", "no tab\n\n...\t!\n");
  EXPECT_EQ(test::error_of([&] { read_corpus(useless); }),
            useless +
                ": no usable sentence pairs (3 lines read, 0 pairs kept; dropped: 0 too long "
                "(> 8 words), 1 empty, 1 malformed, 0 invalid UTF-8, 1 blank)");
  const std::string missing = "/nonexistent/dir/spa.txt";
  EXPECT_NE(test::error_of([&] { read_corpus(missing); }).find(missing), std::string::npos);
}

TEST(Corpus, DlstudioArchivesAreReadInDictOrder) {
  // archive_expected.tsv: D<TAB>key<TAB>"SOS english EOS"<TAB>"SOS spanish EOS".
  std::ifstream in(kFixtures + "/pickle/archive_expected.tsv");
  std::vector<std::pair<std::string, std::string>> expected;
  for (std::string line; std::getline(in, line);) {
    std::stringstream fields(line);
    std::string tag, key, english, spanish;
    std::getline(fields, tag, '\t');
    if (tag != "D") continue;
    std::getline(fields, key, '\t');
    std::getline(fields, english, '\t');
    std::getline(fields, spanish, '\t');
    const auto inner = [](const std::string& s) { return s.substr(4, s.size() - 8); };
    expected.emplace_back(inner(english), inner(spanish));
  }
  ASSERT_EQ(expected.size(), 16u);
  for (const char* file : {"archive_p2.pkl", "archive_p3.pkl.gz", "archive_p4.pkl", "archive_p5.pkl.gz"}) {
    SCOPED_TRACE(file);
    const Corpus corpus = read_corpus(kFixtures + "/pickle/" + file);
    EXPECT_EQ(corpus.format, CorpusFormat::kDlstudioArchive);
    EXPECT_EQ(corpus.stats.lines_read, 16u);
    ASSERT_EQ(corpus.pairs.size(), 16u);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      if (expected[i].first == "Álvaro learns german") continue;  // checked below
      EXPECT_EQ(join_words(corpus.pairs[i].english), expected[i].first);
      EXPECT_EQ(join_words(corpus.pairs[i].spanish), expected[i].second);
    }
    EXPECT_EQ(join_words(corpus.pairs[14].english), "álvaro learns german");
    EXPECT_EQ(join_words(corpus.pairs[14].spanish), "álvaro aprende alemán");
  }
}

// An archive's entries are pairs, not columns: a TSV's column flags, which it would ignore,
// are refused naming the file.
TEST(Corpus, AnArchiveRefusesColumns) {
  CorpusOptions options;
  options.src_column = 2;
  options.tgt_column = 1;
  const auto file = kFixtures + "/pickle/archive_p2.pkl";
  EXPECT_EQ(test::error_of([&] { read_corpus(file, options); }, "(no error)"),
            file +
                ": a DLStudio archive, whose entries are (English, Spanish) pairs: --src-column and --tgt-column "
                "are a TSV's (--reverse translates the other way)");
}

TEST(Corpus, ArchiveEntriesThatAreNotPairsAreCounted) {
  // {0: ['SOS a EOS', 'SOS b EOS'], 1: 'x', 'k': ['SOS c EOS', 'SOS d EOS'], 2: ['SOS EOS', 'SOS e
  // EOS']}
  static const char kBytes[] =
      "\x80\x02}(K\x00(X\x09\x00\x00\x00SOS a EOSX\x09\x00\x00\x00SOS b EOSl"
      "K\x01X\x01\x00\x00\x00x"
      "X\x01\x00\x00\x00k(X\x09\x00\x00\x00SOS c EOSX\x09\x00\x00\x00SOS d EOSl"
      "K\x02(X\x07\x00\x00\x00SOS EOSX\x09\x00\x00\x00SOS e EOSlu.";
  const Corpus corpus = parse_archive_corpus(std::string(kBytes, sizeof kBytes - 1), "mem.pkl");
  EXPECT_EQ(corpus.stats.lines_read, 4u);
  EXPECT_EQ(corpus.stats.malformed, 2u);
  EXPECT_EQ(corpus.stats.empty, 1u);
  ASSERT_EQ(corpus.pairs.size(), 1u);
  EXPECT_EQ(corpus.pairs[0].english, std::vector<std::string>{"a"});
  EXPECT_EQ(test::error_of([] { parse_archive_corpus("\x80\x02]K\x01\x61.", "list.pkl"); }),
            "list.pkl: not a DLStudio archive: expected a dict int -> [english, spanish] or a "
            "tuple starting with one, found type list whose first item has type int");
}

// The development corpus (Tatoeba/Anki spa-eng), when present.
// A pickle that shares one string between many entries (its memo) is tiny on disk but
// stands for much text: refused once the text taken out passes the limit.
TEST(Corpus, ArchiveWhoseSharedStringsExpandTooMuchIsRefused) {
  const std::string word(1000, 'a');
  std::string pickle = "\x80\x02}(";
  for (int i = 0; i < 200; ++i) {
    pickle += "K" + std::string(1, static_cast<char>(i));
    if (i == 0) {
      pickle += "X" + std::string("\xe8\x03\x00\x00", 4) + word + "q" + std::string(1, '\0');  // BINPUT 0
    } else {
      pickle += "h" + std::string(1, '\0');  // BINGET 0
    }
    pickle += "h" + std::string(1, '\0') + "\x86";  // (english, spanish): the same string
  }
  pickle += "u.";
  CorpusOptions options;
  options.max_text_bytes = 100000;  // 200 entries x 2000 bytes = 400,000
  const std::string message = test::error_of([&] { parse_archive_corpus(pickle, "bomb.pkl", options); });
  EXPECT_NE(message.find("bomb.pkl: entry 51: the archive's sentences add up to more than 100000 bytes"),
            std::string::npos)
      << message;
  options.max_text_bytes = 1000000;
  EXPECT_NO_THROW(parse_archive_corpus(pickle, "bomb.pkl", options))
      << "under the limit: read (and dropped as too long)";
}

// Files that are not a corpus of either kind say what they are, not a TSV parse error.
TEST(Corpus, TarFilesAndOldPicklesAreNamedForWhatTheyAre) {
  std::string tar(1024, '\0');
  tar.replace(0, 8, "spa.txt");
  tar.replace(257, 6, std::string("ustar\0", 6));
  const auto tar_path = write_temp("real.tar", tar);
  EXPECT_NE(test::error_of([&] { read_corpus(tar_path, {}); }).find("real.tar: a tar archive, not a corpus"),
            std::string::npos);
  const auto tar_gz_path = write_temp("real.tar.gz", test::gzip_bytes(tar));
  EXPECT_NE(test::error_of([&] { read_corpus(tar_gz_path, {}); }).find("a tar archive"), std::string::npos);
  // pickle.dumps({0: ['SOS hi EOS', 'SOS hola EOS']}, protocol=0) and protocol=1
  const auto p0 = write_temp("p0.pkl", "(dp0\nI0\n(lp1\nVSOS hi EOS\np2\naVSOS hola EOS\np3\nas.");
  EXPECT_NE(test::error_of([&] { read_corpus(p0, {}); }).find("p0.pkl: looks like a pickle of protocol 0 or 1"),
            std::string::npos);
  const auto p1 = write_temp(
      "p1.pkl", std::string("}q\x00K\x00]q\x01(X\x0a\x00\x00\x00SOS hi EOSq\x02X\x0c\x00\x00\x00SOS hola EOSq\x03"
                            "es.",
                            48));
  EXPECT_NE(test::error_of([&] { read_corpus(p1, {}); }).find("protocol 0 or 1"), std::string::npos);
  // A directory given as the corpus.
  const auto dir = test::process_temp_path("corpus");
  EXPECT_NE(test::error_of([&] { read_corpus(dir.string(), {}); }).find("is a directory"), std::string::npos);
}

TEST(Corpus, ColumnsLanguagesAndDirectionAreChosen) {
  // "id<TAB>Russian<TAB>English": columns 3 and 2, each side normalised by its language.
  const std::string text = "1\tГде ДОМ?\tWhere's the house?\n2\tЭто кот.\tThat's a cat.\n3\tonly two\n";
  CorpusOptions options;
  options.src_column = 3;
  options.tgt_column = 2;
  options.src_lang = "en";
  options.tgt_lang = "ru";
  const Corpus forward = parse_tsv_corpus(text, "mem.tsv", options);
  ASSERT_EQ(forward.pairs.size(), 2u);
  EXPECT_EQ(forward.stats.malformed, 1u) << "a line without column 3";
  EXPECT_EQ(join_words(forward.pairs[0].english), "where is the house") << "English rules on the English side";
  EXPECT_EQ(join_words(forward.pairs[0].spanish), "где дом");
  EXPECT_EQ(forward.source_language, "en");
  EXPECT_EQ(forward.target_language, "ru");
  options.reverse = true;
  const Corpus reversed = parse_tsv_corpus(text, "mem.tsv", options);
  ASSERT_EQ(reversed.pairs.size(), 2u);
  EXPECT_EQ(join_words(reversed.pairs[1].english), "это кот");
  EXPECT_EQ(join_words(reversed.pairs[1].spanish), "that is a cat");
  EXPECT_EQ(reversed.source_language, "ru");
  EXPECT_EQ(reversed.target_language, "en");
  options.tgt_column = 3;
  EXPECT_NE(test::error_of([&] { parse_tsv_corpus(text, "mem.tsv", options); }).find("two different columns"),
            std::string::npos);
}

TEST(Corpus, ParallelFilesPairLineByLine) {
  CorpusOptions options;
  options.src_lang = "de";
  options.tgt_lang = "en";
  const Corpus corpus = parse_parallel_corpus(
      "\xEF\xBB\xBF"
      "Der Käse ist süß.\r\nWo ist die Brücke?\n...\n",
      "Cheese is sweet.\nWhere's the bridge?\n!\n", "train.de", "train.en", options);
  ASSERT_EQ(corpus.pairs.size(), 2u);
  EXPECT_EQ(corpus.stats.empty, 1u) << "nothing left after normalisation: counted, not an error";
  EXPECT_EQ(join_words(corpus.pairs[0].english), "der käse ist süß");
  EXPECT_EQ(join_words(corpus.pairs[1].spanish), "where is the bridge");
  EXPECT_EQ(corpus.format, CorpusFormat::kParallelFiles);
  EXPECT_EQ(corpus.source, "train.de + train.en");
}

TEST(Corpus, ParallelFilesRefuseSlipsNamingFileAndLine) {
  const auto error = [](const std::string& src, const std::string& tgt) {
    return test::error_of([&] { parse_parallel_corpus(src, tgt, "a.de", "a.en"); });
  };
  EXPECT_EQ(error("eins\nzwei\ndrei\n", "one\ntwo\n"), "a.de:3: no partner line: a.de has 3 lines, a.en has 2");
  EXPECT_EQ(error("eins\n", "one\ntwo\n"), "a.en:2: no partner line: a.de has 1 lines, a.en has 2");
  EXPECT_EQ(error("eins\n\ndrei\n", "one\ntwo\nthree\n"),
            "a.de:2: an empty side (a blank line; its partner is a.en:2)");
  EXPECT_EQ(error("eins\nzwei\n", "one\n  \n"), "a.en:2: an empty side (a blank line; its partner is a.de:2)");
  EXPECT_EQ(error("eins\nzw\xffi\n", "one\ntwo\n"), "a.de:2: invalid UTF-8");
  EXPECT_EQ(error("", "one\n"), "a.de: empty corpus file");
  const std::string src = write_temp("p.de", "eins\n"), tgt = write_temp("p.en", "one\n");
  EXPECT_EQ(read_parallel_corpus(src, tgt).pairs.size(), 1u);
  EXPECT_NE(test::error_of([&] { read_parallel_corpus(src, "/nonexistent/p.en"); }).find("/nonexistent/p.en"),
            std::string::npos);
}

TEST(Corpus, RealSpanishEnglishCorpus) {
  const char* data_dir = std::getenv("DLS_DATA_DIR");
  const std::string path = data_dir ? std::string(data_dir) + "/spa-eng/spa.txt" : "";
  if (data_dir == nullptr || !fs::exists(path)) {
    GTEST_SKIP() << "DLS_DATA_DIR not set / corpus absent ($DLS_DATA_DIR/spa-eng/spa.txt)";
  }
  const auto start = std::chrono::steady_clock::now();
  const Corpus corpus = read_corpus(path);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("read_seconds", std::to_string(seconds));
  EXPECT_EQ(corpus.stats.lines_read, 115964u);
  EXPECT_EQ(corpus.stats.pairs_kept, 88594u);
  EXPECT_EQ(corpus.stats.too_long, 27370u);
  EXPECT_EQ(corpus.stats.empty + corpus.stats.malformed + corpus.stats.invalid_utf8 + corpus.stats.blank, 0u);
  // A bound against pathological (e.g. quadratic) reading only, loose enough for a loaded
  // 2-core machine: 3 s failed beside a build (8.4 s). Speed figures belong to benchmarks.
  EXPECT_LT(seconds, 60.0) << "reading the corpus took " << seconds << " s";
  EXPECT_EQ(join_words(corpus.pairs[0].english), "go");
  EXPECT_EQ(join_words(corpus.pairs[0].spanish), "ve");
}

}  // namespace
}  // namespace dls::data
