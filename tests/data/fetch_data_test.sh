#!/usr/bin/env bash
# Tests data/fetch_data.sh against a local HTTP server on 127.0.0.1 serving small fixture
# archives made here (no other network use): a good download (verified and recorded
# hashes), the no-op second run, an unknown edition of one source while the other still
# succeeds, accepting it (environment and flag), a known second edition, an HTTP error,
# one source failing while the other succeeds, being offline, a file changed after
# installation, a DLStudio archive other than the recorded one, and CIFAR-10's archive
# checked by its MD5 (a wrong one, a batch that is not whole records). No run may leave a
# partial file behind.
# Outside programs: python3 (http.server, zipfile), gzip, tar, sha256sum, and those of
# fetch_data.sh (curl, unzip, sha256sum, tar, gzip, awk, grep, find, coreutils).
# Usage: fetch_data_test.sh path/to/data/fetch_data.sh
set -euo pipefail

fetch=$1
# What it runs from outside the project, declared as tests/outside_needs.tsv asks: a missing
# one skips the test (exit 77) with one line.
# shellcheck source=/dev/null
source "$(dirname "${BASH_SOURCE[0]}")/../support/outside_needs.sh"
require_outside /usr/bin/python3 /usr/bin/curl /usr/bin/unzip
python=/usr/bin/python3
tmp=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# --- fixtures: a good site and a corrupted one -------------------------------------------
make_site() {  # folder spa_text [pickle_suffix]
  local site=$1 suffix=${3:-}
  mkdir -p "$site/zip" "$site/tar/data"
  printf '%s' "$2" >"$site/zip/spa.txt"
  printf 'About this fixture.\n' >"$site/zip/_about.txt"
  (cd "$site/zip" && "$python" -m zipfile -c ../spa-eng.zip spa.txt _about.txt)
  printf 'pickle 90000%s' "$suffix" | gzip -nc >"$site/tar/data/en_es_xformer_8_90000.tar.gz"
  printf 'pickle 10000%s' "$suffix" | gzip -nc >"$site/tar/data/en_es_xformer_8_10000.tar.gz"
  tar -czf "$site/en_es_corpus_for_learning_with_Transformers.tar.gz" -C "$site/tar" data
  # CIFAR-10's layout, two records of 3,073 bytes per batch.
  mkdir -p "$site/cifar/cifar-10-batches-bin"
  for batch in data_batch_1 data_batch_2 data_batch_3 data_batch_4 data_batch_5 test_batch; do
    head -c 6146 /dev/zero >"$site/cifar/cifar-10-batches-bin/$batch.bin"
  done
  printf 'airplane\nautomobile\n' >"$site/cifar/cifar-10-batches-bin/batches.meta.txt"
  tar -czf "$site/cifar-10-binary.tar.gz" -C "$site/cifar" cifar-10-batches-bin
  rm -rf "$site/zip" "$site/tar" "$site/cifar"
}
good_text=$'Go.\tVe.\nI\'m here.\tEstoy aquí.\n'
make_site "$tmp/www/good" "$good_text"
new_text=$'Go.\tVe.\nI\'m here.\tEstoy aqui!\n'   # one byte changed: another edition
make_site "$tmp/www/bad" "$new_text"
make_site "$tmp/www/newdls" "$good_text" ' (another edition)'
cifar_md5=$(md5sum "$tmp/www/good/cifar-10-binary.tar.gz" | cut -d' ' -f1)
for site in bad newdls; do cp "$tmp/www/good/cifar-10-binary.tar.gz" "$tmp/www/$site/"; done
# A CIFAR-10 archive whose test batch is not whole records.
mkdir -p "$tmp/www/badcifar/cifar-10-batches-bin"
for batch in data_batch_1 data_batch_2 data_batch_3 data_batch_4 data_batch_5; do
  head -c 3073 /dev/zero >"$tmp/www/badcifar/cifar-10-batches-bin/$batch.bin"
