#!/usr/bin/env bash
# Checkpoints written by another build, resumed by this one: for each trainer (seq2seq_train,
# lm_train, vit_train) a tiny run is started by OTHER_BUILD and stopped inside its first epoch;
# OTHER_BUILD then resumes it to the end, and this build resumes a copy. On one thread both
# must land on the same final loss, validation scores and epoch rows of metrics.csv; then this
# build's checkpoint_eval reports the copies (checkpoints of both builds in one run). Exits
# non-zero on any difference. Build the other version in a worktree first, e.g.
#   git worktree add /tmp/prev <commit> && cmake -S /tmp/prev -B /tmp/prev-build -DCMAKE_BUILD_TYPE=Release \
#     && cmake --build /tmp/prev-build -j2 --target seq2seq_train lm_train vit_train
#   bash bench/resume_side_by_side.sh /tmp/prev-build [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
old="${1:?usage: resume_side_by_side.sh OTHER_BUILD [BUILD_DIR]}/apps"
new="${2:-build}/apps"
for program in seq2seq_train lm_train vit_train; do
  for dir in "$old" "$new"; do [ -x "$dir/$program" ] || { echo "error: $dir/$program not built" >&2; exit 1; }; done
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export DLS_LOG_LEVEL=warn OMP_NUM_THREADS=1
# Two classes of 16 x 16 PNG images (an image folder for vit_train).
python3 - "$work/images" <<'PY'
import os, random, struct, sys, zlib
def png(path, pixels, w=16, h=16):
    rows = b"".join(b"\x00" + bytes(pixels[y * w * 3:(y + 1) * w * 3]) for y in range(h))
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
random.seed(1)
for name, colour in (("red", (200, 30, 30)), ("blue", (30, 30, 200))):
    os.makedirs(os.path.join(sys.argv[1], name), exist_ok=True)
    for i in range(24):
        png(os.path.join(sys.argv[1], name, "%02d.png" % i),
            [max(0, min(255, c + random.randint(-40, 40))) for _ in range(256) for c in colour])
PY
one="--threads 1 --workers 1"
sample="$PWD/data/sample_en_es.tsv"
failed=0
for kind in seq2seq lm vit; do
  case $kind in
    seq2seq) program=seq2seq_train stop=13
      flags="--preset cpu --embedding-size 32 --heads 2 --encoders 1 --decoders 1 --data $sample --batch-size 32 --epochs 2 --bleu-sentences 20 --samples 0" ;;
    lm) program=lm_train stop=5 flags="--preset tiny --data $sample --epochs 2 --batch-size 32" ;;
    vit) program=vit_train stop=3
      flags="--preset dlstudio --image-folder $work/images --image-size 16 --patch-size 4 --embedding-size 32 --heads 2 --encoders 1 --epochs 2 --batch-size 8" ;;
  esac
  # shellcheck disable=SC2086
  "$old/$program" $one $flags --max-iters $stop --run-dir "$work/$kind.other" > "$work/$kind.log" 2>&1
  cp -r "$work/$kind.other" "$work/$kind.this"
  "$old/$program" $one --resume "$work/$kind.other" --json > "$work/$kind.other.json" 2>> "$work/$kind.log"
  "$new/$program" $one --resume "$work/$kind.this" --json > "$work/$kind.this.json" 2>> "$work/$kind.log"
  echo "== $program: resumed by the other build / by this one"
  python3 - "$work/$kind.other.json" "$work/$kind.this.json" <<'PY' || failed=1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
same = True
for key in ("final_loss", "iterations", "epochs", "val_loss", "val_bleu", "val_nll", "val_accuracy", "test_accuracy"):
    if key in a:
        print("  %-14s %s / %s" % (key, a[key], b.get(key)))
        same = same and a[key] == b.get(key)
sys.exit(0 if same else 1)
PY
  if diff <(grep '^epoch' "$work/$kind.other/metrics.csv" | cut -d, -f1-4) \
          <(grep '^epoch' "$work/$kind.this/metrics.csv" | cut -d, -f1-4) > /dev/null; then
    echo "  metrics.csv epoch rows: the same"
  else
    echo "  metrics.csv epoch rows differ"; failed=1
  fi
done
echo "== this build's checkpoint_eval report over the copies"
"$new/checkpoint_eval" report "$work/seq2seq.this" 2>&1 | grep '^Best checkpoint' || failed=1
"$new/checkpoint_eval" report "$work/lm.this" 2>&1 | grep 'checkpoint_epoch' || failed=1
[ "$failed" = 0 ] && echo "resumes agree" || echo "resumes differ"
exit "$failed"
