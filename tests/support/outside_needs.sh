# Sourced by the shell tests: `require_outside NAME...` declares what the script runs from
# outside the project (names as in tests/outside_needs.tsv, the one list) and exits 77 —
# ctest's "skipped" for these tests — with one line naming the first that is missing.
outside_needs_list="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/outside_needs.tsv"

require_outside() {
  local name kind package
  for name in "$@"; do
    read -r kind package < <(awk -F'\t' -v n="$name" '$1 == n { print $2, $3 }' "$outside_needs_list")
    if [ -z "${kind:-}" ]; then
      echo "error: $name is not in tests/outside_needs.tsv: list it (with its Debian package) first" >&2
      exit 1
    fi
    if [ "$kind" = program ] && [ -x "$name" ]; then continue; fi
    if [ "$kind" = python-module ] && /usr/bin/python3 -c "import $name" >/dev/null 2>&1; then continue; fi
    echo "skipped: ${kind/python-module/Python module} $name is not installed (Debian package $package, which \`make test\` installs)"
    exit 77
  done
}
