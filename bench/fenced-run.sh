#!/usr/bin/env bash
# fenced + vipd against Pacemaker, same machine, same run: see bench/fenced_bench.py.
#   bench/fenced-run.sh [--rounds N]
# Needs root (network namespaces). A run of 3 rounds takes about 4 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build >/dev/null
cmake --build build -j "$(nproc)" --target fenced vipd >/dev/null
exec /usr/bin/python3 bench/fenced_bench.py "$@"
