// seq2seq_train end to end: help, one-line errors for bad input, a dry run, a short run
// with --json, and a resumed run.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "dls/train/run/run_directory.h"
#include "dls/util/file_io.h"
#include "util/temp_files.h"
#include "support/program_run.h"
#include "dls/cli/config_toml.h"

namespace dls {
namespace {

namespace fs = std::filesystem;

const std::string kSampleCorpus = dls::testing::sample_corpus();
// A small model so that every run takes a second or two.
const std::string kSmall =
    " --preset cpu --embedding-size 32 --heads 2 --encoders 1 --decoders 1 --ffn-multiplier 2"
    " --validation-pairs 100 --bleu-sentences 30 --samples 3 --log-every 10";

test::ProgramRun run_seq2seq_train(const std::string& args, const std::string& name) {
  // The start-up report is logged at info level, which the test environment turns off.
  return test::run_program("apps/seq2seq_train", "--threads 1 " + args, "seq2seq_train_app_" + name, "",
                           "DLS_LOG_LEVEL=info ");
}

// The small model (kSmall) on the sample corpus with `flags`, into `run_dir`.
test::ProgramRun run_small(const fs::path& run_dir, const std::string& flags, const std::string& name) {
  return run_seq2seq_train("--data " + kSampleCorpus + kSmall + " " + flags + " --run-dir " + run_dir.string(), name);
}

TEST(Seq2SeqTrainApp, HelpDocumentsTheFlagsInGroups) {
  const auto run = run_seq2seq_train("--help", "help");
  EXPECT_EQ(run.status, 0);
  for (const auto* text : {"Data:", "Model:", "Training:", "Output:", "--data", "--run-dir", "--epochs", "--max-iters",
                           "--time-limit", "--resume", "--dry-run", "--json", "--preset", "--variant", "--layout",
                           "--label-smoothing", "--clip-grad-norm", "--schedule"}) {
    EXPECT_NE(run.out.find(text), std::string::npos) << text;
  }
}

TEST(Seq2SeqTrainApp, BadInputIsAOneLineError) {
  const auto dir = test::fresh_temp_dir("seq2seq_train_app_bad");
  test::expect_one_line_error(run_seq2seq_train("--data " + (dir / "missing.tsv").string(), "missing"), "missing.tsv");
  test::write_bytes(dir / "empty.tsv", "");
  test::expect_one_line_error(run_seq2seq_train("--data " + (dir / "empty.tsv").string(), "empty"), "empty.tsv");
  test::write_bytes(dir / "garbage.tsv", "no tab here\nnor here\n\xff\xfe\tbad\n");
  test::expect_one_line_error(run_seq2seq_train("--data " + (dir / "garbage.tsv").string(), "garbage"), "garbage.tsv");
  test::write_bytes(dir / "broken.pt", "not a checkpoint");
  const auto broken =
      run_seq2seq_train("--resume " + (dir / "broken.pt").string() + " --data " + kSampleCorpus, "broken");
  test::expect_one_line_error(broken, "broken.pt");
  EXPECT_FALSE(fs::exists(dir / "checkpoints")) << "nothing written for a failed start";
  // DLStudio's warm-up makes its own rate: a typed --lr would be printed, saved and ignored.
  for (const std::string& schedule : {std::string("--preset dlstudio"), std::string("--schedule dlstudio-warmup")}) {
    test::expect_one_line_error(
        run_seq2seq_train(schedule + " --lr 0.5 --dry-run --data " + kSampleCorpus, "warmup_lr"),
        "--lr: not read by --schedule dlstudio-warmup");
  }
  test::expect_one_line_error(
      run_seq2seq_train("--schedule constant --min-lr 1e-5 --dry-run --data " + kSampleCorpus, "constant_min_lr"),
      "--min-lr: not read by --schedule constant");
}

// The RNN encoder-decoder from the command line: its start-up report with DLStudio's class
// names, and the other architecture's flags refused rather than ignored.
TEST(Seq2SeqTrainApp, AnRnnRunReportsItsModelAndRefusesTheTransformersFlags) {
  const auto dir = test::fresh_temp_dir("seq2seq_train_app_rnn");
  const std::string data = " --data " + kSampleCorpus + " --run-dir " + (dir / "run").string();
  const auto dry =
      run_seq2seq_train("--preset rnn-luong --rnn-hidden-size 32 --rnn-embedding-size 16 --dry-run" + data, "rnn_dry");
  ASSERT_EQ(dry.status, 0) << dry.err;
  EXPECT_NE(dry.err.find("RNN with Luong attention: GRU, bidirectional, 1 layer, E 16, H 32, general attention"),
            std::string::npos)
      << dry.err;
  EXPECT_NE(dry.err.find("Number of learnable params in EncoderRNN: "), std::string::npos) << dry.err;
  EXPECT_NE(dry.err.find("Model: architecture rnn-attention\n"), std::string::npos) << dry.err;
  test::expect_one_line_error(run_seq2seq_train("--preset rnn-bahdanau --heads 8 --dry-run" + data, "rnn_heads"),
                              "this run trains an RNN");
  test::expect_one_line_error(
      run_seq2seq_train("--preset rnn-bahdanau --variant PreLN --dry-run" + data, "rnn_variant"),
      "--variant PreLN: a transformer's");
  test::expect_one_line_error(
      run_seq2seq_train("--preset rnn-luong --attention-size 64 --dry-run" + data, "rnn_attention_size"),
      "an attention size is additive attention's width; general attention has none");
  test::expect_one_line_error(run_seq2seq_train("--preset cpu --attention-score dot --dry-run" + data, "tf_rnn_flag"),
                              "add --architecture rnn-attention");
  test::expect_one_line_error(
      run_seq2seq_train("--architecture rnn-attention --attention-score dot --dry-run" + data, "rnn_dot_two_way"),
      "one size");
}

TEST(Seq2SeqTrainApp, DryRunPrintsTheStartUpReport) {
  const auto run_dir = test::fresh_temp_dir("seq2seq_train_app_dry");
  const auto run = run_seq2seq_train(
      "--data " + kSampleCorpus + " --validation-pairs 100 --dry-run --run-dir " + run_dir.string(), "dry");
  EXPECT_EQ(run.status, 0) << run.err;
  for (const auto* text :
       {"pairs kept", "vocabulary", "longest English sentence", "Number of learnable params in Master Encoder",
        "Number of learnable params in Master Decoder", "Number of layers in Master Encoder", "TransformerFG"}) {
    EXPECT_NE(run.err.find(text), std::string::npos) << text << "\n" << run.err;
  }
  EXPECT_EQ(run.err.find("no-masking"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(run_dir / "checkpoints" / "checkpoint_epoch_0000.pt"));
  // DLStudio's masking=False shows in the model's summary (and so in its checkpoints).
  const auto unmasked = run_seq2seq_train("--data " + kSampleCorpus +
                                              " --validation-pairs 100 --dry-run --no-masking"
                                              " --run-dir " +
                                              run_dir.string(),
                                          "dry_no_masking");
  EXPECT_EQ(unmasked.status, 0) << unmasked.err;
  EXPECT_NE(unmasked.err.find("no-masking"), std::string::npos) << unmasked.err;
  // A TSV named for its pair is read as that pair (it was English to Spanish whatever it held).
  const auto named = run_dir / "de_en.tsv";
  fs::copy_file(kSampleCorpus, named);
  const auto german = run_seq2seq_train(
      "--data " + named.string() + " --validation-pairs 100 --dry-run --run-dir " + (run_dir / "de").string(),
      "dry_de");
  EXPECT_EQ(german.status, 0) << german.err;
  EXPECT_NE(german.err.find("languages from the file names: --src-lang de, --tgt-lang en"), std::string::npos)
      << german.err;
  EXPECT_NE(german.err.find("src-lang de, tgt-lang en"), std::string::npos) << german.err;
}

// A DLStudio archive (an uncompressed protocol-2 pickle of (dataset, vocab_en, vocab_es))
// whose vocabularies have the sizes of en_es_xformer_8_90000's: 11,258 and 21,823 words.
std::string archive_with_vocabulary_sizes(int english, int spanish) {
  auto word_list = [](int size) {
    std::string list = "](";  // EMPTY_LIST, MARK
    for (int i = 0; i < size; ++i) {
      const std::string word = i == 0 ? "SOS" : i == 1 ? "EOS" : "w" + std::to_string(i);
      list += 'X' + std::string(1, static_cast<char>(word.size())) + std::string(3, '\0') + word;  // BINUNICODE
    }
    return list + "e";  // APPENDS
  };
  return "\x80\x02}" + word_list(english) + word_list(spanish) + "\x87.";  // PROTO 2, {}, TUPLE3, STOP
}

TEST(Seq2SeqTrainApp, DryRunPrintsDLStudiosCountsWithItsVocabularies) {
  const auto dir = test::fresh_temp_dir("seq2seq_train_app_dlstudio_vocab");
  test::write_bytes(dir / "archive.pkl", archive_with_vocabulary_sizes(11258, 21823));
  const auto run =
      run_seq2seq_train("--data " + kSampleCorpus + " --preset dlstudio --validation-pairs 100 --dry-run --run-dir " +
                            (dir / "run").string() + " --dlstudio-vocab " + (dir / "archive.pkl").string(),
                        "dlstudio_vocab");
  EXPECT_EQ(run.status, 0) << run.err;
  // The slides' numbers for the flattened layout, M 256, L 10, 4 + 4 blocks, 4 heads.
  for (const auto* text :
       {"English 11258, Spanish 21823", "as DLStudio prints: Number of learnable params in Master Encoder: 124583936",
        "as DLStudio prints: Number of learnable params in Master Decoder: 149886015"}) {
    EXPECT_NE(run.err.find(text), std::string::npos) << text << "\n" << run.err;
  }
  // Spanish -> English: the decoder's output layer has English's 11,258 words, 10,565 fewer
  // rows of M + 1 = 257 parameters; the encoder has no vocabulary-sized layer.
  const auto reversed = run_seq2seq_train(
      "--data " + kSampleCorpus + " --preset dlstudio --reverse --validation-pairs 100 --dry-run --run-dir " +
          (dir / "reversed").string() + " --dlstudio-vocab " + (dir / "archive.pkl").string(),
      "dlstudio_vocab_reversed");
  EXPECT_EQ(reversed.status, 0) << reversed.err;
  for (const auto* text : {"as DLStudio prints: Number of learnable params in Master Encoder: 124583936",
                           "as DLStudio prints: Number of learnable params in Master Decoder: 147170810"}) {
    EXPECT_NE(reversed.err.find(text), std::string::npos) << text << "\n" << reversed.err;
  }
  test::write_bytes(dir / "bad.pkl", "\x80\x02]\x85.");
  const auto bad = test::run_program("apps/seq2seq_train",
                                     "--threads 1 --data " + kSampleCorpus +
                                         " --validation-pairs 100 --dry-run"
                                         " --run-dir " +
                                         (dir / "run").string() + " --dlstudio-vocab " + (dir / "bad.pkl").string(),
                                     "seq2seq_train_app_dlstudio_vocab_bad");  // logs off: the error line alone
  test::expect_one_line_error(bad, "bad.pkl: not DLStudio's (dataset, vocab_en, vocab_es)");
}

TEST(Seq2SeqTrainApp, ShortRunPrintsJsonAndResumes) {
  const auto run_dir = test::fresh_temp_dir("seq2seq_train_app_run");
  const auto first = run_small(run_dir, "--epochs 2 --max-iters 20 --json", "first");
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_EQ(test::count_lines(first.out), 1u) << "stdout holds the JSON object alone:\n" << first.out;
  for (const auto* key : {"\"pairs_per_s\":", "\"final_loss\":", "\"val_bleu\":", "\"iterations\":20",
                          "\"val_sacrebleu\":{\"score\":", "|tok:13a|smooth:exp|version:dls-cpp\"",
                          "\"val_chrf\":{\"score\":", "|nc:6|nw:0|space:no|version:dls-cpp\"", "\"checkpoints\":[",
                          "\"stopped_by\":\"max-iters\"", "\"training_step\":\"eager\""}) {
    EXPECT_NE(first.out.find(key), std::string::npos) << key << " in " << first.out;
  }
  for (const auto* key : {"val_sacrebleu", "val_chrf"}) {  // 0-100
    std::smatch m;
    ASSERT_TRUE(std::regex_search(first.out, m, std::regex(std::string("\"") + key + R"(":\{"score":([0-9.e+-]+),)")))
        << key << " in " << first.out;
    EXPECT_GE(std::stod(m[1].str()), 0.0) << first.out;
    EXPECT_LE(std::stod(m[1].str()), 100.0) << first.out;
  }
  // Resumed from the run's parent folder by its relative name, keeping one checkpoint: the
  // result lists the checkpoint that is left, by its absolute path.
  const auto second = test::run_program(
      "apps/seq2seq_train",
      "--threads 1 --resume " + run_dir.filename().string() + " --json --keep-last 1 --checkpoint-every 1",
      "seq2seq_train_app_second", "", test::in_folder(run_dir.parent_path().string()) + "DLS_LOG_LEVEL=info ");
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_NE(second.out.find("\"stopped_by\":\"epochs\""), std::string::npos) << second.out;
  EXPECT_NE(
      second.out.find("\"checkpoints\":[\"" + (run_dir / "checkpoints" / "checkpoint_epoch_0002.pt").string() + "\"]"),
      std::string::npos)
      << second.out;
  EXPECT_NE(second.out.find("\"run_dir\":\"" + run_dir.string() + "\""), std::string::npos) << second.out;
  EXPECT_NE(second.err.find("resuming from"), std::string::npos) << second.err;
  // What the resume changed is said and kept beside config.toml, which keeps how the run began.
  EXPECT_NE(second.err.find("this resume changes the run's settings: "), std::string::npos) << second.err;
  EXPECT_NE(second.err.find("keep-last 5 -> 1"), std::string::npos) << second.err;
  EXPECT_NE(util::read_file((run_dir / "config.resumed.toml").string()).find("\nkeep-last=1\n"), std::string::npos);
  EXPECT_NE(util::read_file((run_dir / "config.toml").string()).find("\nkeep-last=5\n"), std::string::npos);
  EXPECT_NE(second.err.find("The translation produced by TransformerFG"), std::string::npos) << second.err;
  // Resumed again with the epochs it has done: said, not silently nothing.
  const auto third = test::run_program("apps/seq2seq_train", "--threads 1 --resume " + run_dir.string(),
                                       "seq2seq_train_app_third", "", "DLS_LOG_LEVEL=warn ");
  ASSERT_EQ(third.status, 0) << third.err;
  EXPECT_NE(third.err.find(
                "--epochs 2: the run has done 2 epochs already, so this one trains none (a larger --epochs goes on)"),
            std::string::npos)
      << third.err;
  EXPECT_TRUE(fs::exists(run_dir / "metrics.csv"));
  EXPECT_TRUE(fs::exists(run_dir / "bleu.png"));
}

// Fine-tuning names the parent alone: its variant, layout and sizes come with --init-from,
// whatever the preset's are, and its vocabularies with every word it knew (--init-vocab).
TEST(Seq2SeqTrainApp, InitFromBuildsTheParentsModelWithItsVocabularies) {
  const auto parent = test::fresh_temp_dir("seq2seq_train_app_parent");
  const auto trained = run_small(parent, "--variant PreLN --layout positionwise --epochs 1 --max-iters 3", "parent");
  ASSERT_EQ(trained.status, 0) << trained.err;
  const std::string child_flags = " --validation-pairs 100 --epochs 1 --max-iters 2 --samples 0 --bleu-sentences 10";
  const auto child_dir = test::fresh_temp_dir("seq2seq_train_app_child");
  const auto child = run_seq2seq_train(
      "--data " + kSampleCorpus + child_flags + " --init-from " + parent.string() + " --run-dir " + child_dir.string(),
      "child");
  ASSERT_EQ(child.status, 0) << child.err;
  EXPECT_NE(child.err.find("; the model from --init-from "), std::string::npos) << child.err;
  EXPECT_NE(child.err.find("TransformerPreLN"), std::string::npos) << child.err;
  EXPECT_NE(child.err.find("vocabulary from "), std::string::npos) << child.err;
  EXPECT_NE(child.err.find(" values (100.0 %) from it"), std::string::npos) << child.err;
  const auto config = util::read_file((child_dir / "config.toml").string());
  EXPECT_NE(config.find("layout=\"positionwise\""), std::string::npos) << config;
  EXPECT_NE(config.find("embedding-size=32"), std::string::npos) << config;
  EXPECT_NE(config.find("init-vocab=\"extend\""), std::string::npos) << config;

  // A size given changes the parent's, and the weights then do not fit: one line naming the tensor.
  const auto wider = run_seq2seq_train("--data " + kSampleCorpus + child_flags + " --embedding-size 64 --init-from " +
                                           parent.string() + " --run-dir " + (child_dir / "wider").string(),
                                       "wider");
  EXPECT_EQ(wider.status, 1);
  EXPECT_NE(wider.err.find(" there and "), std::string::npos) << wider.err;
  // --init-vocab means nothing without --init-from.
  const auto alone = run_seq2seq_train(
      "--data " + kSampleCorpus + " --init-vocab parent --dry-run --run-dir " + (child_dir / "alone").string(),
      "init_vocab_alone");
  EXPECT_EQ(alone.status, 1);
  EXPECT_NE(alone.err.find("error: --init-vocab: chooses the vocabularies of a run started with --init-from"),
            std::string::npos)
      << alone.err;
}

// A resumed run keeps the precision and the time budget it started with (from its
// checkpoint) unless --precision or --time-limit is given again; its start-up line says them.
TEST(Seq2SeqTrainApp, ResumeKeepsTheRunsPrecisionAndTimeBudget) {
  const auto run_dir = test::fresh_temp_dir("seq2seq_train_app_precision");
  const auto first =
      run_small(run_dir, "--epochs 3 --max-iters 2 --precision bf16 --time-limit 600 --json", "precision_first");
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_NE(first.out.find("\"precision\":\"bf16\""), std::string::npos) << first.out;
  // From the checkpoint, the one source of a resume: config.toml is for people and --config.
  fs::remove(run_dir / "config.toml");
  const auto kept = run_seq2seq_train("--resume " + run_dir.string() + " --max-iters 4 --json", "precision_kept");
  ASSERT_EQ(kept.status, 0) << kept.err;
  EXPECT_NE(kept.out.find("\"precision\":\"bf16\""), std::string::npos) << kept.out;
  EXPECT_NE(kept.err.find("precision bf16: forward passes under autocast"), std::string::npos) << kept.err;
  EXPECT_NE(kept.err.find(", time-limit 600, "), std::string::npos) << "the run's budget, not 0:\n" << kept.err;
  EXPECT_NE(kept.err.find("time budget 600 s for the whole run: "), std::string::npos) << kept.err;
  const auto changed = run_seq2seq_train("--resume " + (run_dir / "checkpoints" / "checkpoint_epoch_0001.pt").string() +
                                             " --max-iters 6 --precision fp32 --json",
                                         "precision_changed");
  ASSERT_EQ(changed.status, 0) << changed.err;
  EXPECT_NE(changed.out.find("\"precision\":\"fp32\""), std::string::npos) << changed.out;
}

// Numbers that cannot make sense are refused on the command line, before anything is read
// (a batch of 0 used to end in SIGFPE, a negative one in a run that trained nothing, a huge
// epoch count in one that never ended).
TEST(Seq2SeqTrainApp, NonsenseNumbersAreRefused) {
  for (const std::string flag :
       {"--batch-size 0", "--batch-size -5", "--epochs 99999999999999999999", "--validation-pairs -1", "--threads 1000",
        "--label-smoothing 2", "--warmup -10", "--lr inf", "--lr nan", "--eps 0"}) {
    const auto run = run_seq2seq_train("--data " + kSampleCorpus + " --dry-run " + flag, "nonsense");
    EXPECT_NE(run.status, 0) << flag;
    EXPECT_NE(run.err.find(flag.substr(0, flag.find(' ')) + ": "), std::string::npos) << flag << ": " << run.err;
    EXPECT_NE(run.err.find("outside"), std::string::npos) << flag << ": " << run.err;
  }
  // CLI11 read 010 as octal: 8 epochs. A number is decimal, so a leading zero is refused.
  for (const std::string flag : {"--epochs 010", "--batch-size 064", "--lr 00.1"}) {
    const auto run = run_seq2seq_train("--data " + kSampleCorpus + " --dry-run " + flag, "leading_zero");
    test::expect_one_line_error(
        run, flag.substr(0, flag.find(' ')) + ": '" + flag.substr(flag.find(' ') + 1) + "' has a leading zero");
  }
  test::expect_one_line_error(run_seq2seq_train("--data " + kSampleCorpus + " --dry-run --epochs 0x10", "hexadecimal"),
                              "--epochs: '0x10': write the number in decimal");
  EXPECT_EQ(run_seq2seq_train("--data " + kSampleCorpus + " --validation-pairs 100 --dry-run --lr 0.01 --seed 0",
                              "leading_zero_none")
                .status,
            0);
}

// A new run never writes into an earlier run's directory: without --resume it is refused
// with one line saying what to do, and nothing there changes; --overwrite moves the earlier
// run aside, whole.
TEST(Seq2SeqTrainApp, ANewRunRefusesAnEarlierRunsDirectory) {
  const auto run_dir = test::fresh_temp_dir("seq2seq_train_app_taken");
  const std::string args =
      "--data " + kSampleCorpus + kSmall + " --epochs 1 --max-iters 2 --run-dir " + run_dir.string();
  ASSERT_EQ(run_seq2seq_train(args, "taken_first").status, 0);
  const auto metrics = util::read_file((run_dir / "metrics.csv").string());
  const auto checkpoint = run_dir / "checkpoints" / "checkpoint_epoch_0001.pt";
  const auto checkpoint_bytes = util::read_file(checkpoint.string());

  const auto again = run_seq2seq_train(args, "taken_again");
  test::expect_one_line_error(again, "already holds a training run");
  EXPECT_NE(again.err.find("--resume " + run_dir.string()), std::string::npos) << again.err;
  EXPECT_EQ(util::read_file((run_dir / "metrics.csv").string()), metrics) << "the earlier run is untouched";
  EXPECT_EQ(util::read_file(checkpoint.string()), checkpoint_bytes);

  const auto overwrite = run_seq2seq_train(args + " --overwrite", "taken_overwrite");
  ASSERT_EQ(overwrite.status, 0) << overwrite.err;
  const fs::path aside = run_dir.string() + ".old-1";
  EXPECT_EQ(util::read_file((aside / "metrics.csv").string()), metrics) << "moved aside whole";
  EXPECT_EQ(util::read_file((aside / "checkpoints" / "checkpoint_epoch_0001.pt").string()), checkpoint_bytes);
  EXPECT_TRUE(fs::exists(checkpoint)) << "the new run's own checkpoint";
  test::remove_tree(aside);
}

// A resume never writes over the run's newer checkpoints: from an older one (or best.pt) into
// its own run it is refused, naming the way to keep both; into another directory it is a
// branch, which starts there as a fresh run does (config.toml written, an earlier run there
// refused, --overwrite moving it aside).
TEST(Seq2SeqTrainApp, AResumeFromAnOlderCheckpointWritesOverNothing) {
  const auto run_dir = test::fresh_temp_dir("seq2seq_train_app_older");
  const auto trained = run_small(run_dir, "--epochs 3", "older_first");
  ASSERT_EQ(trained.status, 0) << trained.err;
  const auto third = run_dir / "checkpoints" / "checkpoint_epoch_0003.pt";
  const auto third_bytes = util::read_file(third.string());
  const auto metrics = util::read_file((run_dir / "metrics.csv").string());
  const auto first = (run_dir / "checkpoints" / "checkpoint_epoch_0001.pt").string();
  const auto refused = run_seq2seq_train("--resume " + first, "older_refused");
  test::expect_one_line_error(refused,
                              "has 2 newer checkpoints (checkpoint_epoch_0002.pt .. checkpoint_epoch_0003.pt)");
  EXPECT_NE(refused.err.find("--run-dir NEW"), std::string::npos) << refused.err;
  EXPECT_EQ(util::read_file(third.string()), third_bytes);
  EXPECT_EQ(util::read_file((run_dir / "metrics.csv").string()), metrics);

  const auto branch_dir = run_dir.string() + "_branch";
  test::remove_tree(branch_dir);
  const auto branch = run_seq2seq_train("--resume " + first + " --run-dir " + branch_dir, "branch");
  ASSERT_EQ(branch.status, 0) << branch.err;
  EXPECT_TRUE(fs::exists(fs::path(branch_dir) / "checkpoints" / "checkpoint_epoch_0003.pt"));
  EXPECT_TRUE(fs::exists(fs::path(branch_dir) / "config.toml")) << "a branch can be continued with --config";
  EXPECT_EQ(util::read_file(third.string()), third_bytes) << "the run it came from is untouched";
  EXPECT_NE(util::read_file(branch_dir + "/config.toml").find("\npreset=\"cpu\"\n"), std::string::npos)
      << "the preset the run began with";
  // The branch's metrics begin with the run's up to the checkpoint (epoch 1), then its own.
  const auto epochs_of = [](const std::string& csv) {
    std::vector<std::string> epochs;
    std::istringstream lines(csv);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("epoch,", 0) == 0) epochs.push_back(line.substr(6, line.find(',', 6) - 6));
    }
    return epochs;
  };
  const auto branch_metrics = util::read_file(branch_dir + "/metrics.csv");
  EXPECT_EQ(epochs_of(branch_metrics), (std::vector<std::string>{"1", "2", "3"})) << branch_metrics;
  const auto row_start = metrics.find("\nepoch,1,");
  ASSERT_NE(row_start, std::string::npos) << metrics;
  const auto first_epoch_row = metrics.substr(row_start, metrics.find('\n', row_start + 1) - row_start);
  EXPECT_NE(branch_metrics.find(first_epoch_row), std::string::npos) << "the run's own row of epoch 1";
  const auto continued = run_seq2seq_train(
      "--config " + branch_dir + "/config.toml --resume " + branch_dir + " --epochs 4", "branch_continued");
  EXPECT_EQ(continued.status, 0) << continued.err;
  const auto taken = run_seq2seq_train("--resume " + first + " --run-dir " + branch_dir, "branch_taken");
  test::expect_one_line_error(taken, "already holds a training run");
  const auto moved =
      run_seq2seq_train("--resume " + first + " --run-dir " + branch_dir + " --overwrite", "branch_overwrite");
  ASSERT_EQ(moved.status, 0) << moved.err;
  EXPECT_TRUE(fs::exists(fs::path(branch_dir + ".old-1") / "config.toml"));
  // The newest checkpoint resumes into its run as ever.
  const auto newest = run_seq2seq_train("--resume " + run_dir.string() + " --epochs 4 --overwrite", "older_newest");
  EXPECT_EQ(newest.status, 0) << newest.err;
  EXPECT_NE(newest.err.find("--overwrite: nothing goes aside when a run continues in its own directory"),
            std::string::npos)
      << newest.err;
  test::remove_tree(branch_dir);
  test::remove_tree(branch_dir + ".old-1");
}

// seq2seq_train run from `folder` (run_seq2seq_train's flags).
test::ProgramRun run_seq2seq_train_in(const fs::path& folder, const std::string& args, const std::string& name) {
  return test::run_program("apps/seq2seq_train", "--threads 1 " + args, "seq2seq_train_app_" + name, "",
                           test::in_folder(folder.string()));
}

// Every run writes its settings as config.toml: the preset expanded, paths absolute, nothing
// of one invocation. --config with that file (and a new --run-dir) repeats the run from any
// folder, whatever characters its paths hold; older files (CLI11's: threads, json,
// log-level) still read; a key the program does not know, or a malformed file, is refused.
TEST(Seq2SeqTrainApp, ConfigTomlRepeatsTheRunFromAnywhere) {
  const auto dir = test::fresh_temp_dir("seq2seq_train_app_config");
  const auto start = dir / "start", elsewhere = dir / "elsewhere";
  fs::create_directories(start);
  fs::create_directories(elsewhere);
  const std::string corpus = "corpus #1 \"ñandú\" \\x.tsv";  // '#', quotes, a backslash, spaces, UTF-8
  fs::copy_file(kSampleCorpus, start / corpus);
  const auto first = run_seq2seq_train_in(
      start, "--data '" + corpus + "'" + kSmall + " --epochs 1 --max-iters 3 --dropout 0 --lr 0.002 --run-dir 'run #a'",
      "config_first");
  ASSERT_EQ(first.status, 0) << first.err;
  const auto run_a = start / "run #a";
  const auto config = util::read_file((run_a / "config.toml").string());
  for (const std::string& line : std::vector<std::string>{
           "lr=0.002", "epochs=1", "max-iters=3", "embedding-size=32", "dropout=0", "log-every=10", "preset=\"cpu\"",
           "variant=\"FG\"", "device=\"cpu\"", "precision=\"fp32\"", "tokenizer=\"word\"", "joint-vocab=false",
           "validation-pairs=100", "data=" + cli::toml_value((start / corpus).string()),
           "run-dir=" + cli::toml_value(run_a.string())}) {
    EXPECT_NE(config.find("\n" + line + "\n"), std::string::npos) << line << "\n" << config;
  }
  for (const std::string key : {"batch-size", "optimizer", "schedule", "warmup", "seed", "checkpoint-every",
                                "best-metric", "beta2", "label-smoothing", "heads", "layout"}) {
    EXPECT_NE(config.find("\n" + key + "="), std::string::npos) << key << "\n" << config;
  }
  for (const std::string key : {"threads", "workers", "json", "log-level", "resume", "overwrite", "dry-run"}) {
    EXPECT_EQ(config.find("\n" + key + "="), std::string::npos) << key << "\n" << config;
  }

  const auto again = run_seq2seq_train_in(elsewhere, "--config '" + (run_a / "config.toml").string() + "' --run-dir b",
                                          "config_again");
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(test::metrics_losses(elsewhere / "b"), test::metrics_losses(run_a));
  std::string config_b = util::read_file((elsewhere / "b" / "config.toml").string());
  const auto b_dir = cli::toml_value((elsewhere / "b").string()), a_dir = cli::toml_value(run_a.string());
  config_b.replace(config_b.find(b_dir), b_dir.size(), a_dir);
  EXPECT_EQ(config_b, config) << "the same settings, but for the run directory";

  test::write_bytes(dir / "old.toml",
                    "# The options of this run.\nthreads=1\njson=false\nlog-level=\"warn\"\n"
                    "preset=\"cpu\"\nvalidation-pairs=100\ndata=\"" +
                        kSampleCorpus + "\"\n");
  const auto old = run_seq2seq_train("--config " + (dir / "old.toml").string() + " --dry-run", "config_old");
  EXPECT_EQ(old.status, 0) << old.err;

  test::write_bytes(dir / "bad.toml", "no-such-flag=1\n");
  const auto bad = run_seq2seq_train("--config " + (dir / "bad.toml").string(), "config_bad");
  test::expect_one_line_error(bad, "no-such-flag");
  test::write_bytes(dir / "open.toml", "# an array left open\nepochs=[12\n");
  const auto open = run_seq2seq_train("--config " + (dir / "open.toml").string(), "config_open");
  test::expect_one_line_error(open, (dir / "open.toml").string() + ":2: unterminated array");
  // One invocation's keys are named with their line; a directory is no file.
  test::write_bytes(dir / "own.toml", "epochs=2\noverwrite=true\n");
  test::expect_one_line_error(run_seq2seq_train("--config " + (dir / "own.toml").string(), "config_own"),
                              (dir / "own.toml").string() + ":2: 'overwrite' cannot come from a config file");
  test::expect_one_line_error(run_seq2seq_train("--config " + dir.string(), "config_dir"),
                              dir.string() + ": a directory, not a file");
  // A pipe reads as a file does (--config <(...), --config /dev/stdin).
  const auto piped = test::run_program(
      "apps/seq2seq_train", "--threads 1 --config /dev/stdin --dry-run --run-dir " + (dir / "piped").string(),
      "seq2seq_train_app_config_pipe", "data=\"" + kSampleCorpus + "\"\nvalidation-pairs=100\nepochs=3\n",
      "DLS_LOG_LEVEL=info ", test::Stdin::kPipe);
  ASSERT_EQ(piped.status, 0) << piped.err;
  EXPECT_NE(piped.err.find("epochs 3,"), std::string::npos) << piped.err;
}

// --config RUN/config.toml --resume RUN continues the run with its recipe, even after the run
// moved (the file's --run-dir is not followed on resume); a setting the checkpoint fixes may
// come from the file with the checkpoint's value only, and never from the command line.
TEST(Seq2SeqTrainApp, ConfigTomlContinuesItsRun) {
  const auto dir = test::fresh_temp_dir("seq2seq_train_app_config_resume");
  ASSERT_EQ(run_small(dir / "a", "--epochs 2 --max-iters 3", "config_resume_first").status, 0);
  const auto steps_a = util::read_file((dir / "a" / "loss_steps.csv").string());
  fs::copy(dir / "a", dir / "moved", fs::copy_options::recursive);
  const auto config = (dir / "moved" / "config.toml").string();
  const auto resumed = run_seq2seq_train(
      "--config " + config + " --resume " + (dir / "moved").string() + " --max-iters 5 --json", "config_resume");
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("\"iterations\":5"), std::string::npos) << resumed.out;
  EXPECT_EQ(util::read_file((dir / "a" / "loss_steps.csv").string()), steps_a) << "the run's old folder is untouched";
  EXPECT_EQ(test::count_lines(util::read_file((dir / "moved" / "loss_steps.csv").string())),
            test::count_lines(steps_a) + 2);

  std::string changed = util::read_file(config);
  changed.replace(changed.find("tokenizer=\"word\""), 16, "tokenizer=\"sentencepiece\"");
  test::write_bytes(dir / "changed.toml", changed);
  test::expect_one_line_error(
      run_seq2seq_train("--config " + (dir / "changed.toml").string() + " --resume " + (dir / "moved").string(),
                        "config_resume_changed"),
      "tokenizer=\"sentencepiece\", but the checkpoint has \"word\"");
  test::expect_one_line_error(
      run_seq2seq_train("--config " + config + " --resume " + (dir / "moved").string() + " --joint-vocab",
                        "config_resume_flag"),
      "--joint-vocab: fixed by the checkpoint when resuming");
  // --preset and --variant are no settings of the run, yet a file cannot change them either.
  for (const auto& [from, to, message] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"variant=\"FG\"", "variant=\"PreLN\"", "variant=PreLN, but the checkpoint has FG"},
           {"preset=\"cpu\"", "preset=\"dlstudio\"", ":4: preset=dlstudio, but the run was started with cpu"}}) {
    std::string start = util::read_file(config);
    ASSERT_NE(start.find("\n" + from + "\n"), std::string::npos) << from << "\n" << start;
    start.replace(start.find("\n" + from + "\n") + 1, from.size(), to);
    test::write_bytes(dir / "start.toml", start);
    test::expect_one_line_error(
        run_seq2seq_train("--config " + (dir / "start.toml").string() + " --resume " + (dir / "moved").string(),
                          "config_resume_start"),
        message);
  }
}

// A setting the checkpoint fixes is refused on resume, never silently ignored: the preset
// and variant chose the starting point (the checkpoint's now), and the split and sentence
// length made the data the run trained on.
TEST(Seq2SeqTrainApp, ResumeRefusesWhatTheCheckpointFixes) {
  const auto run_dir = test::fresh_temp_dir("seq2seq_train_app_fixed");
  const auto first = run_small(run_dir, "--epochs 2 --max-iters 2", "fixed_first");
  ASSERT_EQ(first.status, 0) << first.err;
  test::expect_fixed_on_resume(
      run_seq2seq_train, "--resume " + run_dir.string() + " --max-iters 3",
      {"--preset dlstudio", "--variant PreLN", "--split-seed 99", "--validation-pairs 200", "--max-words 5",
       "--dlstudio-loss true", "--heads 8", "--layout dlstudio", "--no-masking"});
  const auto changed =
      run_seq2seq_train("--resume " + run_dir.string() + " --max-iters 3 --epochs 3 --log-every 1", "fixed_allowed");
  EXPECT_EQ(changed.status, 0) << "settings a resume can change are applied: " << changed.err;
}

// A run directory another training process holds is refused at once, and nothing in it
// changes (two runs started together in one directory used to write over each other).
TEST(Seq2SeqTrainApp, ARunDirectoryInUseIsRefused) {
  const auto run_dir = test::fresh_temp_dir("seq2seq_train_app_locked") / "run";
  const train::RunDirectoryLock held(run_dir.string());  // as the other process would
  const std::string args =
      "--data " + kSampleCorpus + kSmall + " --epochs 1 --max-iters 2 --run-dir " + run_dir.string();
  test::expect_one_line_error(run_seq2seq_train(args, "locked_fresh"), "another training process");
  EXPECT_FALSE(fs::exists(run_dir / "checkpoints"));
  EXPECT_FALSE(fs::exists(run_dir / "config.toml"));
}

// A run started with a relative --data resumes from any folder: the path is recorded
// absolute (the resume used to look for the corpus relative to the folder it ran in).
TEST(Seq2SeqTrainApp, ARunWithRelativeDataResumesFromAnotherFolder) {
  const auto dir = test::fresh_temp_dir("seq2seq_train_app_relative");
  fs::create_directories(dir / "start");
  fs::create_directories(dir / "elsewhere");
  fs::copy_file(kSampleCorpus, dir / "start" / "pairs.tsv");
  const auto first = run_seq2seq_train_in(
      dir / "start", "--data pairs.tsv" + kSmall + " --epochs 2 --max-iters 2 --run-dir run", "relative_first");
  ASSERT_EQ(first.status, 0) << first.err;
  const auto resumed = run_seq2seq_train_in(
      dir / "elsewhere", "--resume " + (dir / "start" / "run").string() + " --max-iters 4", "relative_resumed");
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_FALSE(fs::exists(dir / "elsewhere" / "run")) << "the resume continues in the run's own folder";
}

// A model far over the machine's memory (hundreds of GiB at M = 65536) is refused before
// anything is allocated, in one line with the estimate and what is available, and leaves no
// run directory behind; it used to be SIGKILLed by the OOM killer after seconds of swapping.
TEST(Seq2SeqTrainApp, AModelOverTheMemoryIsRefusedWithTheNumbers) {
  const auto run_dir = test::fresh_temp_dir("seq2seq_train_app_memory") / "new" / "run";
  const auto started = std::chrono::steady_clock::now();
  const auto refused = test::run_program(  // at the warn level of the test environment
      "apps/seq2seq_train",
      "--threads 1 --data " + kSampleCorpus +
          " --preset cpu --embedding-size 65536 --heads 2 --encoders 1 --decoders 1 --validation-pairs 100"
          " --epochs 1 --run-dir " +
          run_dir.string(),
      "seq2seq_train_app_memory");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  test::expect_one_line_error(refused, "and its training state (batch ");
  EXPECT_TRUE(std::regex_search(
      refused.err,
      std::regex(
          R"(need about [0-9.]+ (GiB|TiB), [0-9.]+ [KMGT]?i?B[a-z]* available \((MemAvailable|cgroup memory\.[a-z_]+)\); lower --embedding-size)")))
      << refused.err;
  EXPECT_LT(seconds, 30) << "refused before allocating";
  EXPECT_FALSE(fs::exists(run_dir.parent_path())) << "no run directory left behind";
}

}  // namespace
}  // namespace dls
