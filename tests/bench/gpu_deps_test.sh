#!/usr/bin/env bash
# Every library the build finds through pkg-config (pkg_check_modules in the CMake files) has
# its pkg-config file written by bench/gpu_check.sh (write_pc NAME) for the GPU machine, which
# has none of Debian's: a new dependency forgotten there stops the GPU session's build (libjpeg
# did, 2026-11-30). Usage: tests/bench/gpu_deps_test.sh SOURCE_DIR
set -euo pipefail
cd "$1"
modules=$(grep -rhoE 'pkg_check_modules\([A-Z_0-9]+ +(QUIET |REQUIRED )*[a-z0-9+._-]+' CMakeLists.txt cmake src apps bench |
          awk '{print $NF}' | sort -u)
[ -n "$modules" ] || { echo "FAIL: no pkg_check_modules found (the pattern is out of date)"; exit 1; }
written=$(grep -oE '^write_pc [a-z0-9+._-]+' bench/gpu_check.sh | awk '{print $2}' | sort -u)
missing=$(comm -23 <(echo "$modules") <(echo "$written"))
if [ -n "$missing" ]; then
  echo "FAIL: bench/gpu_check.sh writes no pkg-config file for: $missing"
  echo "(add 'write_pc NAME CFLAGS LIBS' there, and the Debian packages to bench/gpu_prepare.sh)"
  exit 1
fi
echo "ok: $(echo $modules)"
