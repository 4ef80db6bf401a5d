#!/usr/bin/env bash
# Every GPU check in one pass, for a lent machine with a CUDA PyTorch and nothing else:
# builds the project against PyTorch's LibTorch with the Debian packages that
# bench/gpu_prepare.sh put in .deps/ (run that first, on the Debian machine), then trains,
# evaluates and benchmarks on CUDA (fp32, bf16, fp16; two ranks over Gloo; NCCL), then runs
# the test suite. Each step has a time limit and its own exit status; a failed step does not
# stop the others. Results go to $OUT (default /tmp/gpu-out): summary.txt (one line per
# step, the --json lines), steps.log (the end of each step's output), ctest.log.
# Usage: OUT=/some/dir bash bench/gpu_check.sh [seconds the whole pass may take, default 540] [build]
#        ("build": stop once build-gpu/ is built, to run something else in it)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
deadline=$(( $(date +%s) + ${1:-540} ))
t0=$(date +%s)
P=/tmp/dls-prefix                 # the Debian packages, unpacked
L=$P/usr/lib/x86_64-linux-gnu
B=build-gpu
A=$B/apps
W=/tmp/gpu-runs                   # run directories
rm -rf "$W" && mkdir -p "$W"

say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$OUT/summary.txt"; }
# step NAME SECONDS COMMAND...: runs COMMAND for at most SECONDS (less if the pass's deadline
# comes first); its output's end goes to steps.log, its --json line to summary.txt.
step() {
  local name=$1 limit=$2
  shift 2
  local left=$(( deadline - $(date +%s) ))
  (( left < limit )) && limit=$left
  if (( limit < 5 )); then say "$name: skipped (the pass's time is up)"; return 1; fi
  local start=$(date +%s)
  timeout -k 5 "$limit" "$@" > "$W/$name.log" 2>&1
  local rc=$?
  say "$name: rc $rc in $(( $(date +%s) - start )) s"
  grep -a '^{' "$W/$name.log" | tail -n 2 | cut -c1-1500 >> "$OUT/summary.txt"
  { echo "=== $name (rc $rc): $*"; tail -n 40 "$W/$name.log" | cut -c1-400; } >> "$OUT/steps.log"
  return $rc
}

# --- the machine ------------------------------------------------------------------------
{
  nvidia-smi -L; nproc; gcc --version | head -1; cmake --version | head -1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
  grep -m1 'model name' /proc/cpuinfo
  for lib in libcairo.so.2 libfontconfig.so.1 libz.so.1 libexpat.so.1; do
    printf '%s on the machine: %s\n' "$lib" "$(ldconfig -p | grep -c "$lib")"
  done
  echo "pkg-config: $(command -v pkg-config || echo none); ninja: $(command -v ninja || echo none)"
} > "$OUT/steps.log" 2>&1
cat "$OUT/steps.log" >> "$OUT/summary.txt"

