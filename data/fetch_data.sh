#!/usr/bin/env bash
# Downloads the real data into $DLS_DATA_DIR (`make data` runs this):
#   spa-eng/spa.txt, spa-eng/_about.txt    Tatoeba/Anki English–Spanish pairs
#                                          (manythings.org/anki spa-eng.zip, unpacked)
#   dlstudio/en_es_xformer_8_90000.tar.gz  DLStudio's 90,000-pair archive (and its
#   dlstudio/en_es_xformer_8_10000.tar.gz  10,000-pair sibling), unpacked from DLStudio's
#                                          en_es_corpus_for_learning_with_Transformers.tar.gz
#   cifar10/cifar-10-batches-bin/*.bin     CIFAR-10's binary version (vit_train --dataset
#                                          cifar10 --data-dir $DLS_DATA_DIR/cifar10), from
#                                          cifar-10-binary.tar.gz, checked against the MD5 its
#                                          page publishes before it is unpacked
# The three sources are fetched independently: one failing does not stop the other; a summary
# ends the run, and the exit status is non-zero when any source failed.
# A no-op for files already there and verified. Every file is downloaded and unpacked into
# a temporary folder inside $DLS_DATA_DIR, checked, and only then renamed into place: an
# interrupted or failed run leaves no partial file.
#
# Editions. A source may serve a newer edition of its data than the one this project was
# measured on. The known editions are SHA-256 lines (sha256sum's format, `HASH  FILE`):
# data/SHA256SUMS (or $DLS_DATA_MANIFEST), then $DLS_DATA_DIR/SHA256SUMS (hashes recorded
# here). A file may have any number of lines, one per known edition: adding an edition is
# adding one line per file it changes, which the script prints ready to paste (a new Anki
# edition changes spa.txt, and _about.txt's date). A download whose hash is not among its
# file's known ones is an unknown edition (or a corrupted download): nothing of that source is
# installed, and the message names the file, its hash, the known ones and what to do.
# Files with no known hash at all (DLStudio's archives: no published one exists) are
# checked to be gzip files and their hash is recorded on first download (trust on first
# use; it says so when it happens), then verified against that record.
#
# Usage: fetch_data.sh [--accept-unknown-edition]
#   --accept-unknown-edition  (or DLS_ACCEPT_UNKNOWN_EDITION=1) install an unknown edition
#                      after you have checked it, and record its hash in
#                      $DLS_DATA_DIR/SHA256SUMS so that later runs verify against it
# Settings (environment):
#   DLS_DATA_DIR       where the data goes (default ${XDG_DATA_HOME:-~/.local/share}/dlstudio-cpp,
#                      where the programs look when DLS_DATA_DIR is not set)
#   DLS_DATA_BASE_URL  fetch every archive from this one place (a mirror, or a test server)
#   DLS_SPA_ENG_URL    the Anki zip (default https://www.manythings.org/anki/spa-eng.zip)
#   DLS_XFORMER_URL    DLStudio's archive. Default: DLStudio's download folder
#                      https://engineering.purdue.edu/kak/distDLS/ + the archive name that
#                      DLStudio's documentation gives. The folder is confirmed (DLStudio's
#                      releases are there); the full address of this archive is inferred
#                      from the documentation's relative links, not confirmed: override it
#                      when it moves.
#   DLS_CIFAR10_URL    CIFAR-10's binary archive (default
#                      https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz)
#   DLS_CIFAR10_MD5    the archive's MD5 (default: the one https://www.cs.toronto.edu/~kriz/cifar.html
#                      publishes, c32a1d4ab5d03f1284b67883e8d87530)
#   DLS_DATA_MANIFEST  the file of known SHA-256 sums (default: data/SHA256SUMS)
#   DLS_ACCEPT_UNKNOWN_EDITION=1  as --accept-unknown-edition
# Outside programs: curl, unzip, sha256sum, md5sum, tar, gzip, awk, grep, find, and coreutils.
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
default_data_dir=${XDG_DATA_HOME:-$HOME/.local/share}/dlstudio-cpp
data_dir=${DLS_DATA_DIR:-$default_data_dir}
manifest=${DLS_DATA_MANIFEST:-$script_dir/SHA256SUMS}
spa_url=${DLS_SPA_ENG_URL:-${DLS_DATA_BASE_URL:-https://www.manythings.org/anki}/spa-eng.zip}
xformer_url=${DLS_XFORMER_URL:-${DLS_DATA_BASE_URL:-https://engineering.purdue.edu/kak/distDLS}/en_es_corpus_for_learning_with_Transformers.tar.gz}
cifar_url=${DLS_CIFAR10_URL:-${DLS_DATA_BASE_URL:-https://www.cs.toronto.edu/~kriz}/cifar-10-binary.tar.gz}
cifar_md5=${DLS_CIFAR10_MD5:-c32a1d4ab5d03f1284b67883e8d87530}
recorded="$data_dir/SHA256SUMS"  # hashes recorded here (first downloads, accepted editions)
accept_unknown=${DLS_ACCEPT_UNKNOWN_EDITION:-0}
# manythings.org refuses clients that do not look like a browser.
user_agent="Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

die() { echo "fetch_data: error: $*" >&2; exit 1; }
say() { echo "fetch_data: $*"; }

for arg in "$@"; do
  case $arg in
    --accept-unknown-edition) accept_unknown=1 ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) die "unknown argument '$arg' (see $0 --help)" ;;
  esac
done
[ "$accept_unknown" = 0 ] || accept_unknown=1

for tool in curl sha256sum md5sum unzip tar gzip awk grep find; do
  command -v "$tool" >/dev/null || die "'$tool' is not installed (Debian: make deps installs it)"
done
[ -r "$manifest" ] || die "cannot read the checksum list $manifest"

# The known SHA-256s of a file (path relative to $data_dir), one per line: every line for
# it in the manifest and in the record. Lines starting with # are comments.
known_sha256s() {
  local file=$1 sums
  for sums in "$manifest" "$recorded"; do
    [ -r "$sums" ] || continue
    awk -v f="$file" '$1 !~ /^#/ && ($2 == f || $2 == "*" f) { print $1 }' "$sums"
  done | awk '!seen[$0]++'
}

is_known() {  # hash file -> true when hash is one of file's known ones
  known_sha256s "$2" | grep -qxF "$1"
}

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# True when every file (relative paths) is in place with a known SHA-256 (or none known).
# A file in place with another hash fails the source: it is reported, never replaced.
all_present() {
  local file got
  for file in "$@"; do
    [ -f "$data_dir/$file" ] || return 1
  done
  for file in "$@"; do
    [ -n "$(known_sha256s "$file")" ] || continue
    got=$(sha256_of "$data_dir/$file")
    is_known "$got" "$file" ||
      die "$data_dir/$file exists but its SHA-256 is $got, not a known one" \
          "($(known_sha256s "$file" | paste -sd' ' -));" \
          "remove it to download it again"
  done
}

download() {  # url destination
  local url=$1 out=$2 status=0 http_code
  say "downloading $url"
  http_code=$(curl --fail --location --silent --retry 2 --connect-timeout 20 \
                   --user-agent "$user_agent" --output "$out" --write-out '%{http_code}' "$url") || status=$?
  case $status in
    0) ;;
    5|6|7|28) die "cannot download $url (curl exit $status: no connection)." \
                  "Are you offline? Set DLS_DATA_BASE_URL to a mirror, or put the files into $data_dir by hand" ;;
    22) die "cannot download $url: HTTP $http_code (moved? set its URL, see $0)" ;;
    *) die "cannot download $url (curl exit $status)" ;;
  esac
}

