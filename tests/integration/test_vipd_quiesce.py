#!/usr/bin/env python3
"""vipd_quiesce: a master that gives the VIP up on purpose first has its
lbd drop new connections to the VIP, keeps the VIP while the connections
it has finish, and only then hands it over.

r1 (150) and r2 (250) each run an lbd (bind *:7000 to a server on the
host that says which host it is, then echoes) and a vipd with track_lbd
on it, a drain file (track_file, weight 0), preempt_handover,
vipd_reset_connections and vipd_quiesce 2 (a long grace, so that the test
can look inside it, and longer than vipd's 1 s poll of the drain file, so
that a drain called off is read inside it; cpha render writes 0.3).

Each round, three times:
- r2 holds the VIP; a client holds a connection through it. r2 is
  drained. For the grace: the VIP stays on r2, r2's lbd lists it quiet, a
  new connection to the VIP gets no answer at all (its SYN dropped: not
  refused, not accepted), and the connection already open still echoes.
  Then the VIP is on r1, new connections land there, and r2's lbd takes
  connections again (nothing quiet).
- r2 undrained: it preempts (preempt_handover announces it); r1 quiesces
  the same way before it steps down: VIP still on r1, quiet in r1's lbd,
  then the VIP on r2.
- A drain called off inside the grace: the VIP never moves and r2's lbd
  takes new connections again at once.

Exit 0 pass, 77 skip (not root, vipd or lbd not built), else fail.
    sudo python3 tests/integration/test_vipd_quiesce.py [-v]
"""

import os
import subprocess
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util, vipd  # noqa: E402
from cphatest.vipd import VIP  # noqa: E402
from cphatest.vipd_conf import instance  # noqa: E402

A = 0.2     # advert_int
GRACE = 2.0  # vipd_quiesce: longer than vipd's 1 s poll of the drain file
PORT = 7000
BACK = 7001

# says which host it is, then echoes each line
NAMED = r"""
import socket, sys, threading
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", %d))
s.listen(64)
def serve(c):
    c.sendall(sys.argv[1].encode() + b"\n")
    try:
        while True:
            d = c.recv(100)
            if not d:
                break
            c.sendall(d)
    except OSError:
        pass
    c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
""" % BACK

# in the client's namespace: one connection attempt to the VIP with a
# timeout; prints "open WHO", "refused", "reset" or "silent"
TRY = r"""
import socket, sys
c = socket.socket()
c.settimeout(float(sys.argv[2]))
try:
    c.connect((sys.argv[1], %d))
    who = c.recv(10).decode().strip()
    print("open", who)
except socket.timeout:
    print("silent")
except ConnectionRefusedError:
    print("refused")
except OSError as e:
    print("reset", e.errno)
""" % PORT

# in the client's namespace: one connection held open; each line on
# stdin is echoed through it and the answer printed
HOLD = r"""
import socket, sys
c = socket.create_connection((sys.argv[1], %d), timeout=5)
c.settimeout(3)
f = c.makefile("rb")
print("open", f.readline().decode().strip(), flush=True)
for line in sys.stdin:
    try:
        c.sendall(line.encode())
        print("echo", f.readline().decode().strip(), flush=True)
    except OSError as e:
        print("error", e, flush=True)
""" % PORT


def lbd_body():
    return ("defaults\n    mode tcp\n    timeout connect 1s\n    timeout client 30s\n"
            "    timeout server 30s\n"
            "frontend api\n    bind :%d\n    default_backend be\n"
            "backend be\n    default-server check inter 200ms fall 2 rise 1\n"
            "    server s 127.0.0.1:%d\n" % (PORT, BACK))


