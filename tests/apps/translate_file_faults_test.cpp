// checkpoint_eval --input/--output where the files are not plain (issue 47's review): a pipe
// read as /dev/stdin, FIFOs on either side, a directory, outputs it may not write or replace,
// a full disk, blank lines, and a signal in the middle of a file -- each through the real
// program, bounded in time.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <tuple>
#include <thread>
#include <vector>

#include "dls/util/file_io.h"
#include "support/child_processes.h"
#include "support/program_run.h"
#include "support/seq2seq_runs.h"
#include "support/test_paths.h"
#include "support/tmpfs_mount.h"
#include "util/temp_files.h"

namespace dls::apps {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const std::string kThreeSentences = "I am here.\nShe is tall.\nWe eat the bread.\n";

test::ProgramRun eval(const std::string& args, const std::string& name, const std::string& input = "",
                      test::Stdin stdin_kind = test::Stdin::kFile) {
  return test::run_program("apps/checkpoint_eval",
                           "--threads 1 --log-level warn " + test::trained_seq2seq_run().string() + " " + args,
                           "translate_faults_" + name, input, "", stdin_kind);
}

// checkpoint_eval RUN --input IN --output OUT started as a child process.
std::size_t start_eval(test::ChildProcesses& children, const fs::path& dir, const fs::path& in, const fs::path& out,
                       const std::string& name) {
  return children.start({dls::testing::binary_dir() + "/apps/checkpoint_eval", test::trained_seq2seq_run().string(),
                         "--threads", "1", "--log-level", "warn", "--input", in.string(), "--output", out.string()},
                        {}, dir, name);
}

std::vector<std::string> temporaries_in(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().find(".tmp-") != std::string::npos) found.push_back(entry.path().string());
  return found;
}

fs::path make_fifo(const fs::path& path) {
  if (::mkfifo(path.c_str(), 0644) != 0) throw std::runtime_error(path.string() + ": mkfifo failed");
  return path;
}

unsigned mode_of(const fs::path& path) {
  struct stat status {};
  ::stat(path.c_str(), &status);
  return status.st_mode & 07777;
}

// `printf ... | checkpoint_eval --input /dev/stdin` lost every line: the file was opened
// twice, and the first opening (to count the lines) had read the pipe.
TEST(TranslateFileFaults, APipeGivenAsDevStdinIsTranslated) {
  const auto dir = test::fresh_temp_dir("translate_faults_pipe");
  const auto run =
      eval("--input /dev/stdin --output " + (dir / "out.txt").string(), "pipe", kThreeSentences, test::Stdin::kPipe);
  ASSERT_EQ(run.status, 0) << run.err;
  const auto out = test::lines_of(util::read_file((dir / "out.txt").string()));
  ASSERT_EQ(out.size(), 3u);
  for (const auto& line : out) EXPECT_FALSE(line.empty());
  EXPECT_NE(run.err.find("translated 3 of 3 lines"), std::string::npos) << run.err;
}

