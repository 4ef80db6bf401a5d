#!/usr/bin/env bash
# Fills .deps/ (git-ignored) with what bench/gpu_check.sh needs on a GPU machine that has a
# CUDA PyTorch but no Debian packages and no network: the Debian packages of the project's
# other dependencies (and of the libraries they load), the two data sets and the PyTorch anchor.
# Usage, on the Debian 12 development machine: bash bench/gpu_prepare.sh
# (IMAGES=0: without Fashion-MNIST, for the parts that train no ViT: build, graphs, anchors)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps/debs .deps/data/spa-eng .deps/data/fashion-mnist .deps/anchors
# Headers and libraries the build links, then the shared libraries those load (cairo's
# drawing and font stack, SentencePiece's protobuf-lite, libjpeg-turbo for JPEG images), the
# font, and pkgconf.
packages=(libcli11-dev libspdlog-dev libspdlog1.10 libfmt-dev libfmt9 libgtest-dev
          libutf8proc-dev libutf8proc2 nlohmann-json3-dev zlib1g-dev zlib1g
          libsentencepiece-dev libsentencepiece0 libprotobuf-lite32
          libcairo2-dev libcairo2 libpixman-1-0 libfontconfig1 libfreetype6 libpng16-16 libxcb-shm0 libxcb1
          libxcb-render0 libxrender1 libx11-6 libx11-data libxext6 libexpat1 libbrotli1 libxau6 libxdmcp6
          libbsd0 libmd0 fontconfig-config fonts-dejavu-core pkgconf pkgconf-bin libpkgconf3
          libcpp-httplib-dev libcpp-httplib0.11 libssl-dev libssl3 libbrotli-dev libboost1.74-dev
          libjpeg62-turbo-dev libjpeg62-turbo)
(cd .deps/debs && rm -f ./*.deb && apt-get download "${packages[@]}")
corpus=${DLS_DATA_DIR:-../shared/data}/spa-eng/spa.txt
[ -f "$corpus" ] && cp "$corpus" .deps/data/spa-eng/ || echo "no $corpus: the GPU runs on the real corpus will be skipped"
# Fashion-MNIST (30 MB) only for the ViT's parts: what travels holds 64 MiB in all.
rm -f .deps/data/fashion-mnist/*.gz
[ "${IMAGES:-1}" = 0 ] || cp /usr/share/datasets/fashion-mnist/*.gz .deps/data/fashion-mnist/
# The PyTorch anchor (gpu_check.sh anchors): ../shared does not travel to the GPU machine.
cp ../shared/anchors/pytorch_step.py .deps/anchors/
du -sh .deps
