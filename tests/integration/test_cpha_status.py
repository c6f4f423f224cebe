#!/usr/bin/env python3
"""cpha status against a running control plane, healthy and then broken.

A description with three masters (m0..m2, 198.18.0.11-13, manager systemd)
and two load-balancer hosts (lb0, lb1: 198.18.0.21-22) goes through `cpha
pki` and `cpha render`. In lab hosts, with the rendered files:
- real etcd on each master and kube-apiserver stand-ins (the rendered
  units' flags, as test_cpha_cluster.py runs them);
- kube-controller-manager and kube-scheduler stand-ins with --leader-elect
  on m0 and m1 (the rendered flags, --master at the VIP: the lab has no
  DNS for "kubernetes"): they keep their Leases in the apiserver;
- lbd and vipd on lb0 and lb1 with the rendered lbd.cfg and vipd.conf
  (their /status on the host's own address: monitoring.listen host, so
  that cpha status on the client reads them). vipd.conf loses
  track_fenced (no fenced here: the description describes no fencing) and
  its startup delay is 2 s instead of 15. lb0 (priority 150) holds the VIP.
From a client host, `cpha status --json` must say healthy (exit 0), one VIP
holder (lb0), a holder for both Leases, etcd's member list (3 voting, no
learner) and the earliest certificate expiry; `cpha status --quiet
--textfile` writes the cpha_* series (mode 0644, nothing else left in the
directory) with the same values, and the real prometheus-node-exporter's
textfile collector serves them without a scrape error. Then the fault: both
controller-managers are frozen (SIGSTOP: the holder stops renewing, and the
standby cannot take the Lease over while the test looks) and the VIP is
added by hand on lb1. `cpha status` must report both problems (exit 1 or
2), in JSON and as text lines. SIGCONT and cleanup after, even on failure.
Exit 0 pass, 77 skip (not root, no etcd), 1 fail.
    sudo CPHA_BUILD_DIR=build python3 tests/integration/test_cpha_status.py
"""

import json
import os
import re
import shutil
import signal
import sys
import time

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import cphacmd, etcd, kube, step, util  # noqa: E402

VIP = "198.18.0.2"
MASTERS = [("m%d" % i, "198.18.0.%d" % (11 + i)) for i in range(3)]
LBS = [("lb0", "198.18.0.21"), ("lb1", "198.18.0.22")]
CLIENT = ("c0", "198.18.0.31")

DESCRIPTION = """\
cluster: {name: lab}
api: {name: kubernetes, vip: %(vip)s/24, interface: eth0}
kubernetes: {service_cidr: 198.18.128.0/24, cluster_cidr: 198.18.192.0/20}
masters:
%(masters)s
load_balancers:
%(lbs)s
components: {load_balancer: lbd, vip: vipd, manager: systemd}
monitoring: {listen: host}
""" % {"vip": VIP,
       "masters": "\n".join("  - {name: %s, address: %s}" % m for m in MASTERS),
       "lbs": "\n".join("  - {name: %s, address: %s}" % m for m in LBS)}


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def read(path):
    with open(path) as f:
        return f.read()


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


class Status:
    """cpha status run from the client host."""

    def __init__(self, host, desc, pki):
        self.host, self.desc, self.pki = host, desc, pki

    def run(self, *args):
        return self.host.run([cphacmd.binary(), "-f", self.desc, "status", "--pki", self.pki,
                              "--timeout", "2s"] + list(args), check=False, timeout=60)

    def json(self):
        r = self.run("--json")
        try:
            return r.returncode, json.loads(r.stdout), r
        except ValueError:
            raise AssertionError("cpha status --json: exit %d, not JSON:\n%s%s"
                                 % (r.returncode, r.stdout, r.stderr))


def vip_holders(doc):
    return [lb["host"] for lb in doc["details"]["load_balancers"] if lb["vip_present"]]


def lease(doc, name):
    for l in doc["details"]["leases"]:
        if l["name"] == name:
            return l
    raise AssertionError("no Lease %s in %s" % (name, doc["details"]["leases"]))


def start_in_root(host, root, binary, conf, name):
    """A daemon in a mount namespace whose /run is root's /run."""
    cmd = "mount --bind %s/run /run && exec %s -f %s" % (root, binary, conf)
    return host.spawn(["unshare", "--mount", "--propagation", "private", "sh", "-c", cmd],
                      name=name)


