#!/usr/bin/env bash
# The project's C++ files through clang-format (.clang-format at the root).
# Usage: cmake/clang_format.sh apply   rewrite every file in place (make format)
#        cmake/clang_format.sh check   list the files that differ, exit 1 if any (a test of make test)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-check}
clang_format=/usr/bin/clang-format
mapfile -t files < <(find include src apps bench tests examples \( -name '*.cpp' -o -name '*.h' -o -name '*.cpp.in' \) \
                       -not -path 'tests/fixtures/*' | sort)
case "$mode" in
  apply) "$clang_format" -i "${files[@]}" ;;
  check)
    unformatted=()
    for file in "${files[@]}"; do
      "$clang_format" --dry-run --Werror "$file" >/dev/null 2>&1 || unformatted+=("$file")
    done
    if [ ${#unformatted[@]} -gt 0 ]; then
      echo "not formatted (run 'make format'): ${unformatted[*]}" >&2
      exit 1
    fi
    echo "${#files[@]} files formatted as .clang-format says" ;;
  *) echo "usage: $0 apply|check" >&2; exit 2 ;;
esac
