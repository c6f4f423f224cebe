#!/usr/bin/env bash
# The Debian packages, end to end, on this machine: build them from a clean
# copy of the checkout (never in the source tree), lintian (no error, no
# warning), install them with apt, check what they installed and that
# nothing started, run their autopkgtest tests (debian/tests) with the null
# runner, purge, check that nothing is left. Then an upgrade from the
# previous version on this host: an operator's edits and files, conffiles
# kept, no daemon restarted (lbd, and vipd holding a VIP in a network
# namespace it makes), the running ones named, a purge that leaves nothing
# but the operator's own files.
# Whatever happens, the packages it installed are purged, what it started
# is stopped (by PID) and its directory removed.
#
# Beside all that, piuparts (tests/package/piuparts.sh) runs the same
# packages in chroots of its own: install and purge, then the previous
# version from a repository, the upgrade and a purge. Its chroots come from
# the local archive scripts/setup.sh downloaded, as tests may send traffic
# only to loopback or to namespaces they make.
#
# It changes the machine (dpkg's database, /etc, /usr), so it refuses to run
# where any of it is there already: cpha packages, /etc/{lbd,vipd,fenced,cpha}
# or /var/log/cpha. Needs root and what scripts/setup.sh installs.
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: installing packages needs root"
	exit 77
fi
src=$(cd "$(dirname "$0")/../.." && pwd)
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
apt_opts=(-y -q -o DPkg::Lock::Timeout=120 -o Dpkg::Use-Pty=0)

pkgs=(cpha cpha-lbd cpha-vipd cpha-fenced cpha-resource-agents)
daemons=(lbd vipd fenced)
declare -A conf=([lbd]=lbd.cfg [vipd]=vipd.conf [fenced]=fenced.conf)

fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}
step() { printf '== %s\n' "$*"; }
status_of() { dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true; }

# --- purge, and what it must leave ------------------------------------------
# purge_all LABEL: apt-get purge every package, then no status, no file list
# and no maintainer script or other database entry of theirs is left.
# The files they owned are listed in $tmp/files first, for check_left.
purge_all() {
	for p in "${pkgs[@]}"; do dpkg -L "$p"; done | sort -u >"$tmp/files"
	# the agents' logs, as the agents would write them: a purge removes them
	mkdir -p /var/log/cpha && echo test >/var/log/cpha/etcd.log

	step "$1: apt-get purge ${pkgs[*]}"
	if ! apt-get purge "${apt_opts[@]}" "${pkgs[@]}" </dev/null >"$tmp/purge.log" 2>&1; then
		cat "$tmp/purge.log"
		bad "apt-get purge"
	fi
	installed=0
	for p in "${pkgs[@]}"; do
		st=$(status_of "$p")
		[ -z "$st" ] || [ "$st" = not-installed ] || bad "$p: status $st after purge"
		if dpkg -L "$p" >/dev/null 2>&1; then bad "dpkg -L $p still lists files"; fi
	done
	# dpkg's database: no list, md5sums, conffiles or maintainer script left
	local info
	info=$(cd /var/lib/dpkg/info && for p in "${pkgs[@]}"; do
		ls -d "$p".* "$p":* 2>/dev/null || true
	done)
	[ -z "$info" ] || bad "left in /var/lib/dpkg/info after purge: $info"
	out=$(dpkg --audit 2>&1) || true
	[ -z "$out" ] || bad "dpkg --audit after purge: $out"
}

# check_left: every file the packages owned is gone, and what their
# maintainer scripts made; a directory stays only if another package owns it
check_left() {
	while IFS= read -r f; do
		[ "$f" != /. ] || continue
		[ -e "$f" ] || [ -L "$f" ] || continue
		if [ -d "$f" ]; then # a directory, or a symlink to one (/lib on merged /usr)
			dpkg-query -S "$f" >/dev/null 2>&1 || bad "directory left: $f"
		else
			bad "file left: $f"
		fi
	done <"$tmp/files"
	for d in "${daemons[@]}"; do
		for f in "/etc/systemd/system/multi-user.target.wants/$d.service" \
			"/var/lib/systemd/deb-systemd-helper-enabled/$d.service.dsh-also" \
			"/var/lib/systemd/deb-systemd-helper-enabled/multi-user.target.wants/$d.service" \
			"/lib/systemd/system/$d.service"; do
			if [ -e "$f" ] || [ -L "$f" ]; then bad "left after purge: $f"; fi
		done
	done
	for d in /etc/cpha /etc/lbd /etc/vipd /etc/fenced /var/log/cpha /usr/lib/ocf/resource.d/cpha; do
		[ ! -e "$d" ] || bad "left after purge: $d"
	done
	# a conffile's .dpkg-dist, .dpkg-old, ... goes with it
	left=$(find /etc -name 'cluster.yaml.dpkg-*' 2>/dev/null)
	[ -z "$left" ] || bad "left after purge: $left"
	getent passwd | cut -d: -f1 | sort | diff "$tmp/users.before" - >/dev/null ||
		bad "users changed: $(getent passwd | cut -d: -f1 | sort | diff "$tmp/users.before" - || true)"
	getent group | cut -d: -f1 | sort | diff "$tmp/groups.before" - >/dev/null ||
		bad "groups changed: $(getent group | cut -d: -f1 | sort | diff "$tmp/groups.before" - || true)"
	echo "purged: $(grep -c . "$tmp/files") paths checked"
}

