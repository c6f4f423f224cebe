#!/usr/bin/env python3
"""`cpha etcd restore` against a real etcd: every member's data directory
made again from one snapshot, after etcd's data was lost.

Three TLS etcd members in lab hosts (m0-m2, 198.18.0.51-53), a
three-master description naming its token, etcd's client certificate as
installed:
- keys written, `cpha etcd snapshot`, then one more key (after the
  snapshot: to be lost, as it would be for real);
- a restore while etcd runs is refused (it has the directory open) and
  changes nothing; so is one of a snapshot with a byte flipped (it does
  not verify), and one for a name that is no member;
- every etcd stopped, `cpha etcd restore` on each member with the same
  snapshot makes its directory (mode 0700, the old one's owner) and moves
  the old one aside, kept. m1's data directory is a bind mount (it cannot
  be renamed: EBUSY) and m2's a file system of its own (a tmpfs, as etcd
  on a disk of its own): both are restored in place, the old entries kept
  in DIR/.before-restore-TIME;
- the three started as they were (the initial-cluster flags are ignored
  for a directory that exists) are healthy, the same three members, with
  the cluster ID they had before (the one ocf:cpha:etcd records), every
  key written before the snapshot and not the one written after; they
  take writes again.
Exit 0 pass, 77 skip (not root, no etcd), 1 fail.
    sudo CPHA_BUILD_DIR=build python3 tests/integration/test_cpha_etcd_restore.py
"""

import glob
import os
import shutil
import stat
import subprocess
import sys

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import cphacmd, etcd, step  # noqa: E402
from cphatest.util import check  # noqa: E402

IPS = ("198.18.0.51", "198.18.0.52", "198.18.0.53")
KEYS = 20

DESCRIPTION = """\
cluster: {name: restore}
api: {name: kubernetes, vip: 198.18.0.2/24, interface: eth0}
masters:
  - {name: m0, address: %s}
  - {name: m1, address: %s}
  - {name: m2, address: %s}
etcd: {token: %s, data_dir: %s}
components: {manager: systemd}
"""


def cluster_id(host, url, tls):
    out = etcd._post(host, url, "/v3/cluster/member/list", {}, tls)
    return out["header"]["cluster_id"]


