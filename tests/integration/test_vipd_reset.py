#!/usr/bin/env python3
"""vipd_reset_connections: a master that gives up the VIP resets the TCP
connections on it, so their clients reconnect at once instead of hanging.

r2 (priority 150) holds the VIP 198.18.0.100 alone; a server on r2 sends a
byte every 0.1 s on each connection (a Kubernetes watch, as the load
balancer relays it); the client c connects to the VIP and reads. Then r1
(250) starts and preempts. Without the option the client's connection
hangs: no data, no reset (the prober of `cpha lab` saw this after every
failback). With it, r2 destroys the connection before removing the
address, the client gets a reset within a second of the takeover, and
r2's listening socket survives (a new connection to r2's own address
works). Both cases run, so the test proves the option is what changes it;
the reset case runs three times (a reset that worked once is not proof).

Exit 0 pass, 77 skip (not root, vipd not built), else fail.
    sudo python3 tests/integration/test_vipd_reset.py [-v]
"""

import subprocess
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import step, vipd  # noqa: E402
from cphatest.vipd import VIP  # noqa: E402

A = 0.2  # advert_int
PORT = 7000
SERVER = r"""
import socket, threading, time
s = socket.socket(socket.AF_INET6)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)  # dual stack, as a proxy may be
s.bind(("::", %d))
s.listen(16)
def feed(c):
    try:
        while True:
            c.send(b"x")
            time.sleep(0.1)
    except OSError:
        pass
while True:
    c, _ = s.accept()
    threading.Thread(target=feed, args=(c,), daemon=True).start()
""" % PORT
CLIENT = r"""
import socket, sys, time
c = socket.create_connection((sys.argv[1], %d), timeout=5)
c.settimeout(4)
print("open", time.time(), flush=True)
while True:
    try:
        d = c.recv(100)
    except socket.timeout:
        print("silent", time.time(), flush=True)
        break
    except OSError as e:
        print("reset", time.time(), e.errno, flush=True)
        break
    if not d:
        print("eof", time.time(), flush=True)
        break
""" % PORT

PROBE = r"""
import socket, sys
c = socket.create_connection((sys.argv[1], %d), timeout=2)
c.settimeout(2)
print("data" if c.recv(1) else "eof", flush=True)
""" % PORT


class Reset(unittest.TestCase):

    def run_case(self, reset, rounds):
        name = "vipd-reset" if reset else "vipd-noreset"
        with cphatest.Lab(name) as lab:
            bed = vipd.Bed(lab, {"r1": 250, "r2": 150}, advert=A, global_extra=lambda n: (
                ["vipd_reset_connections"] if reset and n == "r2" else []))
            r1, r2, c = bed.host["r1"], bed.host["r2"], bed.client
            r2.spawn(["python3", "-c", SERVER], "server")
            out = []
            for k in range(rounds):
                step("round %d: r2 alone holds the VIP, a client reads from it" % (k + 1))
                bed.start("r2")
                bed.wait_holders(["r2"], timeout=bed.mdi("r2") + 3)
                cli = subprocess.Popen(["ip", "netns", "exec", c.ns, "python3", "-c", CLIENT,
                                        VIP], stdout=subprocess.PIPE, text=True)
                try:
                    first = cli.stdout.readline().split()
                    self.assertEqual(first[:1], ["open"], "the client did not connect")
                    time.sleep(0.5)
                    step("r1 (250) starts and preempts")
                    bed.start("r1")
                    bed.wait_holders(["r1"], timeout=bed.mdi("r1") + 3)
                    t_take = time.time()
                    last = cli.stdout.readline().split()
                finally:
                    cli.kill()
                    cli.wait(10)
                    cli.stdout.close()
                out.append((last, t_take))
                if reset:
                    self.assertEqual(last[:1], ["reset"], "the client saw %r, not a reset"
                                     % last)
                    took = float(last[1]) - t_take
                    step("reset %.2f s after r1 was seen holding the VIP" % took)
                    self.assertLess(took, 1.0)
                    self.assertIn("reset 1 TCP connection", bed.vipd["r2"].log_text())
                    # r2's listener survived: its own address still serves
                    r = c.run(["python3", "-c", PROBE, r2.v4], check=False, timeout=20)
                    self.assertIn("data", r.stdout, "r2's listening socket was reset too: %s"
                                  % (r.stdout + r.stderr))
                else:
                    self.assertEqual(last[:1], ["silent"], "without the option the client "
                                     "saw %r: the test cannot tell the option's effect" % last)
                    step("no data and no reset for 4 s: the connection hangs")
                for n in ("r1", "r2"):
                    bed.vipd[n].stop()
            return out

    def test_hangs_without(self):
        self.run_case(False, 1)

    def test_reset_with(self):
        self.run_case(True, 3)


def main():
    vipd.require(())
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
