#!/usr/bin/env bash
# The whole test suite, from a fresh clone on Debian 12 as root: installs what
# is missing, builds three ways (warnings as errors; ASan+UBSan; libFuzzer) and
# runs the unit tests in all, a short fuzz run, then unit + integration tests.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
bash scripts/setup.sh

step() { printf '\n== %s\n' "$*"; }

step "build (warnings are errors)"
cmake -S . -B build -DCPHA_WERROR=ON >/dev/null
cmake --build build -j "$jobs"

step "build with AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build-asan -DCPHA_SANITIZE=ON -DCPHA_WERROR=ON -DCPHA_INTEGRATION=OFF >/dev/null
cmake --build build-asan -j "$jobs"

step "build libFuzzer targets (clang)"
CC=clang cmake -S . -B build-fuzz -DCPHA_FUZZ=ON -DCPHA_INTEGRATION=OFF >/dev/null
cmake --build build-fuzz -j "$jobs"

step "unit tests under ASan+UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	ctest --test-dir build-asan -L unit --output-on-failure -j "$jobs"

step "fuzz smoke run"
ctest --test-dir build-fuzz -L fuzz --output-on-failure -j "$jobs"

step "unit, install and integration tests"
ctest --test-dir build --output-on-failure -j "$jobs"
