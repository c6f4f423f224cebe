#!/usr/bin/env python3
"""The etcd cluster ID record on a real three-node Pacemaker cluster: one
member's data lost is a replacement, every member's data lost is a refusal.

The cluster of test_pacemaker_cluster (three lab hosts n1-n3, corosync +
Pacemaker, fencing through fence_cpha_lab: cphatest.pcmk_cp.Bed), with the etcd clone
alone (interleave, notify, clone-max=3, TLS), its data dirs on each node's
/var/lib/etcd (a per-node directory, as a disk would be):
  - the bootstrap of the three members records the cluster's ID
    (crm_attribute --query equals header.cluster_id in hex);
  - the clone disabled, n1's data dir emptied, the clone enabled (the whole
    clone starts at once, as after a power cut): n1 does not bootstrap a
    cluster of its own (the record, and the other members' etcd answering
    on their peer URLs); it replaces its old member in the recorded
    cluster: a new member ID, three members, the key written before is
    read on n1, no failed action, the record unchanged;
  - the clone disabled, every data dir emptied, enabled: the start fails on
    each node with OCF_ERR_GENERIC and the recorded ID in the exit reason,
    once per node; etcd runs nowhere, no member/ directory appears, the
    record is kept.
Exit 0 pass, 77 skip, 1 fail.
    sudo python3 tests/integration/test_ocf_etcd_record_cluster.py
"""

import os
import re
import shutil
import sys
import time

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import etcd, pcmk3, pcmk_cp, step  # noqa: E402
from cphatest.pcmk_cp import NAMES, Bed, etcd_params  # noqa: E402
from cphatest.util import check  # noqa: E402

RECORD = ["crm_attribute", "--type", "crm_config", "--name", "etcd-cluster-id"]


def record(bed):
    r = bed.cl.any_up().run(RECORD + ["--query", "--quiet"], check=False, timeout=20)
    return r.stdout.strip() if r.returncode == 0 else None


def cluster_id(bed, name):
    r = bed.host(name).curl(bed.url(name) + "/v3/maintenance/status", method="POST",
                            data={}, **bed.etls.curl_kw())
    check(r.status == 200, "status of %s: %r" % (name, r))
    return "%x" % int(r.json()["header"]["cluster_id"])


def data_dir(bed, name):
    return os.path.join(bed.cl.node(name).etcd_dir, "main")


def etcd_pid(bed, name):
    try:
        with open(bed.cl.node(name).path("/run/cpha/etcd-etcd.pid")) as f:
            pid = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pid if cphatest.util.pid_alive(pid) else None


def start_failures(bed):
    return [f for f in pcmk3.failures(bed.xml()) if f.get("op_key", "").startswith("etcd_start")]


def disable(bed):
    bed.pcs("resource", "disable", "etcd-clone")
    cphatest.wait_until(lambda: not bed.running("etcd") and
                        not any(etcd_pid(bed, n) for n in NAMES), 60, 0.5,
                        "etcd stopped on n1-n3")


def empty(bed, name):
    """Empty name's data dir, keeping the directory."""
    d = data_dir(bed, name)
    for e in os.listdir(d):
        shutil.rmtree(os.path.join(d, e))


