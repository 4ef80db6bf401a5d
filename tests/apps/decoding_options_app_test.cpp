// The decoding options of checkpoint_eval and translate_server, end to end on the tiny trained
// run: --n-best lists in Moses/Marian's "sentence ||| translation ||| log p" lines whose
// first is --beam's translation (and "n_best" in JSON and in the server's answer);
// --alignments after " ||| " (and "alignment" in JSON and the server), the library's;
// --sample repeatable with its --seed and different with another; --ensemble of the run
// with itself translating as the run alone; --replace-unk as the library replaces (and
// "replace_unk" in the server); and each misuse refused in one line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dls/eval/translator.h"
#include "dls/eval/word_alignment.h"
#include "support/decoding_fixture.h"
#include "support/program_run.h"
#include "support/seq2seq_runs.h"
#include "support/translate_server_process.h"

namespace dls::apps::decoding_options_app_test {
namespace {

using nlohmann::json;

const std::vector<std::string> kSentences = {"I want to go home.", "Where is my dog?",
                                             "She does not want the red car."};

std::string translate_args(const std::string& flags) {
  std::string args = test::trained_seq2seq_run().string() + " --threads 1 " + flags;
  for (const auto& s : kSentences) args += " --translate \"" + s + "\"";
  return args;
}

TEST(DecodingOptionsApp, NBestListsStartWithTheBeamsTranslation) {
  const auto beam = test::run_program("apps/checkpoint_eval", translate_args("--beam 4"), "nbest_beam");
  ASSERT_EQ(beam.status, 0) << beam.err;
  const auto best = test::lines_of(beam.out);
  ASSERT_EQ(best.size(), kSentences.size());
  const auto listed = test::run_program("apps/checkpoint_eval", translate_args("--beam 4 --n-best 3"), "nbest_list");
  ASSERT_EQ(listed.status, 0) << listed.err;
  const auto lines = test::lines_of(listed.out);
  ASSERT_EQ(lines.size(), 3 * kSentences.size()) << listed.out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    SCOPED_TRACE(lines[i]);
    const auto first_bar = lines[i].find(" ||| "), last_bar = lines[i].rfind(" ||| ");
    ASSERT_NE(first_bar, last_bar);
    EXPECT_EQ(lines[i].substr(0, first_bar), std::to_string(i / 3));
    const double score = std::stod(lines[i].substr(last_bar + 5));
    EXPECT_LE(score, 0.0);
    if (i % 3 == 0) {
      EXPECT_EQ(lines[i].substr(first_bar + 5, last_bar - first_bar - 5), best[i / 3]);
    } else {
      EXPECT_LE(score, std::stod(lines[i - 1].substr(lines[i - 1].rfind(" ||| ") + 5)) + 1e-4);
    }
  }
  const auto as_json =
      test::run_program("apps/checkpoint_eval", translate_args("--beam 4 --n-best 2 --json"), "nbest_json");
  ASSERT_EQ(as_json.status, 0) << as_json.err;
  const auto objects = test::lines_of(as_json.out);
  ASSERT_EQ(objects.size(), kSentences.size());
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const auto object = json::parse(objects[i]);
    ASSERT_EQ(object["n_best"].size(), 2u) << objects[i];
    EXPECT_EQ(object["n_best"][0]["translation"], object["translation"]);
    EXPECT_EQ(object["translation"], best[i]);
  }
}

TEST(DecodingOptionsApp, AlignmentsAreTheLibrarysAndFollowTheTranslation) {
  auto translator = eval::Translator::load(test::trained_seq2seq_run().string());
  const auto expected = translator.translate(kSentences);
  const auto run = test::run_program("apps/checkpoint_eval", translate_args("--alignments"), "alignments");
  ASSERT_EQ(run.status, 0) << run.err;
  const auto lines = test::lines_of(run.out);
  ASSERT_EQ(lines.size(), kSentences.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto text = eval::alignment_text(translator.alignment(expected[i]));
    EXPECT_FALSE(text.empty());
    EXPECT_EQ(lines[i], expected[i].text + " ||| " + text);
  }
}

TEST(DecodingOptionsApp, SamplesFollowTheSeedAndAnEnsembleOfTheRunWithItselfIsTheRun) {
  const auto sample = [](const std::string& seed) {
    const auto run = test::run_program("apps/checkpoint_eval",
                                       translate_args("--sample --temperature 2 --seed " + seed), "sample_" + seed);
    EXPECT_EQ(run.status, 0) << run.err;
    return run.out;
  };
  const auto first = sample("1");
  EXPECT_EQ(sample("1"), first);
  EXPECT_TRUE(sample("2") != first || sample("3") != first) << "other seeds, other samples: " << first;

  const auto plain = test::run_program("apps/checkpoint_eval", translate_args(""), "ensemble_plain");
  const auto ensemble = test::run_program(
      "apps/checkpoint_eval", translate_args("--ensemble " + test::trained_seq2seq_run().string()), "ensemble_two");
  ASSERT_EQ(ensemble.status, 0) << ensemble.err;
  EXPECT_EQ(ensemble.out, plain.out);
}

