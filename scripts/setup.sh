#!/usr/bin/env bash
# Install every Debian 12 package that building, testing and benchmarking cpha
# needs, and the local archive piuparts runs from (scripts/piuparts-archive.sh).
# Idempotent and non-interactive; prints nothing when nothing is missing.
# Package services are never started by the install (policy-rc.d), because the
# tests start their own instances of haproxy, keepalived, etcd and corosync.
set -euo pipefail

packages=(
	# build
	build-essential cmake pkg-config git xsltproc
	libsystemd-dev libssl-dev libcrypt-dev libcurl4-openssl-dev libjansson-dev libyaml-dev
	libnl-3-dev libnl-route-3-dev libcmocka-dev libmicrohttpd-dev libc-ares-dev
	pacemaker-dev libcpg-dev libquorum-dev libvotequorum-dev libcmap-dev
	libcorosync-common-dev
	# Debian packages (debian/, tests/package): build, check, install, run
	# their debian/tests (autopkgtest, null runner), piuparts from a local
	# archive
	debhelper dpkg-dev fakeroot lintian autopkgtest piuparts mmdebstrap apt-utils
	# fuzzing and sanitizers
	clang libclang-rt-14-dev
	# tests and peers (never linked)
	python3 python3-yaml python3-jsonschema openssl curl iproute2 iputils-ping procps psmisc util-linux groff-base
	etcd-server etcd-client haproxy keepalived frr
	pacemaker pacemaker-cli-utils corosync pcs resource-agents fence-agents
	corosync-qdevice corosync-qnetd
	iperf3 wrk tcpdump nftables openipmi ipmitool
	prometheus prometheus-alertmanager prometheus-node-exporter prometheus-haproxy-exporter
)

if [ "$(id -u)" -ne 0 ]; then
	echo "setup.sh: must run as root (it installs Debian packages)" >&2
	exit 1
fi

here=$(cd "$(dirname "$0")" && pwd)
# piuparts' local archive: a download that fails (no mirror reachable)
# costs that one check (package.debian says so), not the whole setup
archive() {
	bash "$here/piuparts-archive.sh" ||
		echo "setup.sh: piuparts' local archive could not be made (above): package.debian will fail on it" >&2
	return 0
}
missing=()
for p in "${packages[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	archive
	exit 0
fi

echo "setup.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Keep package maintainer scripts from starting daemons on a machine without
# systemd as PID 1 (they would hold ports the tests need).
# CPHA_POLICY_RC_D moves it for tests/install/test-setup.sh only.
policy=${CPHA_POLICY_RC_D:-/usr/sbin/policy-rc.d}
own_policy=0
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod 0755 "$policy"
	own_policy=1
fi
# An EXIT trap's last status becomes the script's under set -e: end on true.
cleanup() {
	if [ "$own_policy" -eq 1 ]; then
		rm -f "$policy"
	fi
	return 0
}
trap cleanup EXIT

apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
archive
echo "setup.sh: done"
