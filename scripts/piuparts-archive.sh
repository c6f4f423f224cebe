#!/usr/bin/env bash
# The local Debian archive piuparts runs from (tests/package/piuparts.sh):
# every package of a minimal Debian 12 system (debootstrap's minbase) and
# every package the cpha packages depend on, downloaded once from Debian's
# mirror, with an apt index; and a base system made from it alone
# (base.tgz), which piuparts unpacks for each of its chroots. A test may
# not reach a mirror, so the test runs from these files only.
#
#   bash scripts/piuparts-archive.sh [DIR]      (root; default DIR below)
#
# Called by scripts/setup.sh. Idempotent: does nothing, and prints nothing,
# when DIR holds an archive made from the same list. Needs mmdebstrap and
# apt-utils (setup.sh installs them first).
set -euo pipefail

dir=${1:-${CPHA_PIUPARTS_ARCHIVE:-/var/cache/cpha-piuparts}}
suite=bookworm

# What the binary packages depend on (debian/control's Depends and the
# libraries dpkg-shlibdeps finds). tests/package/piuparts.sh checks the built
# packages' Depends against this archive and names any package missing here.
deps=(
	python3 libyaml-0-2 libc-ares2 libcurl4 libjansson4 libmicrohttpd12 libssl3
	libsystemd0 libcrypt1 libnl-3-200 libnl-route-3-200
	corosync fence-agents libcmap4 libcpg4 libvotequorum8 libcrmcommon34 libstonithd26
)

stamp="$suite ${deps[*]}"
if [ -s "$dir/base.tgz" ] && [ -s "$dir/dists/$suite/Release" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi
for t in mmdebstrap apt-ftparchive; do
	command -v "$t" >/dev/null || {
		echo "piuparts-archive.sh: $t is not installed (scripts/setup.sh installs it)" >&2
		exit 1
	}
done

echo "piuparts-archive.sh: downloading Debian $suite's minimal system and ${#deps[@]} dependencies to $dir"
mkdir -p "$dir"
new=$(mktemp -d "$dir/.new-XXXXXX")
trap 'rm -rf "$new"' EXIT
mkdir "$new/pool" "$new/lists"
# The host's Debian sources when it has them (a mirror or proxy it is set
# up for), mmdebstrap's default (deb.debian.org) otherwise.
mirror=()
for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
	if [ -s "$f" ] && grep -q '^[^#]*deb' "$f"; then
		mirror=("$f")
		break
	fi
done
# Every package installed in a throw-away chroot stays in its
# /var/cache/apt/archives (essential ones too, with essential/unlink
# skipped), which is copied out before the chroot is dropped.
mmdebstrap --quiet --variant=minbase --skip=essential/unlink \
	--include="$(
		IFS=,
		echo "${deps[*]}"
	)" \
	--customize-hook="sync-out /var/cache/apt/archives $new/pool" \
	--customize-hook="sync-out /var/lib/apt/lists $new/lists" \
	"$suite" /dev/null "${mirror[@]}" 2>"$new/download.log" || {
	cat "$new/download.log" >&2
	echo "piuparts-archive.sh: mmdebstrap could not download the packages (its output above)" >&2
	exit 1
}
rm -f "$new/pool/lock"
rm -rf "$new/pool/partial"
# An archive as a mirror lays it out (mmdebstrap picks the essential and
# required packages of the suite its Release file names)
idx=dists/$suite/main/binary-$(dpkg --print-architecture)
mkdir -p "$new/$idx"
# with the mirror's priorities (apt is "important" in its own control file,
# "required" in Debian's archive, which makes it part of minbase)
awk '/^Package:/ { p = $2 } /^Priority:/ { pr = $2 } /^Section:/ { s = $2 }
	/^$/ { if (p != "") print p, pr, s; p = pr = s = "" }' "$new"/lists/*_Packages |
	sort -u >"$new/override"
(cd "$new" && apt-ftparchive packages pool override >"$idx/Packages")
(cd "$new" && apt-ftparchive -o APT::FTPArchive::Release::Suite="$suite" \
	-o APT::FTPArchive::Release::Codename="$suite" \
	-o APT::FTPArchive::Release::Components=main \
	-o APT::FTPArchive::Release::Architectures="$(dpkg --print-architecture)" \
	release "dists/$suite" >"$new/Release" && mv "$new/Release" "dists/$suite/Release")
n=$(grep -c '^Package:' "$new/$idx/Packages")

# The base, from the local archive alone: what piuparts would make with
# debootstrap --variant=minbase from a mirror. (tests/package/piuparts.sh writes the
# chroots' sources.list itself.)
mmdebstrap --quiet --variant=minbase \
	--hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
	"$suite" "$new/base.tgz" "deb [trusted=yes] file://$new $suite main" >"$new/base.log" 2>&1 || {
	cat "$new/base.log" >&2
	echo "piuparts-archive.sh: mmdebstrap could not make the base from the local archive (its output above)" >&2
	exit 1
}

rm -rf "$dir/pool" "$dir/dists" "$dir/base.tgz"
rm -rf "$new/lists"
mv "$new/pool" "$new/dists" "$new/base.tgz" "$dir/"
echo "$stamp" >"$dir/stamp"
echo "piuparts-archive.sh: $n packages in $dir (deb file://$dir $suite main), base system in $dir/base.tgz"