class Quiesce(unittest.TestCase):

    def try_connect(self, c, timeout):
        r = c.run(["python3", "-c", TRY, VIP, str(timeout)], check=False, timeout=20)
        return r.stdout.split()

    def quiet_addrs(self, lb):
        return [q["address"] for q in lb.admin_json("show quiesce")["quiet"]]

    def test_quiesce_before_handover(self):
        with cphatest.Lab("vipd-quiesce") as lab:
            drain = {n: lab.path("drain-" + n) for n in ("r1", "r2")}
            for f in drain.values():
                with open(f, "w") as fh:
                    fh.write("0\n")
            lbs = {}

            def body(n, prio):
                return ("track_file drain {\n    file %s\n}\n" % drain[n]
                        + instance(priority=prio, advert=A, extra=[
                            "preempt_handover",
                            "track_file {", "    drain weight 0", "}",
                            "track_lbd {", "    %s be 1" % lbs[n].sock_path, "}"]))

            # the vipd files name the lbds' sockets before the lbds exist
            for n in ("r1", "r2"):
                lbs[n] = type("Named", (), {"sock_path": lab.path("lbd-" + n, "admin.sock")})
            bed = vipd.Bed(lab, {"r1": 150, "r2": 250}, advert=A, body=body,
                           global_extra=lambda n: ["vipd_reset_connections",
                                                   "vipd_quiesce %g" % GRACE])
            c = bed.client
            for n in ("r1", "r2"):
                h = bed.host[n]
                h.spawn(["python3", "-c", NAMED, n[1]], "named")
                lbs[n] = lbd.Lbd(lab, h, lbd_body(), nbthread=2, name="lbd-" + n)
                self.assertEqual(lbs[n].sock_path, lab.path("lbd-" + n, "admin.sock"))
                lbs[n].start()
            bed.start("r2")
            bed.wait_holders(["r2"], timeout=bed.mdi("r2") + 5)
            bed.start("r1")
            time.sleep(bed.mdi("r1"))
            self.assertEqual(self.try_connect(c, 3), ["open", "2"])

            for k in range(3):
                step("round %d: a client holds a connection through r2; r2 drained" % (k + 1))
                held = subprocess.Popen(["ip", "netns", "exec", c.ns, "python3", "-u", "-c",
                                         HOLD, VIP], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
                try:
                    self.assertEqual(held.stdout.readline().split(), ["open", "2"])
                    t0 = time.time()
                    with open(drain["r2"], "w") as fh:
                        fh.write("1\n")
                    # vipd reads track files once a second
                    util.wait_until(lambda: VIP in self.quiet_addrs(lbs["r2"]), 2, 0.02,
                                    "r2's lbd quiesced")
                    t_q = time.time()
                    step("quiet %.2f s after the drain" % (t_q - t0))
                    self.assertEqual(sorted(bed.holders()), ["r2"])
                    # a new connection: no answer at all, neither refused nor accepted
                    self.assertEqual(self.try_connect(c, 0.3), ["silent"])
                    # the one already open goes on
                    held.stdin.write("ping\n")
                    held.stdin.flush()
                    self.assertEqual(held.stdout.readline().split(), ["echo", "ping"])
                    self.assertEqual(sorted(bed.holders()), ["r2"],
                                     "the VIP left before the grace was over")
                    took = bed.wait_holders(["r1"], timeout=GRACE + bed.skew("r1") + 2)
                    t_moved = time.time()
                    step("VIP on r1 %.2f s after r2's lbd went quiet" % (t_moved - t_q))
                    self.assertGreater(t_moved - t_q, GRACE * 0.6)
                    self.assertIsNotNone(took)
                finally:
                    held.kill()
                    held.wait(10)
                    held.stdin.close()
                    held.stdout.close()
                self.assertEqual(self.try_connect(c, 3), ["open", "1"])
                util.wait_until(lambda: self.quiet_addrs(lbs["r2"]) == [], 2, 0.05,
                                "r2's lbd open again once the VIP left")
                log = bed.vipd["r2"].log_text()
                # each round before: a drain and one called off
                self.assertEqual(log.count("until then lbd takes no new connections"), 2 * k + 1)

                step("round %d: r2 undrained: it preempts, r1 quiesces first" % (k + 1))
                with open(drain["r2"], "w") as fh:
                    fh.write("0\n")
                util.wait_until(lambda: VIP in self.quiet_addrs(lbs["r1"]), 4, 0.02,
                                "r1's lbd quiesced")
                self.assertEqual(sorted(bed.holders()), ["r1"])
                self.assertEqual(self.try_connect(c, 0.3), ["silent"])
                bed.wait_holders(["r2"], timeout=GRACE + 3)
                self.assertEqual(self.try_connect(c, 3), ["open", "2"])
                util.wait_until(lambda: self.quiet_addrs(lbs["r1"]) == [], 2, 0.05,
                                "r1's lbd open again")

                step("round %d: a drain of r2 called off inside the grace" % (k + 1))
                time.sleep(1.0)
                with open(drain["r2"], "w") as fh:
                    fh.write("1\n")
                util.wait_until(lambda: VIP in self.quiet_addrs(lbs["r2"]), 2, 0.02,
                                "r2's lbd quiesced")
                with open(drain["r2"], "w") as fh:
                    fh.write("0\n")
                util.wait_until(lambda: self.quiet_addrs(lbs["r2"]) == [], 2, 0.02,
                                "r2's lbd open again: drain called off")
                self.assertEqual(sorted(bed.holders()), ["r2"])
                time.sleep(GRACE)
                self.assertEqual(sorted(bed.holders()), ["r2"],
                                 "the VIP moved after the drain was called off")
                self.assertEqual(self.try_connect(c, 3), ["open", "2"])
                self.assertIn("drain called off", bed.vipd["r2"].log_text())


def main():
    vipd.require(())
    if not os.path.exists(lbd.binary()):
        print("skipped: lbd is not built")
        return 77
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
