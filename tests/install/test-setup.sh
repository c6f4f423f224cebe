#!/usr/bin/env bash
# scripts/setup.sh's install branch, really run: apt-get and dpkg-query are
# stand-ins first on PATH (nothing is installed, nothing is downloaded), the
# policy-rc.d file is a temporary path. Cases: the image has no policy file
# (setup.sh makes one for the install and removes it after), the image has
# one (left as it was: this once made the script exit 1 after a good
# install), apt-get fails (the failure is the script's status and its own
# policy file is still removed), and nothing is missing (no apt-get at all).
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
chmod 0755 "$tmp/bin/dpkg-query" "$tmp/bin/apt-get"

run_setup() { # prints the exit status; output goes to $tmp/out
	local rc=0
	env PATH="$tmp/bin:$PATH" SETUP_TEST_DIR="$tmp" CPHA_POLICY_RC_D="$tmp/policy-rc.d" \
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
rm -f "$tmp/apt.log"
touch "$tmp/installed"
rc=$(run_setup)
[ "$rc" -eq 0 ] || bad "exit $rc, want 0"
[ ! -e "$tmp/apt.log" ] || bad "apt-get ran although nothing was missing"
[ ! -s "$tmp/out" ] || bad "printed something although nothing was missing: $(cat "$tmp/out")"

if [ "$fail" -eq 0 ]; then
	echo "4 passed, 0 failed"
else
	exit 1
fi
