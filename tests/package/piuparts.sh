#!/usr/bin/env bash
# piuparts on the cpha packages, offline: in a fresh chroot each time it
# installs them and purges them (nothing left, nothing changed), then
# installs the previous version from an apt repository, upgrades to these
# and purges again. Its chroots come from the local archive
# scripts/piuparts-archive.sh made (a minimal Debian 12 and every package
# the cpha packages depend on), never from a mirror.
#
#   tests/package/piuparts.sh WORKDIR CURRENT_DIR PREVIOUS_DIR
#
# CURRENT_DIR and PREVIOUS_DIR hold the binary packages of this version and
# of the one before it (debug symbol packages are left out, as the archive
# would ship them apart). First it checks that piuparts fails here on a
# package that leaves a file behind, so that a pass means something.
# Everything piuparts mounted or made under WORKDIR is removed on exit,
# even when it is stopped. Root only; tests/package/test-debian.sh runs it.
set -euo pipefail
work=${1:?usage: piuparts.sh WORKDIR CURRENT_DIR PREVIOUS_DIR}
cur=${2:?usage: piuparts.sh WORKDIR CURRENT_DIR PREVIOUS_DIR}
prev=${3:?usage: piuparts.sh WORKDIR CURRENT_DIR PREVIOUS_DIR}
archive=${CPHA_PIUPARTS_ARCHIVE:-/var/cache/cpha-piuparts}
suite=bookworm
export LC_ALL=C.UTF-8

fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}
for t in piuparts apt-ftparchive dpkg-deb; do
	command -v "$t" >/dev/null || {
		echo "FAIL: $t is not installed: run scripts/setup.sh"
		exit 1
	}
done
if [ ! -s "$archive/base.tgz" ] || [ ! -s "$archive/dists/$suite/Release" ]; then
	echo "FAIL: no local archive for piuparts in $archive: run scripts/setup.sh"
	exit 1
fi

mkdir -p "$work"
work=$(cd "$work" && pwd)
pp_pid=
# unmount what a stopped piuparts left mounted in its chroots (deepest
# first), then remove them without crossing into anything still mounted
cleanup() {
	if [ -n "$pp_pid" ]; then
		kill "$pp_pid" 2>/dev/null || true
		wait "$pp_pid" 2>/dev/null || true
	fi
	local m
	while read -r m; do
		umount -l "$m" 2>/dev/null || true
	done < <(awk -v w="$work/" 'index($2, w) == 1 { print $2 }' /proc/self/mounts | sort -r)
	rm -rf --one-file-system "$work/chroots" "$work/probe"
	return 0
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
mkdir -p "$work/chroots" "$work/previous" "$work/scripts"

# the chroots' apt sources: the local archive, and the previous version
# (both bind-mounted at the same paths by piuparts)
cat >"$work/scripts/post_chroot_unpack_local_archive" <<EOF
#!/bin/sh
set -e
cat >/etc/apt/sources.list <<EOT
deb [trusted=yes] file://$archive $suite main
deb [trusted=yes] file://$work/previous ./
EOT
rm -f /etc/apt/sources.list.d/*
EOF
chmod 0755 "$work/scripts/post_chroot_unpack_local_archive"

# run_piuparts LOG ARGS...: piuparts with the local archive; its status
run_piuparts() {
	local log=$1 rc=0
	shift
	piuparts --basetgz "$archive/base.tgz" --distribution "$suite" \
		--keep-sources-list --bindmount "$archive" --bindmount "$work/previous" \
		--scriptsdir "$work/scripts" --tmpdir "$work/chroots" --no-eatmydata \
		"$@" </dev/null >"$log" 2>&1 &
	pp_pid=$!
	wait "$pp_pid" || rc=$?
	pp_pid=
	return "$rc"
}

# --- every dependency is in the archive ---------------------------------------
debs=()
for f in "$cur"/*.deb; do
	case $f in *-dbgsym_*) continue ;; esac
	debs+=("$f")
done
[ ${#debs[@]} -gt 0 ] || {
	echo "FAIL: no packages in $cur"
	exit 1
}
for f in "$prev"/*.deb; do
	case $f in *-dbgsym_*) continue ;; esac
	cp "$f" "$work/previous/"
done
(cd "$work/previous" && apt-ftparchive packages . >Packages)
[ -s "$work/previous/Packages" ] || bad "no packages in $prev"
# what apt in the chroot can install: the archive, and these packages
known=$({
	cat "$archive"/dists/"$suite"/main/binary-*/Packages | sed -n 's/^Package: //p'
	for f in "${debs[@]}"; do dpkg-deb -f "$f" Package; done
} | sort -u)
for f in "${debs[@]}"; do
	# each alternative's first choice, without versions
	for d in $(dpkg-deb -f "$f" Depends Pre-Depends | sed 's/^[A-Za-z-]*: //' | tr ',' '\n' |
		sed 's/|.*//; s/(.*//; s/:any//' | tr -d ' '); do
		grep -q -x -F "$d" <<<"$known" ||
			bad "${f##*/} depends on $d, which the local archive lacks: add it to scripts/piuparts-archive.sh's list"
	done
