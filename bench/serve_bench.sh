#!/usr/bin/env bash
# translate_server under load on loopback, with and without dynamic batching: starts the
# server on RUN (a run directory or a checkpoint), runs dls_serve_bench at 1, 8 and 64
# clients (one sentence per request, bounded by REQUESTS and SECONDS per run), stops it with
# SIGTERM; then checkpoint_eval --input on the same sentences for the offline rate. With
# SPLIT=threads, the rows are the ways of sharing the cores instead (--threads intra-op
# threads against --decode-workers chunks of one thread each), and no offline rate. FLAGS
# go to translate_server and checkpoint_eval alike (FLAGS='--quantize int8').
#
#   bench/serve_bench.sh BUILD_DIR RUN CORPUS [REQUESTS] [SECONDS]
#   bench/serve_bench.sh build runs/cpu_real data/spa-eng/spa.txt 400 60
#   SPLIT=threads bench/serve_bench.sh build runs/cpu_real data/spa-eng/spa.txt 400 60
#   FLAGS='--quantize int8' bench/serve_bench.sh build runs/cpu_real data/spa-eng/spa.txt 400 60
set -euo pipefail
read -r -a flags <<<"${FLAGS:-}"
if [ $# -lt 3 ]; then
  echo "usage: $0 BUILD_DIR RUN CORPUS [REQUESTS] [SECONDS]" >&2
  exit 2
fi
build=$1 run=$2 corpus=$3 requests=${4:-400} seconds=${5:-60}
for program in "$build/apps/translate_server" "$build/apps/checkpoint_eval" "$build/bench/dls_serve_bench"; do
  [ -x "$program" ] || { echo "error: $program is not built" >&2; exit 1; }
done
# The server's choice (a run's best.pt, else its newest checkpoint), named for checkpoint_eval too.
model=$run
[ -f "$run/best.pt" ] && model=$run/best.pt
work=$(mktemp -d /tmp/dls_serve_bench.XXXXXX)
server_pid=
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT

# 1,000 English sentences of at most 8 words (the cpu preset's limit), spread over the corpus.
awk -F'\t' 'NF >= 2 && split($1, w, " ") <= 8 && NR % 97 == 0 { print $1 }' "$corpus" | head -1000 >"$work/sentences.txt"
echo "$(wc -l <"$work/sentences.txt") sentences; host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"

serve() {  # LABEL SERVER-FLAGS...
  local label=$1
  shift
  "$build/apps/translate_server" "$model" --port 0 --queue 1024 --request-timeout-s 300 --log-level warn "${flags[@]}" "$@" \
    >"$work/$label.out" 2>"$work/$label.err" &
  server_pid=$!
  for _ in $(seq 600); do
    grep -q '^listening on ' "$work/$label.out" 2>/dev/null && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/$label.err" >&2; exit 1; }
    sleep 0.1
  done
  local port
  port=$(sed -n 's/^listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$work/$label.out")
  "$build/bench/dls_serve_bench" --port "$port" --sentences "$work/sentences.txt" --clients 1,8,64 \
    --requests "$requests" --seconds "$seconds" --label "$label" 2>>"$work/records.jsonl"
  kill -TERM "$server_pid"
  wait "$server_pid"
  server_pid=
}

if [ "${SPLIT:-}" = threads ]; then
  cores=$(nproc)
  serve "$cores intra-op threads, 1 decode worker" --threads "$cores" --decode-workers 1
  serve "1 intra-op thread, $cores decode workers" --threads 1 --decode-workers "$cores" | tail -n +3
  serve "1 intra-op thread, 1 decode worker" --threads 1 --decode-workers 1 | tail -n +3
  cat "$work/records.jsonl"
  exit 0
fi
serve "dynamic batching (5 ms, 64)"
serve "no batching" --no-batching | tail -n +3
cat "$work/records.jsonl"

# Offline: the same sentences through checkpoint_eval --input (batches of 256); the time of
# one sentence (loading the model) is subtracted.
timed() {  # INPUT: seconds checkpoint_eval --input takes
  local start end
  start=$(date +%s.%N)
  "$build/apps/checkpoint_eval" "$model" --input "$1" --output "$work/out.txt" --log-level warn "${flags[@]}" 2>/dev/null
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { print e - s }'
}
head -1 "$work/sentences.txt" >"$work/one.txt"
one=$(timed "$work/one.txt")
all=$(timed "$work/sentences.txt")
awk -v n="$(wc -l <"$work/sentences.txt")" -v one="$one" -v all="$all" \
  'BEGIN { printf "checkpoint_eval --input: %d sentences in %.2f s, %.2f s of it loading: %.1f sentences/s\n", n, all, one, n / (all - one) }'
