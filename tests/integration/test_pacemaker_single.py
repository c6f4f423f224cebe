#!/usr/bin/env python3
"""A real single-node corosync + Pacemaker cluster runs cpha's OCF agents.

One lab host (n1, 198.18.0.11) with a private mount and UTS namespace (see
cphatest.pacemaker): corosync -f and pacemakerd started directly, a
pre-seeded CIB (stonith-enabled=false, dc-deadtime=2s), the built agents
overlaid on /usr/lib/ocf/resource.d/cpha in that namespace only. A real etcd
member runs beside it. `pcs resource create --agent-validation` (the agents'
validate-all) creates:
  apiserver  ocf:cpha:kube-apiserver clone (the lab's simulator)
  kcm        ocf:cpha:kube-controller-manager (from an EnvironmentFile)
  scheduler  ocf:cpha:kube-scheduler
  lbd        ocf:cpha:lbd clone, haproxy ocf:cpha:haproxy clone
and crm_mon must show each Started with no failed action. Then:
  - pcs refuses an apiserver whose --etcd-servers lists two members;
  - with etcd stopped the apiserver's monitor reports OCF_DEGRADED: still
    Started, same process, nothing but 190 recorded; kube-controller-manager
    and kube-scheduler lose their Lease and exit (as the real ones do), and
    Pacemaker restarts them; etcd back, all Started, no failure left;
  - a changed config_version makes Pacemaker reload lbd and HAProxy (same
    pid, the new frontend listens), not restart them;
  - pacemakerd's shutdown stops every resource through the agents.
Exit 0 pass, 77 skip, 1 fail.
    sudo python3 tests/integration/test_pacemaker_single.py
"""

import os
import socket
import sys
import time

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import etcd, kube, ocf, pacemaker, step  # noqa: E402
from cphatest import lbd as lbdlib  # noqa: E402

IP = "198.18.0.11"
RESOURCES = ("apiserver", "kcm", "scheduler", "lbd", "haproxy")


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def flags(argv):
    return " ".join(argv[1:])


def pcs(node, *args, check_rc=True, timeout=120):
    r = node.run(["pcs"] + list(args), check=False, timeout=timeout)
    if check_rc and r.returncode != 0:
        raise AssertionError("pcs %s: exit %d\n%s%s" % (" ".join(args)[:300], r.returncode,
                                                        r.stdout, r.stderr))
    return r


def all_started(node, names=RESOURCES):
    res = node.resources()
    for n in names:
        r = res.get(n)
        if not r or r.get("role") != "Started" or r.get("active") != "true" \
                or r.get("failed") == "true":
            return False
    return True


def pid_in(node, name):
    """Pid of an agent's daemon from its pid file in the node's /run/cpha."""
    with open(node.path("/run/cpha/%s.pid" % name)) as f:
        return int(f.read().strip())


def listening(host, port):
    def probe():
        s = socket.socket()
        s.settimeout(1)
        try:
            s.connect((IP, port))
            return True
        except OSError:
            return False
        finally:
            s.close()
    return lbdlib.in_host(host, probe)


