#!/usr/bin/env bash
# fp32 against --precision bf16 (autocast) for the cpu seq2seq preset's training step and the
# fashion ViT preset's, alternating the two precisions ROUNDS times (default 3) so that both
# see the same load. Prints one line per benchmark and precision: the median of the rounds'
# medians and their range; JSON records go to bench/results/precision-<date>/.
#
#   bash bench/precision_side_by_side.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bench="$build/bench/dls_bench"
rounds=${ROUNDS:-3}
[ -x "$bench" ] || { echo "error: $bench not built" >&2; exit 1; }
out="bench/results/precision-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
echo "host flags: $(grep -m1 flags /proc/cpuinfo | grep -o 'avx512_bf16\|amx_bf16\|avx512f\|avx2' | sort -u | tr '\n' ' ')" | tee "$out/machine.txt"
for round in $(seq "$rounds"); do
  for task in "seq2seq-train --preset cpu" "vit-train --preset fashion"; do
    for precision in fp32 bf16; do
      name="$(echo "$task" | cut -d' ' -f1)-$precision-$round"
      # shellcheck disable=SC2086
      "$bench" --task $task --precision "$precision" > "$out/$name.json" 2> "$out/$name.log"
    done
  done
done
python3 - "$out" <<'PY'
import json, pathlib, statistics, sys
runs = {}
for f in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    r = json.loads(f.read_text())
    runs.setdefault((r["task"], r["config"]["precision"]), []).append(r["median"])
for (task, precision), medians in sorted(runs.items()):
    fp32 = statistics.median(runs[(task, "fp32")])
    m = statistics.median(medians)
    print(f"{task:15s} {precision}: median {m:8.1f} (range {min(medians):.1f}-{max(medians):.1f}) over "
          f"{len(medians)} rounds, {m / fp32:.2f}x fp32")
PY
