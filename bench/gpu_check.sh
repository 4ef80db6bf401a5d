#!/usr/bin/env bash
# The GPU checks, for a lent machine with a CUDA PyTorch and nothing else, in parts that each
# fit one remote command (10 minutes at most) with margin (docs/gpu.md: how a session with 15
# minutes of device time runs them):
#   build    unpack the Debian packages that bench/gpu_prepare.sh put in .deps/ (run that
#            first, on the Debian machine) and build against PyTorch's LibTorch (~2-4 min)
#   tests    the GPU's own tests of the step, the optimizer and precision (dls_tests, filtered:
#            the *OnCuda tests run there, skipped elsewhere), ~1 min: cuda_tests.log
#   quick    the device assertion (each trainer's log must say it trains on cuda, else the
#            part fails), training and evaluation on CUDA (fp32, bf16, fp16; two ranks; NCCL),
#            the side-by-side table of the training step, dls_bench beside PyTorch eager
#            (bench/side_by_side.sh with DEVICE=cuda: batch 64 and 512, fp32 and bf16, into
#            side_by_side.md), then the test suite with the time left (~8 min)
#   anchors  issue 50's comparison: dls_bench's captured step of the cpu preset (batch 64 and
#            512, fp32 and bf16) and the PyTorch anchor (.deps/anchors/pytorch_step.py, six
#            variants, one process each) in one command, then bench/python/anchor_table.py's
#            table (anchor_table.md: dls, the best PyTorch variant, the ratio, the targets);
#            each lever on its own (the same cells with --attention plain, ANCHOR_LEVERS=0:
#            none); the kernels by GPU time of the bf16 cells and the lecture model
#            (dls_bench --gpu-profile, kernel_profiles.txt; ANCHOR_KERNELS=0: none); the eager
#            step's operator count on the GPU; the trainer's wall-clock pairs/s beside
#            dls_bench's at the same shapes; the lecture model's step rates (~8 min)
#   lecture  DLStudio's experiment: seq2seq_train --preset dlstudio for LECTURE_EPOCHS (40)
#            epochs on the <= 8-word pairs, checkpoint_eval of every checkpoint (BLEU per
#            checkpoint, DLStudio's 20-sentence printout), vit_train --preset dlstudio's
#            seconds per epoch. Its run directory (LECTURE_DIR, default /tmp/gpu-lecture)
#            survives the part: a second `lecture` on the same warm machine resumes the run.
# quick and lecture build first when the build is missing (a fresh machine). Each step has a
# time limit and its own exit status; a failed step does not stop the others, but the part
# exits non-zero. Results go to $OUT (default /tmp/gpu-out): summary.txt (one line per step,
# the --json lines), steps.log (the end of each step's output), ctest.log, side_by_side.md,
# lecture_bleu.csv, lecture_samples.txt, lecture_vit.md.
# Usage: OUT=/some/dir bash bench/gpu_check.sh build|quick|lecture [seconds the part may take, default 540]
# Knobs (environment):
#   GPU_CHECK_DEVICE  the device every step trains on and the assertion expects (cuda; cpu
#                     only for a smoke test of this script on a machine without a GPU)
#   GPU_CHECK_BUILD   the build folder (build-gpu); an existing one is used as it is, and
#                     without .deps/debs the system's packages are used (the CPU machine)
#   SMOKE=1           tiny runs everywhere (a few steps, batch 8 in the table, no suite): the
#                     script's own test, e.g. on the CPU machine
#                     SMOKE=1 GPU_CHECK_DEVICE=cpu GPU_CHECK_BUILD=build bash bench/gpu_check.sh quick
#   LECTURE_EPOCHS, LECTURE_VIT_EPOCHS (40, 2), LECTURE_FLAGS (more seq2seq_train flags),
#   LECTURE_NEW_FLAGS (flags for a new run only: what a resume may not change),
#   LECTURE_DIR (/tmp/gpu-lecture)
#   ANCHOR_BATCHES (64 512), ANCHOR_ITERS (30), ANCHOR_BUDGET (the anchor's seconds, 330),
#   ANCHOR_FLAGS (more pytorch_step.py flags), ANCHOR_LECTURE=0 (no lecture-model rates), ANCHOR_LEVERS=0 (no lever rows), ANCHOR_KERNELS=0 (no kernel
#   profiles),
#   PYTHON (the python with PyTorch, default python3)
set -uo pipefail
cd "$(dirname "$0")/.."
part=${1:-}
case "$part" in build|tests|quick|graphs|anchors|lecture) ;; *) echo "usage: $0 build|tests|quick|graphs|anchors|lecture [seconds]" >&2; exit 2 ;; esac
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
deadline=$(( $(date +%s) + ${2:-540} ))
failures=0
t0=$(date +%s)
P=/tmp/dls-prefix                 # the Debian packages, unpacked
L=$P/usr/lib/x86_64-linux-gnu
B=${GPU_CHECK_BUILD:-build-gpu}
A=$B/apps
W=/tmp/gpu-runs                   # run directories
dev=${GPU_CHECK_DEVICE:-cuda}
smoke=${SMOKE:-}
rm -rf "$W" && mkdir -p "$W"

say() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$OUT/summary.txt"; }
# step NAME SECONDS COMMAND...: runs COMMAND for at most SECONDS (less if the pass's deadline
# comes first; then SIGTERM, and SIGKILL $grace seconds later, default 5); its output's end
# goes to steps.log, its --json line to summary.txt.
step() {
  local name=$1 limit=$2
  shift 2
  local left=$(( deadline - $(date +%s) ))
  (( left < limit )) && limit=$left
  if (( limit < 5 )); then say "$name: skipped (the pass's time is up)"; return 1; fi
  local start=$(date +%s)
  timeout -k "${grace:-5}" "$limit" "$@" > "$W/$name.log" 2>&1
  local rc=$?
  say "$name: rc $rc in $(( $(date +%s) - start )) s"
  (( rc == 0 )) || failures=$(( failures + 1 ))
  grep -a '^{' "$W/$name.log" | tail -n 2 | cut -c1-1500 >> "$OUT/summary.txt"
  { echo "=== $name (rc $rc): $*"; tail -n 40 "$W/$name.log" | cut -c1-400; } >> "$OUT/steps.log"
  return $rc
}

# expect_device NAME: the step's log must say that the loop trains on $dev, a CUDA device
# (the trainers log "..., device cuda:N"); a run that fell back to the CPU fails the part.
expect_device() {
  if grep -aqE "device $dev(:[0-9]+)?" "$W/$1.log"; then
    say "$1: trains on $(grep -aoE "device $dev(:[0-9]+)?" "$W/$1.log" | head -1)"
  else
    say "$1: FAILED: the log does not say it trains on $dev ($(grep -aoE 'device [a-z]+(:[0-9]+)?' "$W/$1.log" | head -1))"
    failures=$(( failures + 1 ))
  fi
}

# --- the machine ------------------------------------------------------------------------
{
  nvidia-smi -L 2>&1 | head -4; nproc; gcc --version | head -1; cmake --version | head -1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
  grep -m1 'model name' /proc/cpuinfo
  for lib in libcairo.so.2 libfontconfig.so.1 libz.so.1 libexpat.so.1; do
    printf '%s on the machine: %s\n' "$lib" "$(ldconfig -p | grep -c "$lib")"
  done
  echo "pkg-config: $(command -v pkg-config || echo none); ninja: $(command -v ninja || echo none)"
} > "$OUT/steps.log" 2>&1
cat "$OUT/steps.log" >> "$OUT/summary.txt"

# bench/side_by_side.sh's device table within $1 seconds (tiny shapes under SMOKE), into
# side_by_side.md and the summary.
side_by_side_table() {
  local table=(env DEVICE="$dev" RESULTS="$W/side_by_side" bash bench/side_by_side.sh "$B")
  [ -n "$smoke" ] && table=(env DEVICE="$dev" DEVICE_TABLE=1 BATCHES=8 ITERS=1 REPEATS=1 GEMM_SIZE=256
                              RESULTS="$W/side_by_side" bash bench/side_by_side.sh "$B")
  step side_by_side "$1" "${table[@]}"
  cp "$W/side_by_side/table.md" "$OUT/side_by_side.md" 2>/dev/null && cat "$OUT/side_by_side.md" >> "$OUT/summary.txt"
}

