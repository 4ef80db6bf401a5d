#!/usr/bin/env bash
# Downloads the real data into $DLS_DATA_DIR (`make data` runs this):
#   spa-eng/spa.txt, spa-eng/_about.txt    Tatoeba/Anki English–Spanish pairs
#                                          (manythings.org/anki spa-eng.zip, unpacked)
#   dlstudio/en_es_xformer_8_90000.tar.gz  DLStudio's 90,000-pair archive (and its
#   dlstudio/en_es_xformer_8_10000.tar.gz  10,000-pair sibling), unpacked from DLStudio's
#                                          en_es_corpus_for_learning_with_Transformers.tar.gz
# A no-op for files already there and verified. Every file is downloaded and unpacked into
# a temporary folder inside $DLS_DATA_DIR, checked, and only then renamed into place: an
# interrupted or failed run leaves no partial file.
#
# Checks: files listed in data/SHA256SUMS (or $DLS_DATA_MANIFEST) must have that SHA-256;
# for the others no published hash exists, so the script checks that they are gzip files,
# records their SHA-256 in $DLS_DATA_DIR/SHA256SUMS on first download, and verifies them
# against that record afterwards (trust on first use; it says so when it happens).
#
# Settings (environment):
#   DLS_DATA_DIR       where the data goes (default ${XDG_DATA_HOME:-~/.local/share}/dlstudio-cpp)
#   DLS_DATA_BASE_URL  fetch every archive from this one place (a mirror, or a test server)
#   DLS_SPA_ENG_URL    the Anki zip (default https://www.manythings.org/anki/spa-eng.zip)
#   DLS_XFORMER_URL    DLStudio's archive. Default: DLStudio's download folder
#                      https://engineering.purdue.edu/kak/distDLS/ + the archive name that
#                      DLStudio's documentation gives. The folder is confirmed (DLStudio's
#                      releases are there); the full address of this archive is inferred
#                      from the documentation's relative links, not confirmed: override it
#                      when it moves.
#   DLS_DATA_MANIFEST  the file of expected SHA-256 sums (default: data/SHA256SUMS)
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
data_dir=${DLS_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/dlstudio-cpp}
manifest=${DLS_DATA_MANIFEST:-$script_dir/SHA256SUMS}
spa_url=${DLS_SPA_ENG_URL:-${DLS_DATA_BASE_URL:-https://www.manythings.org/anki}/spa-eng.zip}
xformer_url=${DLS_XFORMER_URL:-${DLS_DATA_BASE_URL:-https://engineering.purdue.edu/kak/distDLS}/en_es_corpus_for_learning_with_Transformers.tar.gz}
recorded="$data_dir/SHA256SUMS"  # hashes recorded on first download (no published ones)
# manythings.org refuses clients that do not look like a browser.
user_agent="Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

die() { echo "fetch_data: error: $*" >&2; exit 1; }
say() { echo "fetch_data: $*"; }

for tool in curl sha256sum unzip tar gzip; do
  command -v "$tool" >/dev/null || die "'$tool' is not installed (Debian: make deps installs it)"
done
[ -r "$manifest" ] || die "cannot read the checksum list $manifest"

# The expected SHA-256 of a file (path relative to $data_dir): the manifest's, else the
# one recorded on first download, else nothing.
expected_sha256() {
  local file=$1 sums hash
  for sums in "$manifest" "$recorded"; do
    [ -r "$sums" ] || continue
    hash=$(awk -v f="$file" '$2 == f || $2 == "*" f { print $1; exit }' "$sums")
    if [ -n "$hash" ]; then
      echo "$hash"
      return
    fi
  done
}

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# True when every file (relative paths) is in place with its expected SHA-256.
all_present() {
  local file want
  for file in "$@"; do
    [ -f "$data_dir/$file" ] || return 1
    want=$(expected_sha256 "$file")
    if [ -n "$want" ] && [ "$(sha256_of "$data_dir/$file")" != "$want" ]; then
      die "$data_dir/$file exists but its SHA-256 is $(sha256_of "$data_dir/$file"), expected $want;" \
          "remove it to download it again"
    fi
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

# Checks `tmp_file` against the expected SHA-256 of `file`; without one, records it.
verify() {  # tmp_file file
  local got want
  got=$(sha256_of "$1")
  want=$(expected_sha256 "$2")
  if [ -n "$want" ]; then
    [ "$got" = "$want" ] || die "$2 from the download has SHA-256 $got, expected $want" \
                               "(corrupted download, or another edition of the data: nothing was installed)"
    say "$2: SHA-256 verified"
  else
    say "$2: no published SHA-256; recording $got in $recorded (trust on first use)"
    new_records+=("$got  $2")
  fi
}

# Renames the verified files into place and appends new records.
install_files() {  # tmp_folder file...
  local tmp=$1 file
  shift
  for file in "$@"; do
    mkdir -p "$(dirname "$data_dir/$file")"
    mv -f "$tmp/$file" "$data_dir/$file"
  done
  if [ ${#new_records[@]} -gt 0 ]; then
    printf '%s\n' "${new_records[@]}" >>"$recorded"
  fi
  new_records=()
}

mkdir -p "$data_dir" || die "cannot create $data_dir"
work=$(mktemp -d "$data_dir/.fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
new_records=()

spa_files=(spa-eng/spa.txt spa-eng/_about.txt)
if all_present "${spa_files[@]}"; then
  say "spa-eng: up to date in $data_dir/spa-eng"
else
  download "$spa_url" "$work/spa-eng.zip"
  mkdir -p "$work/spa-eng"
  unzip -q -o "$work/spa-eng.zip" spa.txt _about.txt -d "$work/spa-eng" ||
    die "$spa_url is not a zip with spa.txt and _about.txt"
  for file in "${spa_files[@]}"; do verify "$work/$file" "$file"; done
  install_files "$work" "${spa_files[@]}"
fi

xformer_files=(dlstudio/en_es_xformer_8_90000.tar.gz dlstudio/en_es_xformer_8_10000.tar.gz)
if all_present "${xformer_files[@]}"; then
  say "DLStudio archives: up to date in $data_dir/dlstudio"
else
  download "$xformer_url" "$work/xformer.tar.gz"
  mkdir -p "$work/unpacked" "$work/dlstudio"
  tar -xzf "$work/xformer.tar.gz" -C "$work/unpacked" || die "$xformer_url is not a gzip'd tar archive"
  for file in "${xformer_files[@]}"; do
    found=$(find "$work/unpacked" -type f -name "$(basename "$file")" | head -n 1)
    [ -n "$found" ] || die "$xformer_url holds no $(basename "$file")"
    # Despite the name each is a gzip'd Python pickle: an HTML error page fails here.
    gzip -t "$found" 2>/dev/null || die "$(basename "$file") in $xformer_url is not a gzip file"
    mv "$found" "$work/$file"
    verify "$work/$file" "$file"
  done
  install_files "$work" "${xformer_files[@]}"
fi

say "done: export DLS_DATA_DIR=$data_dir"