# Checks the downloaded files (in $work, relative paths) of one source against their known
# hashes. Files with none are recorded (trust on first use). Unknown editions stop the
# source with one message, unless accepted, when their hashes are recorded too.
verify() {  # source_name url file...
  local name=$1 url=$2 file got known unknown=() lines=()
  shift 2
  for file in "$@"; do
    got=$(sha256_of "$work/$file")
    known=$(known_sha256s "$file" | paste -sd' ' -)
    if [ -z "$known" ]; then
      say "$file: no published SHA-256; recording $got in $recorded (trust on first use)"
      new_records+=("$got  $file")
    elif is_known "$got" "$file"; then
      say "$file: SHA-256 verified (a known edition)"
    else
      unknown+=("$file has SHA-256 $got, known: $known")
      lines+=("'$got  $file'")
      new_records+=("$got  $file")
    fi
  done
  [ ${#unknown[@]} -gt 0 ] || return 0
  local what
  what=$(printf '%s; ' "${unknown[@]}")
  if [ "$accept_unknown" = 1 ]; then
    say "$name: accepting an unknown edition (DLS_ACCEPT_UNKNOWN_EDITION=1): ${what%; };" \
        "recording its hashes in $recorded"
    return 0
  fi
  die "$name: $url is an edition this script does not know (or a corrupted download):" \
      "${what%; }. Nothing of $name was installed. If the source now serves a newer" \
      "edition, check the file and accept it with 'DLS_ACCEPT_UNKNOWN_EDITION=1 make data'" \
      "(or data/fetch_data.sh --accept-unknown-edition), or add the line(s) ${lines[*]}" \
      "to $manifest; else try again later"
}

# Renames the verified files into place and appends new records.
install_files() {  # file...
  local file
  for file in "$@"; do
    mkdir -p "$(dirname "$data_dir/$file")"
    mv -f "$work/$file" "$data_dir/$file"
  done
  if [ ${#new_records[@]} -gt 0 ]; then
    printf '%s\n' "${new_records[@]}" >>"$recorded"
  fi
  new_records=()
}

# --- the sources: each runs in its own subshell, where die ends only that source --------
spa_files=(spa-eng/spa.txt spa-eng/_about.txt)
fetch_spa_eng() {
  if all_present "${spa_files[@]}"; then
    say "spa-eng: up to date in $data_dir/spa-eng"
    return
  fi
  download "$spa_url" "$work/spa-eng.zip"
  mkdir -p "$work/spa-eng"
  unzip -q -o "$work/spa-eng.zip" spa.txt _about.txt -d "$work/spa-eng" ||
    die "$spa_url is not a zip with spa.txt and _about.txt"
  verify spa-eng "$spa_url" "${spa_files[@]}"
  install_files "${spa_files[@]}"
  say "spa-eng: installed in $data_dir/spa-eng"
}

xformer_files=(dlstudio/en_es_xformer_8_90000.tar.gz dlstudio/en_es_xformer_8_10000.tar.gz)
fetch_xformer() {
  local file found
  if all_present "${xformer_files[@]}"; then
    say "DLStudio archives: up to date in $data_dir/dlstudio"
    return
  fi
  download "$xformer_url" "$work/xformer.tar.gz"
  mkdir -p "$work/unpacked" "$work/dlstudio"
  tar -xzf "$work/xformer.tar.gz" -C "$work/unpacked" || die "$xformer_url is not a gzip'd tar archive"
  for file in "${xformer_files[@]}"; do
    found=$(find "$work/unpacked" -type f -name "$(basename "$file")" | head -n 1)
    [ -n "$found" ] || die "$xformer_url holds no $(basename "$file")"
    # Despite the name each is a gzip'd Python pickle: an HTML error page fails here.
    gzip -t "$found" 2>/dev/null || die "$(basename "$file") in $xformer_url is not a gzip file"
    mv "$found" "$work/$file"
  done
  verify "DLStudio archives" "$xformer_url" "${xformer_files[@]}"
  install_files "${xformer_files[@]}"
  say "DLStudio archives: installed in $data_dir/dlstudio"
}

# CIFAR-10's binary version: five training batches and the test batch of 10,000 records of
# 3,073 bytes (a label byte, then 32x32x3 pixels), and the class names.
cifar_files=(cifar10/cifar-10-batches-bin/data_batch_1.bin cifar10/cifar-10-batches-bin/data_batch_2.bin
             cifar10/cifar-10-batches-bin/data_batch_3.bin cifar10/cifar-10-batches-bin/data_batch_4.bin
             cifar10/cifar-10-batches-bin/data_batch_5.bin cifar10/cifar-10-batches-bin/test_batch.bin
             cifar10/cifar-10-batches-bin/batches.meta.txt)
fetch_cifar10() {
  local file got size
  if all_present "${cifar_files[@]}"; then
    say "CIFAR-10: up to date in $data_dir/cifar10"
    return
  fi
  download "$cifar_url" "$work/cifar-10-binary.tar.gz"
  got=$(md5sum "$work/cifar-10-binary.tar.gz" | cut -d' ' -f1)
  [ "$got" = "$cifar_md5" ] ||
    die "CIFAR-10: $cifar_url has MD5 $got, not the published $cifar_md5 (a corrupted download, or" \
        "another file at that address); nothing of CIFAR-10 was installed"
  say "CIFAR-10: the archive's MD5 matches the published one"
  mkdir -p "$work/cifar10"
  tar -xzf "$work/cifar-10-binary.tar.gz" -C "$work/cifar10" || die "$cifar_url is not a gzip'd tar archive"
  for file in "${cifar_files[@]}"; do
    [ -f "$work/$file" ] || die "$cifar_url holds no ${file#cifar10/}"
    size=$(wc -c <"$work/$file")
    case $file in
      *.bin) [ $((size % 3073)) -eq 0 ] && [ "$size" -gt 0 ] ||
               die "${file#cifar10/} in $cifar_url is $size bytes, not records of 3,073" ;;
    esac
  done
  verify CIFAR-10 "$cifar_url" "${cifar_files[@]}"
  install_files "${cifar_files[@]}"
  say "CIFAR-10: installed in $data_dir/cifar10 (vit_train --dataset cifar10 --data-dir $data_dir/cifar10)"
}

mkdir -p "$data_dir" || die "cannot create $data_dir"
trap 'exit 130' INT TERM

results=() failed=0 spa_ok=0
run_source() {  # name function -> $? of the source in $source_status
  local status=0
  set +e
  (
    set -e
    work=$(mktemp -d "$data_dir/.fetch.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    trap 'exit 130' INT TERM
    new_records=()
    "$2"
  )
  status=$?
  set -e
  source_status=$status
  [ $status -ne 130 ] || exit 130
  if [ $status -eq 0 ]; then
    results+=("  $1: in place")
  else
    results+=("  $1: FAILED (the reason is above)")
    failed=$((failed + 1))
  fi
}
run_source "spa-eng (Tatoeba/Anki corpus)" fetch_spa_eng
[ "$source_status" -ne 0 ] || spa_ok=1
run_source "DLStudio archives" fetch_xformer
run_source "CIFAR-10 (binary version)" fetch_cifar10

say "summary ($data_dir):"
printf '%s\n' "${results[@]}"
if [ $failed -gt 0 ]; then
  say "$failed of 3 sources failed"
  if [ $spa_ok = 1 ]; then
    say "the Tatoeba corpus, all that make demo and the programs' default need, is in place"
  fi
  exit 1
fi
if [ "$data_dir" = "$default_data_dir" ]; then
  say "done: the programs and make demo look in $data_dir by default"
else
  say "done: export DLS_DATA_DIR=$data_dir so that the programs and make demo find the data"
fi
