#!/usr/bin/env bash
# Runs every benchmark in C++ (dls_bench) and in Python (bench/python/bench_reference.py,
# Debian's PyTorch) with the same configs, thread count and data shapes, then prints the
# table of ratios (C++ / Python). JSON records go to bench/results/<date>/.
#
#   bash bench/side_by_side.sh [BUILD_DIR]        all benchmarks (about 20 minutes on 2 cores)
#   QUICK=1 bash bench/side_by_side.sh            fewer repeats, the slow DLStudio-style
#                                                 Python decoding left out
#   THREADS=1 bash bench/side_by_side.sh          another thread count
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
threads=${THREADS:-$(nproc)}
bench="$build/bench/dls_bench"
python=/usr/bin/python3
[ -x "$bench" ] || { echo "error: $bench not built (make bench builds it)" >&2; exit 1; }
"$python" -c "import torch" 2>/dev/null || { echo "error: $python has no torch (apt-get install python3-torch)" >&2; exit 1; }
out="bench/results/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
repeats=3; iters=2
[ -n "${QUICK:-}" ] && { repeats=2; iters=1; }

# The machine, for the table's header.
{
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
  echo "blas: $(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 2>/dev/null || echo unknown)"
  echo "threads: $threads"
} > "$out/machine.txt"
"$bench" --task gemm --threads "$threads" > "$out/gemm.json"

# name | dls_bench flags | Python impl and flags
# Sizes: DLStudio's example (M 256, 4/4/4, L 10, batch 50); the cpu preset (vaswani, M 256,
# 3 encoders, 3 decoders, 4 heads, FFN 4M, dropout 0.1, batch 64); DLStudio's ViT (CIFAR
# 32x32x3, patch 8, M 256, 8 FG encoders, 4 heads, batch 48); the Fashion-MNIST preset
# (28x28x1, a stem of 3x3 convolutions 32, 64/2, 128/2, 128/2 down to 4x4 tokens, patch 1,
# M 128, 4 PreLN vaswani encoders, FFN 2M, batch 128).
S2S_DLS="--layout dlstudio --variant FG --embedding-size 256 --heads 4 --encoders 4 --decoders 4 --max-len 10"
S2S_CPU="--variant FG --embedding-size 256 --heads 4 --encoders 3 --decoders 3 --max-len 10 --ffn-mult 4 --dropout 0.1"
VIT_DLS="--variant FG --embedding-size 256 --heads 4 --encoders 8 --image-size 32 --channels 3 --patch 8 --batch 48"
VIT_FASHION="--variant PreLN --embedding-size 128 --heads 4 --encoders 4 --image-size 28 --channels 1 --stem 32,64/2,128/2,128/2 --patch 1 --ffn-mult 2 --dropout 0.0 --batch 128"
runs=(
  "seq2seq-train-dlstudio|--task seq2seq-train --preset dlstudio|--impl dlstudio --task seq2seq-train $S2S_DLS --batch 50"
  "seq2seq-train-cpu-dlstudio-layout|--task seq2seq-train --preset cpu --layout dlstudio --batch 64|--impl dlstudio --task seq2seq-train --layout dlstudio --variant FG --embedding-size 256 --heads 4 --encoders 3 --decoders 3 --max-len 10 --batch 64"
  "seq2seq-train-cpu|--task seq2seq-train --preset cpu|--impl torchnn --task seq2seq-train $S2S_CPU --batch 64"
  "seq2seq-greedy-cpu|--task seq2seq-greedy --preset cpu --batch 64|--impl torchnn --task seq2seq-greedy $S2S_CPU --batch 64"
  "seq2seq-beam-cpu|--task seq2seq-beam --preset cpu --batch 64 --beam 4|--impl torchnn --task seq2seq-beam $S2S_CPU --batch 64 --beam 4"
  "vit-train-dlstudio|--task vit-train --preset dlstudio|--impl dlstudio --task vit-train $VIT_DLS"
  "vit-train-dlstudio-torchnn|--task vit-train --preset dlstudio|--impl torchnn --task vit-train $VIT_DLS --ffn-mult 4 --dropout 0.0"
  "vit-infer-dlstudio|--task vit-infer --preset dlstudio|--impl dlstudio --task vit-infer $VIT_DLS"
  "vit-train-fashion|--task vit-train --preset fashion|--impl torchnn --task vit-train $VIT_FASHION"
  "vit-infer-fashion|--task vit-infer --preset fashion|--impl torchnn --task vit-infer $VIT_FASHION"
)
if [ -z "${QUICK:-}" ]; then
  runs+=("seq2seq-greedy-dlstudio|--task seq2seq-greedy --preset dlstudio --batch 50|--impl dlstudio --task seq2seq-greedy $S2S_DLS --batch 50")
fi

for entry in "${runs[@]}"; do
  IFS='|' read -r name cpp py <<<"$entry"
  echo "== $name" >&2
  # shellcheck disable=SC2086
  "$bench" $cpp --threads "$threads" --repeats "$repeats" --iters "$iters" > "$out/$name.cpp.json"
  # shellcheck disable=SC2086
  "$python" bench/python/bench_reference.py $py --threads "$threads" --repeats "$repeats" --iters "$iters" \
    > "$out/$name.python.json"
done
"$python" bench/python/side_by_side_table.py "$out" | tee "$out/table.md"
