#!/usr/bin/env python3
"""A public haproxy.cfg built on the Debian package's global section, run
for real: tests/lbd-configs/real/k0s-ha-debian.cfg (k0s's HA guide, three
controllers behind :6443, :8132 and :9443, a stats page on :9000), whose
global section is Debian's /etc/haproxy/haproxy.cfg: chroot
/var/lib/haproxy, user haproxy, group haproxy, a stats socket, syslog.

The file is used as it is but for this rewriting (rewrite()):
  - chroot /var/lib/haproxy -> an empty directory of the test (the same
    kind of jail, without touching the machine's /var/lib);
  - the stats socket's /run/haproxy/ -> the test directory;
  - log /dev/log -> stdout (the test reads lbd's output; the container may
    have no syslog).
Everything else, the 'user haproxy' / 'group haproxy' lines included, is
unchanged.

Asserted, seen from outside:
  - /proc/PID/status: every uid and gid of lbd is haproxy's, no
    supplementary group; /proc/PID/root is the jail;
  - TLS traffic through :6443, :8132 and :9443 reaches the controllers
    (at least two different ones on :6443);
  - the stats page on :9000 answers, and its ';csv' lists the nine servers
    UP; the stats socket answers 'show info' (as root: lbd made it before
    dropping privileges);
  - after the drop, checks still work, three times over: controller 1's
    :6443 is stopped (SIGKILL by PID) -> the CSV shows it DOWN (check-ssl,
    HAProxy's defaults inter 2s fall 3) and traffic avoids it; started again
    -> UP.
Skips (exit 77, saying why) when there is no user or group haproxy
(Debian's haproxy package makes them; scripts/setup.sh installs it).

Topology: client 198.18.0.2, lb 198.18.0.10, controllers 198.18.0.11-13
(the file's own rendered addresses). About 45 s.
    sudo python3 tests/integration/test_real_debian.py [-v]
"""

import grp
import os
import pwd
import signal
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import kube, lbd, step, util  # noqa: E402
from cphatest.curl import curl  # noqa: E402

FILE = os.path.join(util.repo_root(), "tests", "lbd-configs", "real", "k0s-ha-debian.cfg")
PORTS = (6443, 8132, 9443)
ROUNDS = 3


def sub(text, old, new):
    if old not in text:
        raise AssertionError("k0s-ha-debian.cfg no longer holds %r" % old)
    return text.replace(old, new)


def rewrite(text, jail, run):
    # the jail: an empty directory of the test instead of /var/lib/haproxy
    text = sub(text, "chroot /var/lib/haproxy", "chroot " + jail)
    # the stats socket in the test directory instead of /run/haproxy
    text = sub(text, "/run/haproxy/admin.sock", os.path.join(run, "admin.sock"))
    # syslog -> lbd's stdout (both log lines of Debian's header)
    text = sub(text, "log /dev/log\tlocal0\n", "log stdout format raw local0\n")
    text = sub(text, "\tlog /dev/log\tlocal1 notice\n", "")
    return text


