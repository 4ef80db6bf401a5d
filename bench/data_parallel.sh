#!/usr/bin/env bash
# One process with 2 threads against 2 processes with 1 thread each on the same machine,
# the second with the gradient all-reduce overlapping backward (the default, --bucket-mb 25)
# and after it (--bucket-mb 0). Prints each run's throughput and all-reduce wait from
# --json, alternating the three set-ups ROUNDS times.
#
#   bench/data_parallel.sh BUILD_DIR ROUNDS PROGRAM ARGS...
#   bench/data_parallel.sh build 3 seq2seq_train --data spa.txt --preset cpu --max-iters 40
#   bench/data_parallel.sh build 3 vit_train --dataset fashion-mnist --max-iters 80
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 BUILD_DIR ROUNDS PROGRAM ARGS..." >&2
  exit 2
fi
build=$1 rounds=$2 program=$3
shift 3
bin="$build/apps/$program"
[ -x "$bin" ] || { echo "error: $bin is not built" >&2; exit 1; }
python=/usr/bin/python3
work=$(mktemp -d /tmp/dls_data_parallel.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

# The examples/s key and the all-reduce wait of a --json summary.
summary() {
  "$python" -c 'import json,sys; j=json.load(open(sys.argv[1])); r=j.get("pairs_per_s", j.get("images_per_s")); print("%9.1f /s   all-reduce wait %6.1f ms per step" % (r, 1000 * j["all_reduce_s"]))' "$1"
}

run_one() {  # NAME: one process, 2 threads
  "$bin" "$@" --threads 2 --json --log-level warn --run-dir "$work/$name" >"$work/$name.json" 2>"$work/$name.log"
}

run_two() {  # NAME BUCKET_MB: two ranks on 127.0.0.1, 1 thread each; rank 0's summary
  local port
  port=$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  for rank in 1 0; do
    RANK=$rank WORLD_SIZE=2 LOCAL_RANK=$rank MASTER_ADDR=127.0.0.1 MASTER_PORT=$port OMP_NUM_THREADS=1 \
      "$bin" "$@" --threads 1 --bucket-mb "$bucket" --json --log-level warn --run-dir "$work/$name" \
      >"$work/$name.rank$rank.json" 2>"$work/$name.rank$rank.log" &
  done
  wait
  cp "$work/$name.rank0.json" "$work/$name.json"
}

grep -m1 'model name' /proc/cpuinfo
echo "$program $*"
for round in $(seq 1 "$rounds"); do
  name=one$round; run_one "$@"
  echo "round $round  1 process  x 2 threads:                 $(summary "$work/$name.json")"
  name=overlap$round bucket=25; run_two "$@"
  echo "round $round  2 processes x 1 thread, overlapped:     $(summary "$work/$name.json")"
  name=after$round bucket=0; run_two "$@"
  echo "round $round  2 processes x 1 thread, after backward: $(summary "$work/$name.json")"
done
