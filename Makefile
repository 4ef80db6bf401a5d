# Set-up and entry points. On a fresh Debian 12 machine (as root):
#   make demo   installs what is missing, builds, runs the main job
#   make test   installs what is missing, builds, runs the whole test suite
#   make data   downloads the real corpus and DLStudio's archive into $DLS_DATA_DIR
#               (default ~/.local/share/dlstudio-cpp; see data/fetch_data.sh)
BUILD_DIR ?= build
JOBS      ?= $(shell nproc)
CMAKE_ARGS ?=
# What each command builds: the demo needs only the programs; the tests need everything.
PROGRAMS  := seq2seq_train vit_train checkpoint_eval
BENCH     := dls_bench dls_bench_images

.PHONY: all deps deps-test deps-bench configure build demo test bench data clean

all: build

deps:
	@cmake/install_debian_deps.sh build
deps-test:
	@cmake/install_debian_deps.sh test
deps-bench:
	@cmake/install_debian_deps.sh bench

configure:
	@test -f $(BUILD_DIR)/CMakeCache.txt || cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: deps configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target $(PROGRAMS)

demo: build
	bash apps/demo.sh $(BUILD_DIR)

test: deps-test configure
	cmake --build $(BUILD_DIR) -j $(JOBS)
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

bench: deps-bench configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target $(PROGRAMS) $(BENCH)
	bash bench/side_by_side.sh $(BUILD_DIR)

data:
	@data/fetch_data.sh

clean:
	rm -rf $(BUILD_DIR)
