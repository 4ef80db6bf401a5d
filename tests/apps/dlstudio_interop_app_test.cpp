// checkpoint_eval with DLStudio's files, end to end: import and evaluate (BLEU on the
// archive's pairs, --translate), export, and one-line errors for incomplete or broken input.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

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
  return " --dlstudio-encoder " + encoder + " --dlstudio-decoder " + dir + "decoder_FG_5 --dlstudio-embeddings-en " + dir +
         "embeddings_generator_en_FG_5 --dlstudio-embeddings-es " + dir + "embeddings_generator_es_FG_5 --dlstudio-vocab " +
         kFixtures + "archive.pkl.gz --dlstudio-max-seq-length 5";
}

TEST(DLStudioInteropApp, ImportsTranslatesScoresAndExports) {
  const auto dir = test::fresh_temp_dir("dlstudio_interop_app");
  const auto imported = (dir / "imported.pt").string();
  const auto translated = run_interop_eval(seq2seq_flags() + " --variant PreLN --dlstudio-output " + imported +
                                                  " --translate \"i see you\"", "translate");
  ASSERT_EQ(translated.status, 0) << translated.err;
  EXPECT_FALSE(translated.out.empty());
  EXPECT_NE(translated.err.find("imported DLStudio's TransformerPreLN into " + imported), std::string::npos) << translated.err;
  const auto scored = run_interop_eval(imported, "score");
  ASSERT_EQ(scored.status, 0) << scored.err;
  EXPECT_NE(scored.out.find("BLEU"), std::string::npos) << scored.out;
  const auto exported = run_interop_eval(imported + " --export-dlstudio " + (dir / "out").string(), "export");
  ASSERT_EQ(exported.status, 0) << exported.err;
  for (const auto* name : {"encoder_PreLN_0", "decoder_PreLN_0", "embeddings_generator_en_PreLN_0",
                           "embeddings_generator_es_PreLN_0", "vocab_en.txt", "vocab_es.txt"}) {
    EXPECT_TRUE(fs::exists(dir / "out" / name)) << name;
  }
}

TEST(DLStudioInteropApp, IncompleteOrBrokenInputIsAOneLineError) {
  test::expect_one_line_error(run_interop_eval("--dlstudio-encoder " + kFixtures + "positionwise/encoder_FG_5", "incomplete", true),
                              "--dlstudio-decoder: needed");
  test::expect_one_line_error(run_interop_eval(seq2seq_flags(kFixtures + "positionwise/encoder_missing_key"), "missing", true),
                              "encoder_missing_key: missing key 'basic_encoder_arr.1.norm2.bias' ([8])");
  test::expect_one_line_error(run_interop_eval(seq2seq_flags(kFixtures + "archive.pkl.gz"), "not_a_state_dict", true),
                              "archive.pkl.gz: not a torch.save file");
}

}  // namespace
}  // namespace dls::apps