def prom(text):
    """Prometheus text: {'name{labels}': value}, comments left out."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            k, v = line.rsplit(" ", 1)
            out[k] = float(v)
    return out


def textfile_step(lab, client, status, pki, doc, text):
    """--textfile, read back by the real node-exporter's textfile collector."""
    step("cpha status --quiet --textfile: the cpha_* series, read by node-exporter")
    certs = doc["details"]["certificates"]
    early = certs["earliest"]
    check(early and "certificates: earliest expiry %s (%s), %d read"
          % (early["not_after"], early["file"], len(certs["files"])) in text,
          "no earliest expiry in the text:\n%s" % text)
    em = doc["details"]["etcd_members"]
    # etcd's own member list, by the names its members run with: the hosts'
    check(em["voting"] == 3 and em["learners"] == 0 and sorted(
        (m["name"], m["learner"]) for m in em["members"]) == [
        (h, False) for h in sorted(h for h, _ in MASTERS)], em)
    tdir = lab.path("textfile")
    os.makedirs(tdir, exist_ok=True)
    path = os.path.join(tdir, "cpha-status.prom")
    r = status.run("--quiet", "--textfile", path)
    check(r.returncode == 0 and r.stdout == "", "--quiet --textfile: exit %d, stdout %r %s"
          % (r.returncode, r.stdout, r.stderr))
    check(os.stat(path).st_mode & 0o777 == 0o644, "mode %o" % os.stat(path).st_mode)
    check(os.listdir(tdir) == ["cpha-status.prom"], "left in the directory: %s"
          % os.listdir(tdir))
    m = prom(read(path))
    for k, want in (("cpha_status_level", 0), ("cpha_etcd_voting_members", 3),
                    ("cpha_etcd_learners", 0), ("cpha_etcd_members_healthy", 3)):
        check(m.get(k) == want, "%s: %r, want %r\n%s" % (k, m.get(k), want, read(path)))
    for name in ("kube-controller-manager", "kube-scheduler"):
        age = m.get('cpha_lease_renew_age_seconds{lease="%s"}' % name)
        check(age is not None and 0 <= age < 30, "%s renew age %r" % (name, age))
        check(m.get('cpha_lease_duration_seconds{lease="%s"}' % name) ==
              lease(doc, name)["duration"], read(path))
    for f in certs["files"]:
        check(m.get('cpha_cert_expiry_timestamp_seconds{cert="%s"}' % f["file"]) ==
              f["not_after_unix"], "%s: %s" % (f["file"], read(path)))
    names = {f["file"] for f in certs["files"]}
    check({"ca.pem", "admin.pem", "etcd-client.pem", "apiserver.pem"} <= names and
          not any(n.endswith("-key.pem") for n in names), sorted(names))
    now = m.get("cpha_status_timestamp_seconds", 0)
    check(abs(now - time.time()) < 60, "timestamp %r" % now)
    exporter = shutil.which("prometheus-node-exporter")
    if not exporter:
        print("  prometheus-node-exporter is not installed: the file is not read back by it",
              flush=True)
        return
    ne = client.spawn([exporter, "--web.listen-address=127.0.0.1:9100",
                       "--collector.disable-defaults", "--collector.textfile",
                       "--collector.textfile.directory=" + tdir], name="node-exporter")
    try:
        got = {}

        def scraped():
            r = client.run(["curl", "-s", "-m", "3", "http://127.0.0.1:9100/metrics"],
                           check=False)
            got["m"] = prom(r.stdout) if r.returncode == 0 else {}
            return "cpha_status_level" in got["m"]
        util.wait_until(scraped, 20, 0.5, "node-exporter to serve the textfile")
        check(got["m"].get("node_textfile_scrape_error") == 0, got["m"])
        check(got["m"].get("cpha_etcd_voting_members") == 3 and
              got["m"].get('cpha_cert_expiry_timestamp_seconds{cert="ca.pem"}') ==
              m['cpha_cert_expiry_timestamp_seconds{cert="ca.pem"}'], got["m"])
    finally:
        ne.kill(signal.SIGTERM)
    print("  %d series written; node-exporter serves them; earliest expiry %s (%s)"
          % (len(m), early["not_after"], early["file"]), flush=True)