done
head -c 3000 /dev/zero >"$tmp/www/badcifar/cifar-10-batches-bin/test_batch.bin"
printf 'airplane\n' >"$tmp/www/badcifar/cifar-10-batches-bin/batches.meta.txt"
tar -czf "$tmp/www/badcifar.tar.gz" -C "$tmp/www/badcifar" cifar-10-batches-bin
badcifar_md5=$(md5sum "$tmp/www/badcifar.tar.gz" | cut -d' ' -f1)
mkdir -p "$tmp/www/html"
printf '<html>Moved</html>' >"$tmp/www/html/spa-eng.zip"

# The checksums the script must enforce: those of the good fixture.
printf 'Go.\tVe.\nI'"'"'m here.\tEstoy aquí.\n' >"$tmp/expected_spa.txt"
printf 'About this fixture.\n' >"$tmp/expected_about.txt"
good_sha=$(sha256sum "$tmp/expected_spa.txt" | cut -d' ' -f1)
new_sha=$(printf '%s' "$new_text" | sha256sum | cut -d' ' -f1)
cat >"$tmp/SHA256SUMS" <<EOF
# comment lines are ignored
$good_sha  spa-eng/spa.txt
$(sha256sum "$tmp/expected_about.txt" | cut -d' ' -f1)  spa-eng/_about.txt
EOF
# The same with a second known edition of spa.txt: one more line.
cp "$tmp/SHA256SUMS" "$tmp/SHA256SUMS.two"
echo "$new_sha  spa-eng/spa.txt" >>"$tmp/SHA256SUMS.two"

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

