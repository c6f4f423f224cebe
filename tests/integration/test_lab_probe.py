#!/usr/bin/env python3
"""`cpha lab probe` against real etcd and the kube-apiserver stand-in in one
lab host, with the apiserver killed and restarted in the middle; then `cpha
lab report` on what it wrote. Exit 0 pass, 77 skip (not root), else fail.
    sudo python3 tests/integration/test_lab_probe.py
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import cphacmd, etcd, kube, step  # noqa: E402

IP = "198.18.0.21"
API = "https://%s:6443" % IP
WATCHES = 10


def events(path):
    """The prober's lines so far (a last line cut short is left out)."""
    out = []
    with open(path) as f:
        for line in f:
            if line.endswith("\n"):
                out.append(json.loads(line))
    return out


def start_bed(lab):
    """m0 with etcd and the apiserver stand-in ready: (m0, pki, admin, argv, ap)."""
    m0 = lab.add_host("m0", v4=IP + "/24", v6="2001:db8::21/64")
    pki = cphatest.Pki(lab.path("pki", "ca"))
    members, etcd_tls = etcd.make_cluster(lab, pki, [m0])
    cert, key = kube.apiserver_cert(pki, m0)
    admin = pki.issue("lab-probe", "cpha-lab-probe", client=True, org="system:masters")
    members[0].start()
    etcd.wait_healthy(members, etcd_tls, timeout=30)
    argv = [members[0].client_url], cert, key, pki.ca_cert, etcd_tls
    ap = kube.start_apiserver(m0, *argv, extra=["--shutdown-delay-duration=0s"])
    kube.wait_ready(m0, API, pki.ca_cert, ap, timeout=15)
    return m0, pki, admin, argv, ap


def start_probe(m0, pki, admin, out, watches):
    return m0.spawn([cphacmd.binary(), "lab", "probe", "--server", API,
                     "--server-name", "kubernetes", "--cacert", pki.ca_cert,
                     "--cert", admin[0], "--key", admin[1],
                     "--watches", str(watches), "--interval", "100ms",
                     "--timeout", "1s", "--out", out], name="probe")


