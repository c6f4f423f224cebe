#!/usr/bin/env bash
# New connections per second and a reconnect storm, lbd against HAProxy and
# against the floor (bench/tools/floorproxy.c) in the same run: see
# bench/lbd_conn_bench.py.
#   bench/conn-run.sh [--rounds N] [--seconds S] [--threads 1,2] [--patterns req,banner,tls,storm]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build >/dev/null
cmake --build build -j "$(nproc)" --target lbd cpha-bench-conn cpha-bench-floor >/dev/null
exec /usr/bin/python3 bench/lbd_conn_bench.py "$@"
