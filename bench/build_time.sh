#!/usr/bin/env bash
# Wall time of a clean build of the programs (what `make build` and so `make demo` compile)
# at each given commit, one after the other, without the compiler cache, each in a fresh
# worktree. Prints one line per commit; run it on a machine with nothing else running.
#
#   bench/build_time.sh COMMIT...
#   bench/build_time.sh d82b536 c6aa608          # before and after a change
#   BUILD_TARGET=all bench/build_time.sh HEAD    # the whole tree (tests, benchmark) instead
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 COMMIT..." >&2
  exit 2
fi
cd "$(dirname "$0")/.."
target=${BUILD_TARGET:-programs}
jobs=$(nproc)
work=$(mktemp -d /tmp/dls_build_time.XXXXXX)
cleanup() {
  for tree in "$work"/tree-*; do
    [ -d "$tree" ] && git worktree remove --force "$tree" >/dev/null 2>&1
  done
  rm -rf "$work"
  git worktree prune
}
trap cleanup EXIT

for commit in "$@"; do
  sha=$(git rev-parse --short "$commit^{commit}")
  tree="$work/tree-$sha"
  git worktree add --detach --quiet "$tree" "$sha"
  # The programs the commit's own Makefile builds for `make build`.
  programs=$(sed -n 's/^PROGRAMS *:= *//p' "$tree/Makefile")
  start=$(date +%s.%N)
  cmake -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=Release -DDLS_USE_CCACHE=OFF >"$work/$sha.log" 2>&1
  if [ "$target" = all ]; then
    cmake --build "$tree/build" -j "$jobs" >>"$work/$sha.log" 2>&1
  else
    # shellcheck disable=SC2086  # the program names are words
    cmake --build "$tree/build" -j "$jobs" --target $programs >>"$work/$sha.log" 2>&1
  fi
  end=$(date +%s.%N)
  units=$(grep -c 'Building CXX object' "$work/$sha.log" || true)
  printf '%s  %-9s %7.1f s  (%s compiles, -j %s, configure included)\n' \
    "$sha" "$target" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" "$units" "$jobs"
done
