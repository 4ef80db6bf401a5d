#!/usr/bin/env bash
# Rewrites the --help blocks of docs/programs.md from the programs of a build:
#   docs/update_help.sh BUILD_DIR [FILE]
# Every block between the marker lines
#   <!-- help:PROGRAM -->
#   ```text
#   ...output of BUILD_DIR/apps/PROGRAM --help...
#   ```
#   <!-- /help:PROGRAM -->
# is replaced by the current output; everything outside the markers is left as it is.
# FILE defaults to programs.md beside this script. A program that is missing, a --help
# that fails, or a program without its block in FILE is an error.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 BUILD_DIR [FILE]" >&2
  exit 2
fi
build_dir=$1
file=${2:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/programs.md}
# checkpoint_eval's subcommands have a block each ("checkpoint_eval translate": its --help).
programs=(seq2seq_train vit_train lm_train checkpoint_eval translate_server compare_runs)
for verb in report translate classify generate score average import export; do
  programs+=("checkpoint_eval $verb")
done

[ -f "$file" ] || { echo "error: $file: no such file" >&2; exit 1; }
help_dir=$(mktemp -d)
trap 'rm -rf "$help_dir"' EXIT

for program in "${programs[@]}"; do
  read -r name verb <<<"$program"
  bin=$build_dir/apps/$name
  [ -x "$bin" ] || { echo "error: $bin: missing or not executable" >&2; exit 1; }
  # A fixed environment and argv[0], so that the text does not depend on the machine, the
  # user or the build folder: the usage line names the program alone, a default taken from
  # OMP_NUM_THREADS (--threads) reads as on a 2-core machine, and a default under the data
  # folder reads as for a user whose home is /home/user.
  if ! (unset DLS_DATA_DIR XDG_DATA_HOME
        export OMP_NUM_THREADS=2 HOME=/home/user LC_ALL=C COLUMNS=80
        exec -a "$name" "$bin" $verb --help) >"$help_dir/$program" 2>"$help_dir/$program.err"; then
    echo "error: $bin $verb --help failed:" >&2
    cat "$help_dir/$program.err" >&2
    exit 1
  fi
done

python3 - "$file" "$help_dir" "${programs[@]}" <<'PY'
import pathlib
import re
import sys

path = pathlib.Path(sys.argv[1])
help_dir = pathlib.Path(sys.argv[2])
text = path.read_text(encoding="utf-8")
for program in sys.argv[3:]:
    output = (help_dir / program).read_text(encoding="utf-8").rstrip("\n")
    begin, end = f"<!-- help:{program} -->", f"<!-- /help:{program} -->"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if len(pattern.findall(text)) != 1:
        sys.exit(f"error: {path}: needs exactly one block '{begin}' ... '{end}'")
    block = f"{begin}\n```text\n{output}\n```\n{end}"
    text = pattern.sub(lambda _: block, text)
path.write_text(text, encoding="utf-8")
PY
