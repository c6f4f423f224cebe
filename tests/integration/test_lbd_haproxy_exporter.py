#!/usr/bin/env python3
"""lbd's haproxy_* metrics against Prometheus's haproxy_exporter reading real
HAProxy: existing alert rules must find the same names, labels and values.

One configuration runs in HAProxy 2.6 and in lbd (lbd's copy adds its
metrics-bind line): a stats page, frontend fe, backend be with server up1
(a listener here), down1 (a closed port), bk (backup, on the listener),
mnt (disabled) and lim (maxconn 100, on the closed port). haproxy_exporter
0.14 reads HAProxy's stats CSV; a second one reads lbd's own stats CSV.
Once both have settled (up1 and bk UP, down1 and lim DOWN) and one client
connection went through each:
1. every haproxy_* family lbd serves, the exporter serves for HAProxy too,
   with the same type and the same label names;
2. for the same states both give the same haproxy_server_up,
   haproxy_server_weight, haproxy_backend_up, haproxy_backend_current_server
   (the usable primaries, CSV act), haproxy_backend_weight, haproxy_up and
   the session counters of fe, be and be/up1; and haproxy_server_downtime_
   seconds_total within a second (0 for the UP servers, at least 2 s for
   the DOWN and MAINT ones);
3. every series lbd serves equals what the exporter makes of lbd's own CSV
   (the columns and the metrics come from the same facts);
4. promtool (when installed) finds nothing to say about lbd's text.
Everything listens on 127.0.0.1 only; the test stops only what it started.
Exit 0 pass, 77 skip (lbd not built, haproxy or the exporter missing), else fail.
    python3 tests/integration/test_lbd_haproxy_exporter.py [-v]
"""

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

sys.dont_write_bytecode = True

from cphatest import util  # noqa: E402

HAPROXY = "/usr/sbin/haproxy"
EXPORTER = shutil.which("prometheus-haproxy-exporter") or "/usr/bin/prometheus-haproxy-exporter"

BODY = """\
defaults
    mode tcp
    timeout connect 1s
    timeout client 10s
    timeout server 10s

listen stats
    mode http
    bind 127.0.0.1:{stats}
    stats enable
    stats uri /

frontend fe
    bind 127.0.0.1:{fe}
    default_backend be

backend be
    balance roundrobin
    default-server check inter 200ms fall 2 rise 1
    server up1 127.0.0.1:{up}
    server down1 127.0.0.1:{down}
    server bk 127.0.0.1:{up} backup
    server mnt 127.0.0.1:{up} disabled
    server lim 127.0.0.1:{down} maxconn 100
"""

STATES = {"up1": "UP", "down1": "DOWN", "bk": "UP", "mnt": "MAINT", "lim": "DOWN"}

# the same value from both for the same states
SAME = ("haproxy_up", "haproxy_server_up", "haproxy_server_weight", "haproxy_backend_up",
        "haproxy_backend_current_server", "haproxy_backend_weight")
SESSIONS = (("haproxy_frontend_sessions_total", (("frontend", "fe"),)),
            ("haproxy_backend_sessions_total", (("backend", "be"),)),
            ("haproxy_server_sessions_total", (("backend", "be"), ("server", "up1"))),
            ("haproxy_server_sessions_total", (("backend", "be"), ("server", "down1"))))
# change between two reads a moment apart, so not compared in 3
MOVING = ("haproxy_server_check_failures_total", "haproxy_server_check_duration_seconds",
          "haproxy_server_downtime_seconds_total")
DOWNTIME = "haproxy_server_downtime_seconds_total"

_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, timeout=3):
    with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(
            url, timeout=timeout) as r:
        return r.read().decode()


def parse(text):
    """(families {name: type}, samples {(name, ((label, value), ...)): value})."""
    types, samples = {}, {}
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, typ = line.split(None, 3)
            types[name] = typ
            continue
        m = _SAMPLE.match(line.strip())
        if not m or line.startswith("#"):
            continue
        labels = tuple(sorted(_LABEL.findall(m.group(2) or "")))
        samples[(m.group(1), labels)] = float(m.group(3))
    return types, samples