def run(lab, stage):
    bed = Bed(lab, stage)
    pcmk_cp.start(bed)
    bed.pcs("stonith", "create", "fence-lab", pcmk3.FENCE_AGENT,
            "hosts_file=" + bed.cl.hosts_file, "log_file=" + bed.cl.fence_log,
            "pcmk_host_list=" + " ".join(NAMES), "op", "monitor", "interval=60s")
    check(record(bed) is None, "no record before the first bootstrap")

    step("pcs resource create etcd (clone-max=3): three members, the cluster ID recorded")
    bed.pcs("resource", "create", "etcd", "ocf:cpha:etcd", *etcd_params(bed),
            "op", "start", "timeout=120s", "op", "monitor", "interval=5s", "timeout=30s",
            "clone", "interleave=true", "notify=true", "clone-max=3", "clone-node-max=1",
            "--agent-validation")
    cphatest.wait_until(lambda: bed.running("etcd") == set(NAMES), 120, 0.5,
                        "etcd Started on n1, n2, n3")
    cid = cluster_id(bed, "n1")
    rec = cphatest.wait_until(lambda: record(bed), 20, 0.5, "the cluster ID recorded")
    check(rec == cid, "recorded %s, the cluster is %s" % (rec, cid))
    step("recorded etcd-cluster-id=%s" % rec)
    etcd.kv_put(bed.host("n2"), bed.url("n2"), "/cpha/record", "kept", bed.etls)
    old = bed.member_id("n1")

    step("n1's data dir emptied, the whole clone started again: n1 replaces its member")
    disable(bed)
    empty(bed, "n1")
    new_before = len(bed.agent_lines("n1", r"--initial-cluster-state=new"))
    check(new_before >= 1, "n1's first start bootstrapped (the log says how)")
    lines_before = len(bed.agent_lines("n1", r"start: "))
    t0 = time.monotonic()
    bed.pcs("resource", "enable", "etcd-clone")
    cphatest.wait_until(lambda: bed.running("etcd") == set(NAMES) and bed.healthy("n1"),
                        150, 0.5, "etcd Started and healthy on n1, n2, n3")
    step("all Started after %.1fs" % (time.monotonic() - t0))
    members = bed.members("n2")
    check(sorted(members) == list(NAMES), "three members: %s" % sorted(members))
    cphatest.wait_until(lambda: not any(m.get("isLearner")
                                        for m in bed.members("n2").values()),
                        60, 0.5, "n1 promoted")
    check(bed.member_id("n1") != old, "n1 is a new member (%s, was %s)"
          % (bed.member_id("n1"), old))
    check(cluster_id(bed, "n1") == rec, "n1 is in the recorded cluster")
    check(bed.read("n1", "/cpha/record") == "kept", "the key written before, read on n1")
    check(record(bed) == rec, "the record is unchanged: %s" % record(bed))
    check(not start_failures(bed), "no failed start: %s" % start_failures(bed))
    news = bed.agent_lines("n1", r"--initial-cluster-state=new")
    check(len(news) == new_before, "n1 started no new cluster:\n%s" % "".join(news))
    how = bed.agent_lines("n1", r"start: ")[lines_before:]
    step("n1: %s" % " / ".join(ln.split("start: ", 1)[-1].strip()[:80] for ln in how[-4:]))

    step("every data dir emptied: each node refuses, nothing is bootstrapped")
    disable(bed)
    for n in NAMES:
        empty(bed, n)
    bed.pcs("resource", "enable", "etcd-clone")
    t0 = time.monotonic()
    fails = cphatest.wait_until(lambda: len(start_failures(bed)) >= 3 and start_failures(bed),
                                120, 0.5, "etcd's start to fail on n1, n2, n3")
    step("refused on every node after %.1fs" % (time.monotonic() - t0))
    reason = (r"^etcd data lost on every member: cluster %s is recorded, no empty one "
              r"bootstrapped; restore a snapshot" % rec)
    for f in fails:
        check(f.get("exitcode") == "1", "OCF_ERR_GENERIC: %s" % f)
        check(re.search(reason, f.get("exitreason", "")), "exit reason: %s" % f)
    check(sorted(f.get("node") for f in fails) == list(NAMES),
          "one failed start per node: %s" % fails)
    time.sleep(5)  # Pacemaker would retry here if it were going to
    check(len(start_failures(bed)) == 3, "no retry: %s" % start_failures(bed))
    check(not bed.running("etcd"), "etcd Started nowhere: %s" % bed.running("etcd"))
    for n in NAMES:
        check(not etcd_pid(bed, n), "no etcd on %s" % n)
        check(os.listdir(data_dir(bed, n)) == [], "%s's data dir stays empty: %s"
              % (n, os.listdir(data_dir(bed, n))))
        check(bed.agent_lines(n, r"etcd's data is gone on every member: cluster %s" % rec),
              "%s's log says the data is gone" % n)
    check(record(bed) == rec, "the record is kept: %s" % record(bed))


def main():
    return pcmk_cp.main("ocf-etcd-record3", run, ("corosync", "pacemakerd", "pcs", "crm_mon",
                                                  "crm_attribute", "corosync-keygen",
                                                  "corosync-cmapctl", "etcd", "nsenter",
                                                  "unshare"))


if __name__ == "__main__":
    sys.exit(main())
