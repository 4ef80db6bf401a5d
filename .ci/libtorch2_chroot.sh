#!/usr/bin/env bash
# The project against LibTorch 2.x on this CPU machine: Debian 13 (trixie), whose libtorch-dev
# is 2.6, in a chroot beside Debian 12's 1.13. What only a GPU machine's LibTorch reached
# before -- the code behind `TORCH_VERSION >= 2.x` checks (fused attention, the fused Adam's
# block, the Kineto kernel profile) -- compiles here, and the tests of those paths that do not
# need a GPU run (FusedAttention.*: the fused operator against the plain path on the CPU). A
# failed build on a lent GPU costs minutes of its 15; this costs none.
#
# Usage (as root; first run ~10 min and ~2.5 GB: debootstrap, 1 GB of packages, the build):
#   .ci/libtorch2_chroot.sh [WORK_DIR] [gtest filter]   (default /tmp/dls-libtorch2, all tests)
# The chroot in WORK_DIR/root is kept and reused: a second run copies the changed files of
# this checkout in and rebuilds (ccache). Prints the build's warnings and the tests' summary;
# exits non-zero when the build or a test fails. Not part of .ci/run: it needs trixie's
# packages, which a Debian 12 CI does not have.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$(pwd)
work=${1:-/tmp/dls-libtorch2}
filter=${2:-*}
root=$work/root
[ "$(id -u)" -eq 0 ] || { echo "error: run as root (debootstrap and chroot need it)" >&2; exit 1; }
command -v debootstrap > /dev/null || apt-get install -y -q debootstrap

source .ci/chroot_mounts.sh
trap chroot_unmount EXIT
chroot_unmount
mkdir -p "$work"
if [ ! -x "$root/usr/bin/cmake" ]; then
  rm -rf "$root"
  echo "debootstrap trixie (minbase) into $root"
  debootstrap --variant=minbase trixie "$root" http://deb.debian.org/debian > "$work/debootstrap.log" 2>&1
  echo 'deb http://deb.debian.org/debian trixie main' > "$root/etc/apt/sources.list"
fi
cp /etc/resolv.conf "$root/etc/"
chroot_mount
# The set-up's packages (cmake/install_debian_deps.sh build) under their trixie names.
mapfile -t packages < <(bash cmake/install_debian_deps.sh build --print | tr ' ' '\n' | grep -v '^dataset-fashion-mnist$')
chroot "$root" bash -c "export DEBIAN_FRONTEND=noninteractive; dpkg -s ${packages[*]} > /dev/null 2>&1 ||
  { apt-get update -q && apt-get install -y -q --no-install-recommends ${packages[*]} python3; }" > "$work/apt.log" 2>&1 ||
  { echo "error: apt-get in the chroot failed (see $work/apt.log)" >&2; exit 1; }
echo "LibTorch in the chroot: $(chroot "$root" dpkg-query -W -f='${Version}' libtorch-dev)"

# This checkout's files (tracked and new), copied in where they differ, with a fresh time so
# that make sees them (a copy that kept the old times could leave a stale object).
dest=$root/ci/main
mkdir -p "$dest"
copied=0
while read -r f; do
  [ -f "$f" ] || continue
  if ! cmp -s "$f" "$dest/$f"; then
    mkdir -p "$(dirname "$dest/$f")" && cp "$f" "$dest/$f" && copied=$((copied + 1))
  fi
done < <( (git ls-files; git ls-files --others --exclude-standard) | sort -u)
echo "copied $copied changed files of $(git log --oneline -1 | cut -c1-60)"

status=0
chroot "$root" bash -c 'cd /ci/main && export CCACHE_DIR=/ci/ccache HOME=/root &&
  rm -f /ci/build.log && cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /ci/configure.log 2>&1 &&
  cmake --build build -j"$(nproc)" > /ci/build.log 2>&1' || status=$?
log=$root/ci/build.log
grep -q 'Build files have been written' "$root/ci/configure.log" 2> /dev/null || log=$root/ci/configure.log
# (An incremental build shows only the warnings of what it recompiled.)
echo "build: exit status $status, $(grep -c 'warning:' "$log") warnings in $(basename "$log")"
grep -E 'error|warning:' "$log" | head -n 20 || true
if [ "$status" -eq 0 ]; then
  chroot "$root" bash -c "cd /ci/main/build/tests && DLS_LOG_LEVEL=warn ./dls_tests --gtest_filter='$filter'" \
    > "$work/tests.log" 2>&1 || status=$?
  grep -aE '^\[  (PASSED|FAILED|SKIPPED) +\]|tests? ran' "$work/tests.log" | head -n 60
  echo "tests: exit status $status (log: $work/tests.log)"
fi
exit "$status"