def run(lab, frozen, added):
    desc = lab.path("cluster.yaml")
    write(desc, DESCRIPTION)
    pki, out = lab.path("pki"), lab.path("out")

    step("cpha pki, cpha render (every real checker)")
    cphacmd.run(["-f", desc, "pki", "--dir", pki])
    cphacmd.run(["-f", desc, "render", "--out", out])
    check("metrics-bind 198.18.0.21:9120" in read(os.path.join(out, "lb0", "etc/lbd/lbd.cfg")),
          "lbd's /status on lb0's own address")

    hosts = {n: lab.add_host(n, v4="%s/24" % a) for n, a in MASTERS + LBS + [CLIENT]}
    roots = {n: lab.path("root", n) for n in hosts}
    for n, _ in MASTERS:
        cphacmd.install(desc, out, pki, n, roots[n])
    for n, _ in LBS:
        cphacmd.install(desc, out, pki, n, roots[n])
    status = Status(hosts[CLIENT[0]], desc, pki)

    step("before anything runs: cpha status says down (exit 2), nothing healthy")
    rc, doc, r = status.json()
    check(rc == 2 and doc["worst"] == "down", "nothing running: exit %d\n%s" % (rc, r.stdout))
    check(all(h["state"] == "stopped" for h in doc["hosts"]), doc["hosts"])

    step("real etcd on m0..m2, kube-apiserver stand-ins (rendered flags)")
    procs = {}
    for n, _ in MASTERS:
        argv = cphacmd.rebase(cphacmd.exec_start(
            read(roots[n] + "/etc/systemd/system/etcd.service")), roots[n])
        argv[0] = shutil.which("etcd") or argv[0]
        os.makedirs(roots[n] + "/var/lib/etcd", mode=0o700, exist_ok=True)
        procs["etcd-" + n] = hosts[n].spawn(argv, name="etcd", serial=True)
    r0 = roots["m0"] + "/etc/etcd/pki/"
    tls = etcd.ClientTls(r0 + "ca.pem", r0 + "etcd-client.pem", r0 + "etcd-client-key.pem")
    members = []
    for n, a in MASTERS:
        m = etcd.EtcdMember(hosts[n], n, tls.ca, None, None, [], None)
        m.proc = procs["etcd-" + n]
        members.append(m)
    etcd.wait_healthy(members, tls, timeout=60)
    for n, a in MASTERS:
        argv = cphacmd.rebase(cphacmd.exec_start(
            read(roots[n] + "/etc/systemd/system/kube-apiserver.service")), roots[n])
        argv[0] = kube.binary("kube-apiserver")
        procs["api-" + n] = hosts[n].spawn(argv, name="kube-apiserver")
    for n, a in MASTERS:
        kube.wait_ready(hosts[n], "https://%s:6443" % a, roots[n] + "/etc/kubernetes/pki/ca.pem",
                        procs["api-" + n], timeout=30)

    step("lbd and vipd on lb0 and lb1 (rendered files; no track_fenced, 2 s startup delay)")
    for n, _ in LBS:
        root = roots[n]
        for d in ("run/lbd", "run/vipd"):
            os.makedirs(os.path.join(root, d), exist_ok=True)
        procs["lbd-" + n] = start_in_root(hosts[n], root,
                                          os.path.join(cphacmd.build_dir(), "lbd", "lbd"),
                                          root + "/etc/lbd/lbd.cfg", "lbd")
        vconf = root + "/etc/vipd/vipd.conf"
        text = read(vconf)
        check("    track_fenced /run/fenced/admin.sock\n" in text, text)
        text = text.replace("    track_fenced /run/fenced/admin.sock\n", "")
        text = text.replace("vrrp_startup_delay 15", "vrrp_startup_delay 2")
        write(vconf, text)
        procs["vipd-" + n] = start_in_root(hosts[n], root,
                                           os.path.join(cphacmd.build_dir(), "vipd", "vipd"),
                                           vconf, "vipd")

    step("kube-controller-manager and kube-scheduler stand-ins, --leader-elect, on m0, m1")
    for n, _ in MASTERS[:2]:
        for comp, dirname in (("kube-controller-manager", "kube-controller-manager"),
                              ("kube-scheduler", "kube-scheduler")):
            kc = roots[n] + "/var/lib/%s/kubeconfig" % dirname
            write(kc, cphacmd.rebase_text(read(kc), roots[n]))
            argv = cphacmd.rebase(cphacmd.exec_start(
                read(roots[n] + "/etc/systemd/system/%s.service" % comp)), roots[n])
            check("--leader-elect=true" in argv, argv)
            argv[0] = kube.binary(comp)
            argv.append("--master=https://%s:6443" % VIP)
            procs["%s-%s" % (comp, n)] = hosts[n].spawn(argv, name=comp)

    step("cpha status --json: healthy (exit 0), the VIP on lb0 only, both Leases held")
    last = {}

    def healthy():
        rc, doc, r = status.json()
        last["r"] = r
        return rc == 0 and doc
    try:
        doc = util.wait_until(healthy, 90, interval=1, what="cpha status to say healthy")
    except Exception:
        print(last["r"].stdout, last["r"].stderr)
        raise
    check(doc["worst"] == "healthy" and doc["problems"] == [], doc["problems"])
    check(vip_holders(doc) == ["lb0"], "VIP holders: %s" % vip_holders(doc))
    for name in ("kube-controller-manager", "kube-scheduler"):
        check(lease(doc, name)["holder"], "%s Lease has a holder: %s" % (name, lease(doc, name)))
    check(all(h["state"] == "running" for h in doc["hosts"]), doc["hosts"])
    etcd_members = doc["details"]["etcd"]
    check(len({m["leader"] for m in etcd_members}) == 1 and
          all(m["healthy"] for m in etcd_members), etcd_members)
    for lb in doc["details"]["load_balancers"]:
        check([s["state"] for s in lb["servers"]] == ["UP"] * 3, lb)
    # each apiserver's /version (the stand-ins play the version table's default,
    # which is also the description's)
    apis = doc["details"]["apiservers"]
    check(all(re.match(r"^v1\.\d+\.\d+$", a["version"]) for a in apis), apis)
    r = status.run()
    check(r.returncode == 0 and "cluster lab: HEALTHY" in r.stdout and "problems: 0" in r.stdout,
          r.stdout)
    # no secret in what it prints: no key material, no private key path contents
    check("PRIVATE KEY" not in r.stdout + json.dumps(doc), "a key in the output")
    textfile_step(lab, hosts[CLIENT[0]], status, pki, doc, r.stdout)

    step("cpha status --watch 1: redraws until SIGINT, then exits with the worst state (0)")
    w = hosts[CLIENT[0]].spawn([cphacmd.binary(), "-f", desc, "status", "--pki", pki,
                                "--watch", "1"], name="cpha-status-watch")
    util.wait_until(lambda: w.log_text().count("cluster lab: ") >= 3, 20, 0.2,
                    what="three rounds of cpha status --watch")
    w.kill(signal.SIGINT)
    rc = w.wait(timeout=10)
    check(rc == 0, "cpha status --watch after SIGINT: exit %s\n%s" % (rc, w.log_text()))

    step("fault: freeze both controller-managers (SIGSTOP), add the VIP by hand on lb1")
    for n, _ in MASTERS[:2]:
        p = procs["kube-controller-manager-" + n]
        p.kill(signal.SIGSTOP)
        frozen.append(p)
    hosts["lb1"].run(["ip", "addr", "add", "%s/24" % VIP, "dev", "eth0"])
    added.append(hosts["lb1"])
    duration = lease(doc, "kube-controller-manager")["duration"]

    def both_problems():
        rc, doc, r = status.json()
        last["r"] = r
        texts = [p["text"] for p in doc["problems"]]
        lease_p = [t for t in texts if "Lease kube-controller-manager" in t and
                   "stopped renewing" in t]
        vip_p = [t for t in texts if "is on 2 hosts" in t]
        return rc in (1, 2) and lease_p and vip_p and (rc, doc)
    try:
        rc, doc = util.wait_until(both_problems, duration + 30, interval=1,
                                  what="cpha status to report both faults")
    except Exception:
        print(last["r"].stdout, last["r"].stderr)
        raise
    check(sorted(vip_holders(doc)) == ["lb0", "lb1"], vip_holders(doc))
    check(doc["worst"] in ("degraded", "down") and doc["exit"] == rc, doc["worst"])
    r = status.run()
    print(r.stdout, flush=True)  # what an operator sees, in the test's log
    check(r.returncode in (1, 2), "text: exit %d" % r.returncode)
    lines = r.stdout.splitlines()
    check(any("the VIP %s is on 2 hosts: lb0 (MASTER), lb1 (BACKUP)" % VIP in l for l in lines),
          r.stdout)
    check(any("Lease kube-controller-manager: holder" in l and "stopped renewing" in l
              for l in lines), r.stdout)

    step("repair: SIGCONT, the VIP off lb1: healthy again")
    thaw(frozen)
    unadd(added)

    def healthy_again():
        rc, doc, r = status.json()
        last["r"] = r
        return rc == 0
    try:
        util.wait_until(healthy_again, 60, interval=1, what="cpha status healthy again")
    except Exception:
        print(last["r"].stdout, last["r"].stderr)
        raise
    member_changes(hosts[CLIENT[0]], status, tls)


