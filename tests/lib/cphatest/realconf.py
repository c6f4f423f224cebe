"""Public control-plane configurations run for real (tests/lbd-configs/real,
tests/vipd-configs/real): the hosts' addresses, the rewrites each file needs
in the test bed (one comment per substitution), lbd or vipd started from a
file as written, and the checks on OpenShift's stats listener and on the
traffic through an entry point.
"""

import json
import os
import signal

from . import lbd, util, vipd
from .curl import curl

ROOT = util.repo_root()
LBD_REAL = os.path.join(ROOT, "tests", "lbd-configs", "real")
VIPD_REAL = os.path.join(ROOT, "tests", "vipd-configs", "real")

MASTERS = (("m1", "198.18.0.11"), ("m2", "198.18.0.12"), ("m3", "198.18.0.13"))
LBS = (("oa", "198.18.0.21"), ("ob", "198.18.0.22"), ("ka", "198.18.0.31"),
       ("kb", "198.18.0.32"), ("sa", "198.18.0.41"))
CLIENT = "198.18.0.50"
OCP_VIP = "198.18.0.5"
KUBEADM_VIP = "198.18.0.100"


def sub(text, old, new, count=1):
    """text with old replaced by new; fail when old is not there `count`
    times (so a changed source file is noticed, not silently kept)."""
    n = text.count(old)
    if n != count:
        raise AssertionError("rewrite: %r found %d times, expected %d" % (old, n, count))
    return text.replace(old, new)


def read(*parts):
    with open(os.path.join(*parts)) as f:
        return f.read()


# ------------------------------------------------------------ rewrites --

def rewrite_openshift_cfg(text, d):
    # stats socket: the compat copy's /tmp path -> this host's test directory
    text = sub(text, "/tmp/lbd-compat-ocp-haproxy.sock", os.path.join(d, "stats.sock"))
    # log: the haproxy pod's log-sidecar socket does not exist here -> stdout
    # (the lab keeps it in lbd's process log); facility and levels unchanged
    text = sub(text, "log     /var/run/haproxy/haproxy-log.sock local0",
               "log     stdout local0")
    # servers: already 198.18.0.11-13:6443, the masters' addresses here
    return text


def rewrite_openshift_conf(text, d, me, peer):
    # admin socket: vipd's own keyword, in the test directory (every host
    # shares one filesystem, so the default /run/vipd/admin.sock would clash)
    text = sub(text, "global_defs {\n",
               "global_defs {\n    vipd_admin_socket %s\n" % os.path.join(d, "admin.sock"))
    # scripts: /etc/keepalived/*.sh -> the test directory (written by write_ocp_scripts)
    text = sub(text, "/etc/keepalived/", d + "/", count=3)
    # unicast: the file was rendered for master 198.18.0.11 with peers .12
    # and .13; here the pair is this load balancer and the other one
    text = sub(text, "unicast_src_ip 198.18.0.11", "unicast_src_ip " + me, count=2)
    text = sub(text, "        198.18.0.12\n        198.18.0.13\n",
               "        %s\n" % peer, count=2)
    return text


def write_ocp_scripts(d):
    """The check scripts MCO installs next to keepalived.conf
    (templates/master/00-master/on-prem/files/keepalived-*script*.yaml):
    chk_ocp_script.sh curls the local haproxy's monitor-uri; the _both one
    also accepts a local apiserver (there is none on these hosts: -> 6443
    refused). The default-ingress check fails: no ingress router here."""
    scripts = {
        "chk_ocp_script.sh": "#!/bin/bash\n"
        "/usr/bin/curl -o /dev/null -kLfs http://localhost:9444/haproxy_ready\n",
        "chk_ocp_script_both.sh": "#!/bin/bash\n"
        "/usr/bin/curl -o /dev/null -kLfs http://localhost:9444/haproxy_ready || "
        "/usr/bin/curl -kLfs -o /dev/null https://localhost:6443/readyz\n",
        "chk_default_ingress.sh": "#!/bin/bash\nexit 1\n",
    }
    for name, body in scripts.items():
        p = os.path.join(d, name)
        with open(p, "w") as f:
            f.write(body)
        os.chmod(p, 0o755)


def rewrite_kubeadm_cfg(text, d):
    # log: /dev/log is the machine's journal -> stdout (the process log);
    # facilities and levels unchanged
    text = sub(text, "log /dev/log local0", "log stdout local0")
    text = sub(text, "log /dev/log local1 notice", "log stdout local1 notice")
    # servers: already 198.18.0.11-13:6443, the masters' addresses here
    return text