TEST(DecodingOptionsApp, ACoveragePenaltyTranslatesWithBeamSearch) {
  const auto run =
      test::run_program("apps/checkpoint_eval", translate_args("--beam 4 --coverage-penalty 0.4"), "coverage");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(test::lines_of(run.out).size(), kSentences.size()) << run.out;
}

TEST(DecodingOptionsApp, MisusesAreRefusedInOneLine) {
  const std::string run = test::trained_seq2seq_run().string() + " --threads 1 ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--translate hi --n-best 3", "--n-best 3: needs --beam K with K >= N"},
      {"--translate hi --beam 2 --n-best 3", "--n-best 3: needs --beam K with K >= N"},
      {"--translate hi --sample --beam 4", "choose one way to decode"},
      {"--translate hi --temperature 2", "--temperature: with --generate"},
      {"--translate hi --beam 4 --n-best 2 --alignments", "--alignments: not with --n-best"},
      {"--alignments", "--alignments: with --translate, --input or --interactive"},
      {"--translate hi --ensemble /nonexistent/run", "/nonexistent/run"},
      {"--translate hi --coverage-penalty 1", "--coverage-penalty: with --beam K"},
      {"--translate hi --length-penalty 1", "--length-penalty: with --beam K"},
  };
  for (const auto& [flags, said] : cases) {
    SCOPED_TRACE(flags);
    const auto refused = test::run_program("apps/checkpoint_eval", run + flags, "decode_misuse");
    EXPECT_NE(refused.status, 0);
    EXPECT_NE(refused.err.find(said), std::string::npos) << refused.err;
  }
}

TEST(DecodingOptionsApp, TheServerGivesNBestListsAndAlignments) {
  auto translator = eval::Translator::load(test::trained_seq2seq_run().string());
  auto beam = testing::beam_options(4);
  beam.n_best = 3;
  const auto expected = translator.translate(kSentences, beam);

  test::TranslateServerProcess server(test::trained_seq2seq_run().string(), {}, "decoding_options_server");
  ASSERT_GT(server.port(), 0) << server.process().stderr_text();
  const json request = {{"sentences", kSentences}, {"beam", 4}, {"n_best", 3}, {"alignment", true}};
  const auto answer = server.client()->Post("/translate", request.dump(), "application/json");
  ASSERT_TRUE(answer && answer->status == 200) << (answer ? answer->body : "no answer");
  const auto translations = json::parse(answer->body)["translations"];
  ASSERT_EQ(translations.size(), kSentences.size());
  for (std::size_t i = 0; i < kSentences.size(); ++i) {
    SCOPED_TRACE(kSentences[i]);
    ASSERT_EQ(translations[i]["n_best"].size(), 3u);
    for (std::size_t k = 0; k < 3; ++k)
      EXPECT_EQ(translations[i]["n_best"][k]["translation"], expected[i].n_best[k].text);
    EXPECT_EQ(translations[i]["alignment"], eval::alignment_text(translator.alignment(expected[i])));
  }
  const auto too_many = server.client()->Post(
      "/translate", json({{"sentences", kSentences}, {"beam", 2}, {"n_best", 3}}).dump(), "application/json");
  ASSERT_TRUE(too_many);
  EXPECT_EQ(too_many->status, 400);
  EXPECT_NE(too_many->body.find("n_best"), std::string::npos) << too_many->body;
}

// Sampling and beam search's penalties through the server: what the library gives for the
// same sentences and options (a sampled request is decoded alone, its rows its own).
TEST(DecodingOptionsApp, TheServerSamplesAndPenalisesAsTheLibrary) {
  auto translator = eval::Translator::load(test::trained_seq2seq_run().string());
  eval::DecodeOptions sample;
  sample.method = eval::DecodeMethod::kSample;
  sample.sampling.temperature = 0.8;
  sample.sampling.top_k = 5;
  sample.sampling.seed = 17;
  const auto sampled = translator.translate(kSentences, sample);
  auto penalised = testing::beam_options(4);
  penalised.length_penalty = 0.6;
  penalised.coverage_penalty = 0.4;
  const auto beamed = translator.translate(kSentences, penalised);

  test::TranslateServerProcess server(test::trained_seq2seq_run().string(), {}, "decoding_options_sampling");
  ASSERT_GT(server.port(), 0) << server.process().stderr_text();
  const auto ask = [&](const json& request) {
    const auto answer = server.client()->Post("/translate", request.dump(), "application/json");
    EXPECT_TRUE(answer && answer->status == 200) << (answer ? answer->body : "no answer");
    return answer ? json::parse(answer->body)["translations"] : json::array();
  };
  const auto drawn = ask({{"sentences", kSentences}, {"sample", {{"temperature", 0.8}, {"top_k", 5}, {"seed", 17}}}});
  const auto ranked = ask({{"sentences", kSentences}, {"beam", 4}, {"length_penalty", 0.6}, {"coverage_penalty", 0.4}});
  ASSERT_EQ(drawn.size(), kSentences.size());
  ASSERT_EQ(ranked.size(), kSentences.size());
  for (std::size_t i = 0; i < kSentences.size(); ++i) {
    EXPECT_EQ(drawn[i]["translation"], sampled[i].text) << kSentences[i];
    EXPECT_EQ(ranked[i]["translation"], beamed[i].text) << kSentences[i];
  }
}

