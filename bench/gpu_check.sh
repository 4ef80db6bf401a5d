#!/usr/bin/env bash
# The GPU checks, for a lent machine with a CUDA PyTorch and nothing else, in parts that each
# fit one remote command (10 minutes at most) with margin:
#   build    unpack the Debian packages that bench/gpu_prepare.sh put in .deps/ (run that
#            first, on the Debian machine) and build against PyTorch's LibTorch (~2-4 min)
#   quick    the device assertion (each trainer's log must say it trains on cuda), training
#            and evaluation on CUDA (fp32, bf16, fp16; two ranks over Gloo; NCCL), the
#            benchmark beside PyTorch eager (bench/python/bench_reference.py --device cuda),
#            then the test suite with the time left (~8 min)
#   lecture  DLStudio's experiment: seq2seq_train --preset dlstudio for 40 epochs on the
#            <= 8-word pairs, checkpoint_eval of its checkpoints, vit_train --preset dlstudio
# quick and lecture build first when build-gpu/ is missing (a fresh machine). Each step has a
# time limit and its own exit status; a failed step does not stop the others, but the part
# exits non-zero. Results go to $OUT (default /tmp/gpu-out): summary.txt (one line per step,
# the --json lines), steps.log (the end of each step's output), ctest.log.
# Usage: OUT=/some/dir bash bench/gpu_check.sh build|quick|lecture [seconds the part may take, default 540]
set -uo pipefail
cd "$(dirname "$0")/.."
part=${1:-}
case "$part" in build|quick|lecture) ;; *) echo "usage: $0 build|quick|lecture [seconds]" >&2; exit 2 ;; esac
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
deadline=$(( $(date +%s) + ${2:-540} ))
failures=0
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
  (( rc == 0 )) || failures=$(( failures + 1 ))
  grep -a '^{' "$W/$name.log" | tail -n 2 | cut -c1-1500 >> "$OUT/summary.txt"
  { echo "=== $name (rc $rc): $*"; tail -n 40 "$W/$name.log" | cut -c1-400; } >> "$OUT/steps.log"
  return $rc
}

