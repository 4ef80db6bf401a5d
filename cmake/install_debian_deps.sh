#!/usr/bin/env bash
# Installs the Debian 12 packages that dlstudio-cpp needs, skipping those already present.
# Usage: cmake/install_debian_deps.sh [build|test|bench|fuzz] [--print]
#   (test and bench include build's; --print lists the set's packages and installs nothing)
set -euo pipefail
cd "$(dirname "$0")/.."

set_name=${1:-build}
print=${2:-}
# libgloo-dev: the headers LibTorch's c10d ProcessGroupGloo needs (multi-process training).
# ccache: a clean build of sources built before on this machine (a fresh clone, as CI
# makes) takes its objects from the cache (cmake/DlsCompilerCache.cmake).
# libutf8proc-dev: Unicode tables (NFC, lowercasing, categories) for the corpus text;
# nlohmann-json3-dev: the JSON that the programs write; libsentencepiece-dev: subword
# units (seq2seq_train --tokenizer sentencepiece).
# libcairo2-dev, fonts-dejavu-core: the pictures (lines, text in DejaVu Sans, PNG).
# libjpeg-dev: JPEG images (vit_train --image-folder, checkpoint_eval --classify).
# libboost-dev: translate_server's HTTP server (Boost.Beast, header-only);
# libcpp-httplib-dev: the HTTP client of its tests and benchmark.
# curl, ca-certificates, unzip: `make data` (data/fetch_data.sh) downloads and unpacks.
packages=(cmake g++ make pkg-config zlib1g-dev ccache
          libtorch-dev libgloo-dev libcli11-dev libspdlog-dev libfmt-dev libgtest-dev
          libutf8proc-dev nlohmann-json3-dev libsentencepiece-dev libcairo2-dev fonts-dejavu-core libjpeg-dev
          libboost-dev libcpp-httplib-dev
          curl ca-certificates unzip
          libopenblas0-openmp dataset-fashion-mnist)
case "$set_name" in
  build) ;;
  # What the tests run from outside the project: the packages of tests/outside_needs.tsv
  # (Python and its torch and NLTK for the cross-checks, torchrun, curl, unzip).
  test)  mapfile -t listed < <(awk -F'\t' '!/^#/ && NF == 4 { print $3 }' tests/outside_needs.tsv | sort -u)
         packages+=("${listed[@]}") ;;
  bench) packages+=(python3 python3-nltk python3-torch) ;;  # Python reference models
  fuzz)  packages+=(clang libfuzzer-14-dev) ;;        # make fuzz: libFuzzer targets (tests/fuzz)
  *) echo "usage: $0 [build|test|bench|fuzz]" >&2; exit 2 ;;
esac

if [ "$print" = --print ]; then echo "${packages[*]}"; exit 0; fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing missing Debian packages: ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "error: run as root (or install sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists once if they are missing or a package cannot be found.
if ! "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"; then
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
