#!/usr/bin/env bash
# The README and docs/ against the programs: current --help text, commands that use only
# options the programs have, links that resolve (tests/docs_check.py).
# Usage: tests/docs_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/support/outside_needs.sh"
require_outside /usr/bin/python3
exec /usr/bin/python3 "$(dirname "$0")/docs_check.py" "$1" "$2"