def run(lab, stage):
    n1 = lab.add_host("n1", v4=IP + "/24", v6="2001:db8::11/64")
    pki = cphatest.Pki(lab.path("pki", "ca"))
    ca = pki.ca_cert

    step("etcd (one member) beside the cluster")
    members, etls = etcd.make_cluster(lab, pki, [n1])
    members[0].start()
    etcd.wait_healthy(members, etls, timeout=30)

    step("corosync + pacemakerd on n1 (agents overlaid in its mount namespace)")
    node = pacemaker.Node(lab, n1, "n1", extra_mounts=[stage.overlay_script()])
    t0 = time.monotonic()
    try:
        node.start(timeout=60)
    except Exception:
        print(node.log_tail(), file=sys.stderr)
        raise
    step("DC elected after %.1fs" % (time.monotonic() - t0))
    r = node.run(["ls", "/usr/lib/ocf/resource.d/cpha"])
    check(set(r.stdout.split()) == set(ocf.AGENTS), "agents visible in the node: %s" % r.stdout)
    check(not os.path.exists(os.path.join(ocf.RA_DIR, "cpha")), "the host is untouched")

    cert, key = kube.apiserver_cert(pki, n1)
    url = members[0].client_url
    api_args = flags(kube.apiserver_argv([url], cert, key, ca, etls,
                                         extra=["--shutdown-delay-duration=1s"]))

    step("pcs refuses an even --etcd-servers list (validate-all)")
    even = flags(kube.apiserver_argv([url, "https://198.18.0.12:2379"], cert, key, ca, etls))
    r = pcs(node, "resource", "create", "evenapi", "ocf:cpha:kube-apiserver",
            "binary=" + kube.binary("kube-apiserver"), "args=" + even, "--agent-validation",
            check_rc=False)
    check(r.returncode != 0 and "2n+1" in r.stdout + r.stderr,
          "pcs with an even etcd list: exit %d\n%s%s" % (r.returncode, r.stdout, r.stderr))

    step("pcs resource create: apiserver clone, kcm, scheduler, lbd clone, haproxy clone")
    pcs(node, "resource", "create", "apiserver", "ocf:cpha:kube-apiserver",
        "binary=" + kube.binary("kube-apiserver"), "args=" + api_args, "ca=" + ca,
        "op", "monitor", "interval=2s", "timeout=20s", "clone", "--agent-validation")

    admin_ca = ca
    sa_key = pki.new_key("sa")
    kcm_cert, kcm_key = pki.issue("kcm", "system:kube-controller-manager", client=True)
    kc = kube.write_kubeconfig(lab.path("kcm.kubeconfig"), "https://%s:6443" % IP,
                               "system:kube-controller-manager", admin_ca, kcm_cert, kcm_key)
    kcm_flags = [a for a in kube.controller_manager_argv(kc, ca, sa_key)
                 if a != "--leader-elect=true"]
    envfile = ocf.write(lab.path("kcm.env"),
                        "KUBE_CONTROLLER_MANAGER_ARGS=\"%s\"\n" % flags(kcm_flags))
    pcs(node, "resource", "create", "kcm", "ocf:cpha:kube-controller-manager",
        "binary=" + kube.binary("kube-controller-manager"), "envfile=" + envfile,
        "op", "monitor", "interval=3s", "timeout=20s", "--agent-validation")
    s_cert, s_key = pki.issue("sched", "system:kube-scheduler", client=True)
    kc = kube.write_kubeconfig(lab.path("sched.kubeconfig"), "https://%s:6443" % IP,
                               "system:kube-scheduler", admin_ca, s_cert, s_key)
    pcs(node, "resource", "create", "scheduler", "ocf:cpha:kube-scheduler",
        "binary=" + kube.binary("kube-scheduler"), "args=" + flags(kube.scheduler_argv(kc)),
        "op", "monitor", "interval=3s", "timeout=20s", "--agent-validation")
    for r in ("kcm", "scheduler"):
        pcs(node, "constraint", "order", "start", "apiserver-clone", "then", r)

    backend = [("n1", "%s:6443" % IP)]
    lbd_cfg = ocf.write(lab.path("lbd.cfg"), ocf.lb_config(
        lab.path("lbd.sock"), [("fe", "%s:7443" % IP)], backend))
    hap_cfg = ocf.write(lab.path("haproxy.cfg"), ocf.lb_config(
        lab.path("hap.sock"), [("fe", "%s:8443" % IP)], backend))
    pcs(node, "resource", "create", "lbd", "ocf:cpha:lbd", "binary=" + ocf.lbd_binary(),
        "config=" + lbd_cfg, "check_address=%s:7443" % IP, "clone", "--agent-validation")
    pcs(node, "resource", "create", "haproxy", "ocf:cpha:haproxy", "config=" + hap_cfg,
        "check_address=%s:8443" % IP, "clone", "--agent-validation")

    t0 = time.monotonic()
    cphatest.wait_until(lambda: all_started(node), 60, 0.5, "every resource Started")
    step("all Started %.1fs after the last create" % (time.monotonic() - t0))
    time.sleep(3)  # a few monitors (apiserver every 2 s)
    check(all_started(node), "still Started: %s" % node.resources())
    check(node.failures() == [], "no failed actions: %s" % node.failures())
    r = n1.curl("https://%s:7443/readyz" % IP, cacert=ca)
    check(r.status == 200, "the apiserver through lbd: %r" % r)
    r = n1.curl("https://%s:8443/readyz" % IP, cacert=ca)
    check(r.status == 200, "the apiserver through HAProxy: %r" % r)
    argv = open(node.path("/run/cpha/kube-controller-manager-kcm.argv")).read().split("\0")
    check("--leader-elect=true" in argv, "kcm runs with --leader-elect=true: %s" % argv)

    step("etcd stopped: the apiserver is degraded, not failed or restarted")
    api_pid = pid_in(node, "kube-apiserver-apiserver")
    controllers = {"kcm": "kube-controller-manager-kcm", "scheduler": "kube-scheduler-scheduler"}
    ctl_pids = {n: pid_in(node, f) for n, f in controllers.items()}
    members[0].stop()
    cphatest.wait_until(lambda: n1.curl("https://127.0.0.1:6443/readyz", cacert=ca,
                                        timeout=2).status == 500,
                        20, 0.3, "/readyz to fail without etcd")

    def degraded_seen():
        return [f for f in node.failures() if f.get("op_key", "").startswith("apiserver_")]
    seen = cphatest.wait_until(degraded_seen, 15, 0.5, "the apiserver's monitor result")
    time.sleep(4)  # two more monitor intervals
    res = node.resources().get("apiserver", {})
    check(res.get("role") == "Started" and res.get("failed") != "true",
          "apiserver still Started without etcd: %s" % res)
    check(pid_in(node, "kube-apiserver-apiserver") == api_pid, "same apiserver process")
    api_fails = [f for f in node.failures() if f.get("op_key", "").startswith("apiserver_")]
    check(all(f.get("exitcode") == "190" and f.get("task") == "monitor" for f in api_fails),
          "the apiserver only ever reported OCF_DEGRADED: %s" % api_fails)
    step("apiserver: %s" % ", ".join("%s rc=%s (%s)" % (f["op_key"], f["exitcode"],
                                                         f["exitstatus"]) for f in seen))
    # kube-controller-manager and kube-scheduler lose their Lease (the
    # apiserver cannot write it) and exit, as the real ones do; Pacemaker
    # restarts them.
    step("others: %s" % [(f["op_key"], f["exitstatus"]) for f in node.failures()
                         if not f.get("op_key", "").startswith("apiserver_")])
    members[0].start()
    etcd.wait_healthy(members, etls, timeout=30)
    cphatest.wait_until(lambda: n1.curl("https://127.0.0.1:6443/readyz", cacert=ca,
                                        timeout=2).status == 200,
                        30, 0.3, "/readyz back with etcd")
    check(pid_in(node, "kube-apiserver-apiserver") == api_pid, "same apiserver process")
    # Both held their Lease for more than its renew deadline without etcd:
    # each exits, and Pacemaker must have started a new one.

    def controllers_restarted():
        try:
            return all(pid_in(node, f) != ctl_pids[n] for n, f in controllers.items()) \
                and all_started(node)
        except (OSError, ValueError):
            return False
    cphatest.wait_until(controllers_restarted, 60, 0.5,
                        "kcm and scheduler restarted by Pacemaker, everything Started")
    pcs(node, "resource", "cleanup")
    cphatest.wait_until(lambda: node.failures() == [] and all_started(node), 30, 0.5,
                        "a clean status after pcs resource cleanup")

    step("config_version changes: Pacemaker reloads lbd and HAProxy, no restart")
    pids = {n: pid_in(node, "%s-%s" % (n, n)) for n in ("lbd", "haproxy")}
    ocf.write(lbd_cfg, ocf.lb_config(lab.path("lbd.sock"), [("fe", "%s:7443" % IP),
                                                            ("fe2", "%s:7444" % IP)], backend))
    ocf.write(hap_cfg, ocf.lb_config(lab.path("hap.sock"), [("fe", "%s:8443" % IP),
                                                            ("fe2", "%s:8444" % IP)], backend))
    pcs(node, "resource", "update", "lbd", "config_version=2")
    pcs(node, "resource", "update", "haproxy", "config_version=2")
    cphatest.wait_until(lambda: listening(n1, 7444) and listening(n1, 8444), 30, 0.3,
                        "the new frontends to listen")
    cphatest.wait_until(lambda: all_started(node), 30, 0.3, "every resource Started")
    for n, pid in pids.items():
        check(pid_in(node, "%s-%s" % (n, n)) == pid, "%s reloaded in place (pid %d)" % (n, pid))
    check(node.failures() == [], "no failed actions: %s" % node.failures())

    step("stop the cluster: pacemakerd stops every resource through the agents")
    daemons = {n: pid_in(node, f) for n, f in (
        ("apiserver", "kube-apiserver-apiserver"), ("kcm", "kube-controller-manager-kcm"),
        ("scheduler", "kube-scheduler-scheduler"), ("lbd", "lbd-lbd"),
        ("haproxy", "haproxy-haproxy"))}
    holder_root = node.path("/run/cpha")
    t0 = time.monotonic()
    rc = node.stop(timeout=90)
    step("pacemakerd exited %s after %.1fs" % (rc, time.monotonic() - t0))
    check(rc == 0, "pacemakerd exit status %s" % rc)
    alive = {n: p for n, p in daemons.items() if cphatest.util.pid_alive(p)}
    check(not alive, "daemons still running after the cluster stopped: %s" % alive)
    left = [f for f in os.listdir(holder_root) if f.endswith(".pid")]
    check(not left, "pid files left behind: %s" % left)


def main():
    ocf.require(tools=("corosync", "pacemakerd", "pcs", "crm_mon", "corosync-keygen",
                       "etcd", "haproxy", "nsenter", "unshare"))
    if not os.access(ocf.lbd_binary(), os.X_OK):
        print("SKIP: %s not built" % ocf.lbd_binary(), flush=True)
        return cphatest.SKIP
    return ocf.run_staged("pacemaker-single", run, ocf.Stage())


if __name__ == "__main__":
    sys.exit(main())