unpack_packages() {
# --- the Debian packages into a prefix ---------------------------------------------------
if ! ls .deps/debs/*.deb > /dev/null 2>&1; then
  say "no .deps/debs: the system's packages (bench/gpu_prepare.sh fills it for a GPU machine)"
  return 0
fi
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
write_pc libjpeg "-I$P/usr/include/x86_64-linux-gnu" "-ljpeg"   # jconfig.h is in the multiarch folder
# translate_server's HTTP library, with the features Debian built it with (its class layouts
# depend on them) and OpenSSL's headers, whose configuration lives in the multiarch folder.
write_pc cpp-httplib "-I$P/usr/include/x86_64-linux-gnu -DCPPHTTPLIB_OPENSSL_SUPPORT -DCPPHTTPLIB_ZLIB_SUPPORT -DCPPHTTPLIB_BROTLI_SUPPORT" \
         "-lcpp-httplib"
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
step configure 120 cmake -S . -B "$B" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DDLS_USE_CCACHE=OFF -DDLS_CUDA_GRAPHS=ON \
  -DCMAKE_PREFIX_PATH="$torch_prefix;$P/usr" -DPKG_CONFIG_EXECUTABLE="$pkgconfig" "${nccl[@]}" \
  -Dspdlog_DIR="$L/cmake/spdlog" -Dfmt_DIR="$L/cmake/fmt" -DGTest_DIR="$L/cmake/GTest" \
  -DCMAKE_CXX_FLAGS="-I$P/usr/include" \
  -DCMAKE_EXE_LINKER_FLAGS="$link" -DCMAKE_SHARED_LINKER_FLAGS="$link" -DCMAKE_MODULE_LINKER_FLAGS="$link" &&
[ -n "${GPU_CHECK_CONFIGURE_ONLY:-}" ] && { say "configured (GPU_CHECK_CONFIGURE_ONLY)"; exit $(( failures > 0 )); }
# GPU_CHECK_TARGETS: only these (a shorter build for a short lease), else everything.
read -r -a targets <<< "${GPU_CHECK_TARGETS:-}"
targets=("${targets[@]/#/--target=}")
if ! step build 420 cmake --build "$B" -j "$(nproc)" "${targets[@]}"; then
  # The one file that records CUDA graphs is the one built against CUDA's own API: without
  # it the rest still builds (the step then runs eagerly), and its errors are kept.
  grep -a -B2 -A12 'device_graph_cuda' "$W/build.log" | head -n 80 > "$OUT/device_graph_build_errors.txt"
  step configure_no_graphs 120 cmake "$B" -DDLS_CUDA_GRAPHS=OFF &&
    step build_no_graphs 420 cmake --build "$B" -j "$(nproc)" "${targets[@]}" || { say "no build: stopping"; exit 1; }
  say "built WITHOUT CUDA graphs (device_graph_build_errors.txt)"
fi
grep -E "dls: (LibTorch|Gloo|multi-process)" "$W/configure.log" | head -5 >> "$OUT/summary.txt"

}

# The prefix is unpacked again on every part (seconds): the programs' fonts and libraries
# live there; the build only when build-gpu/ is missing or the part is "build".
unpack_packages
if [ "$part" = build ] || [ ! -x "$A/seq2seq_train" ]; then
  [ -n "${GPU_CHECK_BUILD:-}" ] && [ -x "$A/seq2seq_train" ] || build_project
fi
if [ "$part" = build ]; then say "done"; exit $(( failures > 0 )); fi

# --- the data ---------------------------------------------------------------------------
[ -d .deps/data ] && export DLS_DATA_DIR=$PWD/.deps/data
export DLS_DATA_DIR=${DLS_DATA_DIR:-$PWD/.deps/data}
mkdir -p /usr/share/datasets 2>/dev/null
[ -e /usr/share/datasets/fashion-mnist ] || ln -s "$PWD/.deps/data/fashion-mnist" /usr/share/datasets/fashion-mnist
corpus=$DLS_DATA_DIR/spa-eng/spa.txt
bench=$B/bench/dls_bench

if [ "$part" = quick ]; then
  # --- seq2seq on the sample corpus: one process, precisions, two ranks, NCCL -------------
  # Dropout off, so that one process and two ranks of the same global batches must agree.
  short=()
  [ -n "$smoke" ] && short=(--max-iters 4 --bleu-sentences 10)
  s2s=(--preset cpu --data data/sample_en_es.tsv --validation-pairs "${smoke:+40}${smoke:-200}" --epochs 3 --device "$dev" --json --dropout 0
       --seed 7 "${short[@]}")
  torchrun2=(torchrun --nproc_per_node 2 --master_port 29517 --no-python)
  step s2s_fp32 90 "$A/seq2seq_train" "${s2s[@]}" --run-dir "$W/s2s_fp32"; expect_device s2s_fp32
  step s2s_bf16 90 "$A/seq2seq_train" "${s2s[@]}" --run-dir "$W/s2s_bf16" --precision bf16; expect_device s2s_bf16
  step s2s_static 90 "$A/seq2seq_train" "${s2s[@]}" --run-dir "$W/s2s_static" --length-buckets --static-shapes
  expect_device s2s_static
  if [ "$dev" = cuda ]; then
    step s2s_fp16 90 "$A/seq2seq_train" "${s2s[@]}" --run-dir "$W/s2s_fp16" --precision fp16
    step s2s_gloo2 120 "${torchrun2[@]}" "$A/seq2seq_train" "${s2s[@]}" --run-dir "$W/s2s_gloo2" --dist-backend gloo
    # One GPU: NCCL refuses two ranks on it; what matters is that the error is one clear line.
    step s2s_nccl2 90 "${torchrun2[@]}" "$A/seq2seq_train" "${s2s[@]}" --run-dir "$W/s2s_nccl2" --dist-backend nccl ||
      failures=$(( failures - 1 ))
  fi
  step lm_fp32 90 "$A/lm_train" --data data/sample_en_es.tsv --epochs 1 --device "$dev" --json --run-dir "$W/lm" \
       ${smoke:+--max-iters 4}
  expect_device lm_fp32
  step eval_greedy 60 "$A/checkpoint_eval" "$W/s2s_fp32" --device "$dev" --json
  step eval_beam 60 "$A/checkpoint_eval" "$W/s2s_fp32" --device "$dev" --beam 4 --json ${smoke:+--limit 10}

  # --- the ViT on Fashion-MNIST ----------------------------------------------------------
  vit=(--dataset fashion-mnist --device "$dev" --epochs 1 --json --seed 7 ${smoke:+--max-iters 4})
  step vit_fp32 120 "$A/vit_train" "${vit[@]}" --run-dir "$W/vit_fp32"; expect_device vit_fp32
  [ "$dev" = cuda ] && step vit_fp16 120 "$A/vit_train" "${vit[@]}" --run-dir "$W/vit_fp16" --precision fp16

  # --- speed: the training step beside PyTorch eager, and the trainer end to end ---------
  # bench/side_by_side.sh's device table: dls_bench and bench_reference.py --impl torchnn at
  # batch 64 and 512, fp32 and bf16, the ratio column dls_bench / PyTorch eager.
  side_by_side_table 300
  if [ -f "$corpus" ]; then
    step real_corpus_bf16 150 "$A/seq2seq_train" --preset cpu --data "$corpus" --device "$dev" \
         --precision bf16 --length-buckets --time-limit "${smoke:+20}${smoke:-60}" --run-dir "$W/real" --json \
         ${smoke:+--validation-pairs 40 --bleu-sentences 10 --max-iters 4}
    expect_device real_corpus_bf16
  fi

  # --- the test suite, with what time is left --------------------------------------------
  left=$(( deadline - $(date +%s) - 10 ))
  if [ -n "$smoke" ]; then
    say "ctest: skipped (SMOKE)"
  elif (( left > 30 )); then
    # A ctest entry is a whole GoogleTest suite (cmake/DlsTestSuites.cmake): Reliability's
    # took 141 s on a 2-core CPU, so an entry gets more than a single test did.
    (cd "$B" && timeout -k 5 "$left" ctest -j "$(nproc)" --timeout 600 --output-on-failure) > "$W/ctest.log" 2>&1
    say "ctest: rc $? ($(grep -a -E 'tests passed|tests failed' "$W/ctest.log" | tail -1))"
    { grep -a -E '^\s*[0-9]+ - |tests passed|tests failed' "$W/ctest.log"; echo; grep -a -B2 -A25 -E '\*\*\*Failed|\*\*\*Exception|Timeout' "$W/ctest.log" | cut -c1-300 | head -n 400; } > "$OUT/ctest.log"
  else
    say "ctest: skipped ($left s left)"
  fi
fi

if [ "$part" = tests ]; then
  # The CUDA tests print their largest differences (bf16 replay, dropout runs): kept with the results.
  filter='CapturedStep.*:GraphSafeAdam.*:MixedPrecision.*:StepPlan.*:FusedAdam.*:FusedAttention.*:ChooseDevice.*:PlaceTraining.*'
  (cd "$B/tests" && timeout -k 5 "$(( deadline - $(date +%s) - 5 ))" ./dls_tests --gtest_filter="$filter") \
    > "$W/cuda_tests.log" 2>&1
  rc=$?
  grep -a -E '^\[ +(OK|FAILED|SKIPPED|PASSED) +\]|difference|mean loss|Failure|Expected|Which is' "$W/cuda_tests.log" |
    cut -c1-300 > "$OUT/cuda_tests.log"
  say "cuda tests: rc $rc ($(grep -a -cE '^\[ +OK +\]' "$W/cuda_tests.log") passed, $(grep -a -cE '^\[ +FAILED +\]' "$W/cuda_tests.log") failed lines, $(grep -a -cE '^\[ +SKIPPED +\]' "$W/cuda_tests.log") skipped lines)"
  (( rc == 0 )) || failures=$(( failures + 1 ))
fi

if [ "$part" = graphs ]; then
  # --- the captured step: correctness, then speed ------------------------------------------
  # The GPU's own tests of the step (the replay against the eager program and the plain loop)
  # and of the device decisions.
  (cd "$B" && timeout -k 5 120 ctest --timeout 115 --output-on-failure \
     -R 'CapturedStep|GraphSafeAdam|StepPlan|ChooseDevice|PlaceTraining|StaticShape|FusedAdam|GradientBuffer') \
     > "$W/ctest_graphs.log" 2>&1
  say "ctest (the step's tests): rc $? ($(grep -a -E 'tests passed|tests failed' "$W/ctest_graphs.log" | tail -1))"
  grep -a -E '^\s*[0-9]+/[0-9]+ Test|tests passed|tests failed|Skipped|SKIPPED|Failure|Expected|Which is|max difference' \
    "$W/ctest_graphs.log" | cut -c1-300 | head -n 80 > "$OUT/ctest_graphs.log"
  # The same run eager and replayed (dropout off): equal losses; each log names the device.
  s2s=(--preset cpu --data data/sample_en_es.tsv --validation-pairs 200 --epochs 2 --device "$dev" --json --dropout 0
       --seed 7 --static-shapes --length-buckets ${smoke:+--max-iters 4 --bleu-sentences 10})
  step s2s_eager 90 "$A/seq2seq_train" "${s2s[@]}" --run-dir "$W/s2s_eager" --cuda-graphs off; expect_device s2s_eager
  step s2s_graphs 90 "$A/seq2seq_train" "${s2s[@]}" --run-dir "$W/s2s_graphs"; expect_device s2s_graphs
  grep -a -E 'training step:|no CUDA graphs|CUDA graphs:' "$W/s2s_graphs.log" | head -3 | cut -c1-300 >> "$OUT/summary.txt"
  /usr/bin/env python3 - "$W/s2s_eager.log" "$W/s2s_graphs.log" >> "$OUT/summary.txt" 2>&1 <<'PY'
import json, sys
def last_json(path):
    lines = [l for l in open(path, errors="replace") if l.startswith("{")]
    return json.loads(lines[-1]) if lines else {}
a, b = (last_json(p) for p in sys.argv[1:3])
for key in ("final_loss", "val_loss", "val_bleu", "pairs_per_s"):
    print(f"eager vs graphs {key}: {a.get(key)} {b.get(key)}")
fa, fb = a.get("final_loss"), b.get("final_loss")
ok = fa is not None and fb is not None and abs(fa - fb) <= 1e-3 * max(1.0, abs(fa))
print("eager vs graphs: " + ("SAME training loss" if ok else "DIFFERENT training loss"))
sys.exit(0 if ok else 1)
PY
  (( $? == 0 )) || failures=$(( failures + 1 ))
  # The side-by-side table: PyTorch eager, dls eager, + flat Adam, + CUDA graphs.
  side_by_side_table 240
  # The trainer end to end on the real corpus (its pairs/s against dls_bench's), bf16.
  if [ -f "$corpus" ]; then
    real=(--time-limit 45 --bleu-sentences 500)
    [ -n "$smoke" ] && real=(--time-limit 20 --validation-pairs 40 --bleu-sentences 10 --max-iters 4)
    step real_corpus_graphs 100 "$A/seq2seq_train" --preset cpu --data "$corpus" --device "$dev" \
         --precision bf16 --length-buckets --run-dir "$W/real" --json "${real[@]}"
    expect_device real_corpus_graphs
    grep -a -E 'training step:|no CUDA graphs|epoch [0-9]+/|done \(' "$W/real_corpus_graphs.log" | tail -n 6 |
      cut -c1-300 >> "$OUT/summary.txt"
    # Every epoch's checkpoint must leave the replayed graphs training the same weights: a
    # checkpoint that moved the model off the GPU once sent the loss to 1e19 in epoch 2. The
    # epochs' rows of metrics.csv: the training loss finite and falling, the BLEU rising (a
    # smoke run has one epoch: nothing to compare).
    if [ -z "$smoke" ]; then
      /usr/bin/env python3 - "$W/real/metrics.csv" >> "$OUT/summary.txt" 2>&1 <<'PY'
import csv, math, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["kind"] == "epoch"]
loss = [float(r["loss"]) for r in rows]
bleu = [float(r["val_bleu"]) for r in rows if r["val_bleu"]]
print("real corpus epochs: loss " + " ".join(f"{x:.3f}" for x in loss) + "; BLEU " + " ".join(f"{x:.3f}" for x in bleu))
ok = len(loss) >= 2 and all(math.isfinite(x) and x < 10 for x in loss) and loss[-1] < loss[0] and bleu[-1] >= bleu[0]
print("real corpus across checkpoints: " + ("training goes on" if ok else "BROKEN after a checkpoint (or fewer than 2 epochs)"))
sys.exit(0 if ok else 1)
PY
      (( $? == 0 )) || failures=$(( failures + 1 ))
    fi
    # The lecture's model (--preset dlstudio, <= 8 words) for a few thousand steps: its step
    # rate, for the 40 epochs' time.
    if [ -n "${LECTURE_PROBE_ITERS:-}" ]; then
      step lecture_probe 120 "$A/seq2seq_train" --preset dlstudio --data "$corpus" --max-words 8 --device "$dev" \
           --max-iters "$LECTURE_PROBE_ITERS" --run-dir "$W/lecture_probe" --json --log-every 500
      expect_device lecture_probe
      grep -a -E 'training step:|no CUDA graphs|CUDA graphs:|epoch [0-9]+/|done \(' "$W/lecture_probe.log" |
        tail -n 8 | cut -c1-300 >> "$OUT/summary.txt"
    fi
  fi
fi

if [ "$part" = anchors ]; then
  # --- issue 50: the cpu preset's step, dls_bench beside PyTorch at its best, one run ------
  # dls_bench as the anchor times its variants: 5 warm-up steps (the recording), 3 repeats of
  # 30 steps, medians; a wait for the GPU at each repeat's end (and, beside it, after every step).
  dls_logs=()
  batches=${ANCHOR_BATCHES:-64 512}
  for precision in fp32 bf16; do
    for batch in $batches; do
      step "dls_${precision}_b$batch" 90 "$bench" --task seq2seq-train --preset cpu --batch "$batch" --device "$dev" \
           --precision "$precision" --cuda-graphs --warmup 5 --repeats 3 --iters "${ANCHOR_ITERS:-30}"
      dls_logs+=("$W/dls_${precision}_b$batch.log")
    done
  done
  # The eager step on the GPU (the trainer's optimizer there): the operators it dispatches.
  step dls_eager_ops 90 "$bench" --task seq2seq-train --preset cpu --batch "${batches%% *}" --device "$dev" \
       --graph-safe-adam --warmup 2 --repeats 1 --iters 10
  grep -a 'ATen operators' "$W/dls_eager_ops.log" | head -1 >> "$OUT/summary.txt"
  anchor=.deps/anchors/pytorch_step.py
  [ -f "$anchor" ] || anchor=../shared/anchors/pytorch_step.py
  read -r -a anchor_flags <<< "${ANCHOR_FLAGS:-}"
  budget=${ANCHOR_BUDGET:-330}
  py=${PYTHON:-python3}                               # the CUDA PyTorch's python
  step pytorch_step $(( budget + 40 )) env PYTHONUNBUFFERED=1 "$py" "$anchor" --device "$dev" --budget "$budget" \
       --log-dir "$W/pytorch_logs" --json-out "$W/pytorch.json" "${anchor_flags[@]}"
  grep -av '^\s*$' "$W/pytorch_step.log" | cut -c1-600 > "$OUT/pytorch_step.md"
  # The trainer's wall-clock rate beside dls_bench's at the same shapes (batch 64, L 10: the
  # <= 8-word pairs, every batch padded to L), bf16, two epochs.
  more=()
  if [ -f "$corpus" ]; then
    step trainer_rate 120 "$A/seq2seq_train" --preset cpu --data "$corpus" --max-words 8 --static-shapes \
         --precision bf16 --device "$dev" --epochs 2 --validation-pairs 500 --bleu-sentences 100 \
         --run-dir "$W/trainer_rate" --overwrite --json ${smoke:+--max-iters 4}
    expect_device trainer_rate
    grep -a -E 'training step:|done \(' "$W/trainer_rate.log" | tail -n 3 | cut -c1-300 >> "$OUT/summary.txt"
    more+=(--trainer "$W/trainer_rate.log")
  fi
  # What follows the comparison is optional: a part cut by its limit loses these, not the table's
  # cells, the anchor or the trainer.
  # Each lever on its own: the same cells with attention on the plain path (softmax, dropout
  # and two products) instead of LibTorch's one fused operator (fused_attention.h).
  lever_logs=()
  if [ "${ANCHOR_LEVERS:-1}" != 0 ]; then
    for precision in fp32 bf16; do
      for batch in $batches; do
        step "dls_plain_attention_${precision}_b$batch" 90 "$bench" --task seq2seq-train --preset cpu --batch "$batch" \
             --device "$dev" --precision "$precision" --cuda-graphs --attention plain --warmup 5 --repeats 3 \
             --iters "${ANCHOR_ITERS:-30}"
        lever_logs+=("plain attention=$W/dls_plain_attention_${precision}_b$batch.log")
      done
    done
  fi
  # Where the captured step's GPU time goes, kernel by kernel (Kineto): the bf16 cells and the
  # lecture model, into kernel_profiles.txt (a GPU only: the CPU has no kernels to trace).
  if [ "$dev" = cuda ] && [ "${ANCHOR_KERNELS:-1}" != 0 ]; then
    : > "$OUT/kernel_profiles.txt"
    for shape in "cpu 64" "cpu 512" "dlstudio 50"; do
      read -r preset batch <<< "$shape"
      step "kernels_${preset}_b$batch" 90 "$bench" --task seq2seq-train --preset "$preset" --batch "$batch" \
           --device "$dev" --precision bf16 --cuda-graphs --warmup 5 --repeats 1 --iters 20 --gpu-profile 30
      { echo "## --preset $preset --batch $batch --precision bf16 --cuda-graphs"
        sed -n '/GPU kernel profile/,$p' "$W/kernels_${preset}_b$batch.log" | grep -av '^{' | head -n 32; echo
      } >> "$OUT/kernel_profiles.txt"
    done
  fi
  # The lecture's model (the dlstudio preset, batch 50), captured: its step rate in fp32, fp32
  # with TF32 and bf16 (and bf16 with attention on the plain path, and with W2 computing every
  # row: each lever's gain), for the 40 epochs' time.
  if [ "${ANCHOR_LECTURE:-1}" != 0 ]; then
    more+=(--lecture)
    for lever in fp32 tf32 bf16 bf16_plain_attention bf16_full_ffn; do
      flags=(--precision "${lever%%_*}")
      [ "$lever" = tf32 ] && flags=(--precision fp32 --tf32)
      [ "$lever" = bf16_plain_attention ] && flags+=(--attention plain)
      [ "$lever" = bf16_full_ffn ] && flags+=(--full-ffn)
      step "lecture_rate_$lever" 90 "$bench" --task seq2seq-train --preset dlstudio --device "$dev" --cuda-graphs \
           "${flags[@]}" --warmup 3 --repeats 3 --iters "${smoke:+1}${smoke:-10}"
      more+=("$lever=$W/lecture_rate_$lever.log")
    done
  fi
  # The table last, from every record above (a step cut by the part's limit leaves a gap it names).
  (( ${#lever_logs[@]} )) && more+=(--lever-off "${lever_logs[@]}")
  "$py" bench/python/anchor_table.py --pytorch "$W/pytorch.json" --dls "${dls_logs[@]}" "${more[@]}" \
    > "$OUT/anchor_table.md" 2>&1 || failures=$(( failures + 1 ))
  cat "$OUT/anchor_table.md" >> "$OUT/summary.txt"
fi

if [ "$part" = lecture ]; then
  # --- DLStudio's experiment: FG, M 256, 4 + 4 blocks, 4 heads, batch 50, L 10, 40 epochs ---
  # The run directory outlives the part: a second call resumes it (the same warm machine).
  lecture=${LECTURE_DIR:-/tmp/gpu-lecture}
  epochs=${LECTURE_EPOCHS:-40}
  read -r -a more <<< "${LECTURE_FLAGS:-}"            # every call's (e.g. --max-iters)
  read -r -a new_run <<< "${LECTURE_NEW_FLAGS:-}"    # a new run's only (e.g. --validation-pairs)
  if [ -f "$corpus" ]; then
    if ls "$lecture"/checkpoints/*.pt > /dev/null 2>&1; then
      how=(--resume "$lecture")
      say "lecture: resuming $lecture"
    else
      # --keep-last 0: every checkpoint stays, for the BLEU of each (DLStudio's table).
      how=(--preset dlstudio --data "$corpus" --max-words 8 --run-dir "$lecture" --overwrite --keep-last 0 "${new_run[@]}")
    fi
    # Leaves 300 s of the part for the evaluation and the ViT. Stopped by the limit (SIGTERM),
    # the trainer ends its step and writes a checkpoint (a minute's grace: 3.4 GB with Adam's
    # state); the next call resumes from it. Checkpoints every 5 epochs, as DLStudio's.
    grace=60 step lecture_train $(( deadline - $(date +%s) - ${LECTURE_RESERVE:-300} )) "$A/seq2seq_train" "${how[@]}" \
         --epochs "$epochs" --device "$dev" --checkpoint-every "${LECTURE_CHECKPOINT_EVERY:-5}" --json "${more[@]}" || {
      (( $? == 124 )) && failures=$(( failures - 1 )) &&
        say "lecture_train: stopped at the part's limit with a checkpoint; lecture again (same machine) resumes it"; }
    expect_device lecture_train
    grep -aE 'epoch [0-9]+/|done \(' "$W/lecture_train.log" | tail -n 45 | cut -c1-300 > "$OUT/lecture_train.txt"
    if ls "$lecture"/checkpoints/*.pt > /dev/null 2>&1; then
      # The text report (not --json): BLEU per checkpoint, then DLStudio's printout of 20
      # pairs translated by the best checkpoint.
      step lecture_eval "${LECTURE_EVAL_S:-150}" "$A/checkpoint_eval" "$lecture" --device "$dev" --samples 20 ${smoke:+--limit 20}
      grep -av '^\[' "$W/lecture_eval.log" > "$OUT/lecture_eval.txt"
      sed -n '/Sample translations by the best checkpoint/,$p' "$W/lecture_eval.log" > "$OUT/lecture_samples.txt"
      cp "$lecture/bleu.csv" "$OUT/lecture_bleu.csv" 2>/dev/null
      cp "$lecture/metrics.csv" "$OUT/lecture_metrics.csv" 2>/dev/null
    fi
  else
    say "lecture: no $corpus (bench/gpu_prepare.sh copies it into .deps/data)"
    failures=$(( failures + 1 ))
  fi
  # DLStudio's ViT (FG, M 256, 8 encoders, 4 heads, batch 48) on Fashion-MNIST, whose 28x28
  # images take patches of 7 (4x4 patches, as CIFAR-10's 32x32 in patches of 8; CIFAR-10
  # itself is too large for .deps/): seconds per epoch from metrics.csv's epoch rows.
  if (( ${LECTURE_VIT_EPOCHS:-2} > 0 )); then
  step lecture_vit 120 "$A/vit_train" --preset dlstudio --dataset fashion-mnist --patch-size 7 --device "$dev" \
       --epochs "${LECTURE_VIT_EPOCHS:-2}" --run-dir "$W/lecture_vit" --json \
       ${smoke:+--max-iters 4 --train-subset 400 --test-subset 200}
  expect_device lecture_vit
  python3 - "$W/lecture_vit/metrics.csv" > "$OUT/lecture_vit.md" 2>&1 <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["kind"] == "epoch"]
print("| epoch | seconds | test accuracy |\n|---|---|---|")
last = 0.0
for r in rows:
    wall = float(r["wall_s"])
    print(f"| {r['epoch']} | {wall - last:.1f} | {r.get('test_accuracy', '')} |")
    last = wall
if not rows:
    print("| - | no complete epoch | - |")
PY
  cat "$OUT/lecture_vit.md" >> "$OUT/summary.txt"
  fi
fi
say "done: $failures failed"
exit $(( failures > 0 ))
