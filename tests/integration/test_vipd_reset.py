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

Handed to a live backup (test_handover_after_move): r2 holds the VIP,
with a BFD session up to r1, and is drained (its track_file, weight 0:
FAULT, priority 0 sent). Its connections are given up with the address
and their clients reset only once r1 holds the VIP: r2 nudges each
client from the given-up address, the client's acknowledgement reaches
r1, and r1's kernel answers it with the reset. The client, idle (a
watch waiting for events), gets the reset, reconnects at once and lands
on r1, without waiting a second for a retransmitted SYN. Three rounds,
the VIP going back and forth, each host drained in turn.

Exit 0 pass, 77 skip (not root, vipd not built), else fail.
    sudo python3 tests/integration/test_vipd_reset.py [-v]
"""

import re
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

# says which host it is (its first byte), then stays silent: an idle watch
NAMED = r"""
import socket, sys, threading
s = socket.socket(socket.AF_INET6)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.bind(("::", %d))
s.listen(16)
held = []
while True:
    c, _ = s.accept()
    c.send(sys.argv[1].encode())
    held.append(c)
""" % PORT
WATCH = r"""
import socket, sys, time
def connect():
    t = time.time()
    c = socket.create_connection((sys.argv[1], %d), timeout=5)
    c.settimeout(10)
    return c, c.recv(1).decode(), time.time() - t
c, who, _ = connect()
print("open", who, time.time(), flush=True)
try:
    d = c.recv(100)
    print("eof" if not d else "data", time.time(), flush=True)
except socket.timeout:
    print("silent", time.time(), flush=True)
    sys.exit()
except OSError as e:
    print("reset", time.time(), e.errno, flush=True)
c, who, took = connect()
print("again", who, time.time(), took, flush=True)
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
            r2, c = bed.host["r2"], bed.client
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

    def test_handover_after_move(self):
        from cphatest.vipd_conf import instance
        with cphatest.Lab("vipd-handover") as lab:
            drain = {n: lab.path("drain-" + n) for n in ("r1", "r2")}
            bed = vipd.Bed(lab, {"r1": 150, "r2": 250}, advert=A, global_extra=lambda n: (
                ["vipd_reset_connections"]))
            c = bed.client
            for n, peer in (("r1", bed.host["r2"]), ("r2", bed.host["r1"])):
                bed.vipd[n].write(
                    "track_file drain {\n    file %s\n}\n"
                    "bfd_instance peer {\n    neighbor_ip %s\n    source_ip %s\n"
                    "    min_rx 50\n    min_tx 50\n    multiplier 3\n}\n" % (
                        drain[n], peer.v4, bed.host[n].v4)
                    + instance(priority=bed.prio[n], advert=A, nopreempt=True,
                               extra=["track_file {", "    drain weight 0", "}"]))
                bed.host[n].spawn(["python3", "-c", NAMED, n[1]], "server")
            for f in drain.values():
                with open(f, "w") as fh:
                    fh.write("0\n")
            bed.start("r2")
            bed.wait_holders(["r2"], timeout=bed.mdi("r2") + 3)
            bed.start("r1")
            holder, other = "r2", "r1"
            drained = {"r1": 0, "r2": 0}
            for k in range(3):
                # the BFD session up (50 ms x 3): the holder knows a backup is alive
                time.sleep(1.0)
                step("round %d: an idle client of %s's VIP; %s drained" % (k + 1, holder,
                                                                           holder))
                cli = subprocess.Popen(["ip", "netns", "exec", c.ns, "python3", "-c", WATCH,
                                        VIP], stdout=subprocess.PIPE, text=True)
                try:
                    first = cli.stdout.readline().split()
                    self.assertEqual(first[:2], ["open", holder[1]], first)
                    time.sleep(0.5)
                    with open(drain[holder], "w") as fh:
                        fh.write("1\n")
                    bed.wait_holders([other], timeout=bed.mdi(other) + 3)
                    t_moved = time.time()
                    gone = cli.stdout.readline().split()
                    again = cli.stdout.readline().split()
                finally:
                    cli.kill()
                    cli.wait(10)
                    cli.stdout.close()
                self.assertEqual(gone[:1], ["reset"], "the idle client saw %r" % gone)
                self.assertEqual(again[:2], ["again", other[1]],
                                 "the client reconnected to %r, not %s" % (again, other))
                step("reset %.2f s after %s was seen holding the VIP; reconnected to %s in "
                     "%.3f s" % (float(gone[1]) - t_moved, other, other, float(again[3])))
                # a SYN that went to the old holder (or to nobody) would be
                # retransmitted after 1 s
                self.assertLess(float(again[3]), 0.5)
                drained[holder] += 1
                log = bed.vipd[holder].log_text()
                # the client's, and those the server kept of earlier rounds'
                # clients (killed: CLOSE_WAIT)
                self.assertEqual(len(re.findall(r"gave up \d+ TCP connections? with the VIP",
                                                log)), drained[holder], log)
                self.assertEqual(len(re.findall(r"the VIP has moved: (\d+) of \1 client",
                                                log)), drained[holder], log)
                with open(drain[holder], "w") as fh:
                    fh.write("0\n")
                holder, other = other, holder
                time.sleep(bed.mdi(holder))

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
