#!/usr/bin/env bash
# The main job, from a fresh clone on Debian 12 as root: installs what is
# missing, builds, and runs the lab: `cpha lab up`, every scenario for the
# cpha stack (lbd + vipd + fenced) and then for HAProxy + keepalived, the
# report in ./lab-report (report.md, report.json, timeline.svg), and
# `cpha lab down` — also on failure or Ctrl-C: no namespace or process left.
# Scenarios can be named as arguments (default: all of them).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" != 0 ]; then
	echo "main.sh: run as root (the lab makes network namespaces and mounts)" >&2
	exit 1
fi
say() { printf '[main %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

say "setting up what is missing (scripts/setup.sh)"
bash scripts/setup.sh
say "building"
cmake -S . -B build >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
cpha=$PWD/build/control-plane/cpha

down() {
	trap - EXIT INT TERM
	say "taking the lab down"
	"$cpha" lab --name main down || true
}
trap down EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$cpha" lab --name main down >/dev/null 2>&1 || true
say "cpha lab up: three masters, two load-balancer hosts, a client, BMCs"
"$cpha" lab --name main up
say "cpha lab run --peer: every scenario, cpha stack then HAProxy + keepalived"
"$cpha" lab --name main run --peer --report lab-report "$@"
say "report: $PWD/lab-report/report.md"
cat lab-report/report.md
