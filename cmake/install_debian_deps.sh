#!/usr/bin/env bash
# Installs the Debian 12 packages that dlstudio-cpp needs, skipping those already present.
# Usage: cmake/install_debian_deps.sh [build|test|bench|fuzz]   (test and bench include build's)
set -euo pipefail

set_name=${1:-build}
# libgloo-dev: the headers LibTorch's c10d ProcessGroupGloo needs (multi-process training).
# ccache: a clean build of sources built before on this machine (a fresh clone, as CI
# makes) takes its objects from the cache (cmake/DlsCompilerCache.cmake).
# libutf8proc-dev: Unicode tables (NFC, lowercasing, categories) for the corpus text;
# nlohmann-json3-dev: the JSON that the programs write; libsentencepiece-dev: subword
# units (seq2seq_train --tokenizer sentencepiece).
# libcairo2-dev, fonts-dejavu-core: the pictures (lines, text in DejaVu Sans, PNG).
# curl, ca-certificates, unzip: `make data` (data/fetch_data.sh) downloads and unpacks.
packages=(cmake g++ make pkg-config zlib1g-dev ccache
          libtorch-dev libgloo-dev libcli11-dev libspdlog-dev libfmt-dev libgtest-dev
          libutf8proc-dev nlohmann-json3-dev libsentencepiece-dev libcairo2-dev fonts-dejavu-core
          curl ca-certificates unzip
          libopenblas0-openmp dataset-fashion-mnist)
case "$set_name" in
  build) ;;
  test)  packages+=(python3 python3-nltk) ;;          # NLTK cross-checks BLEU
  bench) packages+=(python3 python3-nltk python3-torch) ;;  # Python reference models
  fuzz)  packages+=(clang libfuzzer-14-dev) ;;        # make fuzz: libFuzzer targets (tests/fuzz)
  *) echo "usage: $0 [build|test|bench|fuzz]" >&2; exit 2 ;;
esac

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
