# The README's commands. Each installs what it needs first (scripts/setup-deps is
# idempotent), so both work on a fresh Debian 12 machine as root.
BUILD_DIR ?= build
CTEST_JOBS ?= 2
# The board's mode for `make demo`: i686 (32-bit protected mode) or x86_64 (long mode).
ARCH ?= i686

PREFIX ?= /usr/local

# Python with the tests' helper package (tests/acarttest) importable, for the benchmarks.
PYTHON_TESTS = PYTHONPATH=$(CURDIR)/tests python3

.PHONY: all deps build install test demo readme-picture bench fuzz soak format lint clean

all: build

deps:
	scripts/setup-deps

build: deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
	ninja -C $(BUILD_DIR)

# Both architectures side by side: lib/i686/ and lib/x86_64/ (libacart.a, libacart_x86.a,
# libacart_perfmon.a, pkgconfig/), include/acart/, lib/cmake/acart/; and the host tool:
# bin/acart, share/man/man1/acart*.1, share/bash-completion/completions/acart.
install: build
	cmake --install $(BUILD_DIR)/target --prefix $(PREFIX)
	cmake --install $(BUILD_DIR)/target-x86_64 --prefix $(PREFIX)
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(CTEST_JOBS)

demo: build
	scripts/demo $(BUILD_DIR) $(ARCH)

# The README's picture: the demo's flame graph (the test tools_readme_picture renders it).
readme-picture: build
	mkdir -p docs/images
	scripts/demo $(BUILD_DIR) i686 docs/images/demo-flamegraph.svg

# Benchmarks write their numbers to bench/results/; they are not tests.
# Both architectures side by side: the i686 run writes each file, the x86_64 run adds to it.
IMAGE_I686 = $(BUILD_DIR)/target/boards/qemu-pc/acart-qemu-pc.elf
IMAGE_X86_64 = $(BUILD_DIR)/target-x86_64/boards/qemu-pc/acart-qemu-pc.elf
bench: build
	$(PYTHON_TESTS) bench/boot_bench.py --image $(IMAGE_I686)
	$(PYTHON_TESTS) bench/board_bench.py --image $(IMAGE_I686)
	$(PYTHON_TESTS) bench/sample_cost.py --image $(IMAGE_I686) --acart $(BUILD_DIR)/tools/acart
	$(PYTHON_TESTS) bench/sample_cost.py --image $(IMAGE_X86_64) --acart $(BUILD_DIR)/tools/acart \
	  --append
	$(PYTHON_TESTS) bench/drain_cost.py --image $(IMAGE_I686)
	$(PYTHON_TESTS) bench/drain_cost.py --image $(IMAGE_X86_64) --append
	-ninja -C $(BUILD_DIR) bench-tb5
	ninja -C $(BUILD_DIR) bench-pt
	ninja -C $(BUILD_DIR) bench-pt-ratio
	python3 bench/footprint.py --lib $(BUILD_DIR)/target/runtime/libacart.a \
	  --lib $(BUILD_DIR)/target-x86_64/runtime/libacart.a \
	  --minimal-lib $(BUILD_DIR)/target-minimal/runtime/libacart.a

# The fuzzing campaign: every libFuzzer target from its corpus; figures to bench/results/fuzz.txt.
# FUZZ_ARGS passes options to bench/fuzz.py (e.g. --runs-for tb5=3000000 --parallel 2).
fuzz: build
	python3 bench/fuzz.py --build $(BUILD_DIR) $(FUZZ_ARGS)

# Mutation checks: each mutation of tests/mutants/mutants.txt in a scratch copy, the
# tests that should catch it; results in bench/results/mutants.txt.
mutants: deps
	python3 scripts/mutants.py

# Back-to-back collections on the board for SOAK_MINUTES (half per transfer mode); writes
# bench/results/soak.txt. Not a test.
SOAK_MINUTES ?= 60
soak: build
	$(PYTHON_TESTS) bench/soak.py --image $(BUILD_DIR)/target/boards/qemu-pc/acart-qemu-pc.elf \
	  --minutes $(SOAK_MINUTES)

format:
	git ls-files '*.c' '*.h' | xargs clang-format -i

lint:
	git ls-files '*.c' '*.h' | xargs clang-format --dry-run --Werror
	cppcheck --enable=warning,style,performance,portability --error-exitcode=1 --inline-suppr -q \
	  --suppress=missingIncludeSystem -D__GNUC__ -I runtime/include -I runtime/wire $(addprefix -I runtime/,agent commands sampling iprobe pt uncore) \
	  -I arch/x86/cpu -I arch/x86/pmu -I arch/x86/kit \
	  $$(git ls-files '*.c' | grep -v '^tests/\(pmu\|sim\)/')
	# The simulated CPU and board (tests/sim) and the tests on them (tests/pmu) are built with
	# these definitions (tests/sim/CMakeLists.txt, tests/pmu/CMakeLists.txt).
	cppcheck --enable=warning,style,performance,portability --error-exitcode=1 --inline-suppr -q \
	  --suppress=missingIncludeSystem -D__GNUC__ -DACART_SIM -DACA_MAX_CPUS=3 -DSHIM_SIM_CPU=0 \
	  -I runtime/include -I runtime/wire $(addprefix -I runtime/,agent commands sampling iprobe pt uncore) \
	  -I arch/x86/cpu -I arch/x86/pmu -I arch/x86/kit -I tests/sim \
	  $$(git ls-files 'tests/pmu/*.c' 'tests/sim/*.c')

clean:
	rm -rf $(BUILD_DIR)