def run(lab):
    hosts = [lab.add_host("m%d" % i, v4=ip + "/24") for i, ip in enumerate(IPS)]
    m0 = hosts[0]
    pki = cphatest.Pki(lab.path("pki", "ca"))
    members, tls = etcd.make_cluster(lab, pki, hosts)
    for m in members:
        m.start()
    etcd.wait_healthy(members, tls, timeout=30)
    member = members[0]
    url = member.client_url
    cid = cluster_id(m0, url, tls)
    pkidir = etcd.client_pki_dir(lab, tls)
    desc = lab.path("cluster.yaml")
    with open(desc, "w") as f:
        f.write(DESCRIPTION % (IPS + (member.token, member.data_dir)))

    def cpha(m, *args):
        """cpha in m's host, for member m (the lab's hosts share the
        machine's host name: --name says which, --data-dir where)."""
        cmd = [cphacmd.binary(), "-f", desc] + list(args)
        if args[:2] == ("etcd", "restore"):
            cmd[5:5] = ["--name", m.name, "--data-dir", m.data_dir]
        return m.host.run(cmd, check=False, timeout=300)

    step("%d keys, a snapshot, one key after it" % KEYS)
    for i in range(KEYS):
        etcd.kv_put(m0, url, "/test/before/%02d" % i, "v%d" % i, tls)
    snapdir = os.path.join(lab.dir, "snapshots")
    r = cpha(member, "etcd", "snapshot", "--dir", snapdir, "--pki", pkidir, "--endpoint", url)
    check(r.returncode == 0, "snapshot: exit %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
    snap = r.stdout.split(":")[0]
    etcd.kv_put(m0, url, "/test/after", "lost", tls)
    before = sorted(os.listdir(member.data_dir))

    step("refused while etcd runs, for a damaged snapshot and for a stranger")
    r = cpha(member, "etcd", "restore", snap)
    check(r.returncode == 1 and "has it open" in r.stderr,
          "restore while etcd runs: exit %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
    for m in members:
        m.stop()
    bad = os.path.join(lab.dir, "damaged.db")
    shutil.copy(snap, bad)
    shutil.copy(snap + ".sha256", bad + ".sha256")
    with open(bad, "r+b") as f:
        f.seek(os.path.getsize(bad) // 2)
        b = f.read(1)
        f.seek(-1, 1)
        f.write(bytes([b[0] ^ 0xff]))
    r = cpha(member, "etcd", "restore", bad)
    check(r.returncode == 1 and "does not verify" in r.stderr,
          "damaged snapshot: exit %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
    r = m0.run([cphacmd.binary(), "-f", desc, "etcd", "restore", "--name", "m9", snap],
               check=False, timeout=60)
    check(r.returncode == 1 and "'m9' is not an etcd member" in r.stderr,
          "stranger: exit %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
    check(sorted(os.listdir(member.data_dir)) == before, "the data directory changed")
    check(not glob.glob(member.data_dir + ".*"), "something left beside the data directory")

    step("every etcd stopped: each member restored from the same snapshot (m1's data "
         "directory a bind mount, m2's a tmpfs: in place)")
    mounted = []
    try:
        restore_all(members, snap, cpha, mounted)
        started_again(members, m0, url, tls, cid)
    finally:
        for m in members:
            m.stop()
        for d in reversed(mounted):
            subprocess.run(["umount", "-l", d], check=False)


def mount_data_dir(m, how, mounted):
    """m's data directory, its contents kept, made a bind mount of a
    directory beside it ("bind") or a tmpfs ("tmpfs")."""
    d = m.data_dir
    st = os.stat(d)
    if how == "bind":
        src = d + "-disk"  # beside it: the same file system
        os.rename(d, src)
        os.mkdir(d, 0o700)
        subprocess.run(["mount", "--bind", src, d], check=True)
    else:
        keep = d + "-copy"
        shutil.copytree(d, keep, symlinks=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0700,uid=%d,gid=%d" % (
            st.st_uid, st.st_gid), "cpha-test-etcd", d], check=True)
        for e in os.listdir(keep):
            shutil.move(os.path.join(keep, e), os.path.join(d, e))
    mounted.append(d)
    with open("/proc/self/mountinfo") as f:
        points = [line.split()[4] for line in f]
    check(d in points, "%s: not a mount point" % d)


def restore_all(members, snap, cpha, mounted):
    for m, how in zip(members, (None, "bind", "tmpfs")):
        if how:
            mount_data_dir(m, how, mounted)
        owner = os.stat(m.data_dir)
        old = sorted(os.listdir(m.data_dir))
        r = cpha(m, "etcd", "restore", snap)
        check(r.returncode == 0, "restore %s: exit %d\n%s%s"
              % (m.name, r.returncode, r.stdout, r.stderr))
        print(r.stdout, end="", flush=True)
        if how:
            aside = glob.glob(os.path.join(m.data_dir, ".before-restore-*"))
            check(not glob.glob(m.data_dir + ".*"),
                  "%s: something left beside the data directory" % m.name)
            check(sorted(os.listdir(m.data_dir)) == sorted(
                ["member", os.path.basename(aside[0])] if aside else ["member"]),
                "%s: in the data directory: %s" % (m.name, os.listdir(m.data_dir)))
        else:
            aside = glob.glob(m.data_dir + ".before-restore-*")
        check(len(aside) == 1 and sorted(os.listdir(aside[0])) == old,
              "%s: the old directory is not kept aside: %r" % (m.name, aside))
        check(aside[0] in r.stdout, "%s: the output does not name %s" % (m.name, aside[0]))
        st = os.stat(m.data_dir)
        check(stat.S_IMODE(st.st_mode) == 0o700, "mode %o" % stat.S_IMODE(st.st_mode))
        check((st.st_uid, st.st_gid) == (owner.st_uid, owner.st_gid), "owner changed")


def started_again(members, m0, url, tls, cid):

    step("the three started: the same members and cluster ID, the keys up to the snapshot")
    for m in members:
        m.start()
    etcd.wait_healthy(members, tls, timeout=30)
    check(etcd.member_names(m0, url, tls) == ["m0", "m1", "m2"],
          etcd.member_names(m0, url, tls))
    check(cluster_id(m0, url, tls) == cid, "cluster ID %s, was %s"
          % (cluster_id(m0, url, tls), cid))
    for m in members:
        got = etcd.kv_range(m.host, m.client_url, "/test/before/", tls, prefix=True)
        check(len(got) == KEYS and all(kv["value"] == "v%d" % int(kv["key"][-2:])
                                       for kv in got), "%s: restored keys: %r" % (m.name, got))
    check(etcd.kv_range(m0, url, "/test/after", tls) == [],
          "the key written after the snapshot is there")
    etcd.kv_put(m0, url, "/test/again", "ok", tls)
    check(etcd.kv_range(members[2].host, members[2].client_url, "/test/again", tls)[0]["value"]
          == "ok", "no write after")


if __name__ == "__main__":
    sys.exit(etcd.main("cpha-etcd-restore", run, dump_lines=40))
