#!/usr/bin/env python3
"""`cpha render` with every real checker, and what the rendered LB files do.

- The sample (tests/samples/cluster.yaml: lbd + vipd on two LB hosts,
  Pacemaker on three masters) and a five-master variant with HAProxy and
  keepalived on the masters (five-haproxy.yaml) render with exit 0, and
  each file went through its own checker, which passed: a shim in front of
  lbd, vipd, fenced (the build's), haproxy, keepalived and crm_verify logs
  every run with its exit status.
- The files are the same bytes on a second render; the second one runs in
  a mount namespace where the built ocf:cpha agents are installed, so pcs
  checks every resource parameter against the agents' metadata (the first
  has no agents: pcs -f runs with --force there). pcs-commands.sh, run with
  PCS="pcs -f FILE" on an empty CIB, makes the same CIB as cib.xml.
- A dual-stack variant of each (an IPv4 and an IPv6 VIP) renders through
  the same checkers: two vrrp_instances in a vrrp_sync_group.
- A broken variant fails with the checker's own message and writes nothing:
  a fence parameter fence_ipmilan does not take (fenced -c, on an LB host;
  pcs, on a master).
- Each master's corosync.conf passes `corosync -t` on a host with its
  address.
- On one master of the five, the rendered HAProxy (and lbd) configuration
  and keepalived.conf run for real: the LB binds the VIP before the host
  holds it (the rendered sysctl file); with no apiserver keepalived's track
  script fails and keeps the instance in FAULT, without the VIP, past
  vrrp_startup_delay; once an apiserver answers /readyz the host takes the
  VIP, a client reaches the apiserver through it, and when the apiserver
  stops the host gives the VIP up again.

Root; exit 0 pass, 77 skip (a tool missing, or not built), else fail.
    python3 tests/integration/test_cpha_render_checkers.py [-v] [-k NAME]
"""

import filecmp
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

import cphatest  # noqa: E402
from cphatest import util  # noqa: E402
from cphatest import vipd as vipdlib  # noqa: E402

BUILD = os.environ.get("CPHA_BUILD_DIR", os.path.join(REPO, "build"))
CPHA = os.path.join(BUILD, "control-plane", "cpha")
DAEMONS = {n: os.path.join(BUILD, n, n) for n in ("lbd", "vipd", "fenced")}
AGENTS = os.path.join(BUILD, "resource-agents", "cpha")
FIXTURES = os.path.join(REPO, "tests", "fixtures", "cpha")
SAMPLE = os.path.join(REPO, "tests", "samples", "cluster.yaml")
FIVE = os.path.join(FIXTURES, "five-haproxy.yaml")
DUAL = os.path.join(FIXTURES, "dual-stack.yaml")
SBIN = "/usr/sbin:/usr/bin:/sbin:/bin"
TOOLS = ("haproxy", "keepalived", "crm_verify", "crm_resource", "cibadmin", "pcs",
         "fence_ipmilan", "fence_apc_snmp", "corosync", "corosync-keygen", "unshare", "mount")
CHECKERS = ("lbd", "vipd", "fenced", "haproxy", "keepalived", "crm_verify")
RA_DIR = "/usr/lib/ocf/resource.d"
VIP = "198.18.0.10"
M0 = "198.18.0.11"
# keepalived 2.2's lines for the instance's state changes
KA_FAULT = "(apiserver) Entering FAULT STATE"
KA_MASTER = "(apiserver) Entering MASTER STATE"


def skip_reason():
    r = util.root_skip_reason()
    if r:
        return r
    for p in [CPHA] + list(DAEMONS.values()):
        if not os.access(p, os.X_OK):
            return "%s not built (set CPHA_BUILD_DIR)" % p
    for a in ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "lbd",
              "haproxy"):
        if not os.access(os.path.join(AGENTS, a), os.X_OK):
            return "ocf:cpha:%s not built in %s" % (a, AGENTS)
    for t in TOOLS:
        if not shutil.which(t, path=SBIN):
            return "%s not installed" % t
    return None


class Shims:
    """A directory of wrappers, first in PATH: each runs the real checker
    with the same arguments, output and status, and appends
    "STATUS NAME ARGS" to a log."""

    def __init__(self, root):
        self.dir = os.path.join(root, "shims")
        self.log = os.path.join(root, "checkers.log")
        os.makedirs(self.dir)
        for name in CHECKERS:
            real = DAEMONS.get(name) or shutil.which(name, path=SBIN)
            path = os.path.join(self.dir, name)
            with open(path, "w") as f:
                f.write('#!/bin/sh\n"%s" "$@"\nrc=$?\necho "$rc %s $*" >> "%s"\nexit $rc\n'
                        % (real, name, self.log))
            os.chmod(path, 0o755)

    def runs(self):
        """[(status, name, args)] since the last call."""
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            lines = f.read().splitlines()
        os.unlink(self.log)
        out = []
        for line in lines:
            rc, name, *args = line.split(" ")
            out.append((int(rc), name, args))
        return out


