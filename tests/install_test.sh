#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then the installed seq2seq_train trains a
# SentencePiece model (which needs the module found in ../lib beside bin/) on the sample
# corpus in a --dry-run. Usage: install_test.sh CMAKE BUILD_DIR SAMPLE_CORPUS
set -euo pipefail
cmake=$1 build=$2 corpus=$3
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
"$cmake" --install "$build" --prefix "$prefix" >/dev/null
for program in seq2seq_train vit_train checkpoint_eval lm_train; do
  [ -x "$prefix/bin/$program" ] || { echo "FAIL: bin/$program not installed" >&2; exit 1; }
done
[ -f "$prefix/lib/libdls_sentencepiece.so" ] || { echo "FAIL: lib/libdls_sentencepiece.so not installed" >&2; exit 1; }
out=$("$prefix/bin/seq2seq_train" --data "$corpus" --preset cpu --tokenizer sentencepiece --vocab-size 200 \
      --validation-pairs 100 --dry-run --json --threads 1 --log-level warn --run-dir "$prefix/run")
case "$out" in
  *'"stopped_by":"dry-run"'*) echo "installed programs run, SentencePiece module found" ;;
  *) echo "FAIL: unexpected output: $out" >&2; exit 1 ;;
esac
