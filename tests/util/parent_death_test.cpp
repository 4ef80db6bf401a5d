// A process that asked for it gets SIGTERM when its parent dies: a launcher's worker is not
// left training as an orphan.
#include "dls/util/parent_death.h"

#include <gtest/gtest.h>

#ifdef __linux__
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace dls::util {
namespace {

// A launcher's worker killed outright leaves its process running on (an orphan training to
// the end); after stop_when_parent_dies() it gets SIGTERM when the parent dies. Here the
// parent is a child of the test's that exits once its own child has asked; the orphan comes
// to the test, which makes itself its subreaper to wait for it.
TEST(ParentDeath, AWorkerIsStoppedWhenItsParentDies) {
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t parent = fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    const pid_t worker = fork();
    if (worker == 0) {
      stop_when_parent_dies();
      const char byte = 1;
      if (write(ready[1], &byte, 1) != 1) _exit(2);
      sleep(20);  // the test fails if nothing ends this sooner
      _exit(0);
    }
    char byte = 0;
    if (worker < 0 || read(ready[0], &byte, 1) != 1) _exit(2);
    _exit(static_cast<int>(worker % 200) + 10);  // tells the test nothing but ends at once
  }
  close(ready[1]);
  int status = 0;
  ASSERT_EQ(waitpid(parent, &status, 0), parent);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) >= 10) << status;
  const pid_t orphan = waitpid(-1, &status, 0);  // the worker, now the test's
  close(ready[0]);
  prctl(PR_SET_CHILD_SUBREAPER, 0);
  ASSERT_GT(orphan, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
}
}  // namespace
}  // namespace dls::util
#endif