# --- preconditions: never touch what is not ours ---------------------------
for t in dpkg-buildpackage dh lintian apt-get git autopkgtest python3; do
	command -v "$t" >/dev/null || {
		echo "FAIL: $t is not installed: run scripts/setup.sh"
		exit 1
	}
done
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || {
	echo "SKIP: $src is not a git checkout (the copy to build is taken from git's file list)"
	exit 77
}
for p in "${pkgs[@]}"; do
	st=$(status_of "$p")
	if [ -n "$st" ] && [ "$st" != not-installed ]; then
		echo "FAIL: $p is already on this machine ($st): this test would replace and purge it; purge it first"
		exit 1
	fi
done
for d in /etc/lbd /etc/vipd /etc/fenced /etc/cpha /var/log/cpha /usr/lib/ocf/resource.d/cpha; do
	if [ -e "$d" ]; then
		echo "FAIL: $d exists: this test would install into it and purge it; move it away first"
		exit 1
	fi
done

tmp=$(mktemp -d /tmp/cpha-deb-XXXXXX)
chmod 0755 "$tmp" # apt reads the .debs as its unprivileged _apt user
installed=0
lbd_pid=   # the lbd the upgrade check starts, as an operator's would run
op_conf=0  # 1 once it wrote the operator's /etc/lbd/lbd.cfg
vipd_pid=  # the vipd it starts, in network namespace $ns
ns=cpha-deb-$$
ns_made=0
pp_pid=    # tests/package/piuparts.sh, in the background
cleanup() {
	local left=()
	if [ -n "$pp_pid" ]; then # it unmounts and removes its chroots itself
		kill "$pp_pid" 2>/dev/null || true
		wait "$pp_pid" 2>/dev/null || true
	fi
	# and should it not have: its chroots bind-mount the local archive,
	# which rm -rf would empty through them
	local m
	while read -r m; do
		umount -l "$m" 2>/dev/null || true
	done < <(awk -v w="$tmp/" 'index($2, w) == 1 { print $2 }' /proc/self/mounts | sort -r)
	if [ -n "$lbd_pid" ]; then
		kill "$lbd_pid" 2>/dev/null || true
		wait "$lbd_pid" 2>/dev/null || true
	fi
	if [ -n "$vipd_pid" ]; then
		kill "$vipd_pid" 2>/dev/null || true
		wait "$vipd_pid" 2>/dev/null || true
	fi
	if [ "$ns_made" -eq 1 ]; then
		ip netns delete "$ns" 2>/dev/null || true
	fi
	if [ "$op_conf" -eq 1 ]; then
		rm -f /etc/lbd/lbd.cfg /etc/vipd/vipd.conf
		rmdir /etc/lbd /etc/vipd 2>/dev/null || true
	fi
	if [ "$installed" -eq 1 ]; then
		for p in "${pkgs[@]}"; do
			st=$(status_of "$p")
			[ -z "$st" ] || [ "$st" = not-installed ] || left+=("$p")
		done
		if [ ${#left[@]} -gt 0 ]; then
			echo "cleanup: purging ${left[*]}"
			dpkg --purge --force-depends --force-remove-reinstreq "${left[@]}" >/dev/null 2>&1 || true
			rm -rf /var/log/cpha
		fi
	fi
	rm -rf "$tmp"
	return 0
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
start=$SECONDS

# users and groups now, to compare after the purge
getent passwd | cut -d: -f1 | sort >"$tmp/users.before"
getent group | cut -d: -f1 | sort >"$tmp/groups.before"

# --- build ------------------------------------------------------------------
step "copy the checkout (git's tracked and unignored files) to $tmp/cpha"
mkdir "$tmp/cpha"
(cd "$src" && git ls-files -z -c -o --exclude-standard) |
	while IFS= read -r -d '' f; do
		# a file deleted but not yet committed is not copied
		if [ -e "$src/$f" ] || [ -L "$src/$f" ]; then printf '%s\0' "$f"; fi
	done |
	tar -C "$src" --null -T - -cf - | tar -C "$tmp/cpha" -xf -

version=$(cd "$tmp/cpha" && dpkg-parsechangelog -S Version)
project=$(sed -n 's/^project(cpha VERSION \([0-9.]*\).*/\1/p' "$tmp/cpha/CMakeLists.txt")
[ "$version" = "$project" ] ||
	bad "debian/changelog is at $version, CMakeLists.txt's project() at $project"

# The previous version, for the upgrade: this source with its version set
# just below this one (VERSION~previous sorts before VERSION) and a line
# added to the example /etc/cpha/cluster.yaml, as when a release changes a
# conffile the operator has edited too. (debian/changelog has one entry,
# so there is no older release to build; the maintainer scripts an upgrade
# runs are the new version's, which are these.)
prev_version=$version~previous
cp -a "$tmp/cpha" "$tmp/prev"
sed -i "1s/^cpha ($version)/cpha ($prev_version)/" "$tmp/prev/debian/changelog"
[ "$(cd "$tmp/prev" && dpkg-parsechangelog -S Version)" = "$prev_version" ] ||
	bad "could not set the previous version in $tmp/prev/debian/changelog"
sed -i '1i # the example as the previous version shipped it' "$tmp/prev/etc/cpha/cluster.yaml"

step "dpkg-buildpackage -us -uc (source and binary packages)"
tree_before=$(git -C "$src" status --porcelain --ignored | sort)
t0=$SECONDS
if ! (cd "$tmp/cpha" && dpkg-buildpackage -us -uc -j"$(nproc)") >"$tmp/build.log" 2>&1; then
	tail -60 "$tmp/build.log"
	echo "FAIL: dpkg-buildpackage (last lines above)"
	exit 1
fi
echo "built in $((SECONDS - t0))s:"
(cd "$tmp" && ls -1 ./*.deb ./*.dsc)
[ "$(git -C "$src" status --porcelain --ignored | sort)" = "$tree_before" ] ||
	bad "the build changed the source tree: $(git -C "$src" status --porcelain --ignored)"

changes=$tmp/cpha_${version}_$(dpkg --print-architecture).changes
debs=()
for p in "${pkgs[@]}"; do
	debs+=("$tmp/${p}_${version}_$(dpkg --print-architecture).deb")
done

step "build the previous version ($prev_version), binary packages only"
t0=$SECONDS
# nocheck: the unit tests of this very source ran in the build above
if ! (cd "$tmp/prev" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -b -us -uc -j"$(nproc)") \
	>"$tmp/build-prev.log" 2>&1; then
	tail -60 "$tmp/build-prev.log"
	echo "FAIL: dpkg-buildpackage of the previous version (last lines above)"
	exit 1
fi
echo "built in $((SECONDS - t0))s"
prev_debs=()
mkdir "$tmp/debs-current" "$tmp/debs-previous"
for p in "${pkgs[@]}"; do
	prev_debs+=("$tmp/${p}_${prev_version}_$(dpkg --print-architecture).deb")
	cp "$tmp/${p}_${version}_$(dpkg --print-architecture).deb" "$tmp/debs-current/"
	cp "$tmp/${p}_${prev_version}_$(dpkg --print-architecture).deb" "$tmp/debs-previous/"
done

step "piuparts, in the background (tests/package/piuparts.sh)"
bash "$src/tests/package/piuparts.sh" "$tmp/piuparts" "$tmp/debs-current" "$tmp/debs-previous" \
	</dev/null >"$tmp/piuparts.out" 2>&1 &
pp_pid=$!
pp_t0=$SECONDS

step "lintian (errors and warnings fail; overrides need a reason)"
lrc=0
# as nobody: lintian unpacks what it checks and warns against doing it as root
mkdir -m 0777 "$tmp/lintian-home"
setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$tmp/lintian-home" \
	lintian --fail-on error,warning --pedantic --display-info --display-experimental \
	--show-overrides "$changes" >"$tmp/lintian.log" 2>&1 || lrc=$?
cat "$tmp/lintian.log"
[ "$lrc" -eq 0 ] || bad "lintian exit $lrc"
# An override without a comment above it says nothing about why.
for o in "$tmp"/cpha/debian/*lintian-overrides "$tmp"/cpha/debian/source/lintian-overrides; do
	[ -e "$o" ] || continue
	awk -v f="${o#"$tmp"/cpha/}" '
		/^[[:space:]]*$/ { prev = ""; next }
		/^#/ { prev = "#"; next }
		prev != "#" { printf "FAIL: %s:%d: override without a reason: %s\n", f, NR, $0; bad = 1 }
		{ prev = "o" }
		END { exit bad }' "$o" || fail=1
done

# --- install ----------------------------------------------------------------
step "apt-get install ${debs[*]##*/}"
# What setup.sh installed must be every dependency and recommendation:
# a simulated install that would fetch anything else is a missing package
# in setup.sh, not something to download here.
apt-get install -s "${apt_opts[@]}" "${debs[@]}" >"$tmp/sim.log" 2>&1 || {
	cat "$tmp/sim.log"
	echo "FAIL: apt-get install -s"
	exit 1
}
extra=$(awk '/^Inst /{print $2}' "$tmp/sim.log" | grep -v -x -F -f <(printf '%s\n' "${pkgs[@]}") || true)
if [ -n "$extra" ]; then
	echo "FAIL: installing the packages would also fetch: $extra (add them to scripts/setup.sh)"
	exit 1
fi
installed=1
if ! apt-get install "${apt_opts[@]}" "${debs[@]}" </dev/null >"$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"
	echo "FAIL: apt-get install"
	exit 1
fi
grep -E '^(Setting up|Created symlink|W:|E:)' "$tmp/install.log" || true
if grep -q 'still runs the version before' "$tmp/install.log"; then
	bad "a first install says a daemon runs a previous version"
fi
for p in "${pkgs[@]}"; do
	[ "$(status_of "$p")" = installed ] || bad "$p: status $(status_of "$p"), want installed"
done

# --- what the packages installed --------------------------------------------
step "each daemon's -c on its shipped example; its unit; nothing started"
for d in "${daemons[@]}"; do
	ex=/usr/share/doc/cpha-$d/examples/${conf[$d]}
	unit=/lib/systemd/system/$d.service
	out=$("/usr/sbin/$d" -c -f "$ex" 2>&1) || bad "$d -c -f $ex: $out"
	[ -f "$unit" ] || bad "$unit missing"
	grep -q -x "ConditionFileNotEmpty=/etc/$d/${conf[$d]}" "$unit" ||
		bad "$unit: no ConditionFileNotEmpty=/etc/$d/${conf[$d]}"
	grep -q -x "ExecStart=/usr/sbin/$d .*" "$unit" || bad "$unit does not run /usr/sbin/$d"
	[ -L "/etc/systemd/system/multi-user.target.wants/$d.service" ] ||
		bad "$d.service is not enabled (no multi-user.target.wants link)"
	[ ! -e "/etc/$d/${conf[$d]}" ] || bad "/etc/$d/${conf[$d]} is shipped: the unit would start on the example"
	if pidof "/usr/sbin/$d" >/dev/null; then bad "/usr/sbin/$d is running after the install"; fi
	dpkg -L "cpha-$d" | grep -q "^/usr/sbin/$d\$" || bad "cpha-$d does not own /usr/sbin/$d"
done

step "cpha plan and render on the shipped /etc/cpha/cluster.yaml"
dpkg-query -W -f='${Conffiles}\n' cpha | grep -q '^ /etc/cpha/cluster.yaml ' ||
	bad "/etc/cpha/cluster.yaml is not a conffile of cpha"
out=$(cpha -f /etc/cpha/cluster.yaml plan 2>&1) || bad "cpha plan: $out"
# render checks every file it writes with its own program, from PATH: the
# installed lbd, vipd and fenced, crm_verify, and pcs, which finds the
# installed agents through Pacemaker
if out=$(cpha -f /etc/cpha/cluster.yaml render --out "$tmp/render" 2>&1); then
	if grep -q 'not installed' <<<"$out"; then bad "cpha render: a checker is missing: $out"; fi
	for h in lb00 lb01; do
		[ -s "$tmp/render/$h/etc/lbd/lbd.cfg" ] || bad "render wrote no $h/etc/lbd/lbd.cfg"
	done
else
	bad "cpha render: $out"
fi

step "each agent's meta-data from its installed path and through Pacemaker"
agents=(etcd haproxy kube-apiserver kube-controller-manager kube-scheduler lbd)
for a in "${agents[@]}"; do
	ra=/usr/lib/ocf/resource.d/cpha/$a
	if ! "$ra" meta-data >"$tmp/meta.xml" 2>&1; then
		bad "$ra meta-data: $(cat "$tmp/meta.xml")"
	elif ! grep -q "<resource-agent name=\"$a\"" "$tmp/meta.xml"; then
		bad "$ra meta-data names another agent"
	fi
	crm_resource --show-metadata "ocf:cpha:$a" >/dev/null 2>&1 ||
		bad "Pacemaker does not find ocf:cpha:$a"
done
n=$(find /usr/lib/ocf/resource.d/cpha -type f | wc -l)
[ "$n" -eq ${#agents[@]} ] || bad "$n agents installed, this test knows ${#agents[@]}: add the new one here"

step "the lab: cpha lab runs its installed program; the simulators run"
out=$(cpha lab --help 2>&1) || bad "cpha lab --help: $out"
grep -qE "cpha lab( \[-f FILE\])? up" <<<"$out" || bad "cpha lab --help is not the lab's: $out"
[ -f /usr/lib/cpha/lab/deploy.md ] || bad "the guide the lab follows is not installed with it"
[ -f /usr/lib/cpha/lab/runbook.md ] || bad "the runbook the lab follows is not installed with it"
for s in kube-apiserver kube-controller-manager kube-scheduler; do
	out=$("/usr/lib/cpha/lab/simulators/$s" --version 2>&1) ||
		bad "lab simulator $s --version: $out"
done
[ "$(dpkg-query -S /usr/lib/cpha/lab/cpha-lab 2>/dev/null | cut -d: -f1)" = cpha ] ||
	bad "/usr/lib/cpha/lab/cpha-lab is not in the cpha package"

step "the monitoring files: Prometheus rules, Grafana dashboard, their guide"
for f in /usr/share/cpha/cpha-rules.yml /usr/share/cpha/cpha-dashboard.json; do
	[ "$(dpkg-query -S "$f" 2>/dev/null | cut -d: -f1)" = cpha ] || bad "$f is not in the cpha package"
done
out=$(promtool check rules /usr/share/cpha/cpha-rules.yml 2>&1) ||
	bad "promtool check rules /usr/share/cpha/cpha-rules.yml: $out"
[ -f /usr/share/doc/cpha/monitoring.md ] || [ -f /usr/share/doc/cpha/monitoring.md.gz ] ||
	bad "docs/monitoring.md (the alerts' runbook) is not installed"

for p in "${pkgs[@]}"; do
	# dh_compress gzips a README.Debian over 4 kB
	[ -s "/usr/share/doc/$p/README.Debian" ] || [ -s "/usr/share/doc/$p/README.Debian.gz" ] ||
		bad "$p has no README.Debian"
	[ -s "/usr/share/doc/$p/copyright" ] || bad "$p has no copyright file"
done

step "man pages"
declare -A man_owner=([man1/cpha.1]=cpha [man5/cluster.yaml.5]=cpha
	[man8/lbd.8]=cpha-lbd [man5/lbd.cfg.5]=cpha-lbd [man8/vipd.8]=cpha-vipd
	[man5/vipd.conf.5]=cpha-vipd [man8/fenced.8]=cpha-fenced [man5/fenced.conf.5]=cpha-fenced)
for a in "${agents[@]}"; do man_owner[man7/ocf_cpha_$a.7]=cpha-resource-agents; done
for m in "${!man_owner[@]}"; do
	f=/usr/share/man/$m.gz
	if [ ! -f "$f" ]; then
		bad "$f missing"
	elif [ "$(dpkg-query -S "$f" 2>/dev/null | cut -d: -f1)" != "${man_owner[$m]}" ]; then
		bad "$f is in $(dpkg-query -S "$f" 2>&1 | cut -d: -f1), not ${man_owner[$m]}"
	fi
done
# every page that cmake --install put in the package build is installed
(cd "$tmp/cpha/debian/tmp/usr/share/man" && find . -type f) | sed 's|^\./||' | sort >"$tmp/man.built"
while IFS= read -r m; do
	[ -f "/usr/share/man/$m.gz" ] || [ -f "/usr/share/man/$m" ] ||
		bad "man page $m was built but is in no package"
done <"$tmp/man.built"
echo "$(grep -c . "$tmp/man.built") man pages built, all installed"

# --- autopkgtest -------------------------------------------------------------
# debian/tests, as Debian's CI runs them, on the packages installed above:
# from the source package just built, with the null runner (the tests run on
# this host, as root). Every test must run and pass: a skipped one (exit 2)
# fails here too. The test dependencies are installed already (setup.sh):
# autopkgtest's apt-get finds nothing to fetch.
step "autopkgtest --no-built-binaries cpha_$version.dsc -- null"
t0=$SECONDS
arc=0
autopkgtest --no-built-binaries --timeout-test 120 --output-dir "$tmp/autopkgtest" \
	"$tmp/cpha_$version.dsc" -- null </dev/null >"$tmp/autopkgtest.log" 2>&1 || arc=$?
if [ "$arc" -ne 0 ]; then
	cat "$tmp/autopkgtest.log"
	bad "autopkgtest exit $arc (2: a test skipped, 4: a test failed, other: see its log above)"
fi
sed 's/^/  /' "$tmp/autopkgtest/summary" 2>/dev/null || bad "autopkgtest wrote no summary"
[ "$(grep -c ' PASS' "$tmp/autopkgtest/summary" 2>/dev/null)" -eq "$(grep -c '^Tests:' "$tmp/cpha/debian/tests/control")" ] ||
	bad "autopkgtest: not every test in debian/tests/control passed"
st=$(status_of autopkgtest-satdep)
[ -z "$st" ] || [ "$st" = not-installed ] || bad "autopkgtest left its autopkgtest-satdep package ($st)"
echo "autopkgtest took $((SECONDS - t0))s"

purge_all "fresh install"
check_left

# --- upgrade from the previous version --------------------------------------
step "install the previous version ${prev_debs[*]##*/}"
installed=1
if ! apt-get install "${apt_opts[@]}" "${prev_debs[@]}" </dev/null >"$tmp/install-prev.log" 2>&1; then
	cat "$tmp/install-prev.log"
	echo "FAIL: apt-get install (previous version)"
	exit 1
fi
for p in "${pkgs[@]}"; do
	v=$(dpkg-query -W -f='${Version}' "$p")
	[ "$v" = "$prev_version" ] || bad "$p: version $v installed, want $prev_version"
done

step "the operator: edits /etc/cpha/cluster.yaml, writes /etc/lbd/lbd.cfg, runs lbd"
echo "# the operator's edit" >>/etc/cpha/cluster.yaml
own_desc=$(sha256sum </etc/cpha/cluster.yaml)
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
admin_sock=$tmp/lbd-admin.sock
op_conf=1
mkdir -p /etc/lbd
cat >/etc/lbd/lbd.cfg <<EOF
# written by tests/package/test-debian.sh: loopback only
global
    stats socket $admin_sock mode 600 level admin
defaults
    mode tcp
    timeout connect 1s
    timeout client 10s
    timeout server 10s
frontend fe
    bind 127.0.0.1:$(free_port)
    default_backend be
backend be
    server s1 127.0.0.1:$(free_port)
EOF
own_lbd=$(sha256sum </etc/lbd/lbd.cfg)
# by hand, as Pacemaker's ocf:cpha:lbd or systemd would: this machine runs
# no systemd, and the postinst names the processes whoever started them
/usr/sbin/lbd -db -f /etc/lbd/lbd.cfg >"$tmp/lbd.log" 2>&1 &
lbd_pid=$!
lbd_admin() {
	python3 -c 'import socket, sys
c = socket.socket(socket.AF_UNIX); c.settimeout(2); c.connect(sys.argv[1])
c.sendall(sys.argv[2].encode() + b"\n"); out = b""
while True:
    b = c.recv(65536)
    if not b:
        break
    out += b
sys.stdout.write(out.decode())' "$admin_sock" "$1" 2>/dev/null
}
for _ in $(seq 50); do
	lbd_admin "show info" | grep -q '^Pid:' && break
	sleep 0.1
done
lbd_admin "show info" | grep -q "^Pid: $lbd_pid\$" ||
	bad "lbd (pid $lbd_pid) of the previous version does not answer on $admin_sock: $(cat "$tmp/lbd.log")"

step "the operator: writes /etc/vipd/vipd.conf, runs vipd in network namespace $ns"
# alone on its link it becomes MASTER and holds the VIP; addresses from
# 198.18.0.0/15, only inside the namespace
vip=198.18.0.100
vipd_sock=$tmp/vipd-admin.sock
[ ! -e "/run/netns/$ns" ] || bad "network namespace $ns exists already"
ip netns add "$ns"
ns_made=1
ip -n "$ns" link set lo up
ip -n "$ns" link add eth0 type veth peer name eth1
ip -n "$ns" link set eth0 up
ip -n "$ns" link set eth1 up
ip -n "$ns" addr add 198.18.0.1/24 dev eth0
mkdir -p /etc/vipd
cat >/etc/vipd/vipd.conf <<VIPD
# written by tests/package/test-debian.sh: in network namespace $ns only
global_defs {
    router_id package-test
    vrrp_version 3
    vipd_admin_socket $vipd_sock
}
vrrp_instance VI_1 {
    state BACKUP
    interface eth0
    virtual_router_id 51
    priority 100
    advert_int 0.2
    virtual_ipaddress {
        $vip/24
    }
}
VIPD
own_vipd=$(sha256sum </etc/vipd/vipd.conf)
# ip netns exec execs vipd: $! is vipd's PID
ip netns exec "$ns" /usr/sbin/vipd -f /etc/vipd/vipd.conf >"$tmp/vipd.log" 2>&1 &
vipd_pid=$!
# "PID STATE" of vipd's first instance, from its admin socket
vipd_state() {
	python3 -c 'import json, socket, sys
try:
    c = socket.socket(socket.AF_UNIX); c.settimeout(2); c.connect(sys.argv[1])
    c.sendall(b"show json\n"); out = b""
    while True:
        b = c.recv(65536)
        if not b:
            break
        out += b
    j = json.loads(out)
    print(j["pid"], j["instances"][0]["state"])
except (OSError, ValueError, LookupError):
    pass' "$vipd_sock"
}
has_vip() { ip -n "$ns" -4 -o addr show dev eth0 | grep -q " $vip/24 "; }
for _ in $(seq 100); do
	[ "$(vipd_state)" = "$vipd_pid MASTER" ] && has_vip && break
	sleep 0.1
done
[ "$(vipd_state)" = "$vipd_pid MASTER" ] && has_vip ||
	bad "vipd (pid $vipd_pid) of the previous version is not MASTER with $vip in $ns: $(vipd_state) $(cat "$tmp/vipd.log")"

step "upgrade to $version"
# What an unattended upgrade does (unattended-upgrades' default): keep the
# operator's conffile without asking, put the package's as .dpkg-dist.
# Without these options dpkg would ask, and with no terminal it fails.
if ! apt-get install "${apt_opts[@]}" -o Dpkg::Options::=--force-confdef \
	-o Dpkg::Options::=--force-confold "${debs[@]}" </dev/null >"$tmp/upgrade.log" 2>&1; then
	cat "$tmp/upgrade.log"
	bad "apt-get install (upgrade from $prev_version)"
fi
# from dpkg's configure steps on: its conffile notes and the postinsts'
sed -n '/^Setting up/,$p' "$tmp/upgrade.log" | grep -v '^Processing triggers' | sed 's/^/  /'
for p in "${pkgs[@]}"; do
	v=$(dpkg-query -W -f='${Version} ${db:Status-Status}' "$p")
	[ "$v" = "$version installed" ] || bad "$p: $v after the upgrade, want $version installed"
done
out=$(dpkg --audit 2>&1) || true
[ -z "$out" ] || bad "dpkg --audit after the upgrade: $out"
# the daemons: not restarted, and the running one named with its command
grep -q "^lbd (pid $lbd_pid) still runs the version before this upgrade" "$tmp/upgrade.log" ||
	bad "the upgrade did not say that lbd (pid $lbd_pid) runs the previous version"
grep -q "cpha restart lb    (or: systemctl restart lbd)" "$tmp/upgrade.log" ||
	bad "the upgrade did not say how to restart lbd"
grep -q "^vipd (pid $vipd_pid) still runs the version before this upgrade" "$tmp/upgrade.log" ||
	bad "the upgrade did not say that vipd (pid $vipd_pid) runs the previous version"
grep -q "cpha restart vip    (or: systemctl restart vipd)" "$tmp/upgrade.log" ||
	bad "the upgrade did not say how to restart vipd"
if grep -q "^fenced (pid" "$tmp/upgrade.log"; then bad "the upgrade names a fenced, which is not running"; fi
if ! kill -0 "$lbd_pid" 2>/dev/null; then
	bad "the upgrade stopped lbd (pid $lbd_pid): $(cat "$tmp/lbd.log")"
elif [ "$(readlink "/proc/$lbd_pid/exe")" != "/usr/sbin/lbd (deleted)" ]; then
	bad "lbd (pid $lbd_pid) runs $(readlink "/proc/$lbd_pid/exe"), not the replaced /usr/sbin/lbd"
elif ! lbd_admin "show info" | grep -q "^Pid: $lbd_pid\$"; then
	bad "lbd (pid $lbd_pid) no longer answers on its admin socket after the upgrade"
else
	echo "lbd (pid $lbd_pid) still runs the previous program and answers"
fi
if ! kill -0 "$vipd_pid" 2>/dev/null; then
	bad "the upgrade stopped vipd (pid $vipd_pid): $(cat "$tmp/vipd.log")"
elif [ "$(readlink "/proc/$vipd_pid/exe")" != "/usr/sbin/vipd (deleted)" ]; then
	bad "vipd (pid $vipd_pid) runs $(readlink "/proc/$vipd_pid/exe"), not the replaced /usr/sbin/vipd"
elif [ "$(vipd_state)" != "$vipd_pid MASTER" ] || ! has_vip; then
	bad "vipd (pid $vipd_pid) is no longer MASTER with $vip after the upgrade: $(vipd_state)"
else
	echo "vipd (pid $vipd_pid) still runs the previous program, MASTER with $vip"
fi
# the conffile: the operator's edit kept, the new example beside it
[ "$(sha256sum </etc/cpha/cluster.yaml)" = "$own_desc" ] ||
	bad "the upgrade changed the operator's /etc/cpha/cluster.yaml"
if [ ! -f /etc/cpha/cluster.yaml.dpkg-dist ]; then
	bad "no /etc/cpha/cluster.yaml.dpkg-dist: the new example is not beside the kept file"
elif ! cmp -s /etc/cpha/cluster.yaml.dpkg-dist "$tmp/cpha/etc/cpha/cluster.yaml"; then
	bad "/etc/cpha/cluster.yaml.dpkg-dist is not $version's example"
else
	echo "/etc/cpha/cluster.yaml kept (the operator's), $version's example in .dpkg-dist"
fi
[ "$(sha256sum </etc/lbd/lbd.cfg)" = "$own_lbd" ] ||
	bad "the upgrade changed the operator's /etc/lbd/lbd.cfg (no package owns it)"
if dpkg-query -S /etc/lbd/lbd.cfg >/dev/null 2>&1; then bad "a package owns /etc/lbd/lbd.cfg"; fi
[ "$(sha256sum </etc/vipd/vipd.conf)" = "$own_vipd" ] ||
	bad "the upgrade changed the operator's /etc/vipd/vipd.conf (no package owns it)"

kill "$lbd_pid"
wait "$lbd_pid" 2>/dev/null || true
lbd_pid=
kill "$vipd_pid" 2>/dev/null || true
wait "$vipd_pid" 2>/dev/null || true
vipd_pid=
ip netns delete "$ns"
ns_made=0

purge_all "after the upgrade"
# the operator's own file is theirs: a purge keeps it (docs/install.md)
if [ "$(sha256sum </etc/lbd/lbd.cfg 2>/dev/null)" != "$own_lbd" ]; then
	bad "the purge removed or changed the operator's /etc/lbd/lbd.cfg"
fi
if [ "$(sha256sum </etc/vipd/vipd.conf 2>/dev/null)" != "$own_vipd" ]; then
	bad "the purge removed or changed the operator's /etc/vipd/vipd.conf"
fi
rm -f /etc/lbd/lbd.cfg /etc/vipd/vipd.conf
rmdir /etc/lbd || bad "/etc/lbd holds more than the operator's lbd.cfg after the purge: $(ls -A /etc/lbd)"
rmdir /etc/vipd || bad "/etc/vipd holds more than the operator's vipd.conf after the purge: $(ls -A /etc/vipd)"
op_conf=0
check_left

step "piuparts (started $((SECONDS - pp_t0))s ago)"
prc=0
wait "$pp_pid" || prc=$?
pp_pid=
sed 's/^/  /' "$tmp/piuparts.out"
[ "$prc" -eq 0 ] || bad "tests/package/piuparts.sh exit $prc (its output above)"

echo "took $((SECONDS - start))s"
if [ "$fail" -eq 0 ]; then
	echo "1 passed, 0 failed"
else
	exit 1
fi
