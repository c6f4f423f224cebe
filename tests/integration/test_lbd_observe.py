#!/usr/bin/env python3
"""What an operator sees of lbd: the Prometheus metrics on metrics-bind,
the tcplog line of each closed session, and HAProxy's CSV from the admin
socket, all following real traffic from a client host.

Topology: client (198.18.0.2), lb (198.18.0.10) running lbd, servers
s1..s3 running tag servers (they send their name, then echo).
Exit 0 pass, 77 skip (not root, lbd not built), else fail.
    sudo python3 tests/integration/test_lbd_observe.py [-v]
"""

import json
import os
import re
import sys
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util  # noqa: E402

BODY = """
defaults
    mode tcp
    log global
    option tcplog
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    default-server check inter 300ms fall 1 rise 1

frontend fe
    bind 198.18.0.10:6443
    default_backend be

backend be
    balance roundrobin
    server s1 198.18.0.11:8000
    server s2 198.18.0.12:8000
    server s3 198.18.0.13:8000
"""

N = 12


def metrics(host):
    r = host.run(["curl", "-s", "--noproxy", "*", "-m", "3", "http://127.0.0.1:19120/metrics"])
    out = {}
    for line in r.stdout.splitlines():
        if not line or line.startswith("#"):
            continue
        name, value = line.rsplit(" ", 1)
        out[name] = float(value)
    return r.stdout, out


def status(host):
    """lbd's /status JSON (on metrics-bind): {server name: its object}, and the whole."""
    r = host.run(["curl", "-s", "--noproxy", "*", "-m", "3", "-D", "-",
                  "http://127.0.0.1:19120/status"])
    head, body = r.stdout.split("\n\n", 1)  # text mode: CRLF read as LF
    assert "Content-Type: application/json" in head, head
    doc = json.loads(body)
    be = [b for b in doc["backends"] if b["name"] == "be"][0]
    return {s["name"]: s for s in be["servers"]}, doc


class Observe(unittest.TestCase):

    def test_metrics_logs_and_csv_follow_traffic(self):
        with cphatest.Lab("lbd-observe") as lab:
            t = lbd.Topology(lab)
            t.start_tagservers(8000)
            lb = lbd.Lbd(lab, t.lb, BODY, global_extra=["metrics-bind 127.0.0.1:19120"])
            lb.start()
            lb.wait_all_up("be", 0.5)
            text, m = metrics(t.lb)
            self.assertIn("# TYPE lbd_server_up gauge", text)
            self.assertEqual(m['lbd_frontend_sessions_total{frontend="fe"}'], 0)

            step("%d sessions, each sending 5 bytes and reading its echo" % N)
            seen = []
            for _ in range(N):
                s, tag = lbd.tag_connect(t.client, lbd.LB_IP, 6443)
                self.assertEqual(lbd.echo(s, b"hello"), b"hello")
                s.close()
                seen.append(tag)
            self.assertEqual(sorted(set(seen)), ["s1", "s2", "s3"])

            def counted():
                return metrics(t.lb)[1].get('lbd_frontend_sessions_total{frontend="fe"}') == N
            util.wait_until(counted, 3, 0.05, "the metrics to count the sessions")
            text, m = metrics(t.lb)
            self.assertEqual(m['lbd_backend_sessions_total{backend="be"}'], N)
            self.assertEqual(m['lbd_frontend_bytes_in_total{frontend="fe"}'], 5 * N)
            # each server sent its name line (3 bytes) and the echo (5)
            self.assertEqual(m['lbd_frontend_bytes_out_total{frontend="fe"}'], 8 * N)
            for s in ("s1", "s2", "s3"):
                self.assertEqual(m['lbd_server_sessions_total{backend="be",server="%s"}' % s],
                                 N / 3)
                self.assertEqual(m['lbd_server_up{backend="be",server="%s"}' % s], 1)
            util.wait_until(
                lambda: metrics(t.lb)[1]['lbd_frontend_current_sessions{frontend="fe"}'] == 0,
                2, 0.05, "no current sessions")

            step("one tcplog line per session, HAProxy's format")
            util.wait_until(lambda: len(lb.log_lines(" fe be/")) >= N, 3, 0.05, "log lines")
            lines = lb.log_lines(" fe be/")
            self.assertEqual(len(lines), N)
            pat = re.compile(r"^198\.18\.0\.2:\d+ \[\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d\.\d{3}\] "
                             r"fe be/s[123] \d+/\d+/\d+ 8 -- \d+/\d+/\d+/\d+/0 0/0$")
            for line in lines:
                self.assertRegex(line.strip(), pat)

            step("a server stops: the metric and the CSV say DOWN, with the reason")
            t.procs["s2"].kill(9)
            lb.wait_status("be", "s2", "DOWN", timeout=3)
            text, m = metrics(t.lb)
            self.assertEqual(m['lbd_server_up{backend="be",server="s2"}'], 0)
            self.assertGreaterEqual(
                m['lbd_server_check_failures_total{backend="be",server="s2"}'], 1)
            csv = lb.admin("show stat")
            header = csv.splitlines()[0]
            self.assertTrue(header.startswith("# pxname,svname,qcur,qmax,scur,smax,slim,stot"))
            cols = header[2:].split(",")
            rows = {tuple(r.split(",")[:2]): r.split(",") for r in csv.splitlines()[1:] if r}
            s2 = rows[("be", "s2")]
            self.assertEqual(s2[cols.index("status")], "DOWN")
            self.assertEqual(s2[cols.index("stot")], str(N // 3))
            self.assertIn("Connection refused", s2[cols.index("check_status")])
            self.assertEqual(rows[("be", "BACKEND")][cols.index("stot")], str(N))

            step("/status: the same states, the check result, the last change's age")
            srv, doc = status(t.lb)
            self.assertEqual((doc["daemon"], doc["config_sha256"]),
                             ("lbd", lb.admin("show info").split("Config_sha256: ")[1].split()[0]))
            self.assertEqual({n: s["state"] for n, s in srv.items()},
                             {"s1": "UP", "s2": "DOWN", "s3": "UP"})
            self.assertIn("Connection refused", srv["s2"]["check"])
            self.assertEqual(srv["s2"]["address"], "198.18.0.12:8000")
            self.assertTrue(0 <= srv["s2"]["last_change_age"] < 10, srv["s2"])
            lb.admin("set server be/s3 state maint")
            self.assertEqual(status(t.lb)[0]["s3"]["state"], "MAINT")
            lb.admin("set server be/s3 state drain")
            self.assertEqual(status(t.lb)[0]["s3"]["state"], "DRAIN")


if __name__ == "__main__":
    reason = cphatest.root_skip_reason() or (
        None if os.path.exists(lbd.binary()) else "lbd is not built")
    if reason:
        print("SKIP: %s" % reason)
        sys.exit(77)
    r = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if r.wasSuccessful() else 1)
