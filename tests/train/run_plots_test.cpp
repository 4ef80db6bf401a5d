// The plots a run draws from its metrics.csv, read as data: the loss legend says which loss is
// label-smoothed, BLEU is on sacreBLEU's 0-100 scale, and older runs' files (before columns
// were appended) still plot.
#include "dls/train/run_plots.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "dls/layers/embeddings.h"
#include "dls/models/seq2seq.h"
#include "dls/models/vit.h"
#include "support/small_models.h"
#include "util/temp_files.h"

namespace dls::train {
namespace {

namespace fs = std::filesystem;

// The plot of `plots` saved as `file`; fails the test when there is none.
const util::LinePlot& run_plot_named(const std::vector<RunPlot>& plots, const std::string& file) {
  for (const auto& p : plots) {
    if (p.file == file) return p.plot;
  }
  ADD_FAILURE() << "no " << file;
  static const util::LinePlot none;
  return none;
}

std::vector<std::string> run_plot_legend(const util::LinePlot& plot) {
  std::vector<std::string> names;
  for (const auto& s : plot.series()) names.push_back(s.name);
  return names;
}

// metrics.csv with `text` in a fresh folder (no loss_steps.csv: the loss curve comes from the
// step rows).
std::string run_plots_metrics_file(const std::string& name, const std::string& text) {
  const auto dir = test::fresh_temp_dir(name);
  test::write_bytes(dir / "metrics.csv", text);
  return (dir / "metrics.csv").string();
}

TEST(RunPlots, LossLegendSaysWhichLossIsLabelSmoothed) {
  const auto smoothed = loss_series_names(0.1, "validation");
  EXPECT_EQ(smoothed.training, "training loss (label smoothing 0.1)");
  EXPECT_EQ(smoothed.held_out, "validation loss (plain NLL)");
  const auto plain = loss_series_names(0.0, "test");
  EXPECT_EQ(plain.training, "training loss");
  EXPECT_EQ(plain.held_out, "test loss");
}

TEST(RunPlots, Seq2SeqBleuIsOnTheZeroToHundredScale) {
  const auto path =
      run_plots_metrics_file("run_plots_seq2seq",
                             "kind,epoch,step,loss,lr,pairs_per_s,val_loss,val_bleu,wall_s,val_sacrebleu,val_chrf\n"
                             "step,1,10,4.5,0.001,100,,,1.0,,\n"
                             "epoch,1,20,4.0,0.001,100,3.5,0.25,2.0,26.5,48.1\n"
                             "step,2,30,3.5,0.001,100,,,3.0,,\n"
                             "epoch,2,40,3.0,0.001,100,2.5,0.4,4.0,41,60.2\n");
  const auto plots = seq2seq_run_plots(path, 0.1);
  const auto& bleu = run_plot_named(plots, "bleu.png");
  EXPECT_EQ(bleu.y_label(), "BLEU (0-100)");
  ASSERT_EQ(run_plot_legend(bleu), (std::vector<std::string>{"corpus BLEU (NLTK) x 100", "sacreBLEU"}));
  EXPECT_EQ(bleu.series()[0].x, (std::vector<double>{1, 2}));
  EXPECT_DOUBLE_EQ(bleu.series()[0].y[0], 25.0);
  EXPECT_DOUBLE_EQ(bleu.series()[0].y[1], 40.0);
  EXPECT_EQ(bleu.series()[1].y, (std::vector<double>{26.5, 41.0}));

  const auto& loss = run_plot_named(plots, "loss.png");
  EXPECT_EQ(run_plot_legend(loss),
            (std::vector<std::string>{"training loss (label smoothing 0.1)", "validation loss (plain NLL)"}));
  EXPECT_EQ(loss.series()[0].y, (std::vector<double>{4.5, 3.5}));  // the step rows
  EXPECT_EQ(loss.series()[1].x, (std::vector<double>{20, 40}));
  EXPECT_EQ(loss.series()[1].y, (std::vector<double>{3.5, 2.5}));
}

TEST(RunPlots, OlderSeq2SeqFileWithoutSacreBleuStillPlots) {
  const auto path = run_plots_metrics_file("run_plots_seq2seq_old",
                                           "kind,epoch,step,loss,lr,pairs_per_s,val_loss,val_bleu,wall_s\n"
                                           "step,1,10,4.5,0.001,100,,,1.0\n"
                                           "epoch,1,20,4.0,0.001,100,3.5,0.25,2.0\n");
  const auto plots = seq2seq_run_plots(path, 0.0);
  const auto& bleu = run_plot_named(plots, "bleu.png");
  ASSERT_EQ(run_plot_legend(bleu), (std::vector<std::string>{"corpus BLEU (NLTK) x 100"}));
  EXPECT_DOUBLE_EQ(bleu.series()[0].y[0], 25.0);
  EXPECT_EQ(run_plot_legend(run_plot_named(plots, "loss.png")),
            (std::vector<std::string>{"training loss", "validation loss"}));
}

TEST(RunPlots, VitLossPlotHasTheTestLoss) {
  const std::string header = "kind,epoch,step,loss,accuracy,test_accuracy,lr,images_per_s,wall_s";
  const auto path = run_plots_metrics_file("run_plots_vit", header +
                                                                ",test_loss\n"
                                                                "step,1,4,2.2,0.2,,0.001,50,1.0,\n"
                                                                "epoch,1,4,2.2,0.2,0.3,0.001,50,1.0,2.05\n");
  const auto plots = vit_run_plots(path, 0.1);
  const auto& loss = run_plot_named(plots, "loss.png");
  ASSERT_EQ(run_plot_legend(loss),
            (std::vector<std::string>{"training loss (label smoothing 0.1)", "test loss (plain NLL)"}));
  EXPECT_EQ(loss.series()[1].y, (std::vector<double>{2.05}));

  // An older file, without test_loss: the training loss alone, and the accuracies.
  const auto old_path = run_plots_metrics_file("run_plots_vit_old", header +
                                                                        "\n"
                                                                        "step,1,4,2.2,0.2,,0.001,50,1.0\n"
                                                                        "epoch,1,4,2.2,0.2,0.3,0.001,50,1.0\n");
  const auto old_plots = vit_run_plots(old_path, 0.1);
  EXPECT_EQ(run_plot_legend(run_plot_named(old_plots, "loss.png")),
            (std::vector<std::string>{"training loss (label smoothing 0.1)"}));
  EXPECT_EQ(run_plot_legend(run_plot_named(old_plots, "accuracy.png")), (std::vector<std::string>{"train", "test"}));
}

TEST(RunPlots, LmLossLegendNamesTheSmoothing) {
  const auto path = run_plots_metrics_file(
      "run_plots_lm",
      "kind,epoch,step,loss,lr,sentences_per_s,val_loss,val_perplexity,wall_s,val_word_perplexity\n"
      "step,1,5,5.0,0.001,10,,,1.0,\n"
      "epoch,1,10,4.8,0.001,10,4.5,90.0171,2.0,120.5\n");
  const auto plots = lm_run_plots(path, 0.05);
  EXPECT_EQ(run_plot_legend(run_plot_named(plots, "loss.png")),
            (std::vector<std::string>{"training loss (label smoothing 0.05)", "validation loss (plain NLL)"}));
  EXPECT_EQ(run_plot_named(plots, "perplexity.png").series().at(0).y, (std::vector<double>{90.0171}));
}

TEST(RunPlots, LearningRateShowsThePlanAndTheRatesUsed) {
  settings::LrSchedule cosine;
  cosine.kind = settings::ScheduleKind::kWarmupCosine;
  cosine.base_lr = 1e-3;
  cosine.warmup_steps = 100;
  cosine.total_steps = 1000;
  const auto path = run_plots_metrics_file("run_plots_lr",
                                           "kind,epoch,step,loss,lr,pairs_per_s,val_loss,val_bleu,wall_s\n"
                                           "step,1,50,4.5,0.0005,100,,,1.0\n"
                                           "epoch,1,100,4.0,0.001,100,3.5,0.25,2.0\n"
                                           "step,2,150,3.5,0.00099,100,,,3.0\n");
  const auto plot = learning_rate_plot(path, cosine, 1000).plot;
  ASSERT_EQ(run_plot_legend(plot), (std::vector<std::string>{"planned (cosine)", "used (logged steps)"}));
  const auto& planned = plot.series()[0];
  EXPECT_EQ(planned.x.front(), 1);
  EXPECT_EQ(planned.x.back(), 1000);
  EXPECT_LE(planned.x.size(), 402u) << "sampled, not one point a step";
  for (std::size_t i = 0; i < planned.x.size(); ++i) {
    EXPECT_DOUBLE_EQ(planned.y[i], cosine.at(static_cast<std::int64_t>(planned.x[i])));
  }
  EXPECT_EQ(plot.series()[1].x, (std::vector<double>{50, 150}));
  EXPECT_EQ(plot.series()[1].y, (std::vector<double>{0.0005, 0.00099}));
  // Before the first step: the plan alone.
  const auto before = learning_rate_plot((fs::path(path).parent_path() / "none.csv").string(), cosine, 1000).plot;
  EXPECT_EQ(run_plot_legend(before), (std::vector<std::string>{"planned (cosine)"}));
}

// The positional encodings a run draws are the model's own table: found by name in a
// translation model, none in a ViT (learned positions), and drawn as the matrix beside the
// dot products of its positions.
TEST(RunPlots, PositionalEncodingsAreTheModelsOwnTable) {
  const auto config = testing::small_config(Variant::kFG, Layout::kVaswani);
  Seq2SeqTransformer model(config);
  const auto table = sinusoidal_encodings_of(*model);
  ASSERT_TRUE(table.defined());
  const auto L = config.transformer().max_seq_length(), M = config.transformer().embedding_size();
  EXPECT_TRUE(torch::allclose(table, sinusoidal_positional_encoding(L, M)));
  EXPECT_FALSE(sinusoidal_encodings_of(*visTransformer(ViTConfig::dlstudio())).defined());
  const auto picture = positional_encoding_picture(sinusoidal_positional_encoding(10, 256));
  EXPECT_GE(picture.width(), 1024 + 10 * 16) << "the matrix, about 1024 wide, and the 10 x 10 dot products";
  EXPECT_GE(picture.height(), 320);
  // A GPT's block of 257 positions: both panels drawn as images of the same height (3 pixels a
  // position), not a heat map with a label per position 16 pixels apart (4,400 pixels wide).
  const auto block = positional_encoding_picture(sinusoidal_positional_encoding(257, 128));
  EXPECT_LE(block.width(), 2 * 1024 + 100) << block.width();  // two cells as wide as the matrix
  EXPECT_LE(block.height(), 257 * 3 + 200) << block.height();
  EXPECT_GE(block.height(), 257 * 3);
}

}  // namespace
}  // namespace dls::train