# expect_device NAME: the step's log must say that the loop trains on a CUDA device (the
# trainers log "..., device cuda:N"); a run that fell back to the CPU fails the part.
expect_device() {
  if grep -aqE 'device cuda(:[0-9]+)?' "$W/$1.log"; then
    say "$1: trains on $(grep -aoE 'device cuda(:[0-9]+)?' "$W/$1.log" | head -1)"
  else
    say "$1: FAILED: the log does not say it trains on cuda ($(grep -aoE 'device [a-z]+(:[0-9]+)?' "$W/$1.log" | head -1))"
    failures=$(( failures + 1 ))
  fi
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

unpack_packages() {
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

}

build_project() {
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

}

# The prefix is unpacked again on every part (seconds): the programs' fonts and libraries
# live there; the build only when build-gpu/ is missing or the part is "build".
unpack_packages
if [ "$part" = build ] || [ ! -x "$A/seq2seq_train" ]; then build_project; fi
if [ "$part" = build ]; then say "done"; exit $(( failures > 0 )); fi

# --- the data ---------------------------------------------------------------------------
export DLS_DATA_DIR=$PWD/.deps/data
mkdir -p /usr/share/datasets
[ -e /usr/share/datasets/fashion-mnist ] || ln -s "$PWD/.deps/data/fashion-mnist" /usr/share/datasets/fashion-mnist
corpus=$DLS_DATA_DIR/spa-eng/spa.txt
bench=$B/bench/dls_bench

if [ "$part" = quick ]; then
  # --- seq2seq on the sample corpus: one process, precisions, two ranks, NCCL -------------
  # Dropout off, so that one process and two ranks of the same global batches must agree.
  s2s=(--preset cpu --data data/sample_en_es.tsv --validation-pairs 200 --epochs 3 --device cuda --json --dropout 0 --seed 7)
  torchrun2=(torchrun --nproc_per_node 2 --master_port 29517 --no-python)
  step s2s_fp32 90 "$A/seq2seq_train" "${s2s[@]}" --run-dir "$W/s2s_fp32"; expect_device s2s_fp32
  step s2s_bf16 90 "$A/seq2seq_train" "${s2s[@]}" --run-dir "$W/s2s_bf16" --precision bf16; expect_device s2s_bf16
  step s2s_fp16 90 "$A/seq2seq_train" "${s2s[@]}" --run-dir "$W/s2s_fp16" --precision fp16
  step s2s_gloo2 120 "${torchrun2[@]}" "$A/seq2seq_train" "${s2s[@]}" --run-dir "$W/s2s_gloo2" --dist-backend gloo
  # One GPU: NCCL refuses two ranks on it; what matters is that the error is one clear line.
  step s2s_nccl2 90 "${torchrun2[@]}" "$A/seq2seq_train" "${s2s[@]}" --run-dir "$W/s2s_nccl2" --dist-backend nccl ||
    failures=$(( failures - 1 ))
  step lm_fp32 90 "$A/lm_train" --data data/sample_en_es.tsv --epochs 1 --device cuda --json --run-dir "$W/lm"
  expect_device lm_fp32
  step eval_greedy 60 "$A/checkpoint_eval" "$W/s2s_fp32" --device cuda --json
  step eval_beam 60 "$A/checkpoint_eval" "$W/s2s_fp32" --device cuda --beam 4 --json

  # --- the ViT on Fashion-MNIST ----------------------------------------------------------
  vit=(--dataset fashion-mnist --device cuda --epochs 1 --json --seed 7)
  step vit_fp32 120 "$A/vit_train" "${vit[@]}" --run-dir "$W/vit_fp32"; expect_device vit_fp32
  step vit_fp16 120 "$A/vit_train" "${vit[@]}" --run-dir "$W/vit_fp16" --precision fp16

  # --- speed: the training step beside PyTorch eager, and the trainer end to end ---------
  step bench_gemm 60 "$bench" --task gemm --device cuda --gemm-size 8192
  S2S_CPU=(--variant FG --embedding-size 256 --heads 4 --encoders 3 --decoders 3 --max-len 10 --ffn-mult 4 --dropout 0.1)
  for precision in fp32 bf16; do
    for batch in 64 512; do
      step "dls_${precision}_b$batch" 60 "$bench" --task seq2seq-train --preset cpu --device cuda \
           --precision "$precision" --batch "$batch" --iters 20
      step "torch_${precision}_b$batch" 60 python3 bench/python/bench_reference.py --impl torchnn \
           --task seq2seq-train "${S2S_CPU[@]}" --batch "$batch" --device cuda --precision "$precision" \
           --iters 20 --warmup 3 --threads "$(nproc)"
      dls=$(grep -a '^{' "$W/dls_${precision}_b$batch.log" | tail -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["median"])' 2>/dev/null)
      ref=$(grep -a '^{' "$W/torch_${precision}_b$batch.log" | tail -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["median"])' 2>/dev/null)
      say "$(printf 'side by side: batch %s %s: dls_bench %s, PyTorch eager %s pairs/s, ratio %s' "$batch" "$precision" \
             "${dls:-?}" "${ref:-?}" "$(python3 -c "print(f'{$dls / $ref:.2f}')" 2>/dev/null || echo '?')")"
    done
  done
  if [ -f "$corpus" ]; then
    step real_corpus_bf16 150 "$A/seq2seq_train" --preset cpu --data "$corpus" --device cuda \
         --precision bf16 --length-buckets --time-limit 60 --run-dir "$W/real" --json
    expect_device real_corpus_bf16
  fi

  # --- the test suite, with what time is left --------------------------------------------
  left=$(( deadline - $(date +%s) - 10 ))
  if (( left > 30 )); then
    (cd "$B" && timeout -k 5 "$left" ctest -j "$(nproc)" --timeout 120 --output-on-failure) > "$W/ctest.log" 2>&1
    say "ctest: rc $? ($(grep -a -E 'tests passed|tests failed' "$W/ctest.log" | tail -1))"
    { grep -a -E '^\s*[0-9]+ - |tests passed|tests failed' "$W/ctest.log"; echo; grep -a -B2 -A25 -E '\*\*\*Failed|\*\*\*Exception|Timeout' "$W/ctest.log" | cut -c1-300 | head -n 400; } > "$OUT/ctest.log"
  else
    say "ctest: skipped ($left s left)"
  fi
fi

if [ "$part" = lecture ]; then
  # --- DLStudio's experiment: FG, M 256, 4 + 4 blocks, 4 heads, batch 50, L 10, 40 epochs ---
  if [ -f "$corpus" ]; then
    step lecture_train 420 "$A/seq2seq_train" --preset dlstudio --data "$corpus" --max-words 8 --device cuda \
         --checkpoint-every 5 --run-dir "$W/lecture" --json
    expect_device lecture_train
    step lecture_eval 90 "$A/checkpoint_eval" "$W/lecture" --device cuda --samples 20 --json
    cp "$W/lecture/metrics.csv" "$OUT/lecture_metrics.csv" 2>/dev/null
  else
    say "lecture: no $corpus (bench/gpu_prepare.sh copies it into .deps/data)"
    failures=$(( failures + 1 ))
  fi
  step lecture_vit 120 "$A/vit_train" --preset dlstudio --dataset fashion-mnist --device cuda --epochs 2 \
       --run-dir "$W/lecture_vit" --json
  expect_device lecture_vit
fi
say "done: $failures failed"
exit $(( failures > 0 ))