def label_names(samples, family):
    return {tuple(k for k, _ in labels) for name, labels in samples if name == family}


def csv_states(text):
    """{server: status} of backend be in a stats CSV."""
    out = {}
    for line in text.splitlines():
        f = line.split(",")
        if line.startswith("#") or len(f) < 18 or f[0] != "be":
            continue
        if f[1] not in ("FRONTEND", "BACKEND"):
            out[f[1]] = f[17]
    return out


class Listener(threading.Thread):
    """Accepts and holds connections on 127.0.0.1:port until stopped."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen(64)
        self.sock.settimeout(0.2)
        self.stopped = False
        self.conns = []

    def run(self):
        while not self.stopped:
            try:
                c, _ = self.sock.accept()
            except OSError:
                continue
            self.conns.append(c)

    def stop(self):
        self.stopped = True
        self.join(2)
        for c in self.conns:
            c.close()
        self.sock.close()


class HaproxyExporterNames(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="cpha-hapexp-")
        self.procs = []
        self.listener = None

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        if self.listener:
            self.listener.stop()
        if self._outcome_failed():
            for name in sorted(os.listdir(self.dir)):
                if name.endswith(".log"):
                    print("--- %s\n%s" % (name, util.tail(os.path.join(self.dir, name))),
                          file=sys.stderr)
        shutil.rmtree(self.dir, ignore_errors=True)

    def _outcome_failed(self):
        res = getattr(self._outcome, "result", None)
        return bool(res and (res.failures or res.errors))

    def spawn(self, name, argv):
        log = open(os.path.join(self.dir, name + ".log"), "w")
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                             stderr=subprocess.STDOUT, cwd=self.dir)
        log.close()
        self.procs.append(p)
        return p

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def settled(self, stats_port):
        try:
            return csv_states(get("http://127.0.0.1:%d/;csv" % stats_port)) == STATES
        except OSError:
            return False

    def one_session(self, port):
        """One client connection through a frontend, held until the
        listener has it, then closed."""
        before = len(self.listener.conns)
        with socket.create_connection(("127.0.0.1", port), timeout=3):
            util.wait_until(lambda: len(self.listener.conns) > before, 5, 0.02,
                            "the connection through 127.0.0.1:%d at up1" % port)

    def test_names_labels_values(self):
        up, down = free_port(), free_port()
        hp = dict(stats=free_port(), fe=free_port(), up=up, down=down)
        lp = dict(stats=free_port(), fe=free_port(), up=up, down=down)
        lbd_metrics, exp_h, exp_l = free_port(), free_port(), free_port()
        self.listener = Listener(up)
        self.listener.start()

        hcfg = self.write("haproxy.cfg", "global\n    nbthread 1\n" + BODY.format(**hp))
        lcfg = self.write("lbd.cfg", "global\n    nbthread 1\n    metrics-bind 127.0.0.1:%d\n"
                          % lbd_metrics + BODY.format(**lp))
        haproxy = self.spawn("haproxy", [HAPROXY, "-db", "-f", hcfg])
        lbd = self.spawn("lbd", [util.built("lbd", "lbd"), "-db", "-f", lcfg])
        self.spawn("exporter-haproxy", [
            EXPORTER, "--haproxy.scrape-uri=http://127.0.0.1:%d/;csv" % hp["stats"],
            "--web.listen-address=127.0.0.1:%d" % exp_h])
        self.spawn("exporter-lbd", [
            EXPORTER, "--haproxy.scrape-uri=http://127.0.0.1:%d/;csv" % lp["stats"],
            "--web.listen-address=127.0.0.1:%d" % exp_l])

        for name, p, port in (("HAProxy", haproxy, hp["stats"]), ("lbd", lbd, lp["stats"])):
            def ok(p=p, port=port, name=name):
                if p.poll() is not None:
                    raise AssertionError("%s exited (%s)" % (name, p.returncode))
                return self.settled(port)
            util.wait_until(ok, 10, 0.1, "%s's servers at %s" % (name, STATES))
        self.one_session(hp["fe"])
        self.one_session(lp["fe"])

        def scrape(port):
            return parse(get("http://127.0.0.1:%d/metrics" % port))

        def counted():
            return all(scrape(port)[1].get(("haproxy_frontend_sessions_total",
                                            (("frontend", "fe"),))) == 1
                       for port in (exp_h, lbd_metrics))
        util.wait_until(counted, 10, 0.1, "one session counted by HAProxy and lbd")

        def down_for_2s():
            key = (DOWNTIME, (("backend", "be"), ("server", "down1")))
            return all((scrape(port)[1].get(key) or 0) >= 2 for port in (exp_h, lbd_metrics))
        util.wait_until(down_for_2s, 10, 0.2, "2 s of downtime for be/down1")
        # the same states still hold (a check may not flip them meanwhile)
        self.assertTrue(self.settled(hp["stats"]) and self.settled(lp["stats"]))

        h_types, h = scrape(exp_h)
        l_types, mine = scrape(lbd_metrics)
        _, from_csv = scrape(exp_l)

        with self.subTest("families"):
            fams = sorted(n for n in l_types if n.startswith("haproxy_"))
            self.assertGreaterEqual(len(fams), 25, fams)
            for f in ("haproxy_up", "haproxy_backend_up", "haproxy_server_up", DOWNTIME,
                      "haproxy_backend_current_server", "haproxy_server_check_failures_total",
                      "haproxy_frontend_current_sessions", "haproxy_server_limit_sessions"):
                self.assertIn(f, fams)
            for f in fams:
                self.assertIn(f, h_types, "lbd serves %s, haproxy_exporter does not" % f)
                self.assertEqual(l_types[f], h_types[f], "type of %s" % f)
                self.assertTrue(label_names(mine, f), "lbd's %s has no series" % f)
                self.assertEqual(label_names(mine, f), label_names(h, f),
                                 "label names of %s" % f)
        with self.subTest("values"):
            n = 0
            for key, v in sorted(mine.items()):
                if key[0] in SAME:
                    self.assertIn(key, h, "haproxy_exporter has no %s" % (key,))
                    self.assertEqual(v, h[key], "%s: lbd %s, HAProxy %s" % (key, v, h[key]))
                    n += 1
            self.assertGreaterEqual(n, 14)
            self.assertEqual(mine[("haproxy_server_up", (("backend", "be"), ("server", "up1")))],
                             1)
            self.assertEqual(mine[("haproxy_server_up", (("backend", "be"),
                                                          ("server", "down1")))], 0)
            self.assertEqual(mine[("haproxy_backend_current_server", (("backend", "be"),))], 1)
            for key in SESSIONS:
                self.assertEqual(mine.get(key), h.get(key), key)
            # downtime: down by checks or in maintenance, whole seconds,
            # read a moment apart
            for srv in STATES:
                key = (DOWNTIME, (("backend", "be"), ("server", srv)))
                self.assertIn(key, mine)
                if STATES[srv] == "UP":
                    self.assertEqual((mine[key], h[key]), (0, 0), srv)
                else:
                    self.assertGreaterEqual(mine[key], 2, srv)
                    self.assertLessEqual(abs(mine[key] - h[key]), 1, (srv, mine[key], h[key]))
        with self.subTest("promtool"):
            if not shutil.which("promtool"):
                print("promtool is not installed: the text is not linted", file=sys.stderr)
            else:
                r = subprocess.run(["promtool", "check", "metrics"], capture_output=True,
                                   text=True, timeout=30,
                                   input=get("http://127.0.0.1:%d/metrics" % lbd_metrics))
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with self.subTest("lbd's CSV"):
            for key, v in sorted(mine.items()):
                if key[0] in MOVING or key[0] == "haproxy_up":
                    continue
                if key in from_csv:
                    self.assertEqual(v, from_csv[key], "%s: metrics %s, CSV %s"
                                     % (key, v, from_csv[key]))
            self.assertIn(("haproxy_server_up", (("backend", "be"), ("server", "up1"))),
                          from_csv)


def main():
    if not os.access(util.built("lbd", "lbd"), os.X_OK):
        return util.skip("%s not built" % util.built("lbd", "lbd"))
    for prog in (HAPROXY, EXPORTER):
        if not os.access(prog, os.X_OK):
            return util.skip("%s is not installed" % prog)
    return util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
