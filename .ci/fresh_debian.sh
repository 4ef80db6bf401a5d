#!/usr/bin/env bash
# .ci/run on a bare Debian 12: debootstrap's minbase (88 packages, no make, no compiler, no
# /etc/hosts) in a chroot, this checkout cloned into it with ../shared beside it, then what a
# user of a fresh machine does: apt-get install make, and the README's test command. It shows
# what a CI on this machine cannot: a package the set-up forgot, a file the tests take from
# this machine. Prints the set-up, build and test (demo) times and the packages installed.
#
# Usage (as root; 19 minutes on 2 cores with the packages cached, ~3 GB of disk, 572 MB from Debian):
#   .ci/fresh_debian.sh [WORK_DIR]     (default /tmp/dls-fresh-debian; removed first)
# FRESH_RUN=demo: the README's other command, `make demo`, instead of .ci/run (the first hour
# of a new user: the set-up of the programs, their build and the demo, timed apart).
# DEB_CACHE=DIR: .deb files to put into the chroot's apt cache first (a second run need not
# download them again). The log of .ci/run (make demo), each line with its time:
# WORK_DIR/ci_run.log.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$(pwd)
work=${1:-/tmp/dls-fresh-debian}
root=$work/root
shared=$(cd .. && pwd)/shared

[ "$(id -u)" -eq 0 ] || { echo "error: run as root (debootstrap and chroot need it)" >&2; exit 1; }
case "${FRESH_RUN:=ci}" in ci) phase=tests ;; demo) phase=demo ;; *) echo "error: FRESH_RUN is ci or demo, not '$FRESH_RUN'" >&2; exit 2 ;; esac
[ -d "$shared" ] || { echo "error: no $shared beside the checkout (CI's ../shared)" >&2; exit 1; }
command -v debootstrap >/dev/null || apt-get install -y -q debootstrap

source .ci/chroot_mounts.sh
trap 'chroot_unmount ci/shared' EXIT

chroot_unmount ci/shared
rm -rf "$work"
mkdir -p "$root"
echo "debootstrap bookworm (minbase) into $root"
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian > "$work/debootstrap.log" 2>&1
rm -f "$root/etc/apt/sources.list"
cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/" 2>/dev/null ||
  cp /etc/apt/sources.list "$root/etc/apt/"
cp /etc/resolv.conf "$root/etc/"
if [ -n "${DEB_CACHE:-}" ]; then cp "$DEB_CACHE"/*.deb "$root/var/cache/apt/archives/"; fi
chroot_mount
mkdir -p "$root/ci/shared"
mount --bind "$shared" "$root/ci/shared"
git clone -q "$checkout" "$root/ci/main"
echo "cloned $(git -C "$root/ci/main" log --oneline -1 | cut -c1-80)"

cat > "$root/ci/run.sh" << 'EOF'
#!/bin/bash
export DEBIAN_FRONTEND=noninteractive HOME=/root LANG=C.UTF-8
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
cd /ci/main
echo "packages before: $(dpkg -l | grep -c '^ii')"
t0=$(date +%s)
apt-get update -q > /ci/apt.log 2>&1 && apt-get install -y -q --no-install-recommends make >> /ci/apt.log 2>&1
echo "apt-get update and make: $(($(date +%s) - t0)) s"
t1=$(date +%s)
command=(bash .ci/run)
[ "$FRESH_RUN" = demo ] && command=(make demo)
"${command[@]}" 2>&1 | while IFS= read -r line; do printf '%s %s\n' "$(date +%s)" "$line"; done > /ci/ci_run.log
status=${PIPESTATUS[0]}
echo "${command[*]}: $(($(date +%s) - t1)) s, exit status $status"
echo "packages after: $(dpkg -l | grep -c '^ii')"
exit "$status"
EOF
chmod +x "$root/ci/run.sh"
status=0
FRESH_RUN=$FRESH_RUN chroot "$root" /ci/run.sh || status=$?
cp "$root/ci/ci_run.log" "$work/ci_run.log"
log=$work/ci_run.log
# Phases from the timestamps: set-up until CMake starts, build until ctest (the demo's first
# section) starts, then the tests (the demo).
first=$(head -n1 "$log" | cut -d' ' -f1)
configure=$(grep -m1 -- '-- The CXX compiler' "$log" | cut -d' ' -f1 || true)
tests=$(grep -m1 -E 'Test project|^[0-9]+ ==== ' "$log" | cut -d' ' -f1 || true)
last=$(tail -n1 "$log" | cut -d' ' -f1)
[ -n "$configure" ] && echo "set-up $((configure - first)) s"
[ -n "$configure" ] && [ -n "$tests" ] && echo "build $((tests - configure)) s"
[ -n "$tests" ] && echo "$phase $((last - tests)) s"
echo "disk used in the chroot: $(cd "$root" && du -shx --exclude=./ci/shared . 2>/dev/null | cut -f1)"
grep -E 'newly installed|Need to get|After this operation|tests passed|tests failed out of' "$log" | cut -d' ' -f2- || true
exit "$status"