class RealDebian(unittest.TestCase):

    def csv(self):
        r = curl(self.client, "http://%s:9000/;csv" % lbd.LB_IP)
        self.assertEqual(r.status, 200, "stats ';csv' on :9000: %r" % (r,))
        return lbd.csv_rows(r.body)

    def status_of(self, backend, server):
        return self.csv()[(backend, server)]["status"].split()[0]

    def start_controller(self, host, port):
        cert, key = self.api.certs[host.name]
        if port == 6443:
            return self.api.start(host)
        p = host.spawn([kube.binary("kube-apiserver"), "--etcd-servers=http://127.0.0.1:2379",
                        "--bind-address=%s" % host.v4, "--secure-port=%d" % port,
                        "--tls-cert-file=%s" % cert, "--tls-private-key-file=%s" % key,
                        "--v=1"], name="apiserver-%d" % port)
        return p

    def test_debian_header(self):
        uid = pwd.getpwnam("haproxy").pw_uid
        gid = grp.getgrnam("haproxy").gr_gid
        with cphatest.Lab("real-debian") as lab:
            self.client = lab.add_host("client", v4=lbd.CLIENT_IP + "/24")
            lb = lab.add_host("lb", v4=lbd.LB_IP + "/24")
            ctl = [lab.add_host("c%d" % (i + 1), v4=lbd.SERVER_IPS[i] + "/24")
                   for i in range(3)]
            self.api = lbd.Apiservers(lab, ctl)
            procs = {}
            for h in ctl:
                for port in PORTS:
                    procs[(h.name, port)] = self.start_controller(h, port)
            jail = os.path.join(lab.dir, "jail")
            os.mkdir(jail, 0o755)
            run = lab.path("run")
            os.makedirs(run, exist_ok=True)
            cfg = lab.path("haproxy.cfg")
            with open(FILE) as f:
                text = rewrite(f.read(), jail, run)
            with open(cfg, "w") as f:
                f.write(text)

            step("lbd -c accepts the file")
            r = lb.run([lbd.binary(), "-c", "-f", cfg], check=False)
            self.assertEqual(r.returncode, 0, r.stderr)
            p = lb.spawn([lbd.binary(), "-db", "-f", cfg], name="lbd")
            lbd.wait_log(p, "started", 10)

            step("lbd runs as haproxy:haproxy, in the jail")
            st = util.proc_status(p.pid)
            self.assertEqual([int(x) for x in st["Uid"]], [uid] * 4, st["Uid"])
            self.assertEqual([int(x) for x in st["Gid"]], [gid] * 4, st["Gid"])
            self.assertEqual(st.get("Groups", []), [])
            self.assertEqual(os.readlink("/proc/%d/root" % p.pid), jail)

            step("the stats socket and the stats page answer; every server UP")
            self.assertIn("Name: lbd", util.unix_request(os.path.join(run, "admin.sock"),
                                                         "show info", 5))
            page = curl(self.client, "http://%s:9000/" % lbd.LB_IP)
            self.assertEqual(page.status, 200)
            self.assertIn("kubeAPI_backend", page.body)

            def all_up():
                rows = self.csv()
                return all(rows[(be, "k0s-controller%d" % i)]["status"] == "UP"
                           for be in ("kubeAPI_backend", "konnectivity_backend",
                                      "controllerJoinAPI_backend") for i in (1, 2, 3))
            util.wait_until(all_up, 20, 0.3, "the nine servers UP in the stats CSV")

            step("TLS traffic through :6443, :8132 and :9443")
            for port in PORTS:
                res = lbd.masters_reached(self.client, lbd.LB_IP, port, self.api.ca)
                names = {n for n, s in res if n and s and " 200" in s}
                self.assertTrue(all(n for n, _ in res), "port %d: %s" % (port, res))
                if port == 6443:
                    self.assertGreaterEqual(len(names), 2, res)

            for rnd in range(1, ROUNDS + 1):
                step("round %d: controller 1's :6443 stops -> DOWN after the drop" % rnd)
                victim = procs[("c1", 6443)]
                victim.kill(signal.SIGKILL)
                victim.wait(timeout=5)
                t0 = time.monotonic()
                util.wait_until(lambda: self.status_of("kubeAPI_backend", "k0s-controller1")
                                == "DOWN", 2 * 4 + 6, 0.3, "k0s-controller1 DOWN")
                print("  DOWN after %.1f s (inter 2s, fall 3)" % (time.monotonic() - t0),
                      flush=True)
                res = lbd.masters_reached(self.client, lbd.LB_IP, 6443, self.api.ca)
                self.assertTrue(all(n and n != "c1" for n, _ in res), res)

                step("round %d: controller 1 is back -> UP" % rnd)
                procs[("c1", 6443)] = self.api.start(ctl[0])
                util.wait_until(lambda: self.status_of("kubeAPI_backend", "k0s-controller1")
                                == "UP", 2 * 2 + 6, 0.3, "k0s-controller1 UP")
            self.assertTrue(p.running())
            self.assertEqual([int(x) for x in util.proc_status(p.pid)["Uid"]], [uid] * 4)
            self.api.kill_all()


if __name__ == "__main__":
    lbd.require()
    try:
        pwd.getpwnam("haproxy")
        grp.getgrnam("haproxy")
    except KeyError:
        print("SKIP: no user or group haproxy (Debian's haproxy package makes them)",
              flush=True)
        sys.exit(util.SKIP)
    unittest.main()
