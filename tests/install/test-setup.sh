#!/usr/bin/env bash
# scripts/setup.sh's install branch, really run: apt-get and dpkg-query are
# stand-ins first on PATH (nothing is installed, nothing is downloaded), the
# policy-rc.d file is a temporary path. Cases: the image has no policy file
# (setup.sh makes one for the install and removes it after), the image has
# one (left as it was: this once made the script exit 1 after a good
# install), apt-get fails (the failure is the script's status and its own
# policy file is still removed), and nothing is missing (no apt-get at all).
# Each run also makes piuparts' local archive (scripts/piuparts-archive.sh)
# with mmdebstrap and apt-ftparchive as stand-ins, in a directory of the
# test's: made once, then left alone while its package list is the same; a
# download that fails is said and does not fail the setup.
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: setup.sh refuses to run as a user other than root"
	exit 77
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/cpha-setup-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

mkdir "$tmp/bin"
# dpkg-query: every package is "not-installed" unless $tmp/installed exists
cat >"$tmp/bin/dpkg-query" <<'STUB'
#!/bin/sh
if [ -e "$SETUP_TEST_DIR/installed" ]; then printf installed; else printf not-installed; fi
STUB
# apt-get: records its arguments and whether the policy file was in place
# and refusing service starts (exit 101) while it ran
cat >"$tmp/bin/apt-get" <<'STUB'
#!/bin/sh
pol=absent
if [ -x "$CPHA_POLICY_RC_D" ]; then
	"$CPHA_POLICY_RC_D" haproxy start >/dev/null 2>&1
	pol="exit $?"
fi
echo "$* | policy: $pol" >>"$SETUP_TEST_DIR/apt.log"
case "$1" in install) exit "${SETUP_TEST_APT_RC:-0}" ;; esac
exit 0
STUB
# mmdebstrap: records its arguments; does what each sync-out hook and the
# target ask for with a one-package archive (apt), and nothing else
cat >"$tmp/bin/mmdebstrap" <<'STUB'
#!/bin/bash
echo "$*" >>"$SETUP_TEST_DIR/mmdebstrap.log"
[ -z "${SETUP_TEST_MMDEBSTRAP_RC:-}" ] || { echo "E: cannot reach the mirror" >&2; exit "$SETUP_TEST_MMDEBSTRAP_RC"; }
target=
for a in "$@"; do
	case $a in
	--customize-hook=sync-out\ *)
		read -r _ src dst <<<"${a#--customize-hook=}"
		mkdir -p "$dst"
		case $src in
		*/lists) printf 'Package: apt\nPriority: required\nSection: admin\n\n' >"$dst/x_Packages" ;;
		*/archives) echo deb >"$dst/apt_2.6.2_amd64.deb" ;;
		esac
		;;
	--*) ;;
	*) [ -n "$target" ] || [ "$a" = bookworm ] || target=$a ;;
	esac
done
[ "$target" = /dev/null ] || echo tarball >"$target"
STUB
cat >"$tmp/bin/apt-ftparchive" <<'STUB'
#!/bin/sh
echo "$*" >>"$SETUP_TEST_DIR/apt-ftparchive.log"
case "$*" in *packages\ pool*) printf 'Package: apt\n\n' ;; *release*) printf 'Suite: bookworm\n' ;; esac
STUB
chmod 0755 "$tmp/bin/dpkg-query" "$tmp/bin/apt-get" "$tmp/bin/mmdebstrap" "$tmp/bin/apt-ftparchive"

run_setup() { # prints the exit status; output goes to $tmp/out
	local rc=0
	env PATH="$tmp/bin:$PATH" SETUP_TEST_DIR="$tmp" CPHA_POLICY_RC_D="$tmp/policy-rc.d" \
		CPHA_PIUPARTS_ARCHIVE="$tmp/archive" \
		bash "$root/scripts/setup.sh" </dev/null >"$tmp/out" 2>&1 || rc=$?
	echo "$rc"
}

echo "== no policy-rc.d in the image"
rm -f "$tmp/apt.log" "$tmp/policy-rc.d"
rc=$(run_setup)
[ "$rc" -eq 0 ] || bad "exit $rc, want 0: $(cat "$tmp/out")"
grep -q '^update ' "$tmp/apt.log" || bad "no apt-get update"
grep -q '^install -y .* haproxy .* | policy: exit 101$' "$tmp/apt.log" ||
	bad "install did not run under a refusing policy-rc.d: $(cat "$tmp/apt.log")"