# --- the Debian packages into a prefix ---------------------------------------------------
rm -rf "$P"
for deb in .deps/debs/*.deb; do dpkg -x "$deb" "$P"; done
cp -a "$P"/lib/x86_64-linux-gnu/. "$L"/            # Debian's zlib and expat live in /lib
# Links to absolute paths (libz.so -> /lib/...) would lead into this machine's own /lib.
find "$P" -type l -lname '/*' | while read -r link; do ln -sfn "$L/$(basename "$(readlink "$link")")" "$link"; done
# pkg-config files without the dependencies' own (whose -dev packages are not here); the
# libraries' dependencies are found through -rpath-link at link time and the rpath at run time.
write_pc() { printf 'Name: %s\nDescription: %s\nVersion: 99\nCflags: -I%s %s\nLibs: -L%s %s\n' \
                    "$1" "$1" "$P/usr/include" "$2" "$L" "$3" > "$L/pkgconfig/$1.pc"; }
write_pc cairo "-I$P/usr/include/cairo" "-lcairo"
write_pc libutf8proc "" "-lutf8proc"
write_pc sentencepiece "" "-lsentencepiece -lsentencepiece_train"
pkgconfig=$(command -v pkg-config || true)
if [ -z "$pkgconfig" ]; then
  pkgconfig=$P/pkg-config
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$L" "$P/usr/bin/pkgconf" > "$pkgconfig"
  chmod +x "$pkgconfig"
fi
export PKG_CONFIG_LIBDIR=$L/pkgconfig
# The font the pictures are drawn with, for Debian's fontconfig.
mkdir -p /tmp/fontconfig-cache
printf '<?xml version="1.0"?>\n<fontconfig><dir>%s</dir><cachedir>/tmp/fontconfig-cache</cachedir></fontconfig>\n' \
       "$P/usr/share/fonts" > "$P/fonts.conf"
export FONTCONFIG_FILE=$P/fonts.conf
say "packages unpacked into $P"

# --- build ------------------------------------------------------------------------------
torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
link="-Wl,-rpath-link,$L -Wl,--disable-new-dtags -Wl,-rpath,$L"
# NCCL's header and library: PyTorch's wheel nvidia-nccl, somewhere below site-packages/nvidia.
nccl_include=$(python3 -c 'import glob, os, site
print(next((os.path.dirname(h) for d in site.getsitepackages()
            for h in glob.glob(os.path.join(d, "nvidia", "**", "nccl.h"), recursive=True)), ""))')
nccl_library=$(ls "$nccl_include"/../lib/libnccl.so* 2>/dev/null | head -1)
nccl=()
[ -n "$nccl_include" ] && nccl+=(-DDLS_NCCL_INCLUDE_DIR="$nccl_include")
[ -n "$nccl_library" ] && nccl+=(-DDLS_NCCL_LIBRARY="$nccl_library")
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
# -I first: Debian's fmt 9 (which spdlog 1.10 was built with) before PyTorch's bundled fmt.
step configure 120 cmake -S . -B "$B" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DDLS_USE_CCACHE=OFF \
  -DCMAKE_PREFIX_PATH="$torch_prefix;$P/usr" -DPKG_CONFIG_EXECUTABLE="$pkgconfig" "${nccl[@]}" \
  -Dspdlog_DIR="$L/cmake/spdlog" -Dfmt_DIR="$L/cmake/fmt" -DGTest_DIR="$L/cmake/GTest" \
  -DCMAKE_CXX_FLAGS="-I$P/usr/include" \
  -DCMAKE_EXE_LINKER_FLAGS="$link" -DCMAKE_SHARED_LINKER_FLAGS="$link" -DCMAKE_MODULE_LINKER_FLAGS="$link" &&
step build 420 cmake --build "$B" -j "$(nproc)" || { say "no build: stopping"; exit 1; }
grep -E "dls: (LibTorch|Gloo|multi-process)" "$W/configure.log" | head -5 >> "$OUT/summary.txt"
[ "${2:-}" = build ] && exit 0

# --- the data ---------------------------------------------------------------------------
export DLS_DATA_DIR=$PWD/.deps/data
mkdir -p /usr/share/datasets
[ -e /usr/share/datasets/fashion-mnist ] || ln -s "$PWD/.deps/data/fashion-mnist" /usr/share/datasets/fashion-mnist

# --- seq2seq on the sample corpus: one process, precisions, two ranks, NCCL ---------------
# Dropout off, so that one process and two ranks of the same global batches must agree.
s2s=(--preset cpu --data data/sample_en_es.tsv --validation-pairs 200 --epochs 3 --device cuda --json --dropout 0 --seed 7)
torchrun2=(torchrun --nproc_per_node 2 --master_port 29517 --no-python)
step s2s_fp32 90 "$A/seq2seq_train" "${s2s[@]}" --run-dir "$W/s2s_fp32"
step s2s_bf16 90 "$A/seq2seq_train" "${s2s[@]}" --run-dir "$W/s2s_bf16" --precision bf16
step s2s_fp16 90 "$A/seq2seq_train" "${s2s[@]}" --run-dir "$W/s2s_fp16" --precision fp16
step s2s_gloo2 120 "${torchrun2[@]}" "$A/seq2seq_train" "${s2s[@]}" --run-dir "$W/s2s_gloo2" --dist-backend gloo
# One GPU: NCCL refuses two ranks on it; what matters is that the error is one clear line.
step s2s_nccl2 90 "${torchrun2[@]}" "$A/seq2seq_train" "${s2s[@]}" --run-dir "$W/s2s_nccl2" --dist-backend nccl
step eval_greedy 60 "$A/checkpoint_eval" "$W/s2s_fp32" --device cuda --json
step eval_beam 60 "$A/checkpoint_eval" "$W/s2s_fp32" --device cuda --beam 4 --json

# --- the ViT on Fashion-MNIST ------------------------------------------------------------
vit=(--dataset fashion-mnist --device cuda --epochs 1 --json --seed 7)
step vit_fp32 120 "$A/vit_train" "${vit[@]}" --run-dir "$W/vit_fp32"
step vit_fp16 120 "$A/vit_train" "${vit[@]}" --run-dir "$W/vit_fp16" --precision fp16
step vit_gloo2 150 "${torchrun2[@]}" "$A/vit_train" "${vit[@]}" --run-dir "$W/vit_gloo2" --dist-backend gloo

# --- speed: the benchmark, and a minute of the cpu preset on the real corpus -------------
bench=$B/bench/dls_bench
step bench_gemm 60 "$bench" --task gemm --device cuda --gemm-size 8192
step bench_cpu_bf16 90 "$bench" --task seq2seq-train --preset cpu --device cuda --precision bf16 --iters 20
step bench_dlstudio_fp32 120 "$bench" --task seq2seq-train --preset dlstudio --device cuda --iters 10
step bench_dlstudio_bf16 120 "$bench" --task seq2seq-train --preset dlstudio --device cuda --precision bf16 --iters 10
if [ -f "$DLS_DATA_DIR/spa-eng/spa.txt" ]; then
  step real_corpus_bf16 150 "$A/seq2seq_train" --preset cpu --data "$DLS_DATA_DIR/spa-eng/spa.txt" --device cuda \
       --precision bf16 --length-buckets --time-limit 60 --run-dir "$W/real" --json
fi

# --- the test suite, with what time is left ----------------------------------------------
left=$(( deadline - $(date +%s) - 10 ))
if (( left > 30 )); then
  (cd "$B" && timeout -k 5 "$left" ctest -j "$(nproc)" --timeout 120 --output-on-failure) > "$W/ctest.log" 2>&1
  say "ctest: rc $? ($(grep -a -E 'tests passed|tests failed' "$W/ctest.log" | tail -1))"
  { grep -a -E '^\s*[0-9]+ - |tests passed|tests failed' "$W/ctest.log"; echo; grep -a -B2 -A25 -E '\*\*\*Failed|\*\*\*Exception|Timeout' "$W/ctest.log" | cut -c1-300 | head -n 400; } > "$OUT/ctest.log"
else
  say "ctest: skipped ($left s left)"
fi
say "done"
