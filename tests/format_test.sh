#!/usr/bin/env bash
# Every C++ file of the project is formatted as .clang-format says (make format fixes it).
set -euo pipefail
source "$(dirname "$0")/support/outside_needs.sh"
require_outside /usr/bin/clang-format
exec bash "$(dirname "$0")/../cmake/clang_format.sh" check