# run data_dir base_url [VAR=value...] -> output in $tmp/out, exit status in $status;
# the script's arguments come from the array $args. Proxies are unset: 127.0.0.1 only.
args=()
run() {
  status=0
  env -u DLS_SPA_ENG_URL -u DLS_XFORMER_URL -u DLS_CIFAR10_URL -u DLS_ACCEPT_UNKNOWN_EDITION \
      -u http_proxy -u https_proxy -u all_proxy -u HTTP_PROXY -u HTTPS_PROXY -u ALL_PROXY \
      DLS_DATA_DIR="$1" DLS_DATA_BASE_URL="$2" DLS_DATA_MANIFEST="$tmp/SHA256SUMS" \
      DLS_CIFAR10_MD5="$cifar_md5" "${@:3}" \
      bash "$fetch" "${args[@]}" >"$tmp/out" 2>&1 || status=$?
}
has() {  # what pattern: the output holds the (basic) regular expression
  grep -q -- "$2" "$tmp/out" || fail "$1: no '$2' in: $(cat "$tmp/out")"
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
has "good download" "export DLS_DATA_DIR=$tmp/data"
has "good download" "DLStudio archives: in place"
has "good download" "CIFAR-10: the archive's MD5 matches the published one"
has "good download" "CIFAR-10 (binary version): in place"
[ "$(wc -c <"$tmp/data/cifar10/cifar-10-batches-bin/test_batch.bin")" -eq 6146 ] || fail "CIFAR-10 test batch"
# 2 DLStudio archives and 7 CIFAR-10 files, none with a published SHA-256.
[ "$(wc -l <"$tmp/data/SHA256SUMS")" -eq 9 ] || fail "expected 9 recorded hashes"
(cd "$tmp/data" && sha256sum --quiet -c SHA256SUMS) || fail "recorded hashes do not match the files"
no_partial_files "$tmp/data"

# 2. Everything there: a no-op that needs no network at all.
run "$tmp/data" "http://127.0.0.1:$dead_port"
[ $status -eq 0 ] || fail "second run was not a no-op: $(cat "$tmp/out")"
grep -q "spa-eng: up to date" "$tmp/out" || fail "second run: $(cat "$tmp/out")"
grep -q "DLStudio archives: up to date" "$tmp/out" || fail "second run: $(cat "$tmp/out")"
grep -q "CIFAR-10: up to date" "$tmp/out" || fail "second run: $(cat "$tmp/out")"
[ "$(wc -l <"$tmp/data/SHA256SUMS")" -eq 9 ] || fail "records duplicated"

# 3. An unknown edition of spa-eng (or a corrupted download): one message naming the file,
#    its hash, the known one and what to do; nothing of spa-eng installed, while the
#    DLStudio archives are installed all the same; a summary and a non-zero exit.
run "$tmp/data3" "$base/bad"
[ $status -ne 0 ] || fail "an unknown edition of spa.txt was accepted"
has "unknown edition" "spa-eng/spa.txt has SHA-256 $new_sha, known: $good_sha"
has "unknown edition" "DLS_ACCEPT_UNKNOWN_EDITION=1"
has "unknown edition" "add the line(s) '$new_sha  spa-eng/spa.txt' to $tmp/SHA256SUMS"
[ "$(grep -c "error:" "$tmp/out")" -eq 1 ] || fail "not one message: $(cat "$tmp/out")"
has "summary" "spa-eng (Tatoeba/Anki corpus): FAILED"
has "summary" "DLStudio archives: in place"
has "summary" "1 of 3 sources failed"
[ ! -e "$tmp/data3/spa-eng" ] || fail "files installed from an unknown edition"
[ "$(gzip -dc "$tmp/data3/dlstudio/en_es_xformer_8_90000.tar.gz")" = "pickle 90000" ] ||
  fail "the DLStudio archives were not installed beside the failing source"
no_partial_files "$tmp/data3"

# 3b. Accepted after checking (DLS_ACCEPT_UNKNOWN_EDITION=1): installed, its hash recorded,
#     and a later run without the override verifies against the record, offline.
run "$tmp/data3" "$base/bad" DLS_ACCEPT_UNKNOWN_EDITION=1
[ $status -eq 0 ] || fail "the accepted edition failed: $(cat "$tmp/out")"
has "accepted edition" "accepting an unknown edition"
has "accepted edition" "DLStudio archives: up to date"
cmp -s "$tmp/data3/spa-eng/spa.txt" <(printf '%s' "$new_text") || fail "accepted spa.txt differs"
grep -qx "$new_sha  spa-eng/spa.txt" "$tmp/data3/SHA256SUMS" || fail "accepted hash not recorded"
run "$tmp/data3" "http://127.0.0.1:$dead_port"
[ $status -eq 0 ] || fail "the accepted edition is not verified afterwards: $(cat "$tmp/out")"
has "after accepting" "spa-eng: up to date"
no_partial_files "$tmp/data3"

# 3c. The same with the flag.
args=(--accept-unknown-edition)
run "$tmp/data3c" "$base/bad"
args=()
[ $status -eq 0 ] || fail "--accept-unknown-edition failed: $(cat "$tmp/out")"
cmp -s "$tmp/data3c/spa-eng/spa.txt" <(printf '%s' "$new_text") || fail "flag: spa.txt differs"

# 3d. A second known edition (one more line in the manifest): verified, no override needed.
run "$tmp/data3d" "$base/bad" DLS_DATA_MANIFEST="$tmp/SHA256SUMS.two"
[ $status -eq 0 ] || fail "a known second edition was refused: $(cat "$tmp/out")"
has "second edition" "spa-eng/spa.txt: SHA-256 verified"
cmp -s "$tmp/data3d/spa-eng/spa.txt" <(printf '%s' "$new_text") || fail "second edition: spa.txt differs"
[ "$(wc -l <"$tmp/data3d/SHA256SUMS")" -eq 9 ] || fail "a known edition was recorded"
no_partial_files "$tmp/data3d"

# 4. An HTTP error page and a missing file: clear errors, nothing installed.
run "$tmp/data4" "$base/html"
[ $status -ne 0 ] || fail "an HTML page was accepted as the zip"
grep -q "is not a zip" "$tmp/out" || fail "message: $(cat "$tmp/out")"
run "$tmp/data4" "$base/missing"
[ $status -ne 0 ] && grep -q "HTTP 404" "$tmp/out" || fail "404: $(cat "$tmp/out")"
[ ! -e "$tmp/data4/spa-eng" ] || fail "files installed after an error"
no_partial_files "$tmp/data4"

# 4b. DLStudio's archive missing (HTTP 404) while spa-eng succeeds.
run "$tmp/data4b" "$base/good" DLS_XFORMER_URL="$base/missing/archive.tar.gz"
[ $status -ne 0 ] || fail "a failing source did not fail the run"
has "404 for one source" "HTTP 404"
has "404 for one source" "spa-eng (Tatoeba/Anki corpus): in place"
has "404 for one source" "DLStudio archives: FAILED"
has "404 for one source" "the Tatoeba corpus, all that make demo .* need, is in place"
cmp -s "$tmp/data4b/spa-eng/spa.txt" "$tmp/expected_spa.txt" || fail "spa.txt not installed beside a 404"
[ ! -e "$tmp/data4b/dlstudio" ] || fail "files installed after a 404"
no_partial_files "$tmp/data4b"

# 5. Offline: one clear line, nothing installed.
run "$tmp/data5" "http://127.0.0.1:$dead_port"
[ $status -ne 0 ] || fail "offline run succeeded"
grep -q "Are you offline?" "$tmp/out" || fail "offline message: $(cat "$tmp/out")"
[ "$(grep -c "Are you offline?" "$tmp/out")" -eq 3 ] || fail "each source tried: $(cat "$tmp/out")"
has "offline" "3 of 3 sources failed"
[ ! -e "$tmp/data5/spa-eng" ] || fail "files installed while offline"
no_partial_files "$tmp/data5"

# 6. A file changed after installation is reported, never silently replaced.
printf 'changed' >"$tmp/data/dlstudio/en_es_xformer_8_10000.tar.gz"
run "$tmp/data" "$base/good"
[ $status -ne 0 ] || fail "a changed file was accepted"
grep -q "exists but its SHA-256 is" "$tmp/out" || fail "message: $(cat "$tmp/out")"
[ "$(cat "$tmp/data/dlstudio/en_es_xformer_8_10000.tar.gz")" = "changed" ] || fail "the file was replaced"
has "changed file" "spa-eng: up to date"

# 7. A DLStudio archive other than the recorded one (trust on first use) is an unknown edition.
rm -f "$tmp/data/dlstudio/"*.tar.gz
run "$tmp/data" "$base/newdls"
[ $status -ne 0 ] || fail "another DLStudio archive was accepted"
has "other DLStudio archive" "DLStudio archives: .* is an edition this script does not know"
has "other DLStudio archive" "dlstudio/en_es_xformer_8_90000.tar.gz has SHA-256 .*, known: "
[ ! -e "$tmp/data/dlstudio/en_es_xformer_8_90000.tar.gz" ] || fail "an unknown DLStudio archive was installed"
no_partial_files "$tmp/data"

# 8. CIFAR-10: an archive whose MD5 is not the published one, and one whose batch is not whole
#    records: one line each, nothing of CIFAR-10 installed, the other sources unaffected.
run "$tmp/data8" "$base/good" DLS_CIFAR10_MD5=0123456789abcdef0123456789abcdef
[ $status -ne 0 ] || fail "a CIFAR-10 archive with another MD5 was accepted"
has "CIFAR-10 MD5" "has MD5 $cifar_md5, not the published 0123456789abcdef0123456789abcdef"
has "CIFAR-10 MD5" "spa-eng (Tatoeba/Anki corpus): in place"
has "CIFAR-10 MD5" "CIFAR-10 (binary version): FAILED"
[ ! -e "$tmp/data8/cifar10" ] || fail "CIFAR-10 files installed after a wrong MD5"
run "$tmp/data8" "$base/good" DLS_CIFAR10_URL="$base/badcifar.tar.gz" DLS_CIFAR10_MD5="$badcifar_md5"
[ $status -ne 0 ] || fail "a CIFAR-10 batch of partial records was accepted"
has "CIFAR-10 records" "test_batch.bin in $base/badcifar.tar.gz is 3000 bytes, not records of 3,073"
[ ! -e "$tmp/data8/cifar10" ] || fail "CIFAR-10 files installed from a bad archive"
no_partial_files "$tmp/data8"

echo "fetch_data.sh: all checks passed"
