#!/usr/bin/env bash
# The main job, in a few minutes on a 2-core CPU (make demo runs it after building):
#  1. trains a small English->Spanish transformer (the "cpu" preset) on the Tatoeba corpus
#     at $DLS_DATA_DIR/spa-eng/spa.txt when present, else on the sample corpus in data/;
#  2. evaluates its checkpoints (BLEU table, sample translations) and translates a sentence;
#  3. trains the visTransformer briefly on Fashion-MNIST and prints its confusion matrix.
# Usage: apps/demo.sh [BUILD_DIR]   (outputs go to runs/demo/)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
runs=runs/demo
bin=$build/apps
for program in seq2seq_train checkpoint_eval vit_train; do
  [ -x "$bin/$program" ] || { echo "error: $bin/$program is missing: run 'make build' first" >&2; exit 1; }
done
rm -rf "$runs"
mkdir -p "$runs"

section() { printf '\n==== %s ====\n\n' "$*"; }

corpus=${DLS_DATA_DIR:-}/spa-eng/spa.txt
if [ -n "${DLS_DATA_DIR:-}" ] && [ -f "$corpus" ]; then
  section "seq2seq: the cpu preset on $corpus (one epoch, about 3 minutes)"
  # Sentences of up to 5 words (39k pairs) learn fastest; one epoch with a short warm-up so
  # that the whole learning-rate schedule fits; BLEU on 1,000 validation pairs.
  seq2seq_args=(--data "$corpus" --max-words 5 --epochs 1 --warmup 150 --time-limit 300 --bleu-sentences 1000)
  sentence="i want to go home"
else
  section "seq2seq: the cpu preset on the sample corpus data/sample_en_es.tsv"
  echo "(set DLS_DATA_DIR to a folder with spa-eng/spa.txt to train on the Tatoeba corpus)"
  seq2seq_args=(--data data/sample_en_es.tsv --embedding-size 128 --encoders 2 --decoders 2
                --epochs 12 --validation-pairs 150 --warmup 100 --checkpoint-every 3)
  sentence="she does not want the red car"
fi
"$bin/seq2seq_train" --preset cpu --run-dir "$runs/seq2seq" --samples 10 --log-every 100 "${seq2seq_args[@]}"

section "checkpoint_eval: BLEU of every checkpoint on the validation split"
"$bin/checkpoint_eval" "$runs/seq2seq" --samples 5

section "checkpoint_eval: translating \"$sentence\""
"$bin/checkpoint_eval" "$runs/seq2seq" --translate "$sentence"

section "vit_train: visTransformer on Fashion-MNIST (the fashion preset, 3 epochs)"
"$bin/vit_train" --dataset fashion-mnist --run-dir "$runs/vit" --epochs 3 --checkpoint-every 1

section "checkpoint_eval: the ViT's per-class accuracy and confusion matrix"
"$bin/checkpoint_eval" "$runs/vit"

section "done"
echo "Run directories (metrics.csv, loss/BLEU/accuracy plots, checkpoints): $runs/seq2seq, $runs/vit"
