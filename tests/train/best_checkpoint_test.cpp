#include "dls/train/best_checkpoint.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace dls::train {
namespace {

TEST(BestCheckpoint, FollowsTheBestScoreInItsDirection) {
  BestCheckpoint bleu("bleu", higher_is_better("bleu"), 0);
  const std::vector<double> scores{0.20, 0.25, 0.24, 0.31, 0.31};
  const std::vector<bool> improved{true, true, false, true, false};  // a tie is no improvement
  for (std::size_t i = 0; i < scores.size(); ++i) {
    EXPECT_EQ(bleu.observe(static_cast<std::int64_t>(i) + 1, scores[i]), improved[i]) << "evaluation " << i + 1;
  }
  EXPECT_DOUBLE_EQ(bleu.best_value(), 0.31);
  EXPECT_EQ(bleu.best_epoch(), 4);
  EXPECT_EQ(bleu.evaluations_without_improvement(), 1);

  BestCheckpoint loss("loss", higher_is_better("loss"), 0);
  EXPECT_TRUE(loss.observe(1, 2.0));
  EXPECT_FALSE(loss.observe(2, 2.5));
  EXPECT_TRUE(loss.observe(3, 1.5));
  EXPECT_EQ(loss.best_epoch(), 3);
}

TEST(BestCheckpoint, AScoreThatIsNotFiniteNeverWins) {
  BestCheckpoint best("bleu", true, 0);
  EXPECT_FALSE(best.observe(1, NAN));
  EXPECT_EQ(best.best_epoch(), 0);
  EXPECT_TRUE(best.observe(2, 0.0));
  EXPECT_FALSE(best.observe(3, INFINITY));
}

TEST(BestCheckpoint, PatienceCountsEvaluationsInARowWithoutImprovement) {
  BestCheckpoint best("bleu", true, 2);
  best.observe(1, 0.1);
  best.observe(2, 0.05);
  EXPECT_FALSE(best.out_of_patience());
  best.observe(3, 0.2);  // improves: the count starts again
  best.observe(4, 0.1);
  EXPECT_FALSE(best.out_of_patience());
  best.observe(5, 0.1);
  EXPECT_TRUE(best.out_of_patience()) << "two evaluations without improvement";
  BestCheckpoint patient("bleu", true, 0);
  for (int epoch = 1; epoch <= 10; ++epoch) patient.observe(epoch, 0.0);
  EXPECT_FALSE(patient.out_of_patience()) << "patience 0 never stops";
}

// The log shows a score with the digits it has: a BLEU of 3e-5 is not "0.0000".
TEST(BestCheckpoint, ScoresAreLoggedWithTheirDigits) {
  EXPECT_EQ(score_text("bleu", 0.33051), "bleu 0.3305");
  EXPECT_EQ(score_text("bleu", 3.2e-5), "bleu 3.2e-05");
  EXPECT_EQ(score_text("bleu", 0.0), "bleu 0");
  EXPECT_EQ(score_text("loss", 2.06412), "loss 2.064");
  EXPECT_EQ(score_text("accuracy", 0.9125), "accuracy 91.25%");
}

TEST(BestCheckpoint, ItsStateRoundTripsThroughText) {
  BestCheckpoint best("loss", false, 3);
  best.observe(1, 2.5);
  best.observe(2, 2.125);
  best.observe(3, 2.75);
  best.set_source("checkpoint_epoch_0002.pt");
  BestCheckpoint resumed("loss", false, 3);
  resumed.restore(best.to_text(), "test");
  EXPECT_EQ(resumed.best_value(), 2.125);
  EXPECT_EQ(resumed.best_epoch(), 2);
  EXPECT_EQ(resumed.evaluations_without_improvement(), 1);
  EXPECT_EQ(resumed.source(), "checkpoint_epoch_0002.pt");
  EXPECT_FALSE(resumed.observe(4, 2.2)) << "the restored best still has to be beaten";

  BestCheckpoint other("bleu", true, 3);
  other.restore(best.to_text(), "test");
  EXPECT_EQ(other.best_epoch(), 0) << "a state kept for another metric is not taken over";
  EXPECT_THROW(resumed.restore("metric=loss\nvalue=x\n", "test"), std::runtime_error);
}

}  // namespace
}  // namespace dls::train
