// train/init_from.h and --init-from on the trainers: tensors load by name and shape, rows of
// token-indexed tensors by token (rows of tokens the checkpoint lacks keep their fresh
// values), renamed prefixes, a head for other classes starting fresh, tied weights counted
// once, and one-line refusals (another shape, nothing that fits, a checkpoint of another
// kind). End to end: a language model's decoder into a translation model's target side (the
// lecture's pre-train-then-fine-tune) and a translation model fine-tuned on new parallel
// files, each checked tensor by tensor in the new run's checkpoint (trained at a learning
// rate of 1e-12, so that its step leaves the weights as they started).
#include "dls/train/init_from.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/lm_checkpoint.h"
#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/layers/patch_embedding.h"
#include "dls/train/tasks/lm_presets.h"
#include "dls/train/tasks/lm_trainer.h"
#include "support/error_of.h"
#include "support/seq2seq_runs.h"
#include "support/test_paths.h"
#include "support/vit_runs.h"
#include "util/sentencepiece_available.h"
#include "util/temp_files.h"

namespace dls {
namespace init_from_test {
namespace {

namespace fs = std::filesystem;

struct TinyImpl : torch::nn::Module {
  TinyImpl(std::int64_t vocab, std::int64_t width, std::int64_t classes) {
    embedding = register_module("embedding", torch::nn::Embedding(vocab, width));
    body = register_module("body", torch::nn::Linear(width, width));
    head = register_module("head", torch::nn::Linear(width, classes));
  }
  torch::nn::Embedding embedding{nullptr};
  torch::nn::Linear body{nullptr}, head{nullptr};
};
TORCH_MODULE(Tiny);

checkpoint::NamedTensors tensors_of(torch::nn::Module& module, const std::string& prefix = "") {
  checkpoint::NamedTensors tensors;
  for (const auto& p : module.named_parameters()) tensors.emplace_back(prefix + p.key(), p.value().detach().clone());
  return tensors;
}

TEST(InitFrom, LoadsByNameAndShapeAndRowsByToken) {
  torch::manual_seed(1);
  Tiny theirs(3, 4, 2), ours(4, 4, 2);
  const std::vector<std::string> their_words{"c", "x", "a"}, our_words{"a", "b", "c", "d"};
  const auto b_before = ours->embedding->weight[1].clone(), d_before = ours->embedding->weight[3].clone();
  train::InitPlan plan;
  plan.token_rows = {{"embedding.weight", &our_words, &their_words}};
  const auto report = train::init_parameters(*ours, tensors_of(*theirs), plan, "run/x.pt");
  EXPECT_TRUE(torch::equal(ours->body->weight, theirs->body->weight));
  EXPECT_TRUE(torch::equal(ours->head->bias, theirs->head->bias));
  EXPECT_TRUE(torch::equal(ours->embedding->weight[0], theirs->embedding->weight[2])) << "a";
  EXPECT_TRUE(torch::equal(ours->embedding->weight[2], theirs->embedding->weight[0])) << "c";
  EXPECT_TRUE(torch::equal(ours->embedding->weight[1], b_before)) << "b: not theirs, stays fresh";
  EXPECT_TRUE(torch::equal(ours->embedding->weight[3], d_before));
  ASSERT_EQ(report.lines.size(), 5u);
  EXPECT_EQ(report.lines[0].name, "embedding.weight");
  EXPECT_EQ(report.lines[0].shape, "[4, 4]");
  EXPECT_EQ(report.lines[0].outcome, "by token: 2 of 4 rows");
  EXPECT_EQ(report.lines[1].outcome, "loaded");
  EXPECT_EQ(report.total, 16 + 20 + 10);
  EXPECT_EQ(report.loaded, 8 + 20 + 10);
  EXPECT_NE(report.summary().find("--init-from run/x.pt: "), std::string::npos) << report.summary();
  EXPECT_NE(report.summary().find("1 tensors by token, 0 fresh"), std::string::npos) << report.summary();
  EXPECT_NE(report.table(false).find("4 others"), std::string::npos) << report.table(false);
  EXPECT_NE(report.table(true).find("body.weight"), std::string::npos);
  EXPECT_TRUE(report.warnings.empty()) << "half the rows met";

  // Fewer than half: another language, direction or tokenizer, said once per vocabulary.
  const std::vector<std::string> other_words{"z", "y", "a", "w"};
  Tiny other(4, 4, 2);
  plan.token_rows = {{"embedding.weight", &other_words, &their_words}};
  const auto apart = train::init_parameters(*other, tensors_of(*theirs), plan, "run/x.pt");
  ASSERT_EQ(apart.warnings.size(), 1u);
  EXPECT_EQ(apart.warnings[0],
            "embedding.weight: 1 of its 4 tokens are the checkpoint's; another language, direction or tokenizer than "
            "the checkpoint's?");
}

TEST(InitFrom, RenamesPrefixesAndStartsAResizedHeadFresh) {
  Tiny theirs(3, 4, 2), ours(3, 4, 5);
  const auto head_before = ours->head->weight.clone();
  train::InitPlan plan;
  plan.renames = {{"lm.", ""}};
  plan.fresh_when_resized = {"head."};
  const auto report = train::init_parameters(*ours, tensors_of(*theirs, "lm."), plan, "x.pt");
  EXPECT_TRUE(torch::equal(ours->embedding->weight, theirs->embedding->weight));
  EXPECT_TRUE(torch::equal(ours->head->weight, head_before));
  EXPECT_EQ(report.lines[3].outcome, "fresh: [2, 4] there");
  EXPECT_TRUE(report.unused.empty());
}

TEST(InitFrom, RefusesAnotherShapeAndACheckpointOfWhichNothingFits) {
  Tiny theirs(3, 4, 2), wider(3, 8, 2);
  EXPECT_EQ(
      test::error_of<std::runtime_error>([&] { train::init_parameters(*wider, tensors_of(*theirs), {}, "x.pt"); }),
      "--init-from x.pt: embedding.weight is [3, 4] there and [3, 8] here (another model shape: --layout, "
      "--embedding-size, --heads, --max-words, ...)");
  Tiny ours(3, 4, 2);
  EXPECT_EQ(test::error_of<std::runtime_error>(
                [&] { train::init_parameters(*ours, tensors_of(*theirs, "other."), {}, "x.pt"); }),
            "--init-from x.pt: no tensor of it fits this model");
}

struct TiedImpl : torch::nn::Module {
  TiedImpl() {
    const auto shared = torch::randn({2, 2});
    register_parameter("first", shared);
    register_parameter("second", shared);
    register_parameter("bias", torch::randn({2}));
  }
};
TORCH_MODULE(Tied);

TEST(InitFrom, CountsTiedWeightsOnce) {
  Tied theirs, ours;
  const auto report = train::init_parameters(*ours, tensors_of(*theirs), {}, "x.pt");
  EXPECT_EQ(report.total, 4 + 2);
  EXPECT_EQ(report.loaded, report.total);
  bool tied_line = false;
  for (const auto& line : report.lines) tied_line = tied_line || line.outcome == "the same tensor as first";
  EXPECT_TRUE(tied_line);
}

struct GridImpl : torch::nn::Module {
  explicit GridImpl(std::int64_t side) {
    position_embedding = register_parameter("position_embedding", torch::zeros({1, side * side, 2}));
  }
  torch::Tensor position_embedding;  // [1, side x side, 2]
};
TORCH_MODULE(Grid);

// A ViT's position embeddings on another grid of patches (another image size) are resampled,
// as timm's resample_abs_pos_embed: bicubic over the grid, rows and columns in place. Here
// channel 0 is each patch's row (0..3), channel 1 its column: on the new grid channel 0 is
// the same along a row, channel 1 along a column, and both are symmetric about the middle
// (the ramp 0..3 mirrors to 3..0), up- and downsampled alike.
TEST(InitFrom, PositionEmbeddingsOnAnotherGridAreResampledRowsAndColumnsInPlace) {
  Grid theirs(4);
  {
    torch::NoGradGuard no_grad;
    const auto ramp = torch::arange(4, torch::kFloat32);
    theirs->position_embedding.select(2, 0).copy_(ramp.view({4, 1}).expand({4, 4}).reshape({1, 16}));
    theirs->position_embedding.select(2, 1).copy_(ramp.view({1, 4}).expand({4, 4}).reshape({1, 16}));
  }
  train::InitPlan plan;
  plan.resampled_grids = {"position_embedding"};
  for (const std::int64_t side : {6, 2}) {
    Grid ours(side);
    const auto report = train::init_parameters(*ours, tensors_of(*theirs), plan, "x.pt");
    const auto grid = ours->position_embedding.view({side, side, 2});
    const auto rows = grid.select(2, 0), columns = grid.select(2, 1);
    EXPECT_TRUE(torch::allclose(rows, rows.select(1, 0).unsqueeze(1).expand({side, side}), 0, 1e-6)) << rows;
    EXPECT_TRUE(torch::allclose(columns, rows.t(), 0, 1e-6)) << columns;
    EXPECT_TRUE(torch::allclose(rows + rows.flip({0}), torch::full({side, side}, 3.0f), 0, 1e-5)) << rows;
    EXPECT_LT(rows[0][0].item<float>(), rows[side - 1][0].item<float>());
    const auto n = std::to_string(side);
    EXPECT_EQ(report.lines[0].outcome, "resampled: 4 x 4 patches there, " + n + " x " + n + " here");
    EXPECT_EQ(report.loaded, report.total);
  }
  // Not listed in the plan, or not a square grid: another shape, refused.
  Grid ours(3);
  EXPECT_NE(test::error_of<std::runtime_error>([&] {
              train::init_parameters(*ours, tensors_of(*theirs), {}, "x.pt");
            }).find("position_embedding is [1, 16, 2] there and [1, 9, 2] here"),
            std::string::npos);
  Tiny other(3, 4, 2);
  plan.resampled_grids = {"embedding.weight"};
  Tiny wider(5, 4, 2);  // [5, 4]: not [1, P, M]
  EXPECT_NE(test::error_of<std::runtime_error>([&] {
              train::init_parameters(*wider, tensors_of(*other), plan, "x.pt");
            }).find("embedding.weight is [3, 4] there and [5, 4] here"),
            std::string::npos);
}

// Grey images into a colour model's weights and back (vit_train --channels): the patch
// projection, as a convolution or a Linear on channel-last patches, is adapted as timm's
// adapt_input_conv -- summed over the colours, or the grey repeated and divided by 3 -- so
// that a grey image gives exactly what the checkpoint's model gave it in colour (R = G = B).
TEST(InitFrom, ImageChannelsAreAdaptedSoThatAGreyImageGivesTheSameEmbeddings) {
  using Layout = train::InitPlan::ChannelLayout;
  for (const bool use_conv : {true, false}) {
    SCOPED_TRACE(use_conv ? "Conv2d" : "Linear");
    torch::manual_seed(3);
    const auto options = [use_conv](std::int64_t channels) {
      return PatchEmbeddingOptions().image_size(8).channels(channels).patch_size(4).embedding_size(6).use_conv(
          use_conv);
    };
    PatchEmbeddingGenerator colour(options(3)), grey(options(1)), colour_again(options(3));
    train::InitPlan plan;
    plan.input_channels = {{"conv.weight", Layout::kConv}, {"linear.weight", Layout::kPatchLinear}};
    plan.their_channels = 3;
    plan.our_channels = 1;
    const auto report = train::init_parameters(*grey, tensors_of(*colour), plan, "colour.pt");
    EXPECT_EQ(report.loaded, report.total);
    const std::string weight = use_conv ? "conv.weight" : "linear.weight";
    for (const auto& line : report.lines) {
      EXPECT_EQ(line.outcome, line.name == weight ? "adapted: 3 channels there, summed into 1 here" : "loaded")
          << line.name;
    }
    const auto images = torch::rand({2, 1, 8, 8});
    const auto as_colour = images.expand({2, 3, 8, 8});
    torch::NoGradGuard no_grad;
    EXPECT_TRUE(torch::allclose(grey(images), colour(as_colour), 1e-5, 1e-5));

    plan.their_channels = 1;
    plan.our_channels = 3;
    const auto back = train::init_parameters(*colour_again, tensors_of(*grey), plan, "grey.pt");
    EXPECT_EQ(back.loaded, back.total);
    EXPECT_TRUE(torch::allclose(colour_again(as_colour), grey(images), 1e-5, 1e-5));
    // Each colour weighs a third of the grey: a colour image gives the grey of its mean.
    const auto rgb = torch::rand({2, 3, 8, 8});
    EXPECT_TRUE(torch::allclose(colour_again(rgb), grey(rgb.mean(1, /*keepdim=*/true)), 1e-5, 1e-5));
  }
  // Not listed in the plan: another shape, refused as before.
  PatchEmbeddingGenerator colour(PatchEmbeddingOptions().image_size(8).channels(3).patch_size(4).embedding_size(6));
  PatchEmbeddingGenerator grey(PatchEmbeddingOptions().image_size(8).channels(1).patch_size(4).embedding_size(6));
  EXPECT_NE(test::error_of<std::runtime_error>([&] {
              train::init_parameters(*grey, tensors_of(*colour), {}, "colour.pt");
            }).find("linear.weight is [6, 48] there and [6, 16] here"),
            std::string::npos);
}

// The tensors of the newest checkpoint in `run` (its trained weights).
std::map<std::string, torch::Tensor> checkpoint_tensors(const fs::path& run) {
  const checkpoint::CheckpointReader reader(checkpoint::latest_checkpoint(run.string()));
  std::map<std::string, torch::Tensor> tensors;
  for (const auto& [name, tensor] : reader.module_tensors("model")) {
    if (tensor.defined()) tensors.emplace(name, tensor);  // undefined: a module's own entry
  }
  return tensors;
}

// Whether `a` and `b` are equal but for a step at a learning rate of 1e-12.
bool same(const torch::Tensor& a, const torch::Tensor& b) { return torch::allclose(a, b, 0, 1e-6); }

// A new run that starts from `from` and takes one step at a learning rate of 1e-12.
void unmoving(settings::Seq2SeqTrainSettings& setup, const fs::path& from) {
  setup.run.init_from = from.string();
  setup.schedule.kind = settings::ScheduleKind::kConstant;
  setup.schedule.base_lr = 1e-12;
  setup.epochs = 1;
  setup.run.max_iters = 1;
  setup.samples = 0;
  setup.bleu_sentences = 0;
}

TEST(InitFromRuns, ALanguageModelsDecoderIntoATranslationModel) {
  const auto lm_dir = test::fresh_temp_dir("init_from_lm");
  auto lm = train::lm_preset("tiny");  // M 32, 2 heads, FFN 4M, one PreLN block
  lm.data.path = testing::sample_corpus();
  lm.epochs = 1;
  lm.run.run_dir = lm_dir.string();
  train::train_lm(lm);

  const auto dir = test::fresh_temp_dir("init_from_lm_seq2seq");
  auto setup = test::tiny_seq2seq_setup(dir);
  setup.model.transformer().ffn_multiplier(4).dropout(0);
  unmoving(setup, lm_dir);
  // The other variant has the same tensors, but LayerNorm elsewhere: refused, naming both.
  setup.model.transformer().variant(Variant::kFG);
  try {
    train::train_seq2seq(setup);
    ADD_FAILURE() << "a PreLN model's weights went into an FG model";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find(": a PreLN model, this run's is FG (LayerNorm sits elsewhere"),
              std::string::npos)
        << error.what();
  }
  setup.model.transformer().variant(Variant::kPreLN);
  train::train_seq2seq(setup);

