#!/usr/bin/env bash
# Runs every benchmark in C++ (dls_bench) and in Python (bench/python/bench_reference.py,
# Debian's PyTorch) with the same configs, thread count and data shapes, then prints the
# table of ratios (C++ / Python). JSON records go to bench/results/<date>/ (or $RESULTS).
#
#   bash bench/side_by_side.sh [BUILD_DIR]        all benchmarks (about 20 minutes on 2 cores)
#   QUICK=1 bash bench/side_by_side.sh            fewer repeats, the slow DLStudio-style
#                                                 Python decoding left out
#   THREADS=1 bash bench/side_by_side.sh          another thread count
#   DEVICE=cuda bash bench/side_by_side.sh        the device table: the cpu preset's training
#                                                 step beside PyTorch eager (impl torchnn, an
#                                                 nn.Transformer, loss.item() every step) at
#                                                 batch 64 and 512, fp32 and bf16, on the GPU,
#                                                 with the python3 on PATH (~3 min on an H100)
#   DEVICE=cpu DEVICE_TABLE=1 BATCHES=8 ITERS=1 REPEATS=1 bash bench/side_by_side.sh
#                                                 the same device table on the CPU: a smoke
#                                                 test of this script where no GPU is
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
threads=${THREADS:-$(nproc)}
bench="$build/bench/dls_bench"
device=${DEVICE:-cpu}
device_table=${DEVICE_TABLE:-}
[ "$device" != cpu ] && device_table=1
# Debian's PyTorch on the CPU machine; a GPU machine's CUDA PyTorch is the python3 on PATH.
python=${PYTHON:-$([ "$device" = cpu ] && echo /usr/bin/python3 || echo python3)}
[ -x "$bench" ] || { echo "error: $bench not built (make bench builds it)" >&2; exit 1; }
"$python" -c "import torch" 2>/dev/null || { echo "error: $python has no torch (apt-get install python3-torch)" >&2; exit 1; }
out=${RESULTS:-"bench/results/$(date +%Y%m%d-%H%M%S)"}
mkdir -p "$out"
repeats=3; iters=2
[ -n "$device_table" ] && { iters=50; }
[ -n "${QUICK:-}" ] && { repeats=2; iters=1; }
repeats=${REPEATS:-$repeats}; iters=${ITERS:-$iters}

# The machine, for the table's header.
{
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
  echo "blas: $(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 2>/dev/null || echo unknown)"
  echo "threads: $threads"
  echo "device: $device"
  [ "$device" = cuda ] && nvidia-smi -L 2>/dev/null | head -1
  echo "python: $("$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)')"
} > "$out/machine.txt"
gemm_size=()
[ -n "${GEMM_SIZE:-}" ] && gemm_size=(--gemm-size "$GEMM_SIZE")
[ "$device" = cuda ] && [ -z "${GEMM_SIZE:-}" ] && gemm_size=(--gemm-size 8192)
"$bench" --task gemm --device "$device" --threads "$threads" "${gemm_size[@]}" > "$out/gemm.json"
# The Python references load the same OpenBLAS, which reads OPENBLAS_CORETYPE only while it
# loads: they get the kernels that dls_bench runs on (which it may have restarted itself to
# get, util/blas_kernels.h), unless the caller chose some.
kernels=$(sed -n 's/.*"blas_kernels":"\([^"]*\)".*/\1/p' "$out/gemm.json")
if [ -z "${OPENBLAS_CORETYPE+set}" ] && [ -n "$kernels" ]; then export OPENBLAS_CORETYPE=$kernels; fi
echo "openblas kernels: ${kernels:-none} (OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset})" >> "$out/machine.txt"

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
if [ -n "$device_table" ]; then
  # The device table: the training step of the cpu preset, dls_bench beside PyTorch eager,
  # each lever on its own row: "eager" (LibTorch's optimizer), "+flat-adam" (the graph-safe
  # optimizer over flat gradients, still eager), "+cuda-graphs" (the whole step replayed).
  # PyTorch runs once per shape; the lever rows share its record.
  runs=()
  for precision in fp32 bf16; do
    for batch in ${BATCHES:-64 512}; do
      base="seq2seq-train-cpu-$precision-b$batch"
      cpp="--task seq2seq-train --preset cpu --batch $batch --device $device --precision $precision"
      runs+=("$base-1-eager|$cpp|--impl torchnn --task seq2seq-train $S2S_CPU --batch $batch --device $device --precision $precision --warmup 3")
      runs+=("$base-2-flat-adam|$cpp --graph-safe-adam|same")
      runs+=("$base-3-cuda-graphs|$cpp --cuda-graphs|same")
    done
  done
elif [ -z "${QUICK:-}" ]; then
  runs+=("seq2seq-greedy-dlstudio|--task seq2seq-greedy --preset dlstudio --batch 50|--impl dlstudio --task seq2seq-greedy $S2S_DLS --batch 50")
fi

for entry in "${runs[@]}"; do
  IFS='|' read -r name cpp py <<<"$entry"
  echo "== $name" >&2
  # shellcheck disable=SC2086
  "$bench" $cpp --threads "$threads" --repeats "$repeats" --iters "$iters" > "$out/$name.cpp.json"
  if [ "$py" = same ]; then  # the shape's PyTorch record, measured with its first row
    cp "$out/$python_record" "$out/$name.python.json"
    continue
  fi
  python_record=$name.python.json
  # shellcheck disable=SC2086
  "$python" bench/python/bench_reference.py $py --threads "$threads" --repeats "$repeats" --iters "$iters" \
    > "$out/$name.python.json"
done
"$python" bench/python/side_by_side_table.py "$out" | tee "$out/table.md"
