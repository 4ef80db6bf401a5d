// checkpoint_eval with DLStudio's files, end to end: import and evaluate (BLEU on the
// archive's pairs, --translate), export, and one-line errors for incomplete or broken input.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dls/util/file_io.h"
#include "support/idx_files.h"
#include "support/program_run.h"
#include "support/test_paths.h"
#include "util/temp_files.h"

namespace dls::apps {
namespace {

namespace fs = std::filesystem;

const std::string kFixtures = testing::fixtures_dir() + "/dlstudio_interop/";

// Logs at info level (the test environment turns them off) unless `quiet`.
test::ProgramRun run_interop_eval(const std::string& args, const std::string& name, bool quiet = false) {
  return test::run_program("apps/checkpoint_eval", "--threads 1 " + args, "dlstudio_interop_app_" + name, "",
                           quiet ? "" : "DLS_LOG_LEVEL=info ");
}

std::string seq2seq_flags(const std::string& encoder = kFixtures + "positionwise/encoder_FG_5") {
  const std::string dir = kFixtures + "positionwise/";
  return " --dlstudio-encoder " + encoder + " --dlstudio-decoder " + dir + "decoder_FG_5 --dlstudio-embeddings-en " +
         dir + "embeddings_generator_en_FG_5 --dlstudio-embeddings-es " + dir +
         "embeddings_generator_es_FG_5 --dlstudio-vocab " + kFixtures + "archive.pkl.gz --dlstudio-max-seq-length 5";
}

TEST(DLStudioInteropApp, ImportsTranslatesScoresAndExports) {
  const auto dir = test::fresh_temp_dir("dlstudio_interop_app");
  const auto imported = (dir / "imported.pt").string();
  const auto translated = run_interop_eval(
      seq2seq_flags() + " --variant PreLN --dlstudio-output " + imported + " --translate \"i see you\"", "translate");
  ASSERT_EQ(translated.status, 0) << translated.err;
  EXPECT_FALSE(translated.out.empty());
  EXPECT_NE(translated.err.find("imported DLStudio's TransformerPreLN into " + imported), std::string::npos)
      << translated.err;
  // Its report's files are named after it: a bleu.csv of the user's in its folder stays.
  util::write_text_atomically((dir / "bleu.csv").string(), "the user's\n");
  const auto scored = run_interop_eval(imported, "score");
  ASSERT_EQ(scored.status, 0) << scored.err;
  EXPECT_NE(scored.out.find("BLEU"), std::string::npos) << scored.out;
  EXPECT_EQ(util::read_file((dir / "bleu.csv").string()), "the user's\n");
  EXPECT_TRUE(fs::exists(dir / "imported.bleu.csv"));
  EXPECT_TRUE(fs::exists(dir / "imported.bleu_vs_epoch.png"));
  const auto exported = run_interop_eval(imported + " --export-dlstudio " + (dir / "out").string(), "export");
  ASSERT_EQ(exported.status, 0) << exported.err;
  for (const auto* name : {"encoder_PreLN_5", "decoder_PreLN_5", "embeddings_generator_en_PreLN_5",
                           "embeddings_generator_es_PreLN_5", "vocab_en.txt", "vocab_es.txt"}) {
    EXPECT_TRUE(fs::exists(dir / "out" / name)) << name;
  }
  // A write that fails half-way (16 KB a file: the encoder is written, not the decoder; a full
  // disk fails alike; the limit's SIGXFSZ, which killed the program, is ignored) leaves no
  // half export,
  // which made a second try refuse the folder: no folder, nothing beside it.
  const auto cut = test::run_program("apps/checkpoint_eval", "export " + imported + " " + (dir / "cut").string(),
                                     "dlstudio_interop_app_cut", "", "ulimit -f 32; ");
  test::expect_one_line_error(cut, ": cannot write (File too large); the files written before are removed");
  EXPECT_FALSE(fs::exists(dir / "cut"));
  for (const auto& entry : fs::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().filename().string().find(".partial-"), std::string::npos) << entry.path();
  }
  // An existing empty folder -- through a link, or "." -- is written into, and emptied again
  // when a write fails.
  fs::create_directories(dir / "real");
  fs::create_directory_symlink(dir / "real", dir / "link");
  test::expect_one_line_error(
      test::run_program("apps/checkpoint_eval", "export " + imported + " " + (dir / "link").string(),
                        "dlstudio_interop_app_cut_link", "", "ulimit -f 32; "),
      ": cannot write (File too large); the files written before are removed");
  EXPECT_TRUE(fs::is_empty(dir / "real"));
  const auto linked = test::run_program("apps/checkpoint_eval", "export " + imported + " " + (dir / "link").string(),
                                        "dlstudio_interop_app_link");
  ASSERT_EQ(linked.status, 0) << linked.err;
  EXPECT_TRUE(fs::exists(dir / "real" / "encoder_PreLN_5"));
  fs::create_directories(dir / "here");
  const auto here = test::run_program("apps/checkpoint_eval", "export " + imported + " .", "dlstudio_interop_app_here",
                                      "", test::in_folder((dir / "here").string()));
  ASSERT_EQ(here.status, 0) << here.err;
  EXPECT_TRUE(fs::exists(dir / "here" / "decoder_PreLN_5"));
  // The subcommands: import writes the checkpoint (and evaluates nothing), export writes the
  // same files as --export-dlstudio.
  const auto by_verb = (dir / "by_verb.pt").string();
  const auto verb = [](const std::string& args, const std::string& name) {
    return test::run_program("apps/checkpoint_eval", args, "dlstudio_interop_app_" + name, "", "DLS_LOG_LEVEL=info ");
  };
  const auto imported_by_verb =
      verb("import" + seq2seq_flags() + " --variant PreLN --dlstudio-output " + by_verb, "import_verb");
  ASSERT_EQ(imported_by_verb.status, 0) << imported_by_verb.err;
  EXPECT_TRUE(imported_by_verb.out.empty()) << imported_by_verb.out;
  EXPECT_NE(imported_by_verb.err.find("checkpoint_eval report " + by_verb), std::string::npos) << imported_by_verb.err;
  // An import never replaces a file: a second into the same name, or into a run's checkpoint.
  const auto before = util::read_file(by_verb);
  test::expect_one_line_error(
      verb("import" + seq2seq_flags() + " --dlstudio-output " + by_verb + " --log-level warn", "import_again"),
      by_verb + ": already exists; the import writes a new file");
  EXPECT_EQ(util::read_file(by_verb), before);
  const auto exported_by_verb = verb("export " + by_verb + " " + (dir / "out2").string(), "export_verb");
  ASSERT_EQ(exported_by_verb.status, 0) << exported_by_verb.err;
  for (const auto* name : {"encoder_PreLN_5", "decoder_PreLN_5", "vocab_en.txt", "vocab_es.txt"}) {
    EXPECT_EQ(util::read_file((dir / "out2" / name).string()), util::read_file((dir / "out" / name).string())) << name;
  }
  // The export imports back from its own word lists, which hold no pairs: the advice and the
  // report say to give a test set.
  const auto out = (dir / "out2").string() + "/";
  const auto words = (dir / "words.pt").string();
  const auto from_words =
      verb("import --dlstudio-encoder " + out + "encoder_PreLN_5 --dlstudio-decoder " + out +
               "decoder_PreLN_5 --dlstudio-embeddings-en " + out + "embeddings_generator_en_PreLN_5 " +
               "--dlstudio-embeddings-es " + out + "embeddings_generator_es_PreLN_5 --dlstudio-vocab " + out +
               " --dlstudio-max-seq-length 5 --variant PreLN --dlstudio-output " + words,
           "import_words");
  ASSERT_EQ(from_words.status, 0) << from_words.err;
  EXPECT_NE(from_words.err.find("checkpoint_eval report " + words + " --test-src FILE --test-tgt FILE"),
            std::string::npos)
      << from_words.err;
  test::expect_one_line_error(run_interop_eval(words, "report_words", true),
                              "the checkpoint has no pairs of its own to score (imported from word lists): give "
                              "--test FILE or --test-src FILE --test-tgt FILE");
}

// A visTransformer trained in Python for Fashion-MNIST's shape, imported and evaluated on a
// (fake) Fashion-MNIST folder: every class's accuracy is the Python model's on those images.
TEST(DLStudioInteropApp, ImportedViTScoresADatasetAsPythonClassifiesIt) {
  const auto dir = test::fresh_temp_dir("dlstudio_interop_vit");
  std::filesystem::create_directories(dir / "fashion");
  test::write_fake_fashion_mnist(dir / "fashion", 64, 20);
  const std::string vit = kFixtures + "vit28/";
  const auto run =
      run_interop_eval("--dlstudio-vit " + vit + "checkpoint_0_for_epoch_3 --dlstudio-patch-embedding " + vit +
                           "checkpoint_1_for_epoch_3 --dlstudio-output " + (dir / "vit.pt").string() + " --data-dir " +
                           (dir / "fashion").string() + " --json --output-dir " + (dir / "out").string(),
                       "vit");
  ASSERT_EQ(run.status, 0) << run.err;
  // make_dlstudio_interop_fixtures.py: the Python model's class for test image i (label i mod 10).
  std::istringstream lines(util::read_file(vit + "predictions.txt"));
  std::vector<int> right(10, 0);
  int predicted = 0, correct = 0;
  for (int i = 0; lines >> predicted; ++i) {
    if (predicted == i % 10) ++right[static_cast<std::size_t>(i % 10)], ++correct;
  }
  const auto result = nlohmann::ordered_json::parse(run.out)["checkpoints"].back();
  EXPECT_DOUBLE_EQ(result["test_accuracy"].get<double>(), correct / 20.0) << run.out;
  std::size_t k = 0;
  for (const auto& [name, accuracy] : result["class_accuracy"].items()) {
    EXPECT_DOUBLE_EQ(accuracy.get<double>(), right[k++] / 2.0) << name;  // two test images per class
  }
  EXPECT_EQ(k, 10u);
}

TEST(DLStudioInteropApp, IncompleteOrBrokenInputIsAOneLineError) {
  test::expect_one_line_error(
      run_interop_eval("--dlstudio-encoder " + kFixtures + "positionwise/encoder_FG_5", "incomplete", true),
      "--dlstudio-decoder: needed");
  test::expect_one_line_error(
      run_interop_eval(seq2seq_flags(kFixtures + "positionwise/encoder_missing_key"), "missing", true),
      "encoder_missing_key: missing key 'basic_encoder_arr.1.norm2.bias' ([8])");
  test::expect_one_line_error(run_interop_eval(seq2seq_flags(kFixtures + "archive.pkl.gz"), "not_a_state_dict", true),
                              "archive.pkl.gz: not a torch.save file");
  // One cut short (a copy that stopped) is said to be one.
  const auto cut = test::fresh_temp_dir("dlstudio_interop_cut") / "encoder_FG_5";
  const auto bytes = util::read_file(kFixtures + "positionwise/encoder_FG_5");
  test::write_bytes(cut, bytes.substr(0, bytes.size() / 2));
  test::expect_one_line_error(run_interop_eval(seq2seq_flags(cut.string()), "cut_short", true),
                              cut.string() + ": a torch.save file cut short or damaged (");
  // A flattened encoder with the position-wise run's decoder: the decoder named, no LibTorch message.
  const auto mixed = run_interop_eval(seq2seq_flags(kFixtures + "dlstudio/encoder_FG_5"), "mixed_layouts", true);
  test::expect_one_line_error(mixed, "positionwise/decoder_FG_5: position-wise blocks (M = 8, 2 heads, FFN 4M)");
  EXPECT_EQ(mixed.err.find("Sizes of tensors"), std::string::npos) << mixed.err;
  // A FIFO is refused, not waited on; a missing file is named with its flag.
  const auto fifo = test::fresh_temp_dir("dlstudio_interop_fifo") / "encoder_FG_5";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  test::expect_one_line_error(run_interop_eval(seq2seq_flags(fifo.string()), "fifo", true),
                              "--dlstudio-encoder " + fifo.string() + ": not a regular file");
  test::expect_one_line_error(run_interop_eval(seq2seq_flags(fifo.string() + "_gone"), "gone", true),
                              "_gone: no such file");
}

}  // namespace
}  // namespace dls::apps
