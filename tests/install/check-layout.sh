#!/usr/bin/env bash
# Install into a staging directory (DESTDIR) and check the layout a Debian
# package would have: every recorded file is there, and nothing is installed
# outside the places cpha owns.
set -euo pipefail
build=$1
manifest=$build/install-manifest.txt
stage=$(mktemp -d /tmp/cpha-stage-XXXXXX)
trap 'rm -rf "$stage"' EXIT

DESTDIR=$stage cmake --install "$build" --prefix /usr >/dev/null
fail=0
while IFS= read -r f; do
	[ -n "$f" ] || continue
	case $f in /*) p=$stage$f ;; *) p=$stage/usr/$f ;; esac
	if [ ! -e "$p" ]; then
		echo "missing after install: $f"
		fail=1
	fi
done <"$manifest"

allowed='^/(usr/sbin/[^/]+|usr/bin/cpha|usr/lib/ocf/resource.d/cpha/[^/]+|usr/lib/cpha/lab/.+|etc/(lbd|vipd|fenced|cpha)/.+|usr/lib/systemd/system/[^/]+\.(service|socket|timer)|usr/share/man/man[1-8]/[^/]+|usr/share/doc/cpha/.+|usr/share/cpha/[^/]+)$'
while IFS= read -r f; do
	rel=${f#"$stage"}
	if ! [[ $rel =~ $allowed ]]; then
		echo "installed outside cpha's places: $rel"
		fail=1
	fi
done < <(find "$stage" -type f -o -type l)

for d in "$stage"/usr/sbin "$stage"/usr/bin "$stage"/usr/lib/ocf/resource.d/cpha; do
	[ -d "$d" ] || continue
	for f in "$d"/*; do
		[ -x "$f" ] || { echo "not executable: ${f#"$stage"}"; fail=1; }
	done
done
n=$(grep -c . "$manifest" || true)
[ $fail -eq 0 ] && echo "install layout ok: $n recorded files, nothing stray"
exit $fail
