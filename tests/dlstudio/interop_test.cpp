// DLStudio checkpoints in and out, against files written by DLStudio-style Python classes
// (tests/fixtures/dlstudio_interop/make_dlstudio_interop_fixtures.py): the imported model
// computes the Python model's outputs, broken files give one clear line, and an export loads
// back into the Python classes with load_state_dict(strict=True) (check_export.py).
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>
#include <spdlog/sinks/ostream_sink.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "dls/dlstudio/interop.h"
#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/dlstudio/state_dict_file.h"
#include "dls/dlstudio/vocabularies.h"
#include "dls/checkpoint/vit_checkpoint.h"
#include "dls/data/normalize.h"
#include "dls/eval/decoding.h"
#include "dls/models/seq2seq_loss.h"
#include "dls/util/file_io.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "support/error_of.h"
#include "support/outside_needs.h"
#include "support/seq2seq_runs.h"
#include "support/test_paths.h"
#include "support/torch_fixture.h"
#include "support/vit_runs.h"
#include "util/temp_files.h"

namespace dls::dlstudio {
namespace {

using checkpoint::CheckpointReader;
using checkpoint::kViTCheckpointKind;
using checkpoint::latest_checkpoint;
using checkpoint::load_seq2seq_checkpoint;
using checkpoint::load_vit_model;
using checkpoint::read_vit_contents;

namespace fs = std::filesystem;
using testing::entry;

constexpr double kTolerance = 1e-5;  // float32 outputs, the same arithmetic in another order
const char* const kPython = "/usr/bin/python3";

std::string fixture(const std::string& name) { return testing::fixtures_dir() + "/dlstudio_interop/" + name; }

DLStudioSeq2SeqFiles seq2seq_files(const std::string& layout, Variant variant = Variant::kFG) {
  DLStudioSeq2SeqFiles files;
  files.encoder = fixture(layout + "/encoder_FG_5");
  files.decoder = fixture(layout + "/decoder_FG_5");
  files.embeddings_en = fixture(layout + "/embeddings_generator_en_FG_5");
  files.embeddings_es = fixture(layout + "/embeddings_generator_es_FG_5");
  files.vocab_archive = fixture("archive.pkl.gz");
  files.variant = variant;
  files.max_seq_length = 5;
  return files;
}

DLStudioViTFiles vit_files() {
  return {fixture("vit/checkpoint_0_for_epoch_10"), fixture("vit/checkpoint_1_for_epoch_10")};
}

// DLStudio's word ids -> this project's (<pad> and <unk> inserted at 2 and 3).
torch::Tensor project_ids(const torch::Tensor& dlstudio_ids) {
  return torch::where(dlstudio_ids >= 2, dlstudio_ids + 2, dlstudio_ids);
}

// [B, L-1, V + 2] -> [B, L-1, V]: the columns of DLStudio's words.
torch::Tensor dlstudio_columns(const torch::Tensor& log_probs) {
  return torch::cat({log_probs.slice(2, 0, 2), log_probs.slice(2, 4)}, 2);
}

std::string import_error(const DLStudioSeq2SeqFiles& files) {
  return test::error_of(
      [&] { import_dlstudio_seq2seq(files, (test::fresh_temp_dir("dlstudio_error") / "never.pt").string()); },
      "(no error)");
}

struct Case {
  const char* layout;
  Variant variant;
};
void PrintTo(const Case& c, std::ostream* out) { *out << c.layout << "/" << to_string(c.variant); }

class DLStudioSeq2SeqImport : public ::testing::TestWithParam<Case> {};

TEST_P(DLStudioSeq2SeqImport, GivesThePythonModelsLogProbabilities) {
  const auto output = test::fresh_temp_dir("dlstudio_import") / "imported.pt";
  import_dlstudio_seq2seq(seq2seq_files(GetParam().layout, GetParam().variant), output.string());
  auto loaded = load_seq2seq_checkpoint(output.string());
  EXPECT_EQ(loaded.info.settings.model.transformer().layout(), parse_layout(GetParam().layout));
  EXPECT_EQ(loaded.english.word_at(4), "a");  // DLStudio's first word, after SOS EOS <pad> <unk>
  const auto reference =
      testing::load_torch_fixture(std::string("dlstudio_interop/") + GetParam().layout + "/reference.pt");
  const auto src = project_ids(entry(reference, "src").toTensor());
  const auto tgt = project_ids(entry(reference, "tgt").toTensor());
  const auto expected = entry(entry(reference, "log_probs").toGenericDict(), to_string(GetParam().variant)).toTensor();
  torch::NoGradGuard no_grad;
  const auto log_probs = loaded.model.transformer()->forward(src, tgt);
  ASSERT_EQ(log_probs.size(2), expected.size(2) + 2);
  EXPECT_LT((dlstudio_columns(log_probs) - expected).abs().max().item().toDouble(), kTolerance);
  // The inserted <pad>/<unk> words are never predicted (DLStudio's outputs).
  EXPECT_TRUE(torch::isneginf(log_probs.slice(2, 2, 4)).all().item<bool>());
}

INSTANTIATE_TEST_SUITE_P(BothLayoutsBothVariants, DLStudioSeq2SeqImport,
                         ::testing::Values(Case{"dlstudio", Variant::kFG}, Case{"dlstudio", Variant::kPreLN},
                                           Case{"positionwise", Variant::kFG}, Case{"positionwise", Variant::kPreLN}));

// The archive is recorded by its absolute path, so that the checkpoint is evaluated from any
// folder (given relative, it was kept so, and read from wherever the report ran).
TEST(DLStudioImport, RecordsTheArchiveByItsAbsolutePath) {
  auto files = seq2seq_files("positionwise");
  const auto absolute = fs::absolute(files.vocab_archive);
  files.vocab_archive = fs::relative(absolute).string();
  ASSERT_TRUE(fs::path(files.vocab_archive).is_relative());
  const auto output = test::fresh_temp_dir("dlstudio_import_relative") / "imported.pt";
  import_dlstudio_seq2seq(files, output.string());
  EXPECT_EQ(fs::path(load_seq2seq_checkpoint(output.string()).info.settings.data.data_path),
            absolute.lexically_normal());
}

TEST(DLStudioImport, NamesTheMissingKey) {
  auto files = seq2seq_files("positionwise");
  files.encoder = fixture("positionwise/encoder_missing_key");
  EXPECT_EQ(import_error(files), files.encoder + ": missing key 'basic_encoder_arr.1.norm2.bias' ([8])");
}

TEST(DLStudioImport, NamesTheMismatchedKeyWithBothShapes) {
  auto files = seq2seq_files("positionwise");
  files.decoder = fixture("positionwise/decoder_bad_shape");
  EXPECT_EQ(import_error(files), files.decoder +
                                     ": 'basic_decoder_arr.0.W1.weight' has shape [33, 8], "
                                     "the model read from the other keys needs [32, 8]");
}

// A position-wise encoder with a flattened decoder (files of two runs) used to end in
// LibTorch's "Sizes of tensors must match", naming no file: the roles' shapes are checked
// against each other first, and the file that disagrees is named with what was expected.
TEST(DLStudioImport, FilesOfTwoRunsAreRefusedNamingTheOneThatDisagrees) {
  auto files = seq2seq_files("positionwise");
  files.decoder = fixture("dlstudio/decoder_FG_5");
  EXPECT_EQ(import_error(files), files.decoder + ": flattened blocks (M = 4, 2 heads, L = 5), but the encoder (" +
                                     files.encoder +
                                     ") has position-wise blocks (M = 8, 2 heads, FFN 4M): the four files must come "
                                     "from one DLStudio run");
  auto flattened = seq2seq_files("dlstudio");
  flattened.decoder = fixture("positionwise/decoder_FG_5");
  EXPECT_EQ(import_error(flattened).rfind(flattened.decoder +
                                              ": position-wise blocks (M = 8, 2 heads, FFN 4M), but "
                                              "the encoder (" +
                                              flattened.encoder + ") has flattened blocks (M = 4",
                                          0),
            0u)
      << import_error(flattened);
  auto embeddings = seq2seq_files("positionwise");
  embeddings.embeddings_es = fixture("dlstudio/embeddings_generator_es_FG_5");
  const auto error = import_error(embeddings);
  EXPECT_EQ(error.rfind(embeddings.embeddings_es + ": 'embed.weight' has shape [", 0), 0u) << error;
  EXPECT_NE(error.find(", 4], the encoder (" + embeddings.encoder + ") needs [V, 8]"), std::string::npos) << error;
}

// An export's word list given for the archive is named for what it is (it was refused by a
// pickle opcode).
TEST(DLStudioImport, AWordListForTheArchiveIsNamedForWhatItIs) {
  auto files = seq2seq_files("positionwise");
  const auto dir = test::fresh_temp_dir("dlstudio_word_list");
  files.vocab_archive = (dir / "words.txt").string();  // a word list under another name
  test::write_bytes(files.vocab_archive, "SOS\nEOS\na\n");
  EXPECT_EQ(import_error(files), files.vocab_archive +
                                     ": not DLStudio's archive (a pickle of (dataset, vocab_en, vocab_es), often "
                                     "gzipped); an export's word lists are given by their folder (vocab_en.txt and "
                                     "vocab_es.txt)");
  // An export's list without its partner, or not a word list.
  files.vocab_archive = (dir / "vocab_en.txt").string();
  test::write_bytes(files.vocab_archive, "SOS\nEOS\na\n");
  EXPECT_EQ(import_error(files), (dir / "vocab_es.txt").string() +
                                     ": no such file (an export writes vocab_en.txt and vocab_es.txt together)");
  test::write_bytes(dir / "vocab_es.txt", "EOS\nSOS\nb\n");
  EXPECT_EQ(import_error(files),
            (dir / "vocab_es.txt").string() + ": not an export's word list (it starts with the lines SOS and EOS)");
}

// This project's own checkpoint given for one of DLStudio's files is named as such (it was
// refused by a pickle opcode).
TEST(DLStudioImport, AProjectCheckpointForAFileIsNamedAsSuch) {
  auto files = seq2seq_files("positionwise");
  files.encoder = (test::fresh_temp_dir("dlstudio_own_checkpoint") / "checkpoint.pt").string();
  checkpoint::CheckpointWriter writer("seq2seq");
  writer.add_settings({});
  writer.save(files.encoder);
  EXPECT_EQ(import_error(files).rfind(files.encoder + ": a dlstudio-cpp checkpoint, not DLStudio's torch.save", 0), 0u)
      << import_error(files);
}

TEST(DLStudioImport, NamesAnUnexpectedKey) {
  auto files = seq2seq_files("positionwise");
  files.embeddings_en = fixture("positionwise/encoder_FG_5");  // the encoder's keys are no embedding's
  EXPECT_EQ(import_error(files).rfind(files.embeddings_en + ": ", 0), 0u);
}

TEST(DLStudioImport, RefusesAVocabularyOfAnotherSize) {
  auto files = seq2seq_files("positionwise");
  files.embeddings_en = files.embeddings_es;  // 12 rows, vocab_en has 11 words
  EXPECT_EQ(import_error(files),
            files.embeddings_es + ": 'embed.weight' has 12 rows, " + files.vocab_archive + "'s vocab_en has 11 words");
}

TEST(DLStudioImport, ViTGivesThePythonModelsLogits) {
  const auto output = test::fresh_temp_dir("dlstudio_vit") / "vit.pt";
  import_dlstudio_vit(vit_files(), output.string());
  const CheckpointReader reader(output.string(), kViTCheckpointKind);
  const auto contents = read_vit_contents(reader);
  EXPECT_EQ(contents.settings.model.channels(), 1);
  EXPECT_EQ(contents.settings.model.image_size(), 8);
  EXPECT_EQ(contents.settings.model.patch_size(), 4);
  auto model = load_vit_model(reader, contents.settings);
  model->eval();
  const auto reference = testing::load_torch_fixture("dlstudio_interop/vit/reference.pt");
  torch::NoGradGuard no_grad;
  model->class_token.copy_(entry(reference, "class_token").toTensor());  // DLStudio never saves it
  const auto logits = model->forward(entry(reference, "images").toTensor());
  EXPECT_LT((logits - entry(reference, "logits").toTensor()).abs().max().item().toDouble(), kTolerance);
}

// A ViT export reimported is the same model: its class token, which DLStudio never saves,
// comes back from the class_token.pt the export writes beside the network.
TEST(DLStudioExport, AViTExportImportsBackWithItsClassToken) {
  const auto dir = test::fresh_temp_dir("dlstudio_vit_round_trip");
  import_dlstudio_vit(vit_files(), (dir / "first.pt").string());  // its class token drawn
  export_dlstudio((dir / "first.pt").string(), (dir / "out").string());
  import_dlstudio_vit(
      {(dir / "out" / "checkpoint_0_for_epoch_10").string(), (dir / "out" / "checkpoint_1_for_epoch_10").string()},
      (dir / "second.pt").string());
  const auto token_of = [](const fs::path& file) {
    const CheckpointReader reader(file.string(), kViTCheckpointKind);
    return load_vit_model(reader, read_vit_contents(reader).settings)->class_token;
  };
  EXPECT_TRUE(torch::equal(token_of(dir / "second.pt"), token_of(dir / "first.pt")));
}

// Import, export, and read the exported files back: every tensor equals the original file's.
TEST(DLStudioExport, WritesBackTheImportedTensors) {
  const auto dir = test::fresh_temp_dir("dlstudio_export");
  const auto files = seq2seq_files("dlstudio");
  import_dlstudio_seq2seq(files, (dir / "imported.pt").string());
  const auto written = export_dlstudio((dir / "imported.pt").string(), (dir / "out").string());
  ASSERT_EQ(written.size(), 7u);  // four state dicts, two word lists, languages.toml
  // Named after DLStudio's epoch, as the files imported were (encoder_FG_5).
  const std::map<std::string, std::string> originals{{"encoder_FG_5", files.encoder},
                                                     {"decoder_FG_5", files.decoder},
                                                     {"embeddings_generator_en_FG_5", files.embeddings_en},
                                                     {"embeddings_generator_es_FG_5", files.embeddings_es}};
  for (const auto& [name, original] : originals) {
    const auto expected = read_state_dict_file(original);
    const auto actual = read_state_dict_file((dir / "out" / name).string());
    ASSERT_EQ(actual.size(), expected.size()) << name;
    for (std::size_t i = 0; i < actual.size(); ++i) {
      EXPECT_EQ(actual[i].first, expected[i].first) << name;
      EXPECT_TRUE(torch::equal(actual[i].second, expected[i].second)) << name << " " << actual[i].first;
    }
  }
  EXPECT_EQ(util::read_file((dir / "out" / "vocab_en.txt").string()),
            "SOS\nEOS\na\nbig\ncat\ndog\neats\ni\nsee\nthe\nyou\n");
  EXPECT_EQ(read_export_languages((dir / "out").string()), (std::pair<std::string, std::string>{"en", "es"}));
}

std::string export_error(const std::string& checkpoint, const fs::path& dir) {
  return test::error_of([&] { export_dlstudio(checkpoint, dir.string()); }, "(no error)");
}

// The checkpoint of one training step of a tiny ViT that DLStudio's visTransformer can hold (FG,
// position-wise layout, FFN 4M, no stem, patches of 7, a 512-wide head), then `change`d.
std::string tiny_vit_checkpoint(const std::string& name,
                                const std::function<void(settings::ViTTrainSettings&)>& change) {
  auto settings = test::tiny_vit_settings(test::tiny_fashion_dir(name));
  settings.model.transformer().variant(Variant::kFG).layout(Layout::kPositionwise).ffn_multiplier(4);
  settings.model.stem({}).patch_size(7).head_hidden_size(512);
  settings.epochs = 1;
  change(settings);
  auto control = test::tiny_vit_run(test::fresh_temp_dir(name + "_run"));
  control.max_iters = 1;
  return test::train_vit_with(settings, control).checkpoints.back();
}

// What DLStudio's classes cannot hold is refused with one line naming the file and the reason,
// before anything is written: the output directory is not even created.
TEST(DLStudioExport, RefusesWhatDLStudioHasNoClassForAndWritesNothing) {
  const auto out = test::fresh_temp_dir("dlstudio_export_refused") / "out";
  const auto expect_refused = [&out](const std::string& checkpoint, const std::string& reason) {
    const auto error = export_error(checkpoint, out);
    EXPECT_EQ(error.rfind(checkpoint + ": ", 0), 0u) << error;
    EXPECT_NE(error.find(reason), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    EXPECT_FALSE(fs::exists(out)) << reason;
  };
  expect_refused(latest_checkpoint(test::trained_seq2seq_run().string()),
                 "the vaswani layout has no DLStudio counterpart");
  expect_refused(tiny_vit_checkpoint("export_preln", [](auto& s) { s.model.transformer().variant(Variant::kPreLN); }),
                 "DLStudio's visTransformer is FG only");
  expect_refused(tiny_vit_checkpoint("export_stem",
                                     [](auto& s) {
                                       s.model.stem({StemConv{4, 1}});
                                     }),
                 "DLStudio's visTransformer has no convolutional stem");
  expect_refused(tiny_vit_checkpoint("export_head", [](auto& s) { s.model.head_hidden_size(64); }),
                 "DLStudio's head is 512 wide, this model's 64");
  expect_refused(tiny_vit_checkpoint("export_ffn", [](auto& s) { s.model.transformer().ffn_multiplier(2); }),
                 "DLStudio's position-wise FFN is 4M wide, this model's is 2M");
  // The same tiny model as DLStudio has it is exported.
  const auto accepted = tiny_vit_checkpoint("export_fg", [](auto&) {});
  EXPECT_EQ(export_dlstudio(accepted, out.string()).size(), 3u);
  // Not into a folder that holds anything, another export included: none of its files changes.
  std::map<std::string, std::string> before;
  for (const auto& entry : fs::directory_iterator(out))
    before[entry.path().string()] = util::read_file(entry.path().string());
  const auto error = export_error(accepted, out);
  EXPECT_EQ(error.rfind(out.string() + ": not an empty folder", 0), 0u) << error;
  for (const auto& [path, bytes] : before) EXPECT_EQ(util::read_file(path), bytes) << path;
  // Nor over a file, which is named as one.
  const auto file = before.begin()->first;
  EXPECT_EQ(export_error(accepted, file).rfind(file + ": a file; --export-dlstudio writes", 0), 0u);
}

TEST(DLStudioExport, PythonLoadsEveryExportStrictly) {
  DLS_REQUIRE_OUTSIDE(kPython, "torch");
  for (const std::string kind : {"dlstudio", "positionwise", "vit"}) {
    SCOPED_TRACE(kind);
    const auto dir = test::fresh_temp_dir("dlstudio_python_" + kind);
    if (kind == "vit") {
      import_dlstudio_vit(vit_files(), (dir / "imported.pt").string());
    } else {
      import_dlstudio_seq2seq(seq2seq_files(kind), (dir / "imported.pt").string());
    }
    export_dlstudio((dir / "imported.pt").string(), (dir / "out").string());
    const std::string command =
        "cd " + fixture("") + " && " +
        test::outside_command({kPython, fixture("check_export.py"), (dir / "out").string(), kind});
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
  }
}

// A tiny DLStudio-layout FG model (flattened layout, FFN 4M, L 10) trained on the sample
// corpus for one epoch, with DLStudio's loss or with this project's (<pad> padding), from
// English to Spanish or `reverse`; returns its checkpoint.
std::string tiny_dlstudio_layout_checkpoint(const std::string& name, bool dlstudio_loss, std::int64_t max_iters,
                                            bool reverse = false) {
  auto setup = test::tiny_seq2seq_setup(test::fresh_temp_dir(name));
  setup.data.reverse = reverse;
  setup.model.transformer().variant(Variant::kFG).layout(Layout::kDLStudio).embedding_size(16).num_heads(2);
  setup.model.transformer().ffn_multiplier(4).dropout(0.0);
  setup.dlstudio_loss = dlstudio_loss;
  setup.label_smoothing = 0.0;
  setup.epochs = 1;
  setup.run.max_iters = max_iters;
  return latest_checkpoint(test::train_fixture_run(setup).string());
}

// DLStudio's file names are roles (_en the source, _es the target): a Spanish-to-English run's
// files say so in a warning, and vocab_en.txt holds its Spanish source words.
TEST(DLStudioExport, ARunOfAnotherDirectionSaysWhichSideEachFileHolds) {
  const auto checkpoint = tiny_dlstudio_layout_checkpoint("export_reverse_run", true, 2, /*reverse=*/true);
  const auto out = test::fresh_temp_dir("export_reverse") / "out";
  std::ostringstream log;
  const auto previous = spdlog::default_logger();
  auto logger = std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(log));
  logger->set_pattern("%v");
  spdlog::set_default_logger(logger);
  const auto written = export_dlstudio(checkpoint, out.string());
  spdlog::set_default_logger(previous);
  EXPECT_NE(log.str().find("translates es into en; DLStudio's file names stand for the sides, so "
                           "embeddings_generator_en_* and vocab_en.txt hold the source (es)"),
            std::string::npos)
      << log.str();
  EXPECT_NE(util::read_file((out / "vocab_en.txt").string()).find("\ncomo\n"), std::string::npos);
}

// An export's own files import back: the word lists (their folder, or one of them) give the
// vocabularies, languages.toml the pair (a Spanish-to-English run's), the flags win over it; the
// model is the one exported, and there are no pairs to score.
TEST(DLStudioImport, AnExportsWordListsImportBackWithTheirLanguages) {
  const auto checkpoint = tiny_dlstudio_layout_checkpoint("export_words_run", true, 2, /*reverse=*/true);
  const auto dir = test::fresh_temp_dir("export_words");
  export_dlstudio(checkpoint, (dir / "out").string());
  DLStudioSeq2SeqFiles files;
  for (const auto& entry : fs::directory_iterator(dir / "out")) {
    const auto name = entry.path().filename().string();
    for (auto [prefix, file] : {std::pair{"encoder_", &files.encoder}, std::pair{"decoder_", &files.decoder},
                                std::pair{"embeddings_generator_en_", &files.embeddings_en},
                                std::pair{"embeddings_generator_es_", &files.embeddings_es}}) {
      if (name.rfind(prefix, 0) == 0) *file = entry.path().string();
    }
  }
  files.vocab_archive = (dir / "out").string();
  import_dlstudio_seq2seq(files, (dir / "back.pt").string());
  const auto original = load_seq2seq_checkpoint(checkpoint);
  const auto back = load_seq2seq_checkpoint((dir / "back.pt").string());
  EXPECT_EQ(back.info.settings.data.source_language(), "es");
  EXPECT_EQ(back.info.settings.data.target_language(), "en");
  EXPECT_EQ(back.info.settings.data.data_path, "");
  EXPECT_EQ(back.info.english_words, original.info.english_words);
  EXPECT_EQ(back.info.spanish_words, original.info.spanish_words);
  export_dlstudio((dir / "back.pt").string(), (dir / "again").string());
  for (const auto& entry : fs::directory_iterator(dir / "out")) {
    const auto again = dir / "again" / entry.path().filename();
    EXPECT_EQ(util::read_file(again.string()), util::read_file(entry.path().string())) << again;
  }
  files.vocab_archive = (dir / "out" / "vocab_es.txt").string();
  files.src_lang = "ca";
  import_dlstudio_seq2seq(files, (dir / "catalan.pt").string());
  const auto catalan = load_seq2seq_checkpoint((dir / "catalan.pt").string()).info.settings.data;
  EXPECT_EQ(catalan.source_language() + " " + catalan.target_language(), "ca en");
  files.src_lang = "Catalan";
  EXPECT_EQ(import_error(files), "--src-lang: 'Catalan' is not an ISO 639 code (2 or 3 lowercase letters: en, es, de)");
  files.src_lang.clear();
  test::write_bytes(dir / "out" / "languages.toml", "source = \"es\"\n");
  EXPECT_EQ(import_error(files), (dir / "out" / "languages.toml").string() + ": needs both source and target");
}

// A run that trained a <pad> (the standard loss) is not DLStudio's model: refused, one line.
TEST(DLStudioExport, RefusesARunTrainedWithPadPadding) {
  const auto checkpoint = tiny_dlstudio_layout_checkpoint("export_pad_run", false, 2);
  const auto out = test::fresh_temp_dir("dlstudio_export_pad") / "out";
  const auto error = export_error(checkpoint, out);
  EXPECT_EQ(error, checkpoint +
                       ": trained with <pad> padding, not DLStudio's loss; its <pad>/<unk> rows and padding differ "
                       "from DLStudio's (EOS padding, no such words), so DLStudio would translate differently; "
                       "train with --dlstudio-loss true to export");
  EXPECT_FALSE(fs::exists(out));
}

// A --dlstudio-loss run, exported and run in DLStudio-style Python classes, translates as the
// program does (greedy) and gives the program's loss: the run's model has DLStudio's outputs
// (<pad>/<unk> out of the softmax), so both softmaxes run over the same words.
TEST(DLStudioExport, ExportedDLStudioLossRunTranslatesAsTheProgram) {
  DLS_REQUIRE_OUTSIDE(kPython, "torch");
  const auto checkpoint = tiny_dlstudio_layout_checkpoint("export_eos_run", true, 0);
  const auto dir = test::fresh_temp_dir("dlstudio_export_eos");
  export_dlstudio(checkpoint, (dir / "out").string());

  auto loaded = load_seq2seq_checkpoint(checkpoint);
  const auto& config = loaded.model.transformer()->config().transformer();
  const int max_len = static_cast<int>(config.max_seq_length());
  // Sentences of the corpus with known words that fit, every 20th line.
  std::vector<std::int64_t> src_ids, tgt_ids;
  std::int64_t rows = 0;
  std::istringstream corpus(util::read_file(dls::testing::sample_corpus()));
  std::string line;
  for (int n = 0; std::getline(corpus, line) && rows < 40; ++n) {
    if (n % 20 != 0) continue;
    const auto tab = line.find('\t');
    const auto en = data::normalize_english(line.substr(0, tab));
    const auto es = data::normalize_spanish(line.substr(tab + 1, line.find('\t', tab + 1) - tab - 1));
    if (static_cast<int>(std::max(en.size(), es.size())) + 2 > max_len) continue;
    std::vector<std::string> unknown_en, unknown_es;
    const auto s = loaded.english.encode(en, max_len, data::Vocabulary::Padding::kEos, &unknown_en);
    const auto t = loaded.spanish.encode(es, max_len, data::Vocabulary::Padding::kEos, &unknown_es);
    if (!unknown_en.empty() || !unknown_es.empty()) continue;
    src_ids.insert(src_ids.end(), s.begin(), s.end());
    tgt_ids.insert(tgt_ids.end(), t.begin(), t.end());
    ++rows;
  }
  ASSERT_GE(rows, 20);
  const auto src = torch::tensor(src_ids, torch::kLong).view({rows, max_len});
  const auto tgt = torch::tensor(tgt_ids, torch::kLong).view({rows, max_len});
  // DLStudio's numbering: this project's words from 4 are DLStudio's from 2.
  const auto dlstudio_ids = [](const torch::Tensor& ids) { return torch::where(ids >= 4, ids - 2, ids); };
  std::string pairs;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (const auto* side : {&src, &tgt}) {
      const auto row = dlstudio_ids((*side)[r]).contiguous();
      for (std::int64_t i = 0; i < max_len; ++i) pairs += std::to_string(row[i].item<std::int64_t>()) + " ";
      pairs += side == &src ? "| " : "\n";
    }
  }
  util::write_text_atomically((dir / "pairs.txt").string(), pairs);

