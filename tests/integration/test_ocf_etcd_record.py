#!/usr/bin/env python3
"""ocf:cpha:etcd never bootstraps a new, empty cluster where one existed:
real Pacemaker (a single-node corosync + Pacemaker cluster, cphatest.pacemaker),
the real etcd (Debian's 3.4) run by the agent, its CIB read and written with
crm_attribute.

One lab host n1 (198.18.0.11) runs the etcd clone (clone-max=1,
node_map n1=198.18.0.11, TLS for clients and peers), created with pcs:
  - the bootstrap records the cluster's ID in the CIB: the cluster property
    etcd-cluster-id equals the running cluster's header.cluster_id (hex);
  - a snapshot is saved, the clone disabled and the data dir emptied (what an
    operator's wipe or a disk mix-up does); enabled again, the start fails
    with OCF_ERR_GENERIC and an exit reason naming the recorded ID, once
    (no retry loop: the resource stays Stopped), after the wait for a member
    with data; no member/ directory appears, no etcd runs, the record is
    unchanged, and the log tells how to restore and how to clear the record;
  - the restore the log prints, run with Debian's etcdctl 3.4 (ETCDCTL_API=3
    etcdctl snapshot restore and the same flags), brings the data back:
    after a cleanup the member starts with the recorded ID and the key
    written before the wipe;
  - a record that names another cluster keeps the member with data from
    starting (OCF_ERR_GENERIC, both IDs in the reason, etcd not started);
  - a record deleted while etcd runs is written again by the leader's
    monitor (an agent upgraded under a running cluster);
  - the record deleted on purpose (the command the log gives): after a wipe
    the start bootstraps a new, empty cluster and records it.
Exit 0 pass, 77 skip, 1 fail.
    sudo python3 tests/integration/test_ocf_etcd_record.py
"""

import os
import re
import shutil
import sys
import time

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import etcd, ocf, pacemaker, step  # noqa: E402

IP = "198.18.0.11"
URL = "https://%s:2379" % IP
GRACE = 15.0  # ETCD_LOST_GRACE_USEC: the wait for a member with data
RECORD = ["crm_attribute", "--type", "crm_config", "--name", "etcd-cluster-id"]


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def pcs(node, *args, check_rc=True, timeout=120):
    r = node.run(["pcs"] + list(args), check=False, timeout=timeout)
    if check_rc and r.returncode != 0:
        raise AssertionError("pcs %s: exit %d\n%s%s" % (" ".join(args)[:300], r.returncode,
                                                        r.stdout, r.stderr))
    return r


class Bed:
    def __init__(self, lab, node, host, tls, data_dir, token):
        self.lab, self.node, self.host, self.tls = lab, node, host, tls
        self.data_dir, self.token = data_dir, token

    def record(self):
        """The recorded cluster ID, or None."""
        r = self.node.run(RECORD + ["--query", "--quiet"], check=False, timeout=20)
        return r.stdout.strip() if r.returncode == 0 else None

    def cluster_id(self):
        r = self.host.curl(URL + "/v3/maintenance/status", method="POST", data={},
                           **self.tls.curl_kw())
        check(r.status == 200, "status: %r" % r)
        return "%x" % int(r.json()["header"]["cluster_id"])

    def etcd(self):
        """etcd's clone instance in crm_mon: its attributes."""
        return self.node.resources().get("etcd", {})

    def started(self):
        r = self.etcd()
        return r.get("role") == "Started" and r.get("failed") != "true"

    def stopped(self):
        return self.etcd().get("role") == "Stopped" and not self.etcd_pid()

    def etcd_pid(self):
        """The pid in the agent's pid file, when that process lives."""
        try:
            with open(self.node.path("/run/cpha/etcd-etcd.pid")) as f:
                pid = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            return None
        return pid if cphatest.util.pid_alive(pid) else None

    def start_failures(self):
        return [f for f in self.node.failures()
                if f.get("op_key", "").startswith("etcd_start")]

    def log_lines(self, pattern):
        path = os.path.join(self.node.dir, "var-log", "pacemaker", "pacemaker.log")
        with open(path, errors="replace") as f:
            return [ln for ln in f if re.search(pattern, ln)]

    def disable(self):
        pcs(self.node, "resource", "disable", "etcd-clone")
        cphatest.wait_until(self.stopped, 60, 0.5, "etcd stopped")

    def wipe(self):
        """Empty the data dir, keeping the directory (an operator's rm -rf dir/*)."""
        for e in os.listdir(self.data_dir):
            shutil.rmtree(os.path.join(self.data_dir, e))

    def enable_and_refuse(self, reason, has_data=False):
        """Enable (and clean up) the clone: its start fails once with
        OCF_ERR_GENERIC and reason, etcd never runs, and no member appears
        (unless the data dir has one: then it is kept as it was)."""
        before = self.member_files()
        # the start (and its wait for a member with data) begins with the
        # enable: the clock starts before it, not after the cleanup, which
        # a loaded machine takes seconds over
        t0 = time.monotonic()
        pcs(self.node, "resource", "enable", "etcd-clone")
        pcs(self.node, "resource", "cleanup", "etcd-clone")
        f = cphatest.wait_until(lambda: self.start_failures() or None, 90, 0.5,
                                "etcd's start to fail")[0]
        took = time.monotonic() - t0
        check(f.get("exitcode") == "1", "OCF_ERR_GENERIC: %s" % f)
        check(re.search(reason, f.get("exitreason", "")),
              "exit reason %r does not match %r" % (f.get("exitreason"), reason))
        check(len(f.get("exitreason", "")) <= 128, "within Pacemaker's 128 characters")
        time.sleep(5)  # Pacemaker would retry here if it were going to
        check(len(self.start_failures()) == 1, "one failed start: %s" % self.start_failures())
        check(self.stopped(), "etcd not started: %s (pid %s)" % (self.etcd(), self.etcd_pid()))
        if not has_data:
            check(not os.path.exists(os.path.join(self.data_dir, "member")),
                  "no member created in %s: %s" % (self.data_dir, os.listdir(self.data_dir)))
        check(self.member_files() == before, "the data dir is untouched: %s -> %s"
              % (before, self.member_files()))
        return f, took

    def member_files(self):
        out = []
        for root, _, files in os.walk(self.data_dir):
            out += [os.path.relpath(os.path.join(root, n), self.data_dir) for n in files]
        return sorted(out)


