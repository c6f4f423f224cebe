#!/usr/bin/env python3
"""`cpha etcd snapshot` and `cpha etcd verify` against a real etcd.

One TLS etcd member in a lab host (m0, 198.18.0.41), a one-master
description pointing at it, etcd's client certificate in a PKI directory
as installed (ca.pem, etcd-client.pem, etcd-client-key.pem). In m0:
- ten `cpha etcd snapshot --keep 3` runs, a key written before each: each
  prints its file and a revision higher than the one before; the directory
  (made 0700 by the first run) then holds the newest three snapshots and
  their sidecars, and the files that are not snapshots are untouched (a
  partial file a killed run left behind is removed);
- the sidecars pass sha256sum -c, and `cpha etcd verify` passes on each;
- `etcdctl snapshot restore` of the newest makes a data directory, and an
  etcd started on it serves the last key written before that snapshot;
- an endpoint that refuses is skipped for the next one (--endpoint twice);
- without --dir and --keep, the description's etcd.snapshot gives them, and
  its etcd members are asked in order (the first, where nothing answers, is
  passed over); cpha status on the member shows them (count, newest, age);
- one byte flipped in a snapshot: verify fails naming that file (sha256
  mismatch), and passes the others; a missing sidecar is an error unless
  --no-sidecar;
- a second run while one holds the directory's lock is refused;
- etcd stopped: snapshot fails naming the endpoint and etcdctl's message,
  leaves no partial file, and deletes nothing.
Exit 0 pass, 77 skip (not root, no etcd), 1 fail.
    sudo CPHA_BUILD_DIR=build python3 tests/integration/test_cpha_etcd_snapshot.py
"""

import fcntl
import json
import os
import re
import shutil
import stat
import sys
import time

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import cphacmd, etcd, step  # noqa: E402

IP = "198.18.0.41"
IP_RESTORED = "198.18.0.42"
IP_NOBODY = "198.18.0.49"
KEEP = 3
RUNS = 10
SNAP_RE = re.compile(r"^etcd-snapshot-\d{8}T\d{6}Z\.db$")
LINE_RE = re.compile(r"^(/\S+): revision (\d+), (\d+) keys, (\d+) bytes, sha256 ([0-9a-f]{64}), "
                     r"from (\S+); (\d+) older removed \(keep %d\)$" % KEEP)

DESCRIPTION = """\
cluster: {name: snap}
api: {name: kubernetes, vip: 198.18.0.2/24, interface: eth0}
masters:
  - {name: m0, address: %s}
components: {manager: systemd}
""" % IP


# etcd's members: first a host where nothing answers, then m0; and the
# snapshot directory and count
DESCRIPTION_SNAPSHOT = """\
cluster: {name: snap}
api: {name: kubernetes, vip: 198.18.0.2/24, interface: eth0}
masters:
  - {name: m0, address: %s}
etcd:
  hosts: [{name: e9, address: %s}, m0]
  snapshot: {every: 1h, keep: 2, dir: %%(dir)s}
components: {manager: systemd}
""" % (IP, IP_NOBODY)


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def is_snapshot(name):
    if not SNAP_RE.match(name):
        return False
    try:
        time.strptime(name[len("etcd-snapshot-"):-len(".db")], "%Y%m%dT%H%M%SZ")
    except ValueError:
        return False
    return True


def snapshots(d):
    return sorted(n for n in os.listdir(d) if is_snapshot(n))


class Cpha:
    """cpha run inside m0 with the test's description and PKI."""

    def __init__(self, host, desc, pki, snapdir):
        self.host, self.desc, self.pki, self.dir = host, desc, pki, snapdir

    def run(self, *args, timeout=120):
        return self.host.run([cphacmd.binary(), "-f", self.desc] + list(args), check=False,
                             timeout=timeout)

    def snapshot(self, *extra):
        return self.run("etcd", "snapshot", "--keep", str(KEEP), "--dir", self.dir, "--pki",
                        self.pki, *extra)

    def verify(self, *args):
        return self.run("etcd", "verify", *args)


