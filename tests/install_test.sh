#!/usr/bin/env bash
# `cmake --install` into a prefix (BUILD_DIR/install_test, emptied first and removed after),
# then, as a user of the installed tree would:
#  1. the installed seq2seq_train trains a tiny model with SentencePiece (whose module it
#     must find in ../lib beside bin/) on the sample corpus, one epoch;
#  0. every program the README lists (dls_bench included) and the page are installed, and
#     each program answers --version;
#  2. examples/ (a project of its own) is configured with find_package(dlstudio_cpp) against
#     the prefix and built; its translation of a sentence must equal the installed
#     checkpoint_eval --translate's, for each form of the run its header comment shows.
# The example is configured as the project was (compiler, flags, where LibTorch, spdlog, fmt
# and pkg-config are), taken from BUILD_DIR's CMakeCache.txt, and compiled through the same
# ccache; the fixed folder lets the cache hit on a second run.
# Usage: install_test.sh CMAKE BUILD_DIR SAMPLE_CORPUS
set -euo pipefail
cmake=$1 build=$(cd "$2" && pwd) corpus=$3
source=$(cd "$(dirname "$0")/.." && pwd)
work=$build/install_test
prefix=$work/prefix
rm -rf "$work" && mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cmake" --install "$build" --prefix "$prefix" >/dev/null
# Every program the README lists (dls_bench when the build has it), the library, the page.
programs="seq2seq_train vit_train checkpoint_eval lm_train translate_server compare_runs"
if [ "$(sed -n 's/^DLS_BUILD_BENCH:BOOL=//p' "$build/CMakeCache.txt")" != OFF ]; then programs="$programs dls_bench"; fi
for file in $(printf 'bin/%s ' $programs) lib/libdls_sentencepiece.so lib/libdls.a \
            include/dls/eval/translator.h lib/cmake/dlstudio_cpp/dlstudio_cppConfig.cmake \
            lib/cmake/dlstudio_cpp/dlstudio_cppConfigVersion.cmake lib/cmake/dlstudio_cpp/dlstudio_cppTargets.cmake \
            share/dlstudio-cpp/page/index.html share/dlstudio-cpp/page/readout.js share/dlstudio-cpp/page/sample.png \
            share/dlstudio-cpp/presets/seq2seq/cpu.toml; do
  [ -e "$prefix/$file" ] || fail "$file not installed"
done
# Not the library's: the programs' command line and the server's internals (their libraries
# are not installed; serve/api_json.h would need nlohmann_json).
for internal in include/dls/cli include/dls/serve; do
  [ ! -e "$prefix/$internal" ] || fail "$internal installed"
done
for program in $programs; do
  "$prefix/bin/$program" --version >/dev/null 2>&1 || fail "the installed $program --version failed"
done
echo "installed: $programs, each runs"

# 1. Training with the installed program.
"$prefix/bin/seq2seq_train" --data "$corpus" --preset cpu --tokenizer sentencepiece --vocab-size 200 \
  --embedding-size 32 --encoders 1 --decoders 1 --epochs 1 --validation-pairs 100 --seed 7 \
  --threads 2 --log-level warn --run-dir "$work/run" >"$work/train.log" 2>&1 ||
  { tail -n 20 "$work/train.log" >&2; fail "the installed seq2seq_train failed"; }
echo "installed seq2seq_train trained a SentencePiece model (module found in lib/)"

# 2. The example against the installed package.
cached() { sed -n "/^$1:/{s|^$1:[A-Z]*=||p;q}" "$build/CMakeCache.txt"; }
project_prefix_path=$(cached CMAKE_PREFIX_PATH)
args=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$prefix${project_prefix_path:+;$project_prefix_path}")
for name in CMAKE_CXX_COMPILER CMAKE_CXX_FLAGS CMAKE_EXE_LINKER_FLAGS PKG_CONFIG_EXECUTABLE fmt_DIR spdlog_DIR Torch_DIR; do
  value=$(cached "$name")
  if [ -n "$value" ] && [[ "$value" != *-NOTFOUND ]]; then args+=("-D$name=$value"); fi
done
launcher=$(cached DLS_CCACHE_PROGRAM)
if [ "$(cached DLS_USE_CCACHE)" = ON ] && [ -x "$launcher" ]; then
  args+=("-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher")
  export CCACHE_BASEDIR=$source CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
fi
"$cmake" -S "$source/examples" -B "$work/example" "${args[@]}" >"$work/example.log" 2>&1 &&
  "$cmake" --build "$work/example" -j 2 >>"$work/example.log" 2>&1 ||
  { tail -n 30 "$work/example.log" >&2; fail "examples/ does not build against the installed package"; }
echo "examples/translate built with find_package(dlstudio_cpp) against the installed tree"

sentence="I want to go home."
expected=$("$prefix/bin/checkpoint_eval" "$work/run" --translate "$sentence" --log-level warn 2>"$work/eval.log") ||
  { cat "$work/eval.log" >&2; fail "the installed checkpoint_eval --translate failed"; }
got=$("$work/example/translate" "$work/run" "$sentence")
[ -n "$got" ] || fail "examples/translate printed nothing"
[ "$got" = "$expected" ] || fail "examples/translate says '$got', checkpoint_eval --translate '$expected'"
# Standard input, one sentence a line, as the arguments.
got=$(printf '%s\n' "$sentence" | "$work/example/translate" "$work/run")
[ "$got" = "$expected" ] || fail "examples/translate on stdin says '$got', checkpoint_eval --translate '$expected'"
echo "examples/translate and checkpoint_eval --translate agree: '$sentence' -> '$got'"
# Each first argument that examples/translate.cpp's comment shows (runs/seq2seq, its best.pt,
# a checkpoint file) is one the installed run has and the example takes.
shown=$(sed -n 's|^//   translate \(runs/seq2seq[^ ]*\).*|\1|p' "$source/examples/translate.cpp")
[ -n "$shown" ] || fail "examples/translate.cpp's comment shows no command"
for arg in $shown; do
  path=$work/run${arg#runs/seq2seq}
  [ -e "$path" ] || fail "examples/translate.cpp's comment shows '$arg', which a run does not have"
  got=$(printf '%s\n' "$sentence" | "$work/example/translate" "$path") || fail "examples/translate $arg failed"
  [ "$got" = "$expected" ] || fail "examples/translate $arg says '$got', checkpoint_eval --translate '$expected'"
done
echo "examples/translate.cpp's commands work:" $shown