class LabProbeTest(unittest.TestCase):

    def test_outage(self):
        with cphatest.Lab("lab-probe") as lab:
            m0, pki, admin, argv, ap = start_bed(lab)
            out = lab.path("probe.jsonl")
            step("prober: 100ms ticks, %d watches, SNI name 'kubernetes'" % WATCHES)
            pr = start_probe(m0, pki, admin, out, WATCHES)
            cphatest.wait_until(
                lambda: sum(e["k"] == "watch_open" for e in events(out)) >= WATCHES,
                10, 0.1, "every watch's first event")
            t_begin = time.time()
            time.sleep(5)

            step("a new connection each tick, shared by its three requests")
            # the side that closes keeps the connection in TIME-WAIT for 60 s
            tw = m0.run(["ss", "-Htan", "state", "time-wait", "( sport = :6443 or "
                         "dport = :6443 )"]).stdout.count("\n")
            ticks = sum(e["k"] == "readyz" for e in events(out))
            self.assertGreaterEqual(tw, ticks * 0.9, "%d TIME-WAIT for %d ticks" % (tw, ticks))
            self.assertLessEqual(tw, ticks * 1.3 + 10, "%d TIME-WAIT for %d ticks" % (tw, ticks))

            step("apiserver killed (SIGKILL), down 3 s, restarted")
            t_kill = time.time()
            ap.kill(signal.SIGKILL)
            ap.wait(timeout=5)
            time.sleep(3)
            ap = kube.start_apiserver(m0, *argv, extra=["--shutdown-delay-duration=0s"])
            kube.wait_ready(m0, API, pki.ca_cert, ap, timeout=15)
            t_back = time.time()
            time.sleep(6)

            step("SIGTERM: clean stop with a stop line")
            t_end = time.time()
            pr.kill(signal.SIGTERM)
            self.assertEqual(pr.wait(timeout=5), 0, pr.log_text())
            ev = events(out)
            self.assertEqual(ev[0]["k"], "start")
            self.assertEqual((ev[0]["interval_ms"], ev[0]["watches"]), (100, WATCHES))
            self.assertEqual(ev[-1]["k"], "stop")
            self.assertEqual(sum(e["k"] == "stop" for e in ev), 1)
            for e in ev:
                self.assertIn(e["k"], ("start", "stop", "readyz", "lease_get",
                                       "lease_put", "watch_open", "watch_break",
                                       "lost_write"), e)

            step("ticks at ~10/s, each with its three requests")
            span = t_end - t_begin
            ready = [e for e in ev if e["k"] == "readyz" and e["t"] >= t_begin]
            self.assertGreater(len(ready), span * 10 * 0.8, "readyz lines in %.1fs" % span)
            self.assertLess(len(ready), span * 10 * 1.2 + 5)
            for k in ("lease_get", "lease_put"):
                n = sum(e["k"] == k and e["t"] >= t_begin for e in ev)
                self.assertLess(abs(n - len(ready)), 25, k)

            step("failures only during the outage; writes acknowledged before and after")
            bad = [e for e in ev if e["k"] in ("readyz", "lease_get", "lease_put")
                   and not e["ok"]]
            self.assertGreater(len(bad), 3 * 10, "an outage of 3 s fails requests")
            for e in bad:
                self.assertGreaterEqual(e["t"], t_kill - 0.05, e)
                self.assertLessEqual(e["t"], t_back + 1.5, e)
                self.assertIn("err", e)
                # what the failure showed, for the report's causes
                self.assertIn("connected", e)
                self.assertIn("tls", e)
                self.assertTrue("curl" in e or e.get("not_sent"), e)
            step("causes seen: the killed apiserver's port refuses (curl 7, ECONNREFUSED, "
                 "not connected); the tick's other requests are marked not_sent")
            refused = [e for e in bad if e.get("curl") == 7 and e.get("errno") == 111
                       and not e["connected"] and not e["tls"]]
            self.assertGreater(len(refused), 10, bad[:5])
            unsent = [e for e in bad if e.get("not_sent")]
            self.assertTrue(unsent, "a failed readyz leaves its tick's other requests unsent")
            self.assertTrue(all(e["err"].startswith("not sent: ") for e in unsent), unsent[:3])
            # acknowledged writes (a 409 lost to another tick is ok, not acknowledged)
            puts = [e for e in ev if e["k"] == "lease_put" and e["ok"] and not e.get("conflict")]
            self.assertTrue(any(e["t"] < t_kill for e in puts))
            self.assertTrue(any(e["t"] > t_back for e in puts))
            seqs = [e["seq"] for e in puts]
            self.assertEqual(seqs, sorted(seqs), "sequence numbers increase")
            gets = [e for e in ev if e["k"] == "lease_get" and e["ok"] and e["t"] > t_back]
            self.assertTrue(gets and gets[-1]["seq"] >= seqs[-2], gets[-1:])
            self.assertFalse([e for e in ev if e["k"] == "lost_write"])
            conflicts = sum(e.get("conflict", False) for e in ev)
            step("%d ticks, %d failed requests, %d writes lost a race to another tick"
                 % (len(ready), len(bad), conflicts))

            step("every watch broke at the kill and came back after the restart")
            broke = {e["w"] for e in ev if e["k"] == "watch_break" and e["t"] >= t_kill}
            self.assertEqual(broke, set(range(WATCHES)))
            back = {e["w"] for e in ev if e["k"] == "watch_open" and e["t"] >= t_back - 1}
            self.assertEqual(back, set(range(WATCHES)))
            for e in ev:
                if e["k"] == "watch_break":
                    self.assertGreaterEqual(e["t"], t_kill - 0.05, e)

            step("cpha lab report on these events")
            labjson = lab.path("lab.json")
            with open(labjson, "w") as f:
                json.dump({"lab": {"binaries": {"kube-apiserver": "stand-in (lab simulator)"}},
                           "runs": [{"stack": "cpha", "events": out, "scenarios": [
                               {"name": "apiserver-rolling-restart", "start": t_kill - 1,
                                "end": t_back + 3},
                               {"name": "steady", "start": t_back + 3, "end": t_end - 0.5}]}]},
                          f)
            rdir = lab.path("report")
            r = subprocess.run([cphacmd.binary(), "lab", "report", "--in", labjson,
                                "--out", rdir], capture_output=True, text=True, timeout=30)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(rdir, "report.json")) as f:
                rep = json.load(f)
            outage, steady = rep["runs"][0]["scenarios"]
            self.assertGreater(outage["failed"], 0)
            self.assertGreaterEqual(outage["max_gap_ms"], 2500)
            self.assertEqual(outage["watches_broken"], WATCHES)
            self.assertIsNotNone(outage["watches_restored_ms"])
            self.assertEqual((steady["failed"], steady["watches_broken"]), (0, 0))
            self.assertLess(steady["max_gap_ms"], 600)
            self.assertTrue(outage["invariants"]["no_lost_write"])
            # the killed apiserver refused connections: the report says so
            self.assertGreater(outage["causes"]["connect_refused"], 10, outage["causes"])
            self.assertEqual(sum(outage["causes"].values()), outage["failed"])
            self.assertEqual(outage["phases"]["other"], outage["failed"])
            with open(os.path.join(rdir, "report.md")) as f:
                self.assertIn("| apiserver-rolling-restart: 0 failed requests (cpha) | not met",
                              f.read())
            if shutil.which("xmllint"):
                subprocess.run(["xmllint", "--noout", os.path.join(rdir, "timeline.svg")],
                               check=True, timeout=30)

    def test_lost_write(self):
        """A Lease deleted behind the prober's back loses its acknowledged
        writes: the next read says so, and the report's invariant is false."""
        with cphatest.Lab("lab-probe-lost") as lab:
            m0, pki, admin, _, _ = start_bed(lab)
            out = lab.path("probe.jsonl")
            pr = start_probe(m0, pki, admin, out, 1)
            cphatest.wait_until(
                lambda: sum(e["k"] == "lease_put" and "seq" in e for e in events(out)) >= 10,
                10, 0.1, "10 acknowledged writes")
            self.assertFalse([e for e in events(out) if e["k"] == "lost_write"])
            step("the Lease is deleted behind the prober's back")
            t_del = time.time()
            r = m0.curl(API + kube.LEASES % "kube-system" + "/cpha-lab-probe",
                        method="DELETE", cacert=pki.ca_cert, cert=admin[0], key=admin[1])
            self.assertEqual(r.status, 200, r)
            cphatest.wait_until(lambda: any(e["k"] == "lost_write" for e in events(out)),
                                5, 0.1, "a lost_write line")
            pr.kill(signal.SIGTERM)
            self.assertEqual(pr.wait(timeout=5), 0, pr.log_text())
            ev = events(out)
            lost = [e for e in ev if e["k"] == "lost_write"]
            self.assertGreaterEqual(lost[0]["seq_acked"], 10, lost)
            # the next write recreates the Lease: only reads racing it see the loss
            for e in lost:
                self.assertEqual(e["seq_read"], 0, lost)
                self.assertTrue(t_del <= e["t"] <= t_del + 1.5, lost)
            labjson = lab.path("lab.json")
            with open(labjson, "w") as f:
                json.dump({"runs": [{"stack": "cpha", "events": out, "scenarios": [
                    {"name": "delete", "start": t_del - 1, "end": time.time(),
                     "invariants": {"no_lost_write": True}}]}]}, f)
            rdir = lab.path("report")
            r = subprocess.run([cphacmd.binary(), "lab", "report", "--in", labjson,
                                "--out", rdir], capture_output=True, text=True, timeout=30)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(rdir, "report.json")) as f:
                s = json.load(f)["runs"][0]["scenarios"][0]
            self.assertFalse(s["invariants"]["no_lost_write"])
            with open(os.path.join(rdir, "report.md")) as f:
                self.assertIn("cpha / delete, repeat 1: **no_lost_write** is false", f.read())


def main():
    reason = cphatest.root_skip_reason()
    if reason is not None:
        print("SKIP: %s" % reason)
        return cphatest.SKIP
    suite = unittest.TestLoader().loadTestsFromTestCase(LabProbeTest)
    try:
        result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return cphatest.interrupted_status()
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