def rewrite_kubeadm_conf(text, d, backup):
    # admin socket: vipd's own keyword, in the test directory
    text = sub(text, "global_defs {\n",
               "global_defs {\n    vipd_admin_socket %s\n" % os.path.join(d, "admin.sock"))
    # script: /etc/keepalived/check_apiserver.sh -> the test directory
    text = sub(text, "/etc/keepalived/check_apiserver.sh",
               os.path.join(d, "check_apiserver.sh"))
    if backup:
        # the guide's template values for the other hosts: ${STATE} BACKUP,
        # ${PRIORITY} 100 (the file is the MASTER's rendering: MASTER, 101)
        text = sub(text, "state MASTER", "state BACKUP")
        text = sub(text, "priority 101", "priority 100")
    # interface eth0 and the VIP 198.18.0.100: already the lab's
    return text


def write_check_apiserver(d):
    """The guide's /etc/keepalived/check_apiserver.sh, with
    ${APISERVER_DEST_PORT} = 6443 (the haproxy.cfg's frontend port)."""
    p = os.path.join(d, "check_apiserver.sh")
    with open(p, "w") as f:
        f.write("#!/bin/sh\n\n"
                "errorExit() {\n    echo \"*** $*\" 1>&2\n    exit 1\n}\n\n"
                "curl -sfk --max-time 2 https://localhost:6443/healthz -o /dev/null || "
                "errorExit \"Error GET https://localhost:6443/healthz\"\n")
    os.chmod(p, 0o755)


def rewrite_kubespray_cfg(text, d):
    # log 127.0.0.1 local0: syslog over UDP to the node's own loopback; kept
    # servers: already 198.18.0.11-13:6443; inter 15s / downinter 15s kept
    return text


# ------------------------------------------------------------- helpers --

class Daemon:
    """lbd or vipd started from a file as written (no helper-made global)."""

    def __init__(self, host, kind, path, sock=None):
        self.host, self.kind, self.path, self.sock = host, kind, path, sock
        self.proc = None

    def __repr__(self):
        return "<%s on %s>" % (self.kind, self.host.name)

    def check(self):
        b = lbd.binary() if self.kind == "lbd" else vipd.binary()
        r = self.host.run([b, "-c", "-f", self.path], check=False)
        if r.returncode != 0:
            raise AssertionError("%s -c refused %s:\n%s%s" % (self.kind, self.path,
                                                              r.stdout, r.stderr))

    def start(self):
        self.check()
        if self.kind == "lbd":
            argv = [lbd.binary(), "-db", "-f", self.path]
        else:
            argv = [vipd.binary(), "-f", self.path]
        self.proc = self.host.spawn(argv, name="%s-%s" % (self.kind, self.host.name))
        lbd.wait_log(self.proc, "started:", 15)
        return self.proc

    def stop(self):
        self.proc.kill(signal.SIGTERM)
        self.proc.wait(timeout=10)

    def vrrp(self):
        """vipd's instances from 'show json' on its admin socket: {name: obj}."""
        j = json.loads(util.unix_request(self.sock, "show json", 3.0))
        return {i["instance"]: i for i in j["instances"]}


def eff_priority(inst):
    """An instance's current priority (base + track weights) in 'show json'."""
    return inst["priority"]


# ------------------------------------------------------------ checks --

def stats(host, suffix):
    """OpenShift's stats page (suffix ";csv": its CSV) on host, with the
    file's 'stats auth'."""
    return curl(host, "http://localhost:29445/haproxy_stats" + suffix,
                extra=["-u", "Username:Password"])


def ocp_status(host):
    """The set of statuses of master-0..2 in the stats CSV on host."""
    r = stats(host, ";csv")
    if r.status != 200:
        raise AssertionError("stats ';csv' on %s: %r" % (host.name, r))
    rows = lbd.csv_rows(r.body)
    got = {}
    for s in ("master-0", "master-1", "master-2"):
        if ("masters", s) not in rows:
            raise AssertionError("stats CSV on %s has no masters/%s: %s"
                                 % (host.name, s, sorted(rows)))
        got[s] = rows[("masters", s)]["status"].split()[0]
    return set(got.values())


def traffic_ok(host, ip, port, ca, what, wait=10):
    """Within wait seconds: 6 connections from host to ip:port, every one
    answered by a master (TLS against ca), at least two masters."""
    last = []

    def ok():
        res = lbd.masters_reached(host, ip, port, ca)
        last[:] = [res]
        names = {n for n, st in res if n and st and " 200" in st}
        return len(names) >= 2 and all(n for n, _ in res)
    util.wait_until(ok, wait, 0.5, "%s (%s:%d): 6 connections, every one answered by "
                    "a master, at least two masters (last: %s)"
                    % (what, ip, port, last[0] if last else "-"))
