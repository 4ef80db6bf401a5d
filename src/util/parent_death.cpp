#include "dls/util/parent_death.h"

#include <signal.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace dls::util {

void stop_when_parent_dies() {
#ifdef __linux__
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) raise(SIGTERM);  // it died before the request took hold
#endif
}

}  // namespace dls::util