done
[ "$fail" -eq 0 ] || exit 1

# --- piuparts fails here on a package that leaves a file behind ---------------
t0=$SECONDS
mkdir -p "$work/probe/pkg/DEBIAN"
cat >"$work/probe/pkg/DEBIAN/control" <<EOF
Package: cpha-piuparts-probe
Version: 1
Architecture: all
Maintainer: cpha tests <root@localhost>
Description: leaves a file after its purge (tests/package/piuparts.sh)
EOF
cat >"$work/probe/pkg/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
mkdir -p /var/lib/cpha-piuparts-probe
echo left >/var/lib/cpha-piuparts-probe/state
EOF
chmod 0755 "$work/probe/pkg/DEBIAN/postinst"
dpkg-deb --root-owner-group -b "$work/probe/pkg" "$work/probe/probe.deb" >/dev/null
if run_piuparts "$work/probe.log" --no-upgrade-test "$work/probe/probe.deb"; then
	bad "piuparts passed a package that leaves /var/lib/cpha-piuparts-probe/state after its purge ($work/probe.log)"
elif ! grep -q 'FAIL: Package purging left files on system' "$work/probe.log" ||
	! grep -q '/var/lib/cpha-piuparts-probe/state' "$work/probe.log"; then
	tail -30 "$work/probe.log"
	bad "piuparts failed the probe package, but not for the file it leaves (log above)"
else
	echo "piuparts fails a package that leaves a file after its purge ($((SECONDS - t0))s)"
fi

# --- the cpha packages --------------------------------------------------------
t0=$SECONDS
echo "piuparts ${debs[*]##*/} (previous version: $(sed -n 's/^Version: //p' "$work/previous/Packages" | sort -u | paste -sd ' '))"
if ! run_piuparts "$work/piuparts.log" "${debs[@]}"; then
	grep -E '(ERROR|FAIL)' "$work/piuparts.log" | head -20
	tail -40 "$work/piuparts.log"
	bad "piuparts failed (its log above)"
else
	for want in 'PASS: Installation and purging test.' \
		'PASS: Installation, upgrade and purging tests.' 'PASS: All tests.'; do
		grep -q -F "INFO: $want" "$work/piuparts.log" || bad "piuparts did not say '$want' (the upgrade test skipped?)"
	done
	# the upgrade went from the repository's previous version to these
	for f in "${debs[@]}"; do
		p=$(dpkg-deb -f "$f" Package)
		v=$(dpkg-deb -f "$f" Version)
		grep -q "Unpacking $p ($v) over (.*~previous)" "$work/piuparts.log" ||
			bad "piuparts did not upgrade $p from the previous version to $v"
	done
	grep -E 'INFO: (PASS|Warning)' "$work/piuparts.log" | sed 's/^[0-9ms.]* INFO: /  /'
	[ "$fail" -ne 0 ] || echo "piuparts passed ($((SECONDS - t0))s)"
fi
exit "$fail"
