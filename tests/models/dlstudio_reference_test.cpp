// Cross-check with DLStudio's own classes: the fixtures hold the weights, a batch and the
// log-probabilities of DLStudio-style Python models (written by
// tests/python/make_reference_fixtures.py from tests/python/dlstudio_style.py, which runs
// the decoder once per prefix as DLStudio does). A Seq2SeqTransformer of the same config
// with those weights must compute the same log-probabilities.
//
// The files are read with torch::pickle_load, which understands torch.save's zip format
// when the saved object is plain data (dicts, ints, tensors), so no converter is needed.
#include <gtest/gtest.h>

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "dls/models/seq2seq.h"
#include "dls/layers/saved_tensors.h"
#include "support/torch_fixture.h"

namespace dls {
namespace {

using testing::entry;

constexpr double kTolerance = 1e-5;

struct Reference {
  Seq2SeqConfig config;  // variant left at its default; set per test
  std::map<std::string, torch::Tensor> weights;
  torch::Tensor src, tgt;                          // [B, L] int64
  std::map<std::string, torch::Tensor> log_probs;  // variant -> [B, L-1, V]
};

std::map<std::string, torch::Tensor> tensors_of(const c10::IValue& value) {
  std::map<std::string, torch::Tensor> tensors;
  for (const auto& item : value.toGenericDict()) {
    tensors[item.key().toStringRef()] = item.value().toTensor();
  }
  return tensors;
}

Reference load_reference(const std::string& layout) {
  const auto root = testing::load_torch_fixture("dlstudio_reference/" + layout + ".pt");
  const auto config = entry(root, "config").toGenericDict();
  auto size = [&](const std::string& key) { return entry(config, key).toInt(); };
  Reference reference;
  reference.config.transformer()
      .layout(parse_layout(layout))
      .embedding_size(size("embedding_size"))
      .num_heads(size("num_heads"))
      .max_seq_length(size("max_seq_length"))
      .ffn_multiplier(size("ffn_multiplier"));
  reference.config.num_encoders(size("num_encoders"))
      .num_decoders(size("num_decoders"))
      .src_vocab_size(size("src_vocab_size"))
      .tgt_vocab_size(size("tgt_vocab_size"));
  reference.weights = tensors_of(entry(root, "state_dict"));
  reference.src = entry(root, "src").toTensor();
  reference.tgt = entry(root, "tgt").toTensor();
  reference.log_probs = tensors_of(entry(root, "log_probs"));
  return reference;
}

struct Case {
  const char* layout;
  Variant variant;
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.layout << "/" << to_string(c.variant); }

class DLStudioReference : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    reference_ = load_reference(GetParam().layout);
    reference_.config.transformer().variant(GetParam().variant);
    model_ = Seq2SeqTransformer(reference_.config);
  }
  const torch::Tensor& expected() { return reference_.log_probs.at(to_string(GetParam().variant)); }

  Reference reference_;
  Seq2SeqTransformer model_{nullptr};
};

// By the names it is saved under (saved_tensors.h): the fused heads as DLStudio's WQ/WK/WV.
TEST_P(DLStudioReference, EveryParameterHasItsPythonTwin) {
  std::map<std::string, torch::Tensor> parameters;
  for (const auto& [name, tensor] : saved_parameters(*model_)) parameters.emplace(name, tensor);
  for (const auto& [name, tensor] : parameters) {
    const auto found = reference_.weights.find(name);
    ASSERT_NE(found, reference_.weights.end()) << "no Python weight named " << name;
    EXPECT_EQ(found->second.sizes(), tensor.sizes()) << name;
  }
  for (const auto& [name, tensor] : reference_.weights) {
    EXPECT_EQ(parameters.count(name), 1u) << "Python weight " << name << " has no twin";
  }
  EXPECT_EQ(parameters.size(), reference_.weights.size());
}

TEST_P(DLStudioReference, SameLogProbabilitiesAsDLStudiosClasses) {
  {
    torch::NoGradGuard no_grad;
    for (auto& [name, tensor] : saved_parameters(*model_)) tensor.copy_(reference_.weights.at(name));
  }
  model_->eval();
  torch::NoGradGuard no_grad;
  const auto log_probs = model_(reference_.src, reference_.tgt);
  ASSERT_EQ(log_probs.sizes(), expected().sizes());
  const double difference = (log_probs - expected()).abs().max().item<double>();
  EXPECT_LE(difference, kTolerance);
  // The plain prefix loop (DLStudio's order of work) agrees too.
  const auto loop = model_->master_decoder->forward_prefix_loop(
      model_->embeddings_generator_es(reference_.tgt),
      model_->master_encoder(model_->embeddings_generator_en(reference_.src)));
  EXPECT_LE((loop - expected()).abs().max().item<double>(), kTolerance);
  // The comparison has teeth: the other variant's numbers are far away.
  const auto& other =
      reference_.log_probs.at(to_string(GetParam().variant == Variant::kFG ? Variant::kPreLN : Variant::kFG));
  EXPECT_GT((log_probs - other).abs().max().item<double>(), 1e-2);
}

INSTANTIATE_TEST_SUITE_P(FlattenedAndPositionwise, DLStudioReference,
                         ::testing::Values(Case{"dlstudio", Variant::kFG}, Case{"dlstudio", Variant::kPreLN},
                                           Case{"positionwise", Variant::kFG}, Case{"positionwise", Variant::kPreLN}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.layout) + "_" + to_string(info.param.variant);
                         });

}  // namespace
}  // namespace dls
