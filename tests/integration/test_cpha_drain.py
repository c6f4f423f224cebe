#!/usr/bin/env python3
"""cpha drain / undrain MASTER against a real lbd and a real HAProxy 2.6,
each with the rendered listen section's name (apiserver) and servers named
after the description's masters:
  - drain: no new connection reaches the drained server, the others share
    them, a connection it had stays open; its checks go on, so a restart
    behind the drain shows as DOWN then UP while still drained;
  - a second drain says so and changes nothing; undrain brings it back;
  - draining the last server in rotation is refused and changes nothing,
    --force drains it;
  - a name that is no master, and a socket nobody listens on, are clear
    errors;
  - the same, byte for byte, on HAProxy's admin socket.

Topology: client 198.18.0.2, lb 198.18.0.10, s1..s3 198.18.0.11-13 (tag
servers on :8000). Exit 0 pass, 77 skip, else fail.
    sudo python3 tests/integration/test_cpha_drain.py [-v]
"""

import os
import shutil
import subprocess
import sys
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import cphacmd, lbd, step, util  # noqa: E402

PORT = 6443
BODY = """
defaults
    mode tcp
    timeout connect 1s
    timeout client 30s
    timeout server 30s

listen apiserver
    bind 198.18.0.10:%d
    balance roundrobin
    default-server check inter 200ms fall 2 rise 2
    server s1 198.18.0.11:8000
    server s2 198.18.0.12:8000
    server s3 198.18.0.13:8000
"""

DESCRIPTION = """\
cluster: {name: drain}
api: {name: kubernetes, vip: 198.18.0.9/24, interface: eth0}
kubernetes: {service_cidr: 198.18.128.0/24, cluster_cidr: 198.18.192.0/20}
masters:
  - {name: s1, address: 198.18.0.11}
  - {name: s2, address: 198.18.0.12}
  - {name: s3, address: 198.18.0.13}
load_balancers:
  - {name: lb, address: 198.18.0.10}
  - {name: lb2, address: 198.18.0.20}
components: {load_balancer: %s, vip: vipd, manager: systemd}
"""


