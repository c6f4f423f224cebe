#!/usr/bin/env bash
# The lab's failover scenarios, cpha against HAProxy + keepalived, repeated
# and interleaved by `cpha lab run --peer`, then each figure as a ratio
# cpha/peer with a 95% bootstrap interval (bench/failover_ratio.py).
#
#   bench/failover-run.sh [--name NAME] [--repeat N] [--report DIR]
#                         [--scenarios NAME[:N],...]
#
#   --name       the lab to use (default fbench); when no lab of that name
#                is up, one is brought up (cpha lab up) and taken down at
#                the end, also on failure or Ctrl-C; a lab that was already
#                up is used as it is and left up
#   --repeat     runs per scenario and stack (default 5)
#   --scenarios  comma-separated (default lb-poweroff,lb-hang,master-poweroff);
#                NAME:N sets one scenario's count; any scenario the lab
#                knows can be named
#   --report     the report directory (default failover-report): report.md,
#                report.json, timeline.svg
#
# Root (the lab makes namespaces). The build directory is ./build, or
# CPHA_BUILD_DIR. About 25 minutes for the defaults on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."

name=fbench
repeat=5
report=failover-report
scenarios=lb-poweroff,lb-hang,master-poweroff
usage() {
	sed -n '6,7p' "$0" | sed 's/^# *//' >&2
	exit 2
}
while [ "$#" -gt 0 ]; do
	case "$1" in
	--name) name=${2:?--name needs a value}; shift 2 ;;
	--repeat) repeat=${2:?--repeat needs a value}; shift 2 ;;
	--report) report=${2:?--report needs a value}; shift 2 ;;
	--scenarios) scenarios=${2:?--scenarios needs a value}; shift 2 ;;
	-h | --help) usage ;;
	*) echo "failover-run.sh: unknown argument $1" >&2; usage ;;
	esac
done
case "$repeat" in
'' | *[!0-9]*) echo "failover-run.sh: --repeat $repeat: not a number" >&2; exit 2 ;;
esac
if [ "$(id -u)" != 0 ]; then
	echo "failover-run.sh: run as root (the lab makes network namespaces and mounts)" >&2
	exit 1
fi
say() { printf '[failover %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

# NAME -> NAME:repeat; NAME:N stays
args=()
IFS=, read -r -a list <<<"$scenarios"
for s in "${list[@]}"; do
	[ -n "$s" ] || continue
	case "$s" in
	*:*) args+=("$s") ;;
	*) args+=("$s:$repeat") ;;
	esac
done
[ "${#args[@]}" -gt 0 ] || { echo "failover-run.sh: no scenario" >&2; exit 2; }

build=${CPHA_BUILD_DIR:-$PWD/build}
say "setting up what is missing (scripts/setup.sh), building in $build"
bash scripts/setup.sh
cmake -S . -B "$build" >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
cpha=$build/control-plane/cpha

brought_up=0
down() {
	trap - EXIT INT TERM
	if [ "$brought_up" = 1 ]; then
		say "taking lab $name down (this script brought it up)"
		"$cpha" lab --name "$name" down || true
	fi
}
trap down EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if "$cpha" lab --name "$name" status >/dev/null 2>&1; then
	say "lab $name is up: using it, and leaving it up"
else
	say "cpha lab --name $name up"
	brought_up=1
	"$cpha" lab --name "$name" up
fi
say "cpha lab run --peer ${args[*]} --report $report"
"$cpha" lab --name "$name" run --peer --report "$report" "${args[@]}"
say "report: $report/report.md; cpha against the peer:"
/usr/bin/python3 bench/failover_ratio.py --scenarios "$(IFS=,; echo "${args[*]}")" \
	"$report/report.json"