// --replace-unk on the run whose vocabularies keep 30 words: the translations, the report's
// BLEU and the server's answers have each <unk> replaced as the library replaces it.
TEST(DecodingOptionsApp, ReplaceUnkCopiesSourceWordsAsTheLibraryDoes) {
  const std::vector<std::string> sentences = {"I eat the bread.", "We see the dog.", "They drink the water."};
  const auto run = test::small_vocabulary_seq2seq_run().string();
  auto translator = eval::Translator::load(run);
  eval::DecodeOptions replacing;
  replacing.replace_unknown = true;
  const auto plain = translator.translate(sentences);
  const auto replaced = translator.translate(sentences, replacing);
  std::string args = run + " --threads 1 --raw";
  for (const auto& s : sentences) args += " --translate \"" + s + "\"";
  const auto unreplaced = test::run_program("apps/checkpoint_eval", args, "unk_plain");
  ASSERT_EQ(unreplaced.status, 0) << unreplaced.err;
  EXPECT_NE(unreplaced.out.find("<unk>"), std::string::npos) << "the 30-word run should write <unk>";
  const auto copied = test::run_program("apps/checkpoint_eval", args + " --replace-unk", "unk_replaced");
  ASSERT_EQ(copied.status, 0) << copied.err;
  const auto lines = test::lines_of(copied.out);
  ASSERT_EQ(lines.size(), sentences.size()) << copied.out;
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    EXPECT_EQ(lines[i], replaced[i].raw);
    EXPECT_NE(replaced[i].raw, plain[i].raw) << "each of these sentences has an <unk> to replace";
  }

  const auto report =
      test::run_program("apps/checkpoint_eval", "report " + run + " --threads 1 --replace-unk --json", "unk_report");
  ASSERT_EQ(report.status, 0) << report.err;
  const auto scored = json::parse(report.out);
  EXPECT_EQ(scored["replace_unk"], true);
  ASSERT_FALSE(scored["checkpoints"].empty());
  for (const auto& checkpoint : scored["checkpoints"]) EXPECT_GT(checkpoint["unknown_replaced"].get<int>(), 0);

  test::TranslateServerProcess server(run, {}, "decoding_options_replace_unk");
  ASSERT_GT(server.port(), 0) << server.process().stderr_text();
  const auto answer = server.client()->Post(
      "/translate", json({{"sentences", sentences}, {"replace_unk", true}}).dump(), "application/json");
  ASSERT_TRUE(answer && answer->status == 200) << (answer ? answer->body : "no answer");
  const auto translations = json::parse(answer->body)["translations"];
  ASSERT_EQ(translations.size(), sentences.size());
  for (std::size_t i = 0; i < sentences.size(); ++i) EXPECT_EQ(translations[i]["raw"], replaced[i].raw);
  // /attention with it: the translation the page lists, the maps on the model's own tokens.
  const auto traced = server.client()->Post(
      "/attention", json({{"sentence", sentences[0]}, {"replace_unk", true}}).dump(), "application/json");
  ASSERT_TRUE(traced && traced->status == 200) << (traced ? traced->body : "no answer");
  const auto maps = json::parse(traced->body);
  EXPECT_EQ(maps["translation"], replaced[0].text);
  auto written = plain[0].output_tokens;
  written.push_back("EOS");
  EXPECT_EQ(maps["written"], json(written)) << "the maps' rows are the tokens the model wrote, <unk> included";
  const auto wrong = server.client()->Post("/translate", json({{"sentences", sentences}, {"replace_unk", 1}}).dump(),
                                           "application/json");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 400);
  EXPECT_EQ(json::parse(wrong->body)["error"], "\"replace_unk\" must be true or false") << wrong->body;
}

}  // namespace
}  // namespace dls::apps::decoding_options_app_test