def env_with(shims):
    env = util.clean_env()
    env["PATH"] = "%s:%s:%s" % (shims.dir, os.environ.get("PATH", "/usr/bin:/bin"), SBIN)
    return env


def agents_overlay(stage):
    """Shell words that, in a private mount namespace, make the built agents
    appear in /usr/lib/ocf/resource.d/cpha (the host's directory is never
    written)."""
    return "mount -t overlay cpha-ocf -o lowerdir=%s:%s %s" % (stage, RA_DIR, RA_DIR)


def render(shims, desc, out, overlay=None):
    argv = [CPHA, "-f", desc, "render", "--out", out]
    if overlay:
        argv = ["unshare", "-m", "--propagation", "private", "sh", "-c",
                '%s && exec "$@"' % agents_overlay(overlay), "sh"] + argv
    return subprocess.run(argv, env=env_with(shims), capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)


# What the masters' renderer writes (tests/unit/test_cpha_render.c checks it).
MASTER_FILES = ("/etc/kubernetes/", "/var/lib/kube-", "/etc/systemd/system/", "cluster/admin.conf",
                "cluster/super-admin.conf", "cluster/bootstrap-rbac.yaml")


def lb_ha(files):
    """The files of the LB and HA renderer: all but the masters' own."""
    return [f for f in files if not any(m in "/" + f for m in MASTER_FILES)]


def tree(d):
    """Relative paths of the files under d."""
    out = []
    for root, _, files in os.walk(d):
        out += [os.path.relpath(os.path.join(root, f), d) for f in files]
    return sorted(out)


def strip_nodes(cib):
    return re.sub(r"<nodes>.*?</nodes>", "<nodes/>", cib, flags=re.S)


def checked(runs, name, suffix):
    """Statuses of the runs of checker name on a file ending in suffix."""
    return [rc for rc, n, args in runs if n == name and any(a.endswith(suffix) for a in args)]