def take(cpha, *extra):
    """One snapshot that must succeed: (path, revision, endpoint)."""
    r = cpha.snapshot(*extra)
    check(r.returncode == 0, "cpha etcd snapshot: exit %d\n%s%s"
          % (r.returncode, r.stdout, r.stderr))
    lines = r.stdout.splitlines()
    check(len(lines) == 1, "one line expected, got %r" % r.stdout)
    m = LINE_RE.match(lines[0])
    check(m, "line not as expected: %r" % lines[0])
    path, rev, size, sha, ep = m.group(1), int(m.group(2)), int(m.group(4)), m.group(5), \
        m.group(6)
    check(os.path.dirname(path) == cpha.dir, path)
    check(os.path.getsize(path) == size, "size %d printed, %d on disk"
          % (size, os.path.getsize(path)))
    check(read(path + ".sha256") == "%s  %s\n" % (sha, os.path.basename(path)),
          "sidecar of %s: %r" % (path, read(path + ".sha256")))
    return path, rev, ep


def restore_and_read(lab, pki, path, key):
    """etcdctl snapshot restore of path, an etcd on the result in a host of
    its own, and the value of key there."""
    host = lab.add_host("r0", v4=IP_RESTORED + "/24")
    data = lab.bulky(lab.path("restored", "r0.data"))
    shutil.rmtree(data, ignore_errors=True)
    members, tls = etcd.make_cluster(lab, pki, [host])
    m = members[0]
    m.data_dir = data
    peer = "https://%s:%d" % (IP_RESTORED, etcd.PEER_PORT)
    r = host.run(["etcdctl", "snapshot", "restore", path, "--data-dir", data, "--name", m.name,
                  "--initial-cluster", "%s=%s" % (m.name, peer),
                  "--initial-advertise-peer-urls", peer,
                  "--initial-cluster-token", "restored"],
                 check=False, timeout=60, env={"ETCDCTL_API": "3"})
    check(r.returncode == 0, "etcdctl snapshot restore: exit %d\n%s%s"
          % (r.returncode, r.stdout, r.stderr))
    check(os.path.isdir(os.path.join(data, "member", "snap")), "no member/snap in %s" % data)
    m.token = "restored"
    m.start()
    etcd.wait_healthy([m], tls, timeout=30)
    kvs = etcd.kv_range(host, m.client_url, key, tls)
    m.stop()
    return kvs[0]["value"] if kvs else None


