#!/usr/bin/env bash
# Runs every fuzz target of build-fuzz (tests/fuzz/CMakeLists.txt) for RUNS executions,
# starting from the seeds in the repository (copied: new inputs stay out of it), and prints
# one table row per target. A finding (crash, sanitizer report, leak, timeout, out of memory)
# leaves its input in OUT/<target>/ and makes the script exit non-zero. FUZZ_SECONDS, when
# set, bounds each target's time as well (libFuzzer's -max_total_time). FUZZ_TARGETS, when
# set, names the targets to run (default: all eight), so that several copies of this script
# can run different targets side by side, one per core.
#
#   tests/fuzz/run_fuzzers.sh BUILD_DIR RUNS [OUT]
set -uo pipefail
build=${1:?usage: run_fuzzers.sh BUILD_DIR RUNS [OUT]} runs=${2:?RUNS} out=${3:-$build/findings}
here=$(cd "$(dirname "$0")" && pwd)
fixtures="$here/../fixtures"
declare -A extra_seeds=([pickle]="$fixtures/pickle" [tsv_corpus]="$fixtures/corpus" [bleu]="$fixtures/bleu")
# Inputs of at most 4 KiB (seeds are cut there too): long enough for every structure the
# parsers know, short enough for thousands of executions per second. The scores' structure
# (lines, tokens, 4-grams, 6-character n-grams) fits in far less, and their cost grows with
# the length, so 2 KiB there (the longest seed is 1.9 KiB): BLEU made 2,700 executions/s in
# its first minute against 1,600 at 4 KiB.
declare -A max_len=([bleu]=2048 [text_scores]=2048)
time_limit=()
[ -n "${FUZZ_SECONDS:-}" ] && time_limit=(-max_total_time="$FUZZ_SECONDS")
status=0
printf '| target | executions | seconds | corpus (files) | findings |\n| --- | --- | --- | --- | --- |\n'
for target in ${FUZZ_TARGETS:-pickle state_dict_pickle tsv_corpus image_files key_values bleu text_scores config}; do
  corpus="$build/corpus/$target"
  mkdir -p "$corpus" "$out/$target"
  cp -n "$here/seeds/$target/"* "$corpus/" 2>/dev/null || true
  log="$build/fuzz_$target.log"
  start=$(date +%s)
  # shellcheck disable=SC2086
  "$build/fuzz_$target" -runs="$runs" "${time_limit[@]}" -timeout=10 -rss_limit_mb=2048 -max_len="${max_len[$target]:-4096}" \
      -artifact_prefix="$out/$target/" -print_final_stats=1 "$corpus" ${extra_seeds[$target]:-} >"$log" 2>&1
  code=$?
  seconds=$(( $(date +%s) - start ))
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  findings=$(find "$out/$target" -type f | wc -l)
  [ "$code" -ne 0 ] && status=1
  printf '| %s | %s | %s | %s | %s%s |\n' "$target" "$execs" "$seconds" "$(find "$corpus" -type f | wc -l)" \
      "$findings" "$([ "$code" -ne 0 ] && echo " (exit $code, see $log)")"
done
exit $status