class RenderCheckers(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="cpha-render-checkers-%d-" % os.getpid())
        os.chmod(cls.tmp, 0o755)
        cls.shims = Shims(cls.tmp)
        # the built agents, staged where pcs (running as root) finds them
        cls.stage = os.path.join(cls.tmp, "ocf")
        os.makedirs(os.path.join(cls.stage, "cpha"))
        for a in os.listdir(AGENTS):
            shutil.copy(os.path.join(AGENTS, a), os.path.join(cls.stage, "cpha", a))
        for root, dirs, files in os.walk(cls.stage):
            for x in dirs + files:
                os.chmod(os.path.join(root, x), 0o755)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def out(self, name):
        return os.path.join(self.tmp, name)

    def variant(self, name, base, old, new):
        with open(base) as f:
            text = f.read()
        self.assertIn(old, text)
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text.replace(old, new, 1))
        return path

    def test_sample_every_checker(self):
        util.step("sample: render with every checker")
        out = self.out("sample")
        r = render(self.shims, SAMPLE, out)
        self.assertEqual(r.returncode, 0, r.stderr)
        runs = self.shims.runs()
        for h in ("lb00", "lb01"):
            self.assertEqual(checked(runs, "lbd", "/%s/etc/lbd/lbd.cfg" % h), [0], runs)
            self.assertEqual(checked(runs, "vipd", "/%s/etc/vipd/vipd.conf" % h), [0], runs)
        for h in ("kubem00", "kubem01", "kubem02", "lb00", "lb01"):
            self.assertEqual(checked(runs, "fenced", "/%s/etc/fenced/fenced.conf" % h), [0])
            # with that host's corosync.conf, for the quorum rules
            self.assertEqual(checked(runs, "fenced", "/%s/etc/corosync/corosync.conf" % h),
                             [0])
        self.assertEqual(checked(runs, "crm_verify", "/cluster/cib.xml"), [0])
        self.assertFalse([x for x in runs if x[1] in ("haproxy", "keepalived")], runs)
        self.assertEqual(len(runs), 2 + 2 + 5 + 1, runs)
        self.assertTrue(any(f.endswith("/etc/kubernetes/apiserver.env") for f in tree(out)))
        self.assertEqual(lb_ha(tree(out)), sorted(
            ["cluster/cib.xml", "cluster/pcs-commands.sh"]
            + ["%s/etc/%s" % (h, f) for h in ("lb00", "lb01")
               for f in ("lbd/lbd.cfg", "vipd/vipd.conf")]
            + ["%s/etc/%s" % (h, f) for h in ("kubem00", "kubem01", "kubem02", "lb00", "lb01")
               for f in ("corosync/corosync.conf", "fenced/fenced.conf")]))
        with open(os.path.join(out, "cluster", "cib.xml")) as f:
            cib = f.read()
        self.assertNotIn("cib-last-written", cib)
        self.assertIn("<nodes/>", cib)
        levels = ET.fromstring(cib).findall("./configuration/fencing-topology/fencing-level")
        self.assertEqual(sorted((x.get("target"), x.get("index"), x.get("devices"))
                                for x in levels),
                         [("kubem0%d" % i, "1", "ipmi-kubem0%d" % i) for i in range(3)])
        self.assertNotIn("password_file", cib)
        self.assertTrue(os.stat(os.path.join(out, "cluster", "pcs-commands.sh")).st_mode
                        & stat.S_IXUSR)

        util.step("sample again, with the ocf:cpha agents installed: same bytes")
        out2 = self.out("sample-agents")
        r = render(self.shims, SAMPLE, out2, overlay=self.stage)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("not installed here", r.stderr)  # pcs checked the parameters
        self.shims.runs()
        self.assertEqual(tree(out), tree(out2))
        for f in tree(out):
            self.assertTrue(filecmp.cmp(os.path.join(out, f), os.path.join(out2, f),
                                        shallow=False), f)

        util.step("pcs-commands.sh with PCS='pcs -f FILE' makes cib.xml")
        cibfile = os.path.join(self.tmp, "script-cib.xml")
        empty = subprocess.run(["cibadmin", "--empty"], capture_output=True, text=True,
                               check=True).stdout
        nodes = "".join('<node id="%d" uname="kubem0%d"/>' % (i + 1, i) for i in range(3))
        with open(cibfile, "w") as f:
            f.write(empty.replace("<nodes/>", "<nodes>%s</nodes>" % nodes))
        env = env_with(self.shims)
        env["PCS"] = "pcs -f %s" % cibfile
        r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                            '%s && exec sh "$0"' % agents_overlay(self.stage),
                            os.path.join(out, "cluster", "pcs-commands.sh")],
                           env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(cibfile) as f:
            self.assertEqual(strip_nodes(f.read()), cib)

    def test_five_every_checker(self):
        util.step("five masters, HAProxy and keepalived: render with every checker")
        out = self.out("five")
        r = render(self.shims, FIVE, out)
        self.assertEqual(r.returncode, 0, r.stderr)
        runs = self.shims.runs()
        hosts = ["kubem0%d" % i for i in range(5)]
        for h in hosts:
            self.assertEqual(checked(runs, "haproxy", "/%s/etc/haproxy/haproxy.cfg" % h), [0])
            self.assertEqual(
                checked(runs, "keepalived", "/%s/etc/keepalived/keepalived.conf" % h), [0])
            self.assertEqual(checked(runs, "fenced", "/%s/etc/fenced/fenced.conf" % h), [0])
        self.assertEqual(len(runs), 15, runs)
        self.assertFalse(os.path.exists(os.path.join(out, "cluster", "cib.xml")))  # no Pacemaker
        self.assertEqual(len(lb_ha(tree(out))), 5 * 5)  # + corosync.conf, sysctl

    def test_dual_stack_every_checker(self):
        util.step("dual stack (an IPv4 and an IPv6 VIP): vipd, lbd, keepalived and HAProxy "
                  "check what is rendered")
        for name, base, lb, vrrp, hosts in (
                ("dual-sample", DUAL, "lbd/lbd.cfg", "vipd/vipd.conf", ("lb00", "lb01")),
                ("dual-five", self.variant("dual-five.yaml", FIVE, "vip: 198.18.0.10/24",
                                           "vip: [198.18.0.10/24, 2001:db8:10::2/64]"),
                 "haproxy/haproxy.cfg", "keepalived/keepalived.conf",
                 tuple("kubem0%d" % i for i in range(5)))):
            r = render(self.shims, base, self.out(name))
            self.assertEqual(r.returncode, 0, "%s: %s" % (name, r.stderr))
            runs = self.shims.runs()
            for h in hosts:
                for f in (lb, vrrp):
                    # each file's checker is named as its directory
                    self.assertEqual(checked(runs, f.split("/")[0], "/%s/etc/%s" % (h, f)),
                                     [0], (name, f, runs))
                with open(os.path.join(self.out(name), h, "etc", vrrp)) as fh:
                    self.assertIn("vrrp_sync_group", fh.read())

    def test_broken_fenced(self):
        util.step("an LB host's fence device with a parameter fence_ipmilan does not take")
        bad = self.variant("bad-fenced.yaml", SAMPLE,
                           "params: {ip: 10.10.20.3,", "params: {outlet: 3, ip: 10.10.20.3,")
        out = self.out("bad-fenced")
        r = render(self.shims, bad, out)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("cpha render: lb00:/etc/fenced/fenced.conf: fenced found a problem",
                      r.stderr)
        self.assertIn("'outlet' is not a parameter of fence_ipmilan", r.stderr)
        self.assertIn("nothing was written", r.stderr)
        self.assertFalse([f for f in tree(out) if not f.startswith(".render")], tree(out))
        self.assertIn(1, [rc for rc, n, _ in self.shims.runs() if n == "fenced"])

    def test_broken_pcs(self):
        util.step("a master's fence device with a parameter fence_ipmilan does not take")
        bad = self.variant("bad-pcs.yaml", SAMPLE,
                           "params: {ip: 10.10.20.80,", "params: {outlet: 3, ip: 10.10.20.80,")
        r = render(self.shims, bad, self.out("bad-pcs"))
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("cluster:cib.xml: pcs stonith create ipmi-kubem00 fence_ipmilan outlet=3",
                      r.stderr)
        self.assertRegex(r.stderr, r"Error: invalid stonith option 'outlet'")
        self.shims.runs()

    def test_corosync_t(self):
        util.step("corosync -t on two masters of the five")
        out = self.out("five-corosync")
        r = render(self.shims, FIVE, out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.shims.runs()
        with cphatest.Lab("render-corosync") as lab:
            key = lab.path("authkey")
            subprocess.run(["corosync-keygen", "-k", key], capture_output=True, check=True)
            for i, name in ((0, "kubem00"), (4, "kubem04")):
                h = lab.add_host("m%d" % i, v4="198.18.0.%d/24" % (11 + i))
                with open(os.path.join(out, name, "etc/corosync/corosync.conf")) as f:
                    conf = f.read()
                # the authkey of this test, and the messages on stderr
                conf = conf.replace("totem {\n", "totem {\n    keyfile: %s\n" % key, 1)
                conf = conf.replace("to_stderr: no", "to_stderr: yes").replace(
                    "to_syslog: yes", "to_syslog: no")
                path = lab.path("%s-corosync.conf" % name)
                with open(path, "w") as f:
                    f.write(conf)
                r = h.run(["corosync", "-t", "-c", path], check=False)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def lb_runs(self, lb):
        """One master of the five with the rendered load balancer (lb:
        haproxy or lbd) and keepalived.conf."""
        desc = FIVE if lb == "haproxy" else self.variant(
            "five-lbd.yaml", FIVE, "load_balancer: haproxy", "load_balancer: lbd")
        out = self.out("five-run-" + lb)
        r = render(self.shims, desc, out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.shims.runs()
        etc = os.path.join(out, "kubem00", "etc")
        with cphatest.Lab("render-run-" + lb) as lab:
            h = lab.add_host("m0", v4=M0 + "/24")
            client = lab.add_host("c", v4="198.18.0.50/24")
            # the VIP is bound before the host holds it: the rendered sysctl
            h.run(["sysctl", "-q", "-p", os.path.join(etc, "sysctl.d", "60-cpha-lb.conf")])
            cfg = os.path.join(etc, "haproxy/haproxy.cfg" if lb == "haproxy" else "lbd/lbd.cfg")
            with open(cfg) as f:
                text = f.read()
            # the admin socket in the lab; haproxy's log to its log file
            text = re.sub(r"/run/(haproxy|lbd)/admin.sock", lab.path("admin.sock"), text)
            text = text.replace("log /dev/log local0", "log stdout format raw local0")
            # descriptors for 4000 sessions may exceed the hard limit a
            # test runner may have (lbd.service raises it; HAProxy as root)
            text = text.replace("maxconn 4000", "maxconn 2000")
            cfg = lab.path("lb.cfg")
            with open(cfg, "w") as f:
                f.write(text)
            argv = (["haproxy", "-db", "-f", cfg] if lb == "haproxy"
                     else [DAEMONS["lbd"], "-db", "-f", cfg])
            p_lb = h.spawn(argv, name=lb)
            util.wait_until(lambda: h.run(["ss", "-Htln", "sport = :8404"]).stdout.strip(),
                            10, what="the monitor frontend")
            self.assertTrue(p_lb.running())
            kad = os.path.dirname(lab.path("ka", "x"))
            kaconf = os.path.join(etc, "keepalived", "keepalived.conf")
            with open(kaconf) as f:
                delay = int(re.search(r"\n    vrrp_startup_delay (\d+)\n", f.read()).group(1))
            ka = h.spawn(["keepalived", "-n", "-l", "-D", "-G", "-R", "--vrrp", "-f", kaconf,
                          "-p", os.path.join(kad, "k.pid"), "-r", os.path.join(kad, "v.pid"),
                          "-c", os.path.join(kad, "c.pid"), "-b", os.path.join(kad, "b.pid")],
                         name="keepalived")
            util.step("%s: no apiserver: no VIP, the instance in FAULT" % lb)
            # the LB counts its servers up until its first check: the script
            # may pass at first, but vrrp_startup_delay outlasts that. With
            # no weight a failing script keeps the instance in FAULT, so the
            # host (alone) never takes the VIP; with a weight it would,
            # priority lowered, after the delay and Master_Down_Interval
            vipdlib.steady_holders([h], VIP, [], delay + 10, interval=0.2)
            self.assertTrue(ka.running())
            log = ka.log_text()
            self.assertIn(KA_FAULT, log)
            self.assertNotIn(KA_MASTER, log)
            self.assertNotIn("priority from", log)  # no weight: the priority stays 150
            n_ok = log.count("VRRP_Script(lb_healthy) succeeded")

            util.step("%s: an apiserver answers /readyz: the script succeeds" % lb)
            crt, key = lab.path("tls.crt"), lab.path("tls.key")
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                            "-keyout", key, "-out", crt, "-subj", "/CN=kubernetes",
                            "-days", "1"], capture_output=True, check=True)
            server = ("import http.server, ssl, sys\n"
                      "class H(http.server.BaseHTTPRequestHandler):\n"
                      "    def do_GET(s):\n"
                      "        s.send_response(200); s.end_headers(); s.wfile.write(b'ok')\n"
                      "srv = http.server.HTTPServer((sys.argv[1], 6443), H)\n"
                      "ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)\n"
                      "ctx.load_cert_chain(sys.argv[2], sys.argv[3])\n"
                      "srv.socket = ctx.wrap_socket(srv.socket, server_side=True)\n"
                      "srv.serve_forever()\n")
            api = h.spawn(["python3", "-c", server, M0, crt, key], name="apiserver")
            util.wait_until(
                lambda: ka.log_text().count("VRRP_Script(lb_healthy) succeeded") > n_ok, 20,
                what="lb_healthy succeeding")
            util.step("%s: out of FAULT, the host takes the VIP" % lb)
            # rise 2 x interval 2, then Master_Down_Interval (3 x 1 s + skew)
            vipdlib.wait_holders([h], VIP, ["m0"], timeout=15)
            log = ka.log_text()
            self.assertIn(KA_MASTER, log)
            self.assertLess(log.find(KA_FAULT), log.find(KA_MASTER), log)
            self.assertNotIn("priority from", log)
            util.step("%s: a client reaches the apiserver through the VIP" % lb)
            r = client.run(["curl", "-sk", "--noproxy", "*", "-m", "5",
                            "https://%s:6443/readyz" % VIP], check=False)
            self.assertEqual((r.returncode, r.stdout), (0, "ok"), r.stderr)

            util.step("%s: the apiserver stops: FAULT again, the VIP given up" % lb)
            n_fault = ka.log_text().count(KA_FAULT)
            api.terminate_and_wait()
            # the LB marks it down (fall 2 x inter 2s), the script fails
            # (fall 2 x interval 2)
            vipdlib.wait_holders([h], VIP, [], timeout=30)
            util.wait_until(lambda: ka.log_text().count(KA_FAULT) > n_fault, 5,
                            what="keepalived in FAULT again")
            self.assertNotIn("priority from", ka.log_text())

    def test_track_haproxy(self):
        self.lb_runs("haproxy")

    def test_track_lbd(self):
        self.lb_runs("lbd")


if __name__ == "__main__":
    reason = skip_reason()
    if reason:
        print("SKIP: %s" % reason, flush=True)
        sys.exit(util.SKIP)
    sys.exit(util.run_tests())