  const auto theirs = checkpoint_tensors(lm_dir), ours = checkpoint_tensors(dir);
  const std::string block = "master_decoder.basic_decoder_arr.0.";
  for (const auto* name : {"W1.weight", "W2.bias", "norm1.weight", "self_attention_layer.qkv.weight"}) {
    if (theirs.count(block + name) == 0) continue;  // a layout without fused Q/K/V
    EXPECT_TRUE(same(ours.at(block + name), theirs.at(block + name))) << name;
  }
  EXPECT_TRUE(same(ours.at(block + "W1.weight"), theirs.at(block + "W1.weight")));
  EXPECT_EQ(theirs.count(block + "norm2.weight"), 0u) << "a language model has no cross-attention";
  // A word both vocabularies have: its target embedding and output row are the LM's.
  const checkpoint::CheckpointReader lm_reader(checkpoint::latest_checkpoint(lm_dir.string()));
  const auto lm_words = checkpoint::read_lm_contents(lm_reader).words;
  const auto info = train::resume_info(dir.string());
  const auto& es_words = info.spanish_words;
  int compared = 0;
  for (std::size_t i = 4; i < es_words.size() && compared < 5; ++i) {
    const auto at = std::find(lm_words.begin(), lm_words.end(), es_words[i]);
    if (at == lm_words.end()) continue;
    const auto j = at - lm_words.begin();
    EXPECT_TRUE(same(ours.at("embeddings_generator_es.embedding.weight")[static_cast<std::int64_t>(i)],
                     theirs.at("embeddings_generator.embedding.weight")[j]))
        << es_words[i];
    EXPECT_TRUE(same(ours.at("master_decoder.out.weight")[static_cast<std::int64_t>(i)],
                     theirs.at("master_decoder.out.weight")[j]));
    ++compared;
  }
  EXPECT_EQ(compared, 5);
}

// `count` pairs of the sample corpus from its line `first` on, as parallel files `name`.en and
// `name`.es in `dir`, then `extra` (English, Spanish) pairs.
void write_parallel_files(const fs::path& dir, const std::string& name, int first, int count,
                          const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  std::ifstream tsv(testing::sample_corpus());
  std::ofstream en(dir / (name + ".en")), es(dir / (name + ".es"));
  std::string line;
  for (int i = 0; i < first + count && std::getline(tsv, line);) {
    const auto tab = line.find('\t');
    if (tab == std::string::npos) continue;
    const auto second = line.find('\t', tab + 1);
    if (i++ < first) continue;
    en << line.substr(0, tab) << "\n";
    es << line.substr(tab + 1, second == std::string::npos ? std::string::npos : second - tab - 1) << "\n";
  }
  for (const auto& [english, spanish] : extra) en << english << "\n", es << spanish << "\n";
}

// The tiny run's settings on the parallel files train.* (and valid.* when `dir` has them).
settings::Seq2SeqTrainSettings on_parallel_files(const fs::path& run_dir, const fs::path& dir) {
  auto setup = test::tiny_seq2seq_setup(run_dir);
  setup.data.data_path.clear();
  setup.data.train_src = (dir / "train.en").string();
  setup.data.train_tgt = (dir / "train.es").string();
  if (fs::exists(dir / "valid.en")) {
    setup.data.valid_src = (dir / "valid.en").string();
    setup.data.valid_tgt = (dir / "valid.es").string();
  }
  setup.data.src_lang = "en";
  setup.data.tgt_lang = "es";
  setup.data.validation_pairs = 50;
  return setup;
}

TEST(InitFromRuns, ATranslationModelFineTunedOnNewParallelFiles) {
  const auto& trained = test::trained_seq2seq_run();
  const auto data = test::fresh_temp_dir("init_from_parallel");
  write_parallel_files(data, "train", 0, 300);  // new data: 300 pairs of the sample corpus
  const auto dir = test::fresh_temp_dir("init_from_fine_tune");
  auto setup = on_parallel_files(dir, data);
  setup.init_vocab = settings::InitVocab::kData;  // another vocabulary: the rows go by token
  unmoving(setup, trained);
  train::train_seq2seq(setup);
  const auto theirs = checkpoint_tensors(trained), ours = checkpoint_tensors(dir);
  for (const auto& [name, tensor] : theirs) {
    if (name.find("embeddings_generator") != std::string::npos || name.rfind("master_decoder.out.", 0) == 0) continue;
    EXPECT_TRUE(same(ours.at(name), tensor)) << name;
  }
}

// Whether `words` begins with `prefix`.
bool starts_with(const std::vector<std::string>& words, const std::vector<std::string>& prefix) {
  return words.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), words.begin());
}

