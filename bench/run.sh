#!/usr/bin/env bash
# lbd against HAProxy, same machine, same run: see bench/lbd_bench.py.
#   bench/run.sh [--rounds N] [--quick]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build >/dev/null
cmake --build build -j "$(nproc)" --target lbd cpha-bench-rate >/dev/null
exec /usr/bin/python3 bench/lbd_bench.py "$@"