// A FIFO as --input: read once, as it streams (it hung, or lost its lines, when opened twice).
TEST(TranslateFileFaults, AFifoInputIsReadOnce) {
  const auto dir = test::fresh_temp_dir("translate_faults_fifo_in");
  const auto fifo = make_fifo(dir / "in.fifo");
  test::ChildProcesses children;
  const auto eval_process = start_eval(children, dir, fifo, dir / "out.txt", "eval");
  // The writer's end opens once the program has opened the reading end (ENXIO until then).
  int fd = -1;
  for (const auto deadline = Clock::now() + std::chrono::seconds(120); fd < 0 && Clock::now() < deadline;) {
    fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && (errno != ENXIO || children.exited(eval_process))) break;
    if (fd < 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GE(fd, 0) << "the program did not open the FIFO: " << children[eval_process].stderr_text();
  ::fcntl(fd, F_SETFL, 0);
  EXPECT_EQ(::write(fd, kThreeSentences.data(), kThreeSentences.size()), static_cast<ssize_t>(kThreeSentences.size()));
  ::close(fd);
  ASSERT_TRUE(children.wait(eval_process, std::chrono::seconds(120))) << "hung on the FIFO";
  EXPECT_EQ(children[eval_process].exit_code, 0) << children[eval_process].stderr_text();
  EXPECT_EQ(test::lines_of(util::read_file((dir / "out.txt").string())).size(), 3u);
}

// A FIFO (or a device) as --output is written into; renaming a file over it replaced it.
TEST(TranslateFileFaults, AFifoOutputIsWrittenIntoNotReplaced) {
  const auto dir = test::fresh_temp_dir("translate_faults_fifo_out");
  test::write_bytes(dir / "in.txt", kThreeSentences);
  const auto fifo = make_fifo(dir / "out.fifo");
  const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);  // opens without a writer
  ASSERT_GE(fd, 0);
  test::ChildProcesses children;
  const auto eval_process = start_eval(children, dir, dir / "in.txt", fifo, "eval");
  std::string received;
  for (const auto deadline = Clock::now() + std::chrono::seconds(120); Clock::now() < deadline;) {
    char buffer[4096];
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n > 0) received.append(buffer, static_cast<std::size_t>(n));
    if (n == 0 && children.exited(eval_process)) break;  // no writer, and none will come
    if (n <= 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::close(fd);
  ASSERT_TRUE(children.exited(eval_process) || children.wait(eval_process, std::chrono::seconds(5)));
  EXPECT_EQ(children[eval_process].exit_code, 0) << children[eval_process].stderr_text();
  EXPECT_EQ(test::lines_of(received).size(), 3u) << received;
  EXPECT_TRUE(fs::is_fifo(fifo)) << "the FIFO was replaced";
  EXPECT_TRUE(temporaries_in(dir).empty());
}

// A directory as --input ended with exit 0 and an empty output.
TEST(TranslateFileFaults, ADirectoryInputIsRefused) {
  const auto dir = test::fresh_temp_dir("translate_faults_dir_in");
  fs::create_directories(dir / "folder");
  const auto run = eval("--input " + (dir / "folder").string() + " --output " + (dir / "out.txt").string(), "dir_in");
  test::expect_one_line_error(run, "folder: is a directory");
  EXPECT_FALSE(fs::exists(dir / "out.txt"));
}

// An output that cannot be written is refused in one line before any line is translated
// (a directory was refused only after all of them), and nothing is written.
TEST(TranslateFileFaults, AnUnwritableOutputIsRefusedBeforeTranslating) {
  const auto dir = test::fresh_temp_dir("translate_faults_out");
  test::write_bytes(dir / "in.txt", kThreeSentences);
  const std::string input = "--input " + (dir / "in.txt").string();
  fs::create_directories(dir / "folder");
  const auto folder = eval(input + " --output " + (dir / "folder").string(), "out_dir");
  test::expect_one_line_error(folder, "folder: is a directory");
  EXPECT_TRUE(fs::is_empty(dir / "folder"));
  const auto missing = eval(input + " --output " + (dir / "absent" / "out.txt").string(), "out_missing");
  test::expect_one_line_error(missing, "out.txt: cannot write: no folder");
  EXPECT_EQ(temporaries_in(dir).size(), 0u);

  test::TmpfsMount disk("translate_faults_read_only", 1 << 20);
  if (!disk.available()) GTEST_SKIP() << disk.why_not();
  ASSERT_TRUE(disk.make_read_only());
  const auto read_only = eval(input + " --output " + (disk.dir() / "out.txt").string(), "out_read_only");
  test::expect_one_line_error(read_only, std::strerror(EROFS));
}

// A write-protected output was replaced, with a new mode, and exit 0 (root writes anyway):
// now refused, its content and mode as they were. A writable one keeps its mode.
TEST(TranslateFileFaults, AWriteProtectedOutputIsLeftAsItIs) {
  const auto dir = test::fresh_temp_dir("translate_faults_protected");
  test::write_bytes(dir / "in.txt", kThreeSentences);
  const auto out = dir / "out.txt";
  test::write_bytes(out, "keep me\n");
  ::chmod(out.c_str(), 0444);
  const auto refused = eval("--input " + (dir / "in.txt").string() + " --output " + out.string(), "protected");
  test::expect_one_line_error(refused, "out.txt: write-protected (mode 0444)");
  EXPECT_EQ(util::read_file(out.string()), "keep me\n");
  EXPECT_EQ(mode_of(out), 0444u);

  ::chmod(out.c_str(), 0600);
  const auto replaced = eval("--input " + (dir / "in.txt").string() + " --output " + out.string(), "writable");
  ASSERT_EQ(replaced.status, 0) << replaced.err;
  EXPECT_EQ(test::lines_of(util::read_file(out.string())).size(), 3u);
  EXPECT_EQ(mode_of(out), 0600u) << "the replaced file keeps its mode";
  EXPECT_TRUE(temporaries_in(dir).empty());
}

// Blank lines are left empty by design, and lines without words ("* * *", "...": a document's
// separators) copied as they are: not errors, exit status 0 (those were errors, exit 1).
TEST(TranslateFileFaults, BlankLinesAreLeftEmptyNotErrors) {
  const auto dir = test::fresh_temp_dir("translate_faults_blank");
  test::write_bytes(dir / "in.txt", "I am here.\n\n   \nShe is tall.\n* * *\n");
  const auto run = eval("--input " + (dir / "in.txt").string() + " --output " + (dir / "out.txt").string(), "blank");
  EXPECT_EQ(run.status, 0) << run.err;
  const auto out = test::lines_of(util::read_file((dir / "out.txt").string()));
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[1], "");
  EXPECT_EQ(out[2], "");
  EXPECT_EQ(out[4], "* * *");
  EXPECT_NE(run.err.find("line 2: empty, left empty"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("line 5: no words to translate, copied as it is"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("translated 2 of 5 lines (2 blank, left empty; 1 without words, copied as they are)"),
            std::string::npos)
      << run.err;
  // As JSON: a record with an empty translation, no error; the copy with a note.
  const auto json = eval("--input " + (dir / "in.txt").string() + " --json", "blank_json");
  EXPECT_EQ(json.status, 0) << json.err;
  const auto records = test::lines_of(json.out);
  ASSERT_EQ(records.size(), 5u) << json.out;
  for (const std::size_t empty : {1, 2}) {
    EXPECT_EQ(records[empty].find("\"error\""), std::string::npos) << records[empty];
    EXPECT_NE(records[empty].find("\"translation\":\"\""), std::string::npos) << records[empty];
  }
  EXPECT_NE(records[4].find("\"translation\":\"* * *\""), std::string::npos) << records[4];
  EXPECT_EQ(records[4].find("\"error\""), std::string::npos) << records[4];
}

// A full disk was "(disk full?)": now the file and the system's reason, nothing left behind.
TEST(TranslateFileFaults, AWriteErrorNamesTheFileAndTheReason) {
  const auto dir = test::fresh_temp_dir("translate_faults_full");
  std::string lines;
  for (int i = 0; i < 1000; ++i) lines += "She is tall.\n";  // as JSON, about 150 kB
  test::write_bytes(dir / "in.txt", lines);
  const std::string input = "--json --input " + (dir / "in.txt").string();
  if (fs::exists("/dev/full")) {  // standard output on a full device
    const auto err = dir / "stderr";
    const std::string command = dls::testing::binary_dir() + "/apps/checkpoint_eval --threads 1 --log-level warn " +
                                test::trained_seq2seq_run().string() + " " + input + " </dev/null >/dev/full 2>" +
                                err.string();
    const int status = std::system(command.c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    const auto message = util::read_file(err.string());
    EXPECT_NE(message.find("error: standard output: cannot write (" + std::string(std::strerror(ENOSPC)) + ")"),
              std::string::npos)
        << message;
  }
  test::TmpfsMount disk("translate_faults_full", 64 << 10);
  if (!disk.available()) GTEST_SKIP() << disk.why_not();
  const auto out = disk.dir() / "out.txt";
  const auto full = eval(input + " --output " + out.string(), "full");
  EXPECT_EQ(full.status, 1);
  EXPECT_NE(full.err.find("error: " + out.string() + ": cannot write (" + std::strerror(ENOSPC) + ")"),
            std::string::npos)
      << full.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(temporaries_in(disk.dir()).empty());
}

// Results on standard output that could not be written are an error in every mode, not only
// --input's: sentences on the command line, --interactive and score ended 0 having written
// nothing (standard output to a file is buffered, and the failure came at exit, unchecked).
TEST(TranslateFileFaults, StandardOutputOnAFullDeviceIsAnErrorInEveryMode) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const auto dir = test::fresh_temp_dir("translate_faults_stdout");
  test::write_bytes(dir / "in.txt", "I want to go home.\n\nShe is tall.\n");
  const auto run = test::trained_seq2seq_run().string();
  const auto in = (dir / "in.txt").string();
  for (const auto& [what, args, input] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"sentences", "translate " + run + " --threads 1 \"I want to go home.\"", "/dev/null"},
           {"interactive", "translate " + run + " --threads 1 --interactive", in},
           {"score", "score " + in + " --ref " + in, "/dev/null"}}) {
    SCOPED_TRACE(what);
    const auto err = dir / ("stderr_" + what);
    const std::string command = dls::testing::binary_dir() + "/apps/checkpoint_eval " + args + " --log-level warn <" +
                                input + " >/dev/full 2>" + err.string();
    const int status = std::system(command.c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << status;
    const auto message = util::read_file(err.string());
    EXPECT_NE(message.find("error: standard output: cannot write (" + std::string(std::strerror(ENOSPC)) + ")"),
              std::string::npos)
        << message;
  }
}

// SIGINT, SIGTERM or SIGHUP in the middle of a file: the temporary output is removed (half a
// megabyte was left behind) and the program ends by the signal (a shell reports 128 + N).
TEST(TranslateFileFaults, ASignalLeavesNoTemporaryFile) {
  const auto dir = test::fresh_temp_dir("translate_faults_signal");
  std::string lines;
  for (int i = 0; i < 300000; ++i) lines += i % 2 == 0 ? "I am here.\n" : "She is tall.\n";
  test::write_bytes(dir / "in.txt", lines);
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
    SCOPED_TRACE(strsignal(signal));
    // The child inherits what this process ignores (a background job ignores SIGINT).
    struct sigaction previous {
    }, default_action{};
    default_action.sa_handler = SIG_DFL;
    ::sigaction(signal, &default_action, &previous);
    test::ChildProcesses children;
    const auto eval_process = start_eval(children, dir, dir / "in.txt", dir / "out.txt", "eval");
    ::sigaction(signal, &previous, nullptr);
    const auto tmp = dir / ("out.txt.tmp-" + std::to_string(children[eval_process].pid));
    // Mid-file: the first translations are in the temporary file.
    bool writing = false;
    for (const auto deadline = Clock::now() + std::chrono::seconds(120);
         !writing && !children.exited(eval_process) && Clock::now() < deadline;) {
      std::error_code error;
      writing = fs::file_size(tmp, error) > 0 && !error;
      if (!writing) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(writing) << "never started writing: " << children[eval_process].stderr_text();
    children.signal(eval_process, signal);
    ASSERT_TRUE(children.wait(eval_process, std::chrono::seconds(60)));
    EXPECT_EQ(children[eval_process].signal, signal) << children[eval_process].stderr_text();
    EXPECT_TRUE(temporaries_in(dir).empty());
    EXPECT_FALSE(fs::exists(dir / "out.txt"));
  }
}

}  // namespace
}  // namespace dls::apps