def run(lab):
    m0 = lab.add_host("m0", v4=IP + "/24")
    pki = cphatest.Pki(lab.path("pki", "ca"))
    members, tls = etcd.make_cluster(lab, pki, [m0])
    member = members[0]
    member.start()
    etcd.wait_healthy(members, tls, timeout=30)
    url = member.client_url

    # etcd's client certificate as installed on a master
    pkidir = etcd.client_pki_dir(lab, tls)
    desc = lab.path("cluster.yaml")
    write(desc, DESCRIPTION)
    snapdir = os.path.join(lab.dir, "snapshots")
    cpha = Cpha(m0, desc, pkidir, snapdir)
    for i in range(20):
        etcd.kv_put(m0, url, "/test/pre/%d" % i, "v%d" % i, tls)

    step("%d runs of cpha etcd snapshot --keep %d, a key written before each" % (RUNS, KEEP))
    taken, revs, foreign = [], [], {}
    for i in range(RUNS):
        etcd.kv_put(m0, url, "/test/run", "run-%d" % i, tls)
        path, rev, ep = take(cpha)
        check(ep == url, "endpoint %s, the description's is %s" % (ep, url))
        if i == 0:
            mode = stat.S_IMODE(os.stat(snapdir).st_mode)
            check(mode == 0o700, "%s made with mode %o" % (snapdir, mode))
            # not snapshots: never deleted; a partial file of a killed run:
            # removed by the next run
            foreign = {"notes.txt": "keep me\n",
                       "etcd-snapshot-latest.db": "not a snapshot\n",
                       "etcd-snapshot-20261329T000000Z.db": "month 13\n",
                       "etcd-snapshot-20000101T000000Z.db.bak": "old\n"}
            for n, text in foreign.items():
                write(os.path.join(snapdir, n), text)
            write(os.path.join(snapdir, ".etcd-snapshot-20000101T000000Z.db.part"), "partial")
        check(not taken or path != taken[-1], "the same name twice: %s" % path)
        taken.append(path)
        revs.append(rev)
    check(all(a < b for a, b in zip(revs, revs[1:])), "revisions not increasing: %s" % revs)

    step("the newest %d stay with their sidecars; the rest of the directory is untouched"
         % KEEP)
    names = sorted(os.listdir(snapdir))
    want = sorted([os.path.basename(p) for p in taken[-KEEP:]] +
                  [os.path.basename(p) + ".sha256" for p in taken[-KEEP:]] + list(foreign))
    check(names == want, "directory:\n  %s\nexpected:\n  %s" % (names, want))
    for n, text in foreign.items():
        check(read(os.path.join(snapdir, n)) == text, "%s changed" % n)
    kept = [os.path.join(snapdir, n) for n in snapshots(snapdir)]
    check(kept == taken[-KEEP:], "kept %s, newest %s" % (kept, taken[-KEEP:]))

    step("sha256sum -c reads the sidecars; cpha etcd verify passes each")
    r = m0.run(["sh", "-c", 'cd "$1" && sha256sum -c -- *.sha256', "sh", snapdir],
               check=False)
    check(r.returncode == 0 and r.stdout.count(": OK") == KEEP, "sha256sum -c: %s%s"
          % (r.stdout, r.stderr))
    r = cpha.verify(*kept)
    check(r.returncode == 0, "verify: exit %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
    for p, rev in zip(kept, revs[-KEEP:]):
        check(re.search(r"^%s: ok, revision %d, " % (re.escape(p), rev), r.stdout, re.M),
              "no ok line with revision %d for %s:\n%s" % (rev, p, r.stdout))

    step("etcdctl snapshot restore of the newest; etcd on it has the last key")
    value = restore_and_read(lab, pki, kept[-1], "/test/run")
    check(value == "run-%d" % (RUNS - 1), "restored /test/run = %r" % value)

    step("an endpoint that refuses is skipped for the next")
    etcd.kv_put(m0, url, "/test/run", "fallback", tls)
    dead = "https://%s:%d" % (IP, 2999)
    path, rev, ep = take(cpha, "--endpoint", dead, "--endpoint", url)
    check(ep == url and rev > revs[-1], "from %s at revision %d" % (ep, rev))
    kept = [os.path.join(snapdir, n) for n in snapshots(snapdir)]
    check(len(kept) == KEEP and kept[-1] == path, kept)

    step("the description's etcd.snapshot (keep 2, dir) and its members in order, "
         "the first one down")
    dir2 = os.path.join(lab.dir, "snapshots-by-description")
    desc2 = lab.path("cluster-snapshot.yaml")
    write(desc2, DESCRIPTION_SNAPSHOT % {"dir": dir2})
    for i in range(3):
        etcd.kv_put(m0, url, "/test/desc", "d%d" % i, tls)
        r = m0.run([cphacmd.binary(), "-f", desc2, "etcd", "snapshot", "--pki", pkidir],
                   check=False, timeout=120)
        check(r.returncode == 0, "snapshot by the description: exit %d\n%s%s"
              % (r.returncode, r.stdout, r.stderr))
        check(r.stdout.startswith(dir2 + "/etcd-snapshot-") and
              ("from %s; " % url) in r.stdout and "(keep 2)" in r.stdout, r.stdout)
    check(len(snapshots(dir2)) == 2 and len(os.listdir(dir2)) == 4, os.listdir(dir2))

    step("cpha status on the member: the snapshots kept and the newest one's age")
    r = m0.run([cphacmd.binary(), "-f", desc2, "status", "--json", "--pki", pkidir,
                "--timeout", "1s"], check=False, timeout=60)
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        raise AssertionError("cpha status --json: exit %d\n%s%s"
                             % (r.returncode, r.stdout, r.stderr))
    sn = doc["details"].get("etcd_snapshots")
    check(sn and sn["dir"] == dir2 and sn["count"] == 2 and
          sn["newest"] == snapshots(dir2)[-1] and not sn["overdue"] and
          0 <= sn["age_seconds"] < 60 and sn["every_seconds"] == 3600,
          "details.etcd_snapshots: %r" % sn)
    check(not [p for p in doc.get("problems", []) if "snapshot" in json.dumps(p)],
          doc.get("problems"))

    step("one byte flipped: verify names that file, passes the others")
    bad = kept[0]
    with open(bad, "r+b") as f:
        f.seek(os.path.getsize(bad) // 2)
        b = f.read(1)
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([b[0] ^ 0x01]))
    r = cpha.verify(*kept)
    check(r.returncode == 1, "verify of a changed file: exit %d\n%s%s"
          % (r.returncode, r.stdout, r.stderr))
    print(r.stdout, end="")
    check(re.search(r"^%s: sha256 mismatch: sidecar says [0-9a-f]{64}, file is [0-9a-f]{64}$"
                    % re.escape(bad), r.stdout, re.M), "no mismatch line for %s:\n%s"
          % (bad, r.stdout))
    for p in kept[1:]:
        check(re.search(r"^%s: ok, " % re.escape(p), r.stdout, re.M), "%s not ok:\n%s"
              % (p, r.stdout))
    # etcdctl's words, not a Go stack trace (bbolt may panic on the file)
    check(".go:" not in r.stdout and "goroutine" not in r.stdout, r.stdout)

    step("no sidecar: an error, unless --no-sidecar")
    lone = os.path.join(lab.dir, "lone.db")
    shutil.copy(kept[-1], lone)
    r = cpha.verify(lone)
    check(r.returncode == 1 and "%s: no sidecar %s.sha256" % (lone, lone) in r.stdout,
          "verify without a sidecar: exit %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
    r = cpha.verify("--no-sidecar", lone)
    check(r.returncode == 0 and "%s: ok, " % lone in r.stdout,
          "verify --no-sidecar: exit %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
    write(lone, "not a snapshot at all\n")
    r = cpha.verify("--no-sidecar", lone)
    check(r.returncode == 1 and "%s: etcdctl snapshot status: " % lone in r.stdout,
          "verify --no-sidecar of junk: exit %d\n%s%s" % (r.returncode, r.stdout, r.stderr))

    step("a second run while one holds the directory is refused")
    fd = os.open(snapdir, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        r = cpha.snapshot()
    finally:
        os.close(fd)
    check(r.returncode == 1 and "another cpha etcd snapshot is writing there" in r.stderr,
          "while locked: exit %d\n%s%s" % (r.returncode, r.stdout, r.stderr))

    step("etcd stopped: a clear error, no partial file, nothing deleted")
    before = sorted(os.listdir(snapdir))
    member.stop()
    r = cpha.snapshot()
    check(r.returncode == 1 and r.stdout == "", "with etcd stopped: exit %d\n%s%s"
          % (r.returncode, r.stdout, r.stderr))
    check(("no snapshot from the etcd endpoint:\n  %s: " % url) in r.stderr,
          "the error does not name the endpoint:\n%s" % r.stderr)
    print(r.stderr, end="")
    check(re.search(r"deadline exceeded|connection refused|connect", r.stderr),
          "etcdctl's message is not in the error:\n%s" % r.stderr)
    after = sorted(os.listdir(snapdir))
    check(after == before, "the directory changed:\n  %s\n  %s" % (before, after))
    check(not [n for n in after if n.endswith(".part")], after)


if __name__ == "__main__":
    sys.exit(etcd.main("cpha-etcd-snap", run, dump_lines=30))
