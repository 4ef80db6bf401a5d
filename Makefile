# Set-up and entry points. On a fresh Debian 12 machine (as root):
#   make demo   installs what is missing, builds, runs the main job
#   make test   installs what is missing, builds, runs the whole test suite
#   make data   downloads the real corpus, DLStudio's archive and CIFAR-10 into $DLS_DATA_DIR
#               (default ~/.local/share/dlstudio-cpp; see data/fetch_data.sh)
#   make format formats the C++ files as .clang-format says (make test checks it)
BUILD_DIR ?= build
JOBS      ?= $(shell nproc)
CMAKE_ARGS ?=
# What each command builds: the demo needs only the programs; the tests need everything.
PROGRAMS  := seq2seq_train vit_train lm_train checkpoint_eval translate_server
BENCH     := dls_bench dls_bench_images dls_serve_bench
FUZZ_RUNS ?= 10000000

.PHONY: all deps deps-test deps-bench configure build demo test test-asan bench fuzz data format clean

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
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS); status=$$?; \
	  bash $(CURDIR)/tests/test_summary.sh .; exit $$status

bench: deps-bench configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target $(PROGRAMS) $(BENCH)
	bash bench/side_by_side.sh $(BUILD_DIR)

# The whole suite built with AddressSanitizer and UndefinedBehaviorSanitizer. Leak checking
# is off: LibTorch and OpenBLAS keep process-lifetime allocations that it would report.
test-asan: deps-test
	@test -f build-asan/CMakeCache.txt || cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDLS_SANITIZE=ON -DDLS_BUILD_BENCH=OFF
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS); status=$$?; \
	  bash $(CURDIR)/tests/test_summary.sh .; exit $$status

# libFuzzer targets (tests/fuzz) built with clang, ASan and UBSan, FUZZ_RUNS executions each.
fuzz:
	@cmake/install_debian_deps.sh fuzz
	@test -f build-fuzz/CMakeCache.txt || cmake -S tests/fuzz -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build build-fuzz -j $(JOBS)
	tests/fuzz/run_fuzzers.sh build-fuzz $(FUZZ_RUNS)

data:
	@data/fetch_data.sh

# Formats every C++ file as .clang-format says; make test checks it (Format.ClangFormatClean).
format:
	@command -v clang-format >/dev/null || cmake/install_debian_deps.sh test
	@cmake/clang_format.sh apply

clean:
	rm -rf $(BUILD_DIR)
