#!/usr/bin/env bash
# tests/test_summary.sh on a made-up ctest log: the GoogleTest counts behind ctest's suites,
# and every skipped test with its reason, one given or not.
# Usage: tests/test_summary_test.sh SOURCE_DIR
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/Testing/Temporary"
cat > "$dir/Testing/Temporary/LastTest.log" <<'LOG'
[ RUN      ] Alpha.Runs
[       OK ] Alpha.Runs (12 ms)
[ RUN      ] Alpha.NeedsTheCorpus
../../tests/alpha_test.cpp:40: Skipped
DLS_DATA_DIR not set / corpus absent
[  SKIPPED ] Alpha.NeedsTheCorpus (0 ms)
[  PASSED  ] 1 test.
[  SKIPPED ] 1 test, listed below:
[  SKIPPED ] Alpha.NeedsTheCorpus
[ RUN      ] Beta/Layouts.Fails/0
../../tests/beta_test.cpp:9: Failure
[  FAILED  ] Beta/Layouts.Fails/0, where GetParam() = 0 (3 ms)
[ RUN      ] Beta/Layouts.SkipsSilently/1
../../tests/beta_test.cpp:12: Skipped

[  SKIPPED ] Beta/Layouts.SkipsSilently/1 (0 ms)
[  FAILED  ] 1 test, listed below:
[  FAILED  ] Beta/Layouts.Fails/0, where GetParam() = 0
LOG
got=$(bash "$1/tests/test_summary.sh" "$dir")
want='GoogleTest: 1 tests passed, 2 skipped, 1 failed
  skipped Alpha.NeedsTheCorpus: DLS_DATA_DIR not set / corpus absent
  skipped Beta/Layouts.SkipsSilently/1: (no reason given)'
if [ "$got" != "$want" ]; then
  printf 'test_summary.sh printed:\n%s\nexpected:\n%s\n' "$got" "$want" >&2
  exit 1
fi
! bash "$1/tests/test_summary.sh" "$dir/nothing" 2>/dev/null || { echo "no log: not refused" >&2; exit 1; }
echo "test_summary.sh: counts and skip reasons as expected"