bool has(const std::vector<std::string>& words, const std::string& word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

TEST(InitFromRuns, FineTuningKeepsTheParentsVocabularyAndAddsTheNewWords) {
  const auto& trained = test::trained_seq2seq_run();
  const auto parent = train::resume_info(trained.string());
  // A little in-domain data: 30 pairs and a word the parent never saw; 10 validation pairs.
  const auto data = test::fresh_temp_dir("init_vocab_data");
  write_parallel_files(data, "train", 0, 30, {{"the zorblax sings", "el zorblax canta"}});
  write_parallel_files(data, "valid", 30, 10);
  const auto fine_tune = [&](settings::InitVocab vocab, const std::string& name, const std::string& src_lang) {
    const auto dir = test::fresh_temp_dir(name);
    auto setup = on_parallel_files(dir, data);
    setup.data.src_lang = src_lang;
    setup.init_vocab = vocab;
    unmoving(setup, trained);
    train::train_seq2seq(setup);
    return std::make_pair(dir, train::resume_info(dir.string()));
  };
  // extend (the default): the parent's words at their indices, then the new ones, so that
  // every word the parent knew keeps its embedding and output rows.
  EXPECT_EQ(settings::Seq2SeqTrainSettings().init_vocab, settings::InitVocab::kExtend);
  const auto [extended_dir, extended] = fine_tune(settings::InitVocab::kExtend, "init_vocab_extend", "en");
  for (const auto side :
       {&checkpoint::Seq2SeqCheckpointInfo::english_words, &checkpoint::Seq2SeqCheckpointInfo::spanish_words}) {
    EXPECT_TRUE(starts_with(extended.*side, parent.*side));
    EXPECT_GT((extended.*side).size(), (parent.*side).size());
  }
  EXPECT_FALSE(has(parent.english_words, "zorblax"));
  EXPECT_TRUE(has(extended.english_words, "zorblax"));
  EXPECT_TRUE(has(extended.spanish_words, "zorblax"));
  const auto theirs = checkpoint_tensors(trained), ours = checkpoint_tensors(extended_dir);
  const auto english_rows = static_cast<std::int64_t>(parent.english_words.size());
  const auto spanish_rows = static_cast<std::int64_t>(parent.spanish_words.size());
  EXPECT_TRUE(same(ours.at("embeddings_generator_en.embedding.weight").narrow(0, 0, english_rows),
                   theirs.at("embeddings_generator_en.embedding.weight")));
  EXPECT_TRUE(
      same(ours.at("master_decoder.out.weight").narrow(0, 0, spanish_rows), theirs.at("master_decoder.out.weight")));

  // parent: its words alone (the new word is <unk>).
  const auto kept = fine_tune(settings::InitVocab::kParent, "init_vocab_parent", "en").second;
  EXPECT_EQ(kept.english_words, parent.english_words);
  EXPECT_EQ(kept.spanish_words, parent.spanish_words);

  // data: this data's words alone, as before --init-vocab, far fewer than the parent's.
  const auto own = fine_tune(settings::InitVocab::kData, "init_vocab_data_own", "en").second;
  EXPECT_TRUE(has(own.english_words, "zorblax"));
  EXPECT_LT(own.english_words.size(), parent.english_words.size() / 2);

  // A side in another language than the parent's on that side is this data's own.
  const auto german = fine_tune(settings::InitVocab::kExtend, "init_vocab_other_language", "de").second;
  EXPECT_FALSE(starts_with(german.english_words, parent.english_words));
  EXPECT_LT(german.english_words.size(), parent.english_words.size() / 2);
  EXPECT_TRUE(starts_with(german.spanish_words, parent.spanish_words));
}

// With subword units the parent's SentencePiece models serve (a trained model takes no new
// pieces); subword settings other than the parent's train the new data's own.
TEST(InitFromRuns, FineTuningWithSubwordsKeepsTheParentsSentencePieceModels) {
  DLS_SKIP_WITHOUT_SENTENCEPIECE();
  auto parent_setup = test::tiny_seq2seq_setup(test::fresh_temp_dir("init_vocab_subword_parent"));
  parent_setup.data.subword_units = true;
  parent_setup.data.subwords.vocab_size = 200;
  parent_setup.epochs = 1;
  parent_setup.run.max_iters = 2;
  const auto parent_dir = test::train_fixture_run(parent_setup);
  const auto parent = train::resume_info(parent_dir.string());
  const auto data = test::fresh_temp_dir("init_vocab_subword_data");
  write_parallel_files(data, "train", 0, 60);
  write_parallel_files(data, "valid", 60, 10);
  const auto fine_tune = [&](int vocab_size, const std::string& name) {
    auto setup = on_parallel_files(test::fresh_temp_dir(name), data);
    setup.data.subword_units = true;
    setup.data.subwords.vocab_size = vocab_size;
    unmoving(setup, parent_dir);
    train::train_seq2seq(setup);
    return train::resume_info(setup.run.run_dir);
  };
  const auto child = fine_tune(200, "init_vocab_subword_child");
  EXPECT_EQ(child.english_subwords, parent.english_subwords);
  EXPECT_EQ(child.spanish_subwords, parent.spanish_subwords);
  EXPECT_EQ(child.english_words, parent.english_words);
  EXPECT_EQ(child.spanish_words, parent.spanish_words);
  const auto other = fine_tune(100, "init_vocab_subword_other");
  EXPECT_NE(other.english_subwords, parent.english_subwords);
  EXPECT_NE(other.english_words, parent.english_words);
}

TEST(InitFromRuns, RefusesAnotherShapeOrKindInOneLine) {
  const auto& trained = test::trained_seq2seq_run();
  auto setup = test::tiny_seq2seq_setup(test::fresh_temp_dir("init_from_wider"));
  setup.model.transformer().embedding_size(64);
  unmoving(setup, trained);
  const auto wider = test::error_of<std::runtime_error>([&] { train::train_seq2seq(setup); });
  EXPECT_NE(wider.find(" there and "), std::string::npos) << wider;
  EXPECT_EQ(wider.find('\n'), std::string::npos) << wider;

  const auto fashion = test::tiny_fashion_dir("init_from_vit_data");
  const auto vit_dir = test::fresh_temp_dir("init_from_vit");
  auto vit = test::tiny_vit_settings(fashion);
  vit.epochs = 1;
  test::train_vit_with(vit, test::tiny_vit_run(vit_dir));
  auto other_kind = test::tiny_seq2seq_setup(test::fresh_temp_dir("init_from_kind"));
  unmoving(other_kind, vit_dir);
  const auto kind = test::error_of<std::runtime_error>([&] { train::train_seq2seq(other_kind); });
  EXPECT_NE(kind.find(": a vit checkpoint; seq2seq_train starts from a seq2seq or lm checkpoint"), std::string::npos)
      << kind;

  // Another grid of patches (here a shorter stem, 28 -> 7: 49 tokens, not 16; another
  // --image-size alike): the position embeddings resampled onto it, the rest loaded.
  auto resized = test::tiny_vit_settings(fashion);
  resized.model.stem({StemConv{4, 1}, StemConv{8, 2}, StemConv{8, 2}});
  resized.epochs = 1;
  resized.schedule = settings::ScheduleKind::kConstant;
  resized.lr = 1e-12;
  auto resized_run = test::tiny_vit_run(test::fresh_temp_dir("init_from_vit_resized"));
  resized_run.init_from = vit_dir.string();
  resized_run.max_iters = 1;
  test::train_vit_with(resized, resized_run);
  const std::string grid_name = "patch_embedding_generator.position_embedding";
  const auto parent_grid = checkpoint_tensors(vit_dir).at(grid_name);
  ASSERT_EQ(parent_grid.sizes(), (std::vector<std::int64_t>{1, 16, 16}));
  namespace F = torch::nn::functional;
  const auto expected =
      F::interpolate(parent_grid.view({1, 4, 4, 16}).permute({0, 3, 1, 2}), F::InterpolateFuncOptions()
                                                                                .size(std::vector<std::int64_t>{7, 7})
                                                                                .mode(torch::kBicubic)
                                                                                .align_corners(false)
                                                                                .antialias(true))
          .permute({0, 2, 3, 1})
          .reshape({1, 49, 16});
  EXPECT_TRUE(same(checkpoint_tensors(resized_run.run_dir).at(grid_name), expected));

  // Another shape of a weight (a stem layer's channels): the refusal names the flags.
  auto wider_stem = test::tiny_vit_settings(fashion);
  wider_stem.model.stem({StemConv{6, 1}, StemConv{8, 2}, StemConv{8, 2}, StemConv{8, 2}});
  auto wider_stem_run = test::tiny_vit_run(test::fresh_temp_dir("init_from_vit_wider_stem"));
  wider_stem_run.init_from = vit_dir.string();
  const auto shape = test::error_of<std::runtime_error>([&] { test::train_vit_with(wider_stem, wider_stem_run); });
  EXPECT_NE(shape.find("(another model shape: --patch-size, --channels, --stem"), std::string::npos) << shape;

  // vit into vit: every tensor loads.
  auto again = test::tiny_vit_settings(fashion);
  again.epochs = 1;
  auto run = test::tiny_vit_run(test::fresh_temp_dir("init_from_vit_again"));
  run.init_from = vit_dir.string();
  run.max_iters = 1;
  again.schedule = settings::ScheduleKind::kConstant;
  again.lr = 1e-12;
  test::train_vit_with(again, run);
  const auto theirs = checkpoint_tensors(vit_dir), ours = checkpoint_tensors(run.run_dir);
  for (const auto& [name, tensor] : theirs) EXPECT_TRUE(same(ours.at(name), tensor)) << name;
}

}  // namespace
}  // namespace init_from_test
}  // namespace dls