class Drain(unittest.TestCase):

    def cpha(self, *args):
        r = subprocess.run([cphacmd.binary(), "-f", self.desc] + list(args) +
                           ["--socket", self.sock], capture_output=True, text=True, timeout=30)
        return r.returncode, r.stdout + r.stderr

    def state(self):
        """{server: (srv_op_state, srv_admin_state)} from the socket."""
        out = {}
        for x in util.unix_request(self.sock, "show servers state apiserver", 5).split("\n"):
            f = x.split(" ")
            if len(f) > 6 and f[1] == "apiserver":
                out[f[3]] = (int(f[5]), int(f[6]))
        return out

    def tags(self, n=12):
        return [lbd.tag_of(self.t.client, lbd.LB_IP, PORT, timeout=2) for _ in range(n)]

    def wait_op(self, name, op, timeout=10):
        util.wait_until(lambda: self.state()[name][0] == op, timeout, 0.05,
                        "%s to have srv_op_state %d" % (name, op))

    def check_drain(self, lab, kind):
        """The whole sequence on the load balancer listening on self.sock."""
        for n in ("s1", "s2", "s3"):
            self.wait_op(n, 2)

        step("%s: drain s1: no new connection reaches it, one it had stays" % kind)
        held = []
        for _ in range(3):  # roundrobin: one of three lands on s1
            sock, tag = lbd.tag_connect(self.t.client, lbd.LB_IP, PORT)
            held.append(sock)
            if tag == "s1":
                break
        self.assertEqual(tag, "s1")
        rc, out = self.cpha("drain", "s1")
        self.assertEqual(rc, 0, out)
        self.assertIn("apiserver/s1 drained: 2 other servers in rotation", out)
        self.assertEqual(self.state()["s1"], (2, 8))
        got = self.tags()
        self.assertNotIn("s1", got, got)
        self.assertEqual(set(got), {"s2", "s3"}, got)
        self.assertEqual(lbd.echo(held[-1], b"still here\n"), b"still here\n")
        for sock in held:
            sock.close()

        step("%s: a second drain changes nothing and says so" % kind)
        rc, out = self.cpha("drain", "s1")
        self.assertEqual((rc, out.strip()), (0, "apiserver/s1 is drained already"))

        step("%s: s1 restarts behind the drain: DOWN, then UP, still drained" % kind)
        self.t.procs["s1"].kill()
        self.t.procs["s1"].wait(5)
        self.wait_op("s1", 0)
        self.assertEqual(self.state()["s1"][1], 8)
        self.t.start_tagservers(8000, hosts=[self.t.servers[0]])
        self.wait_op("s1", 2)
        self.assertEqual(self.state()["s1"][1], 8)
        self.assertNotIn("s1", self.tags())

        step("%s: undrain s1: back in rotation" % kind)
        rc, out = self.cpha("undrain", "s1")
        self.assertEqual(rc, 0, out)
        self.assertIn("apiserver/s1 back in rotation", out)
        self.assertEqual(self.state()["s1"], (2, 0))
        self.assertEqual(set(self.tags()), {"s1", "s2", "s3"})
        rc, out = self.cpha("undrain", "s1")
        self.assertEqual((rc, out.strip()), (0, "apiserver/s1 is not drained"))

        step("%s: the last server in rotation is not drained without --force" % kind)
        self.assertEqual(self.cpha("drain", "s2")[0], 0)
        self.t.procs["s3"].kill()
        self.t.procs["s3"].wait(5)
        self.wait_op("s3", 0)
        rc, out = self.cpha("drain", "s1")
        self.assertEqual(rc, 1, out)
        self.assertIn("apiserver/s1 is the only server in rotation here (s2 drained, s3 down)",
                      out)
        self.assertEqual(self.state()["s1"], (2, 0))
        self.assertEqual(set(self.tags(4)), {"s1"})
        rc, out = self.cpha("drain", "s1", "--dry-run", "--force")
        self.assertEqual((rc, out.strip()), (0, "would send: set server apiserver/s1 state drain"))
        self.assertEqual(self.state()["s1"], (2, 0))
        rc, out = self.cpha("drain", "s1", "--force")
        self.assertEqual(rc, 0, out)
        self.assertEqual(self.state()["s1"], (2, 8))
        for n in ("s1", "s2"):
            self.assertEqual(self.cpha("undrain", n)[0], 0)
        self.t.start_tagservers(8000, hosts=[self.t.servers[2]])
        self.wait_op("s3", 2)

        step("%s: clear errors: no such master, no socket" % kind)
        rc, out = self.cpha("drain", "m9")
        self.assertEqual(rc, 1, out)
        self.assertIn("m9 is not a master or load-balancer host of %s; its masters and LB "
                      "hosts: s1 s2 s3 lb" % self.desc, out)
        # an LB host is drained on itself (its VRRP instances' drain file)
        rc, out = self.cpha("drain", "lb")
        self.assertEqual(rc, 1, out)
        self.assertIn("lb is an LB host: run this on lb", out)
        r = subprocess.run([cphacmd.binary(), "-f", self.desc, "drain", "s1", "--socket",
                            lab.path("none.sock")], capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 1)
        self.assertIn("No such file or directory (run it on an LB host", r.stderr)
        self.assertEqual({n: s[1] for n, s in self.state().items()},
                         {"s1": 0, "s2": 0, "s3": 0})

    def setup_lab(self, lab, load_balancer):
        """The hosts, the tag servers and a description naming them."""
        self.t = lbd.Topology(lab, nservers=3)
        self.t.start_tagservers(8000)
        self.desc = lab.path("cluster.yaml")
        with open(self.desc, "w") as f:
            f.write(DESCRIPTION % load_balancer)

    def test_lbd(self):
        with cphatest.Lab("cpha-drain") as lab:
            self.setup_lab(lab, "lbd")
            lb = lbd.Lbd(lab, self.t.lb, BODY % PORT)
            lb.start()
            self.sock = lb.sock_path
            self.check_drain(lab, "lbd")

    def test_haproxy(self):
        if not shutil.which("haproxy"):
            print("SKIP part: haproxy is not installed", flush=True)
            return
        with cphatest.Lab("cpha-drain-hap") as lab:
            self.setup_lab(lab, "haproxy")
            self.sock = lab.path("hap", "admin.sock")
            cfg = lab.path("hap", "haproxy.cfg")
            os.makedirs(os.path.dirname(cfg), exist_ok=True)
            with open(cfg, "w") as f:
                f.write("global\n    stats socket %s mode 600 level admin\n%s" % (
                    self.sock, BODY % PORT))
            self.t.lb.spawn(["haproxy", "-db", "-f", cfg], name="haproxy")
            util.wait_until(lambda: os.path.exists(self.sock), 10, 0.05, "haproxy's socket")
            self.check_drain(lab, "haproxy")


if __name__ == "__main__":
    lbd.require()
    unittest.main()
