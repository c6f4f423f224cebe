#!/usr/bin/env bash
# The main job, from a fresh clone on Debian 12 as root: installs what is
# missing, builds, and runs the lab: `cpha lab up`, every scenario for the
# cpha stack (lbd + vipd + fenced) and for HAProxy + keepalived, the stacks
# interleaved, the power losses 5 times per stack and the VIP holder's
# hang 3 times (the others once), the report in
# ./lab-report (report.md,
# report.json, timeline.svg), and `cpha lab down` — also on failure or
# Ctrl-C: no namespace or process left. Scenarios can be named as
# arguments, NAME or NAME:RUNS (default: the list below). About 36 minutes
# on 2 cores.
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
say "cpha lab up: three masters, two load-balancer hosts, a client, two spare hosts, BMCs"
"$cpha" lab --name main up
if [ "$#" -eq 0 ]; then
	set -- apiserver-rolling-restart reload-under-load lb-poweroff:5 lb-hang:3 \
		master-poweroff:5 lb-partition master-partition etcd-data-loss master-rebuild \
		cert-rotation lb-upgrade etcd-quorum-loss k8s-minor-upgrade master-add master-remove
fi
say "cpha lab run --peer $*: cpha and HAProxy + keepalived, interleaved"
# keepalived preempting, as kubeadm's guide sets it up, is left to
# `cpha lab run --peer --peer-preempt lb-poweroff:N` by hand: its one run
# and the stack switches it cost paid for lb-hang's (docs/lab.md)
"$cpha" lab --name main run --peer --report lab-report "$@"
say "report: $PWD/lab-report/report.md"
cat lab-report/report.md
