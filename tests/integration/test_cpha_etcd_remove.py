#!/usr/bin/env python3
"""`cpha etcd remove` against a real etcd cluster.

Four TLS etcd members in lab hosts m1..m4 (198.18.0.11-14), and a
description of three masters m1..m3: m4 is the host an operator took out
of it (four masters to three). From m1, with etcd's client certificate as
installed:
- `remove m3` is refused: m3 is still an etcd member in the description;
- `remove m4` while m4's etcd runs is refused: it still runs;
- m4 stopped: `remove --dry-run m4` says it would remove m4 and leave 3
  voting members, and removes nothing;
- `remove m4` removes it (one line naming its ID, 3 voting members left),
  and etcd's member list is m1..m3, all healthy;
- `remove m4` again: a note that it is not a member, nothing to do, exit 0.
Every refusal exits 1 and leaves etcd's member list as it was.
Exit 0 pass, 77 skip (not root, no etcd), 1 fail.
    sudo CPHA_BUILD_DIR=build python3 tests/integration/test_cpha_etcd_remove.py
"""

import re
import sys

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import cphacmd, etcd, step  # noqa: E402

IPS = {"m1": "198.18.0.11", "m2": "198.18.0.12", "m3": "198.18.0.13", "m4": "198.18.0.14"}

# m4 has left the description
DESCRIPTION = """\
cluster: {name: shrink}
api: {name: kubernetes, vip: 198.18.0.2/24, interface: eth0}
masters:
  - {name: m1, address: %(m1)s}
  - {name: m2, address: %(m2)s}
  - {name: m3, address: %(m3)s}
components: {manager: systemd}
""" % IPS


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def show(r):
    return "exit %d\n%s%s" % (r.returncode, r.stdout, r.stderr)


def run(lab):
    hosts = [lab.add_host(n, v4=ip + "/24") for n, ip in sorted(IPS.items())]
    pki = cphatest.Pki(lab.path("pki", "ca"))
    members, tls = etcd.make_cluster(lab, pki, hosts)
    for m in members:
        m.start()
    etcd.wait_healthy(members, tls, timeout=30)
    m1, m4 = hosts[0], members[3]
    url = members[0].client_url
    pkidir = etcd.client_pki_dir(lab, tls)
    desc = lab.path("cluster.yaml")
    with open(desc, "w") as f:
        f.write(DESCRIPTION)

    def cpha(*args):
        return m1.run([cphacmd.binary(), "-f", desc, "etcd", "remove", "--pki", pkidir] +
                      list(args), check=False, timeout=120)

    def names():
        return etcd.member_names(m1, url, tls)

    all4 = ["m1", "m2", "m3", "m4"]
    check(names() == all4, names())

    step("a member the description still has is refused")
    r = cpha("m3")
    check(r.returncode == 1 and r.stdout == "", show(r))
    check("cpha etcd remove: m3 is still an etcd member in %s: " % desc in r.stderr, show(r))
    print(r.stderr, end="")
    check(names() == all4, names())

    step("a member that still runs is refused")
    r = cpha("m4")
    check(r.returncode == 1, show(r))
    check("cpha etcd remove: m4's member still runs: stop it first (pcs node standby m4, "
          "or stop etcd there), then remove it" in r.stderr, show(r))
    print(r.stderr, end="")
    check(names() == all4, names())

    step("m4 stopped: --dry-run says what it would do, and does nothing")
    m4.stop()
    r = cpha("--dry-run", "m4")
    check(r.returncode == 0, show(r))
    check(re.search(r"^cpha etcd remove: would remove m4 \(member [0-9a-f]+\), "
                    r"3 voting members left$", r.stdout, re.M), show(r))
    print(r.stdout, end="")
    check(names() == all4, names())

    step("m4 stopped and out of the description: removed")
    r = cpha("m4")
    check(r.returncode == 0, show(r))
    m = re.search(r"^cpha etcd remove: m4 removed \(member ([0-9a-f]+)\), "
                  r"3 voting members left$", r.stdout, re.M)
    check(m, show(r))
    print(r.stdout, end="")
    check(names() == ["m1", "m2", "m3"], names())
    etcd.wait_healthy(members[:3], tls, timeout=30)

    step("again: not a member any more, nothing to do")
    r = cpha("m4")
    check(r.returncode == 0, show(r))
    check("cpha etcd remove: m4: not a member (removed already)\n" in r.stdout and
          "nothing to do" in r.stdout, show(r))
    print(r.stdout, end="")
    check(names() == ["m1", "m2", "m3"], names())


if __name__ == "__main__":
    sys.exit(etcd.main("cpha-etcd-rm", run, dump_lines=30))
