#!/usr/bin/env python3
"""lbd and the descriptor limit, next to HAProxy 2.6 under the same limit.

Both run under a 64-descriptor limit they cannot raise (prlimit, and
setpriv drops CAP_SYS_RESOURCE, as for an unprivileged service):
  - maxconn 100 needs more descriptors than 64: both refuse to start with
    "Cannot raise FD limit to N, limit is 64" (strict-limits, the default);
  - maxconn 18 fits (lbd counts 64 descriptors for it): both start, silent;
  - 'no strict-limits' with maxconn 100: both start and say
    "FD limit (64) too low for maxconn=100/maxsock=N".
Then the two limits where lbd used to refuse what HAProxy runs, because it
counted a pipe per four connections that HAProxy does not: maxconn 100
under 256 descriptors, and maxconn 8000 with nbthread 2 under 20,000; both
start, lbd with the pipes that fit. Without maxconn under 256, both derive
it from the limit (show info's Maxconn within a few of each other).
Then lbd under the first limit really runs out of descriptors, several cycles
in a row: clients are opened until one gets no answer; it and more clients
after it must stay connected (no EOF, no reset) while descriptors are short,
and be served as soon as earlier clients close (accepting them only to
close them at once would fail this).

Topology: client 198.18.0.2, lb 198.18.0.10, s1 198.18.0.11 (tag server).
Exit 0 pass, 77 skip (not root, lbd not built, no haproxy), else fail.
    sudo python3 tests/integration/test_lbd_fdlimit.py [-v]
"""

import os
import shutil
import socket
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util  # noqa: E402

LIMIT = 64
CYCLES = 6
EXTRA = 4  # clients opened after the first one left waiting
def wrap(limit):
    return ["prlimit", "--nofile=%d:%d" % (limit, limit), "setpriv",
            "--inh-caps=-sys_resource", "--bounding-set=-sys_resource"]


WRAP = wrap(LIMIT)

BODY = """
defaults
    mode tcp
    log global
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    timeout queue 30s

listen l
    bind 198.18.0.10:6443
    server s1 198.18.0.11:8000
"""


def haproxy_cfg(path, maxconn, strict, sock=None):
    with open(path, "w") as f:
        f.write("global\n    nbthread 2\n%s%s%s\n%s" % (
            "    maxconn %d\n" % maxconn if maxconn else "",
            "" if strict else "    no strict-limits\n",
            "    stats socket %s level admin\n" % sock if sock else "", BODY))


def lbd_argv(lb, limit=LIMIT):
    return wrap(limit) + [lbd.binary(), "-db", "-f", lb.cfg_path]


def haproxy_info(path):
    """show info from HAProxy's stats socket: {field: value}."""
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(3)
    s.connect(path)
    s.sendall(b"show info\n")
    out = util.recv_all(s).decode()
    s.close()
    return dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)


def lbd_info(lb):
    return dict(line.split(": ", 1) for line in lb.admin("show info").splitlines()
                if ": " in line)


def curr_conns(lb):
    for line in lb.admin("show info").splitlines():
        if line.startswith("CurrConns:"):
            return int(line.split(":")[1])
    raise AssertionError("no CurrConns in show info")


def no_answer(sock, seconds):
    """True when nothing (no data, no EOF, no reset) comes for seconds."""
    sock.settimeout(seconds)
    try:
        sock.recv(1)
    except socket.timeout:
        return True
    except OSError:
        return False
    return False


