#!/usr/bin/env bash
# vipd against keepalived, same machine, same run: see bench/vipd_bench.py.
#   bench/vipd-run.sh [--reps N] [--reps-1s N] [--quick] [--vips N] [--only 0.1|1]
# Needs root (network namespaces). A full run takes about 6 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build >/dev/null
cmake --build build -j "$(nproc)" --target vipd >/dev/null
exec /usr/bin/python3 bench/vipd_bench.py "$@"
