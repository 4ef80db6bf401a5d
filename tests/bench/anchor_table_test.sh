#!/usr/bin/env bash
# bench/python/anchor_table.py on made-up records (tests/bench/anchor_table_test.py).
# Usage: tests/bench/anchor_table_test.sh SOURCE_DIR
set -euo pipefail
source "$(dirname "$0")/../support/outside_needs.sh"
require_outside /usr/bin/python3
exec /usr/bin/python3 "$(dirname "$0")/anchor_table_test.py" "$1"