def run(lab, stage):
    n1 = lab.add_host("n1", v4=IP + "/24", v6="2001:db8::11/64")
    pki = cphatest.Pki(lab.path("pki", "ca"))
    servers, tls = etcd.issue_certs(pki, [n1])
    cert, key = servers["n1"]
    data_dir = lab.bulky(lab.path("data", "n1"))
    token = "cpha-record-%d" % os.getpid()

    step("corosync + pacemakerd on n1 (agents overlaid in its mount namespace)")
    node = pacemaker.Node(lab, n1, "n1", extra_mounts=[stage.overlay_script()])
    try:
        node.start(timeout=60)
    except Exception:
        print(node.log_tail(), file=sys.stderr)
        raise
    bed = Bed(lab, node, n1, tls, data_dir, token)
    check(bed.record() is None, "no record before the first bootstrap")

    step("pcs resource create etcd (clone-max=1): a new cluster, its ID recorded")
    params = {"node_map": "n1=%s" % IP, "data_dir": data_dir,
              "trusted_ca_file": pki.ca_cert, "cert_file": cert, "key_file": key,
              "peer_trusted_ca_file": pki.ca_cert, "peer_cert_file": cert,
              "peer_key_file": key, "agent_cert": tls.cert, "agent_key": tls.key,
              "token": token, "args": "--heartbeat-interval=100 --election-timeout=1000"}
    pcs(node, "resource", "create", "etcd", "ocf:cpha:etcd",
        *["%s=%s" % kv for kv in params.items()],
        "op", "start", "timeout=120s", "op", "monitor", "interval=3s", "timeout=30s",
        "clone", "interleave=true", "notify=true", "clone-max=1", "clone-node-max=1",
        "--agent-validation")
    cphatest.wait_until(bed.started, 90, 0.5, "etcd Started")
    cid = bed.cluster_id()
    rec = cphatest.wait_until(bed.record, 20, 0.5, "the cluster ID recorded")
    check(rec == cid, "recorded %s, the cluster is %s" % (rec, cid))
    step("recorded etcd-cluster-id=%s" % rec)
    rev = etcd.kv_put(n1, URL, "/registry/cpha-record", "before the wipe", tls)
    snap = lab.path("snapshot.db")
    r = n1.run(["etcdctl", "--endpoints", URL, "--cacert", pki.ca_cert, "--cert", tls.cert,
                "--key", tls.key, "snapshot", "save", snap],
               env={"ETCDCTL_API": "3"}, check=False, timeout=30)
    check(r.returncode == 0, "etcdctl snapshot save: %s%s" % (r.stdout, r.stderr))

    step("every data dir emptied: the start refuses, nothing is bootstrapped")
    bed.disable()
    bed.wipe()
    f, took = bed.enable_and_refuse(
        r"^etcd data lost on every member: cluster %s is recorded, no empty one "
        r"bootstrapped; restore a snapshot" % rec)
    step("refused after %.1fs: %s" % (took, f.get("exitreason")))
    check(took >= GRACE - 1, "it waited for a member with data first (%.1fs)" % took)
    check(bed.record() == rec, "the record is kept: %s" % bed.record())
    check(bed.log_lines(r"etcd's data is gone on every member: cluster %s is recorded" % rec),
          "the log says the data is gone")
    check(bed.log_lines(r"crm_attribute --type crm_config --name etcd-cluster-id --delete"),
          "the log says how to clear the record")
    how = bed.log_lines(r"etcdutl snapshot restore SNAPSHOT ")
    check(how, "the log says how to restore")
    flags = re.search(r"etcdutl snapshot restore SNAPSHOT (.*?) \(etcd 3\.5 and later",
                      how[-1]).group(1)
    check(flags == "--name n1 --data-dir %s --initial-cluster n1=https://%s:2380 "
          "--initial-cluster-token %s --initial-advertise-peer-urls https://%s:2380"
          % (data_dir, IP, token, IP), "restore flags for this layout: %s" % flags)

    step("the restore the log gives (etcdctl 3.4) brings the cluster back with its ID")
    os.rmdir(data_dir)  # "move its empty data dir aside": etcdctl 3.4 wants none
    r = n1.run(["etcdctl", "snapshot", "restore", snap] + flags.split(),
               env={"ETCDCTL_API": "3"}, check=False, timeout=60)
    check(r.returncode == 0, "etcdctl snapshot restore: %s%s" % (r.stdout, r.stderr))
    pcs(node, "resource", "cleanup", "etcd-clone")
    cphatest.wait_until(bed.started, 90, 0.5, "etcd Started from the restored data")
    check(bed.cluster_id() == rec, "the restored cluster has the recorded ID")
    kvs = etcd.kv_range(n1, URL, "/registry/cpha-record", tls)
    check(kvs and kvs[0]["value"] == "before the wipe" and kvs[0]["mod_revision"] == rev,
          "the key written before the wipe is back: %s" % kvs)
    check(bed.log_lines(r"restart-with-data"), "the member restarted with the data")

    step("a record naming another cluster: the member with data is not started")
    bed.disable()
    node.run(RECORD + ["--update", "1c2d3e4f5a6b7c8d"])
    f, _ = bed.enable_and_refuse(
        r"^the data dir of member n1 is of etcd cluster %s, the CIB records 1c2d3e4f5a6b7c8d"
        % rec, has_data=True)
    step("refused: %s" % f.get("exitreason"))
    node.run(RECORD + ["--update", rec])
    pcs(node, "resource", "cleanup", "etcd-clone")
    cphatest.wait_until(bed.started, 90, 0.5, "etcd Started with the record set right")

    step("a record deleted under a running cluster: the leader's monitor writes it")
    node.run(RECORD + ["--delete"])
    check(bed.record() is None, "deleted")
    again = cphatest.wait_until(bed.record, 30, 0.5, "the monitor to record the cluster")
    check(again == rec, "the monitor recorded %s, the cluster is %s" % (again, rec))

    step("the record cleared on purpose: a new, empty cluster, recorded")
    bed.disable()
    bed.wipe()
    node.run(RECORD + ["--delete"])
    pcs(node, "resource", "enable", "etcd-clone")
    pcs(node, "resource", "cleanup", "etcd-clone")
    cphatest.wait_until(bed.started, 90, 0.5, "etcd Started as a new cluster")
    new = cphatest.wait_until(bed.record, 20, 0.5, "the new cluster recorded")
    check(new == bed.cluster_id(), "the new cluster's ID recorded: %s" % new)
    check(etcd.kv_range(n1, URL, "/registry/cpha-record", tls) == [],
          "a new, empty cluster (as asked)")

    step("pacemakerd stops etcd")
    rc = node.stop(timeout=90)
    check(rc == 0, "pacemakerd exit status %s" % rc)
    check(not bed.etcd_pid(), "etcd stopped with the cluster")


def main():
    ocf.require(tools=("corosync", "pacemakerd", "pcs", "crm_mon", "crm_attribute",
                       "corosync-keygen", "etcd", "etcdctl", "nsenter", "unshare"))
    if not os.access(os.path.join(ocf.agent_dir(), "etcd"), os.X_OK):
        print("SKIP: the etcd agent is not built", flush=True)
        return cphatest.SKIP
    return ocf.run_staged("ocf-etcd-record", run, ocf.stage_with_etcd())


if __name__ == "__main__":
    sys.exit(main())
