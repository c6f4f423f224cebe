#!/usr/bin/env python3
"""1 GiB each way through lbd, byte for byte, with half-closes.

The client (tools/bulk.py) sends 1 GiB through lbd and then shuts down its
sending side only (FIN). The server reads to EOF — so lbd must pass the FIN
on while keeping the other direction open — and answers with the sha256 of
what it got, then its own 1 GiB, then the sha256 of that, and closes. The
client checks both hashes and byte counts, and that EOF follows.
Then the other way round (64 MiB): the server sends first and shuts down
its side; only then does the client send, and all of it must arrive.

Topology: client 198.18.0.2, lb 198.18.0.10 (lbd), s1 198.18.0.11.
Exit 0 pass, 77 skip (not root, or lbd not built), else fail.
    sudo python3 tests/integration/test_lbd_data.py [-v]
"""

import json
import sys
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util  # noqa: E402

SIZE = 1 << 30
REVERSE_SIZE = 64 << 20

BODY = """
defaults
    mode tcp
    log global
    option tcplog
    timeout connect 2s
    timeout client 10s
    timeout server 10s

frontend fe
    bind 198.18.0.10:6443
    default_backend be

backend be
    server s1 198.18.0.11:9000
"""


class Data(unittest.TestCase):

    def test_one_gib_each_way(self):
        with cphatest.Lab("lbd-data") as lab:
            t = lbd.Topology(lab, nservers=1)
            s1 = t.servers[0]
            srv = s1.spawn(lbd.tool("bulk.py", "server", "--listen", "%s:9000" % s1.v4,
                                    "--size", SIZE), name="bulk-server")
            lbd.wait_log(srv, "listening on", 10)
            lb = lbd.Lbd(lab, t.lb, BODY)
            lb.start()

            step("1 GiB client -> server, FIN, 1 GiB server -> client")
            r = t.client.run(lbd.tool("bulk.py", "client", "--target", "%s:6443" % lbd.LB_IP,
                                      "--size", SIZE, "--timeout", 60),
                             timeout=180, check=False)
            self.assertTrue(r.stdout.strip(), "bulk client said nothing: %s" % r.stderr)
            res = json.loads(r.stdout.strip().splitlines()[-1])
            self.assertNotIn("error", res)
            up, down = res["upload_s"], res["download_s"]
            step("upload %.2fs (%.0f MiB/s), server answered %.3fs after the FIN, "
                 "download %.2fs (%.0f MiB/s)" % (up, 1024 / up, res["verdict_wait_s"],
                                                  down, 1024 / down))
            step("server got %s; client sent sha256 %s" % (res["server_received"],
                                                           res["sent_sha256"][:16]))
            # the server answers only after our FIN: lbd passed it on at once
            # (a lost FIN shows as an empty verdict when lbd's 10s timeout
            # closes the session)
            self.assertLess(res["verdict_wait_s"], 3.0, "client FIN not passed on")
            self.assertEqual(res["server_received"], "%d %s" % (SIZE, res["sent_sha256"]))
            self.assertEqual(res["received_bytes"], SIZE)
            self.assertEqual(res["server_sent"], "%d %s" % (SIZE, res["received_sha256"]))
            self.assertNotEqual(res["sent_sha256"], res["received_sha256"])  # two streams
            self.assertTrue(res["eof_after"], "EOF after the server's trailer")
            step("EOF %.3fs after the last byte" % res["eof_wait_s"])
            self.assertLess(res["eof_wait_s"], 3.0, "server FIN not passed on at once")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("served: received %d bytes sha256 %s" % (SIZE, res["sent_sha256"]),
                          srv.log_text())

            # lbd's own account: the session ended normally, with every byte
            # of the server's answer ("--" and the byte count in its log)
            answer = SIZE + len(res["server_received"]) + len(res["server_sent"]) + 2
            cphatest.wait_until(lambda: lb.log_lines(" be/s1 "), 5, 0.05, "traffic log line")
            line = lb.log_lines(" be/s1 ")[-1]
            step("lbd: %s" % line)
            self.assertRegex(line, r" be/s1 \S+ %d -- " % answer)

    def test_server_closes_first(self):
        with cphatest.Lab("lbd-data-rev") as lab:
            t = lbd.Topology(lab, nservers=1)
            s1 = t.servers[0]
            srv = s1.spawn(lbd.tool("bulk.py", "server", "--reverse", "--listen",
                                    "%s:9000" % s1.v4, "--size", REVERSE_SIZE),
                           name="bulk-server")
            lbd.wait_log(srv, "listening on", 10)
            lb = lbd.Lbd(lab, t.lb, BODY)
            lb.start()
            step("%d MiB server -> client, server FIN; only then %d MiB client -> server"
                 % (REVERSE_SIZE >> 20, REVERSE_SIZE >> 20))
            r = t.client.run(lbd.tool("bulk.py", "client", "--reverse", "--target",
                                      "%s:6443" % lbd.LB_IP, "--size", REVERSE_SIZE),
                             timeout=120, check=False)
            self.assertTrue(r.stdout.strip(), "bulk client said nothing: %s" % r.stderr)
            res = json.loads(r.stdout.strip().splitlines()[-1])
            self.assertTrue(res.get("download_ok"), res)
            self.assertTrue(res["eof_first"], "the server's FIN reached the client")
            step("download %.2fs, EOF %.3fs after its last byte" % (res["download_s"],
                                                                   res["eof_wait_s"]))
            self.assertLess(res["eof_wait_s"], 3.0, "server FIN not passed on at once")
            self.assertNotIn("error", res, "sending after the server's FIN")
            step("upload after the server's FIN %.2fs" % res["upload_s"])
            self.assertEqual(r.returncode, 0, r.stderr)
            # the client's bytes, all sent after the server's FIN, all arrived,
            # and so did the client's FIN (the server logs at EOF; a lost FIN
            # would keep it waiting until lbd's 10s timeout)
            lbd.wait_log(srv, "reverse: sent %d sha256 %s, then received %d bytes sha256 %s"
                         % (REVERSE_SIZE, res["received_sha256"], REVERSE_SIZE,
                            res["sent_sha256"]), 3)


def main():
    lbd.require()
    return util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