def member_changes(client, status, tls):
    """etcd's member list as a master is added (a learner: an operation in
    progress, healthy) and as a voting member the description does not
    name stays behind (degraded), through etcd's own API; each removed
    again, also on failure."""
    url = "https://%s:2379" % MASTERS[0][1]
    added = []
    try:
        step("etcd: a learner added (a master joining): healthy, named as in progress")
        r = etcd._post(client, url, "/v3/cluster/member/add",
                       {"peerURLs": ["https://198.18.0.14:2380"], "isLearner": True}, tls)
        added.append(r["member"]["ID"])
        rc, doc, r = status.json()
        check(rc == 0 and doc["problems"] == [], "with a learner: exit %d %s" % (
            rc, doc["problems"]))
        check(doc["details"]["etcd_members"]["learners"] == 1, doc["details"]["etcd_members"])
        t = status.run().stdout
        check("membership change in progress: https://198.18.0.14:2380 is a learner" in t and
              "member list: 3 voting, 1 learner (https://198.18.0.14:2380)" in t, t)
        etcd._post(client, url, "/v3/cluster/member/remove", {"ID": added.pop()}, tls)

        step("etcd: a voting member the description does not name: degraded")
        r = etcd._post(client, url, "/v3/cluster/member/add",
                       {"peerURLs": ["https://198.18.0.15:2380"]}, tls)
        added.append(r["member"]["ID"])
        rc, doc, r = status.json()
        texts = [p["text"] for p in doc["problems"]]
        check(rc == 1 and any("voting member https://198.18.0.15:2380 is not a host of the "
                              "description" in x for x in texts) and
              any("4 voting members: an even count" in x for x in texts),
              "exit %d %s" % (rc, texts))
        etcd._post(client, url, "/v3/cluster/member/remove", {"ID": added.pop()}, tls)
        rc, doc, r = status.json()
        check(rc == 0, "members removed again: exit %d %s" % (rc, doc["problems"]))
    finally:
        for i in added:
            etcd._post(client, url, "/v3/cluster/member/remove", {"ID": i}, tls)


def thaw(frozen):
    while frozen:
        p = frozen.pop()
        try:
            p.kill(signal.SIGCONT)
        except OSError:
            pass


def unadd(added):
    while added:
        h = added.pop()
        h.run(["ip", "addr", "del", "%s/24" % VIP, "dev", "eth0"], check=False)


def run_and_repair(lab):
    """run(), and the controller-managers thawed and the VIP off lb1 even
    when it fails."""
    frozen, added = [], []
    try:
        run(lab, frozen, added)
    finally:
        thaw(frozen)
        unadd(added)


def main():
    reason = cphatest.root_skip_reason()
    if reason:
        return cphatest.util.skip(reason)
    if not shutil.which("etcd"):
        return cphatest.util.skip("etcd is not installed (scripts/setup.sh installs it)")
    return cphatest.main("cphastatus", run_and_repair, dump_lines=40)


if __name__ == "__main__":
    sys.exit(main())