[ ! -e "$tmp/policy-rc.d" ] || bad "setup.sh left its own policy-rc.d behind"
# the archive: everything downloaded once (essential ones kept), then the
# base made from the archive alone
grep -q -- '--include=.*fence-agents' "$tmp/mmdebstrap.log" 2>/dev/null ||
	bad "no mmdebstrap download with the packages' dependencies: $(cat "$tmp/mmdebstrap.log" 2>&1)"
grep -q -- "--skip=essential/unlink" "$tmp/mmdebstrap.log" || bad "the download drops the essential packages"
grep -q "bookworm $tmp/archive/.new-[A-Za-z0-9]*/base.tgz deb \[trusted=yes\] file://$tmp/archive/.new-[A-Za-z0-9]* bookworm main" "$tmp/mmdebstrap.log" ||
	bad "the base is not made from the local archive alone: $(cat "$tmp/mmdebstrap.log")"
for f in base.tgz pool/apt_2.6.2_amd64.deb dists/bookworm/main/binary-amd64/Packages dists/bookworm/Release stamp; do
	[ -s "$tmp/archive/$f" ] || bad "the archive has no $f: $(cd "$tmp" && find archive)"
done
[ -z "$(find "$tmp/archive" -maxdepth 1 -name '.new-*')" ] || bad "a .new- directory was left in the archive"

echo "== the image has its own policy-rc.d"
printf '#!/bin/sh\nexit 101\n# the image'"'"'s own\n' >"$tmp/policy-rc.d"
chmod 0755 "$tmp/policy-rc.d"
before=$(sha256sum <"$tmp/policy-rc.d")
rm -f "$tmp/apt.log"
rc=$(run_setup)
[ "$rc" -eq 0 ] || bad "exit $rc, want 0: $(cat "$tmp/out")"
grep -q '^install -y .* | policy: exit 101$' "$tmp/apt.log" || bad "no install: $(cat "$tmp/apt.log" 2>&1)"
[ -e "$tmp/policy-rc.d" ] && [ "$(sha256sum <"$tmp/policy-rc.d")" = "$before" ] ||
	bad "the image's policy-rc.d was changed or removed"

echo "== apt-get install fails"
rm -f "$tmp/apt.log" "$tmp/policy-rc.d"
rc=$(SETUP_TEST_APT_RC=100 run_setup)
[ "$rc" -ne 0 ] || bad "exit 0 although apt-get install failed"
[ ! -e "$tmp/policy-rc.d" ] || bad "setup.sh left its own policy-rc.d behind after a failure"

echo "== nothing missing"
rm -f "$tmp/apt.log" "$tmp/mmdebstrap.log"
touch "$tmp/installed"
rc=$(run_setup)
[ "$rc" -eq 0 ] || bad "exit $rc, want 0"
[ ! -e "$tmp/apt.log" ] || bad "apt-get ran although nothing was missing"
[ ! -s "$tmp/out" ] || bad "printed something although nothing was missing: $(cat "$tmp/out")"
[ ! -e "$tmp/mmdebstrap.log" ] || bad "the archive was made again with the same package list"

echo "== nothing missing, the archive's download fails"
mv "$tmp/archive" "$tmp/archive.good"
rm -f "$tmp/mmdebstrap.log"
rc=$(SETUP_TEST_MMDEBSTRAP_RC=1 run_setup)
[ "$rc" -eq 0 ] || bad "exit $rc: a failed archive download stopped the whole setup"
grep -q "piuparts' local archive could not be made" "$tmp/out" || bad "the failed download was not said: $(cat "$tmp/out")"
grep -q "cannot reach the mirror" "$tmp/out" || bad "mmdebstrap's error was not shown: $(cat "$tmp/out")"
[ ! -e "$tmp/archive/stamp" ] || bad "a failed download left a stamp"
rm -rf "$tmp/archive"
mv "$tmp/archive.good" "$tmp/archive"

echo "== nothing missing, the archive's package list changed"
rm -f "$tmp/mmdebstrap.log"
echo "bookworm python3" >"$tmp/archive/stamp"
rc=$(run_setup)
[ "$rc" -eq 0 ] || bad "exit $rc, want 0: $(cat "$tmp/out")"
[ "$(grep -c . "$tmp/mmdebstrap.log" 2>/dev/null)" = 2 ] || bad "the archive was not made again for a new list"
[ ! -e "$tmp/apt.log" ] || bad "apt-get ran although nothing was missing"

if [ "$fail" -eq 0 ]; then
	echo "6 passed, 0 failed"
else
	exit 1
fi