class FdLimit(unittest.TestCase):

    def start_haproxy(self, lab, host, maxconn, strict, name, limit=LIMIT, sock=None):
        path = lab.path(name + ".cfg")
        haproxy_cfg(path, maxconn, strict, sock)
        return host.spawn(wrap(limit) + ["haproxy", "-db", "-f", path], name=name)

    def outcome(self, proc, started_needle=None):
        """("refused", log) when proc exits by itself within 3 s, else
        ("running", log); the process is stopped either way."""
        try:
            proc.wait(3)
        except Exception:
            pass
        if started_needle:
            util.wait_until(lambda: not proc.running() or started_needle in proc.log_text(),
                            5, 0.05, "%r to start or exit" % proc)
        running = proc.running()
        if running:
            proc.terminate_and_wait()
        return ("running" if running else "refused"), proc.log_text()

    def test_start_up_like_haproxy_then_exhaustion(self):
        with cphatest.Lab("lbd-fdlimit") as lab:
            t = lbd.Topology(lab, nservers=1)
            t.start_tagservers(8000)

            cases = (
                (100, True, "refused", "Cannot raise FD limit to"),
                (18, True, "running", None),
                (100, False, "running", "FD limit (%d) too low for maxconn=100/maxsock=" % LIMIT),
            )
            for i, (maxconn, strict, want, needle) in enumerate(cases):
                extra = ["maxconn %d" % maxconn] + ([] if strict else ["no strict-limits"])
                lb = lbd.Lbd(lab, t.lb, BODY, global_extra=extra, name="lbd%d" % i)
                got_l, log_l = self.outcome(t.lb.spawn(lbd_argv(lb), name="lbd%d" % i),
                                            "started:")
                got_h, log_h = self.outcome(self.start_haproxy(lab, t.lb, maxconn, strict,
                                                               "haproxy%d" % i))
                what = "maxconn %d%s, limit %d" % (maxconn, "" if strict else
                                                   " no strict-limits", LIMIT)
                self.assertEqual(got_h, want, "HAProxy with %s: %s" % (what, log_h))
                self.assertEqual(got_l, want, "lbd with %s (HAProxy: %s): %s"
                                 % (what, got_h, log_l))
                if needle:
                    self.assertIn(needle, log_h, "HAProxy with %s" % what)
                    self.assertIn(needle, log_l, "lbd with %s" % what)
                    self.assertIn("lbd.cfg:", log_l,
                                  "lbd names the file and line")
                else:
                    self.assertNotIn("FD limit", log_l, "lbd with %s is silent" % what)
                    self.assertNotIn("FD limit", log_h, "HAProxy with %s is silent" % what)
                step("%s: HAProxy %s, lbd %s" % (what, got_h, got_l))

            for limit, maxconn, threads in ((256, 100, 2), (20000, 8000, 2), (256, 0, 2)):
                what = "%s, nbthread %d, limit %d" % (
                    "maxconn %d" % maxconn if maxconn else "no maxconn", threads, limit)
                extra = ["nbthread %d" % threads] + (["maxconn %d" % maxconn] if maxconn
                                                     else [])
                lb = lbd.Lbd(lab, t.lb, BODY, global_extra=extra, name="lbd-%d-%d"
                             % (limit, maxconn))
                lb.proc = t.lb.spawn(lbd_argv(lb, limit), name="lbd-%d-%d" % (limit, maxconn))
                sock = lab.path("haproxy-%d-%d.sock" % (limit, maxconn))
                hp = self.start_haproxy(lab, t.lb, maxconn, True, "haproxy-%d-%d"
                                        % (limit, maxconn), limit, sock)
                try:
                    util.wait_until(lambda: not hp.running() or os.path.exists(sock), 5, 0.05,
                                    "HAProxy to start or exit")
                    self.assertTrue(hp.running(), "HAProxy with %s: %s" % (what,
                                                                            hp.log_text()))
                    util.wait_until(lambda: not lb.proc.running() or
                                    "started:" in lb.proc.log_text(), 10, 0.05,
                                    "lbd to start or exit")
                    self.assertTrue(lb.proc.running(), "lbd with %s (HAProxy runs it): %s"
                                    % (what, lb.proc.log_text()))
                    hi = util.wait_until(lambda: haproxy_info(sock), 5, 0.1,
                                         "HAProxy's show info")
                    li = lbd_info(lb)
                    step("%s: HAProxy Maxconn %s Maxsock %s, lbd Maxconn %s Maxsock %s"
                         % (what, hi["Maxconn"], hi["Maxsock"], li.get("Maxconn"),
                            li.get("Maxsock")))
                    self.assertNotIn("FD limit", lb.proc.log_text())
                    if maxconn:
                        self.assertEqual(int(li["Maxconn"]), maxconn)
                    else:
                        self.assertLessEqual(abs(int(li["Maxconn"]) - int(hi["Maxconn"])), 8,
                                             "maxconn derived from the limit")
                    self.assertLessEqual(int(li["Maxsock"]), limit)
                finally:
                    lb.proc.terminate_and_wait()
                    hp.terminate_and_wait()

            # out of descriptors for real: 'no strict-limits', maxconn 100
            lb = lbd.Lbd(lab, t.lb, BODY, global_extra=["maxconn 100", "no strict-limits"],
                         name="lbd-run")
            lb.proc = t.lb.spawn(lbd_argv(lb), name="lbd-run")
            lbd.wait_log(lb.proc, "started:", 10)
            util.wait_until(lb.listening, 10, 0.05, "lbd to listen")
            counts = []
            for cycle in range(1, CYCLES + 1):
                served, waiting = [], []
                try:
                    while len(served) < 100:
                        s = lbd.connect(t.client, lbd.LB_IP, 6443, timeout=3)
                        try:
                            line = lbd.read_line(s, timeout=1.5)
                        except socket.timeout:
                            waiting.append(s)  # descriptors ran out here
                            break
                        self.assertEqual(line, b"s1\n", "cycle %d: client %d got %r"
                                         % (cycle, len(served) + 1, line))
                        served.append(s)
                    self.assertTrue(waiting, "cycle %d: 100 clients served under a %d "
                                    "descriptor limit?" % (cycle, LIMIT))
                    self.assertGreaterEqual(len(served), 10, "cycle %d" % cycle)
                    for _ in range(EXTRA):
                        waiting.append(lbd.connect(t.client, lbd.LB_IP, 6443, timeout=3))
                    for k, s in enumerate(waiting):
                        self.assertTrue(no_answer(s, 3 if k == 0 else 0.5),
                                        "cycle %d: waiting client %d was closed (or served) "
                                        "while descriptors were short" % (cycle, k + 1))
                    for s in served[:len(waiting) + 1]:
                        s.close()
                    for k, s in enumerate(waiting):
                        line = lbd.read_line(s, timeout=5)
                        self.assertEqual(line, b"s1\n", "cycle %d: waiting client %d, once "
                                         "descriptors freed, got %r" % (cycle, k + 1, line))
                    counts.append(len(served))
                    step("cycle %d: %d clients served, the next %d waited and were served "
                         "when %d closed" % (cycle, len(served), len(waiting),
                                             len(waiting) + 1))
                finally:
                    for s in served + waiting:
                        s.close()
                util.wait_until(lambda: curr_conns(lb) == 0, 10, 0.05,
                                "lbd to close every session")
            self.assertLessEqual(max(counts) - min(counts), 2,
                                 "clients served before exhaustion, per cycle: %s "
                                 "(a descriptor leak shrinks it)" % counts)
            self.assertTrue(lb.proc.running())
            errors = [x for x in lb.log_text().splitlines() if "descriptor" in x or
                      "accept:" in x]
            self.assertLess(len(errors), 20 * CYCLES, "log lines about running out "
                            "are rate-limited: %d" % len(errors))


def main():
    lbd.require()
    for tool in ("haproxy", "prlimit", "setpriv"):
        if not shutil.which(tool):
            return util.skip("%s not installed" % tool)
    return util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