  // The program: greedy translations and its loss (checkpoint_eval's val_loss).
  EXPECT_TRUE(loaded.model.transformer()->config().dlstudio_outputs())
      << "a --dlstudio-loss run has DLStudio's outputs";
  const auto translations = eval::decode_batch(loaded.model, src, data::Vocabulary::kSos, data::Vocabulary::kEos, {});
  LossOptions dlstudio;
  dlstudio.dlstudio = true;
  const double program_loss = dataset_loss(loaded.model, {src, tgt}, dlstudio);

  const auto output = dir / "python_out.txt";
  const std::string command =
      test::outside_command(
          {kPython, fixture("translate_export.py"), (dir / "out").string(), "dlstudio", "FG",
           std::to_string(config.embedding_size()), std::to_string(config.num_heads()), std::to_string(max_len),
           std::to_string(loaded.model.transformer()->config().num_encoders()),
           std::to_string(loaded.model.transformer()->config().num_decoders()), (dir / "pairs.txt").string()}) +
      " >" + output.string();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::istringstream python(util::read_file(output.string()));
  std::size_t differing = 0, nonempty = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    ASSERT_TRUE(std::getline(python, line));
    std::string expected;
    for (const auto id : translations[static_cast<std::size_t>(r)]) {
      EXPECT_TRUE(id != data::Vocabulary::kPad && id != data::Vocabulary::kUnk)
          << "the program chose <pad>/<unk>, which the exported model cannot";
      expected += (expected.empty() ? "" : " ") + std::to_string(id >= 4 ? id - 2 : id);
    }
    nonempty += expected.empty() ? 0 : 1;
    if (line != expected) ++differing;
    EXPECT_EQ(line, expected) << "sentence " << r;
  }
  EXPECT_EQ(differing, 0u);
  EXPECT_GT(nonempty, 0u);
  ASSERT_TRUE(std::getline(python, line));
  ASSERT_EQ(line.rfind("loss ", 0), 0u) << line;
  const double python_loss = std::stod(line.substr(5));
  EXPECT_NEAR(python_loss, program_loss, 1e-5 * program_loss);
  std::cout << "loss: program " << program_loss << ", DLStudio (exported, Python) " << python_loss << "\n";
}

}  // namespace
}  // namespace dls::dlstudio
