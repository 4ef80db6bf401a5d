#!/usr/bin/env bash
# Tests data/fetch_data.sh against a local HTTP server on 127.0.0.1 serving small fixture
# archives made here: a good download (verified and recorded hashes), the no-op second
# run, a corrupted file the checksum rejects, an HTTP error, being offline, and a file
# changed after installation. No run may leave a partial file behind.
# Usage: fetch_data_test.sh path/to/data/fetch_data.sh
set -euo pipefail

fetch=$1
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)
tmp=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# --- fixtures: a good site and a corrupted one -------------------------------------------
make_site() {  # folder spa_text
  local site=$1
  mkdir -p "$site/zip" "$site/tar/data"
  printf '%s' "$2" >"$site/zip/spa.txt"
  printf 'About this fixture.\n' >"$site/zip/_about.txt"
  (cd "$site/zip" && "$python" -m zipfile -c ../spa-eng.zip spa.txt _about.txt)
  printf 'pickle 90000' | gzip -c >"$site/tar/data/en_es_xformer_8_90000.tar.gz"
  printf 'pickle 10000' | gzip -c >"$site/tar/data/en_es_xformer_8_10000.tar.gz"
  tar -czf "$site/en_es_corpus_for_learning_with_Transformers.tar.gz" -C "$site/tar" data
  rm -rf "$site/zip" "$site/tar"
}
good_text=$'Go.\tVe.\nI\'m here.\tEstoy aquí.\n'
make_site "$tmp/www/good" "$good_text"
make_site "$tmp/www/bad" $'Go.\tVe.\nI\'m here.\tEstoy aqui!\n'   # one byte changed
mkdir -p "$tmp/www/html"
printf '<html>Moved</html>' >"$tmp/www/html/spa-eng.zip"

# The checksums the script must enforce: those of the good fixture.
printf 'Go.\tVe.\nI'"'"'m here.\tEstoy aquí.\n' >"$tmp/expected_spa.txt"
printf 'About this fixture.\n' >"$tmp/expected_about.txt"
cat >"$tmp/SHA256SUMS" <<EOF
$(sha256sum "$tmp/expected_spa.txt" | cut -d' ' -f1)  spa-eng/spa.txt
$(sha256sum "$tmp/expected_about.txt" | cut -d' ' -f1)  spa-eng/_about.txt
EOF

# --- the server: port 0 lets the system pick a free one, which it prints --------------
"$python" -u -m http.server 0 --bind 127.0.0.1 --directory "$tmp/www" >"$tmp/server.log" 2>&1 &
server_pid=$!
port=""
for _ in $(seq 100); do
  port=$(sed -n 's/.*port \([0-9][0-9]*\).*/\1/p' "$tmp/server.log" | head -n 1)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || fail "the HTTP server did not start: $(cat "$tmp/server.log")"
base="http://127.0.0.1:$port"
# A port with nothing listening: taken from the system, then released.
dead_port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

run() {  # data_dir base_url -> output in $tmp/out, exit status in $status
  status=0
  env -u DLS_SPA_ENG_URL -u DLS_XFORMER_URL DLS_DATA_DIR="$1" DLS_DATA_BASE_URL="$2" \
      DLS_DATA_MANIFEST="$tmp/SHA256SUMS" bash "$fetch" >"$tmp/out" 2>&1 || status=$?
}
no_partial_files() {  # data_dir
  local left
  left=$(find "$1" -name '.fetch.*' 2>/dev/null || true)
  [ -z "$left" ] || fail "temporary files left behind: $left"
}

# 1. A good download: files in place, spa.txt verified, DLStudio archives recorded.
run "$tmp/data" "$base/good"
[ $status -eq 0 ] || fail "good download failed: $(cat "$tmp/out")"
cmp -s "$tmp/data/spa-eng/spa.txt" "$tmp/expected_spa.txt" || fail "spa.txt differs"
cmp -s "$tmp/data/spa-eng/_about.txt" "$tmp/expected_about.txt" || fail "_about.txt differs"
[ "$(gzip -dc "$tmp/data/dlstudio/en_es_xformer_8_90000.tar.gz")" = "pickle 90000" ] || fail "90000 archive"
[ "$(gzip -dc "$tmp/data/dlstudio/en_es_xformer_8_10000.tar.gz")" = "pickle 10000" ] || fail "10000 archive"
grep -q "spa-eng/spa.txt: SHA-256 verified" "$tmp/out" || fail "no verification reported: $(cat "$tmp/out")"
grep -q "trust on first use" "$tmp/out" || fail "unverified files not reported: $(cat "$tmp/out")"
[ "$(wc -l <"$tmp/data/SHA256SUMS")" -eq 2 ] || fail "expected 2 recorded hashes"
(cd "$tmp/data" && sha256sum --quiet -c SHA256SUMS) || fail "recorded hashes do not match the files"
no_partial_files "$tmp/data"

# 2. Everything there: a no-op that needs no network at all.
run "$tmp/data" "http://127.0.0.1:$dead_port"
[ $status -eq 0 ] || fail "second run was not a no-op: $(cat "$tmp/out")"
grep -q "spa-eng: up to date" "$tmp/out" || fail "second run: $(cat "$tmp/out")"
grep -q "DLStudio archives: up to date" "$tmp/out" || fail "second run: $(cat "$tmp/out")"
[ "$(wc -l <"$tmp/data/SHA256SUMS")" -eq 2 ] || fail "records duplicated"

# 3. A corrupted spa.txt: rejected by its checksum, nothing installed.
run "$tmp/data3" "$base/bad"
[ $status -ne 0 ] || fail "a corrupted spa.txt was accepted"
grep -q "spa-eng/spa.txt from the download has SHA-256 .*, expected" "$tmp/out" || fail "message: $(cat "$tmp/out")"
[ ! -e "$tmp/data3/spa-eng" ] || fail "files installed from a corrupted download"
no_partial_files "$tmp/data3"

# 4. An HTTP error page and a missing file: clear errors, nothing installed.
run "$tmp/data4" "$base/html"
[ $status -ne 0 ] || fail "an HTML page was accepted as the zip"
grep -q "is not a zip" "$tmp/out" || fail "message: $(cat "$tmp/out")"
run "$tmp/data4" "$base/missing"
[ $status -ne 0 ] && grep -q "HTTP 404" "$tmp/out" || fail "404: $(cat "$tmp/out")"
[ ! -e "$tmp/data4/spa-eng" ] || fail "files installed after an error"
no_partial_files "$tmp/data4"

# 5. Offline: one clear line, nothing installed.
run "$tmp/data5" "http://127.0.0.1:$dead_port"
[ $status -ne 0 ] || fail "offline run succeeded"
grep -q "Are you offline?" "$tmp/out" || fail "offline message: $(cat "$tmp/out")"
[ ! -e "$tmp/data5/spa-eng" ] || fail "files installed while offline"
no_partial_files "$tmp/data5"

# 6. A file changed after installation is reported, never silently replaced.
printf 'changed' >"$tmp/data/dlstudio/en_es_xformer_8_10000.tar.gz"
run "$tmp/data" "$base/good"
[ $status -ne 0 ] || fail "a changed file was accepted"
grep -q "exists but its SHA-256 is" "$tmp/out" || fail "message: $(cat "$tmp/out")"
[ "$(cat "$tmp/data/dlstudio/en_es_xformer_8_10000.tar.gz")" = "changed" ] || fail "the file was replaced"

echo "fetch_data.sh: all checks passed"
