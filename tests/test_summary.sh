#!/usr/bin/env bash
# After ctest: the GoogleTest tests behind its suites (cmake/DlsTestSuites.cmake runs one
# process per suite, so ctest's own count is of suites), and every skipped test with the
# reason it gave, which ctest does not show for a suite that passed.
#   tests/test_summary.sh BUILD_DIR
set -uo pipefail
log="${1:?usage: test_summary.sh BUILD_DIR}/Testing/Temporary/LastTest.log"
[ -f "$log" ] || { echo "test_summary: no $log (has ctest run?)" >&2; exit 1; }
# A test's own lines: "[       OK ] Suite.Test (12 ms)", "[  FAILED  ] Suite.Test (3 ms)",
# "[  SKIPPED ] Suite.Test (0 ms)"; the reason of a skip is the line after "...: Skipped".
awk '
  /: Skipped$/ { want_reason = 1; next }
  want_reason { want_reason = 0; if ($0 !~ /^\[/) { reason = $0; next } }
  /^\[       OK \] .* \([0-9]+ ms\)$/ { passed++ }
  /^\[  FAILED  \] .* \([0-9]+ ms\)$/ { failed++ }
  /^\[  SKIPPED \] .* \([0-9]+ ms\)$/ {
    skipped++
    name = $4
    why[name] = reason
    reason = ""
  }
  END {
    printf "GoogleTest: %d tests passed, %d skipped, %d failed\n", passed, skipped, failed
    n = 0
    for (name in why) names[++n] = name
    # A plain insertion sort: the skipped tests by name (mawk has no asort).
    for (i = 2; i <= n; i++) { v = names[i]; for (j = i - 1; j >= 1 && names[j] > v; j--) names[j + 1] = names[j]; names[j + 1] = v }
    for (i = 1; i <= n; i++) printf "  skipped %s: %s\n", names[i], (why[names[i]] == "" ? "(no reason given)" : why[names[i]])
  }' "$log"
