#!/usr/bin/env python3
"""report.json's format, defined once (control-plane/lab/cphalab/
report.schema.json), against both its writer and its readers:
- `cpha lab report` on made-up lab descriptions and prober events (both
  stacks, repeated and invalid attempts, timings seen and not, marks and
  notes, a scenario only one stack ran) writes reports that fit it;
- cphalab.report.load() refuses a report that does not, naming the place
  and the rule, and a file that is missing or not JSON;
- bench/failover_ratio.py reads through it: a report of another shape is
  an error, not a table of wrong figures.
No lab, no root: the build's cpha only."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")

from cphalab import report  # noqa: E402
from cphatest import cphacmd  # noqa: E402

T = 1800000000.0


def events(t0, fail_from, fail_to):
    """A prober's events: a request every 100 ms for 20 s, failing in
    [fail_from, fail_to), one watch that breaks at the first failure and
    reopens after it."""
    ev = [{"t": t0, "k": "start", "server": "https://198.18.0.10:6443", "interval_ms": 100,
           "watches": 1}]
    broke = False
    for i in range(200):
        t = t0 + 0.1 * i
        bad = fail_from <= t < fail_to
        ev.append({"t": t, "k": "readyz", "ok": not bad, "ms": 2,
                   "code": 0 if bad else 200, **({"err": "connect refused"} if bad else {})})
        if bad and not broke:
            ev.append({"t": t, "k": "watch_break", "w": 0})
            broke = True
        if broke and not bad and t >= fail_to:
            ev.append({"t": t, "k": "watch_open", "w": 0})
            broke = False
    ev.append({"t": t0 + 20.0, "k": "stop"})
    return ev


def attempt(name, repeat, start, valid=True, timings=None, marks=None, why=None):
    a = {"name": name, "repeat": repeat, "attempt": repeat, "start": start, "end": start + 8,
         "t0": start + 2 if timings else None, "started": True, "valid": valid,
         "invariants": {"one_vip_holder": True, "one_controller_manager": True,
                        "settled": valid},
         "timings": timings or {}, "marks": marks or []}
    if not valid:
        a["invalid_reason"] = why or "the start was not settled"
    return a


def lab_description():
    cpha = [attempt("apiserver-rolling-restart", 1, T + 1,
                    marks=[{"t": T + 2, "what": "apiserver/m1 drained on the load balancers"}]),
            attempt("lb-poweroff", 1, T + 10, timings={"detect_ms": 1200, "vip_move_ms": 1500,
                                                        "fence_ms": None}),
            attempt("lb-poweroff", 2, T + 20, valid=False, timings={"detect_ms": 900})]
    peer = [attempt("lb-poweroff", 1, T + 40, timings={"vip_move_ms": 3100})]
    return {"lab": {"name": "fmt", "started": T, "binaries": {"etcd": "etcd 3.4.23"},
                    "hosts": [{"name": "lb1", "role": "lb", "address": "198.18.0.11"}]},
            "runs": [{"stack": "cpha", "events": "cpha.jsonl", "scenarios": cpha},
                     {"stack": "haproxy+keepalived", "events": "peer.jsonl",
                      "scenarios": peer}]}


class Writer(unittest.TestCase):
    """What `cpha lab report` writes fits the format."""

    def make(self, lab, files):
        d = tempfile.mkdtemp(prefix="cpha-test-report-")
        self.addCleanup(subprocess.run, ["rm", "-rf", d])
        for name, evs in files.items():
            with open(os.path.join(d, name), "w") as f:
                f.write("".join(json.dumps(e) + "\n" for e in evs))
        with open(os.path.join(d, "lab.json"), "w") as f:
            json.dump(lab, f)
        r = subprocess.run([cphacmd.binary(), "lab", "report", "--in",
                            os.path.join(d, "lab.json"), "--out", os.path.join(d, "out")],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        return os.path.join(d, "out")

    def test_both_stacks_repeats_and_invalid(self):
        out = self.make(lab_description(),
                        {"cpha.jsonl": events(T, T + 12, T + 13) + events(T + 20, 0, 0),
                         "peer.jsonl": events(T + 40, T + 42, T + 45)})
        doc = report.load(out)  # raises when it does not fit
        runs = {r["stack"]: r for r in doc["runs"]}
        lb = [s for s in runs["cpha"]["scenarios"] if s["name"] == "lb-poweroff"][0]
        self.assertEqual((lb["valid_runs"], lb["invalid_runs"]), (1, 1))
        self.assertEqual([a["valid"] for a in lb["repeats"]], [True, False])
        self.assertIn("invalid_reason", lb["repeats"][1])
        self.assertIsNone(lb["repeats"][0]["timings"]["fence_ms"])
        self.assertGreater(lb["failed"], 0, "the failures in the events are counted")
        self.assertTrue(doc["goals"], "goals are judged")
        self.assertTrue(any(not g["ran"] for g in doc["goals"]),
                        "a scenario no stack ran has a goal not judged")

    def test_one_stack_no_attempt_started(self):
        lab = lab_description()
        del lab["runs"][1]
        a = lab["runs"][0]["scenarios"][0]
        a.update(started=False, valid=False, invalid_reason="not started")
        out = self.make(lab, {"cpha.jsonl": events(T, 0, 0)})
        report.load(os.path.join(out, "report.json"))

    def test_dual_stack(self):
        """A dual-stack lab (events_v6): each attempt's "ipv6" figures come
        from the IPv6 prober's events, the IPv4 ones stay the IPv4
        prober's, and report.md shows both families; a single-stack run
        beside it has no "ipv6" at all."""
        lab = lab_description()
        lab["runs"][0]["events_v6"] = "cpha-v6.jsonl"
        lab["lab"]["vips"] = ["198.18.0.2", "2001:db8:18::2"]
        # IPv4 fails in [T+12, T+13), IPv6 in [T+12, T+15): 10 and 30 requests
        out = self.make(lab, {"cpha.jsonl": events(T, T + 12, T + 13) + events(T + 20, 0, 0),
                              "cpha-v6.jsonl": events(T, T + 12, T + 15)
                              + events(T + 20, 0, 0),
                              "peer.jsonl": events(T + 40, T + 42, T + 45)})
        doc = report.load(out)
        runs = {r["stack"]: r for r in doc["runs"]}
        lb = [s for s in runs["cpha"]["scenarios"] if s["name"] == "lb-poweroff"][0]
        first = lb["repeats"][0]
        self.assertEqual(first["failed"], 10)
        self.assertEqual(first["ipv6"]["failed"], 30)
        self.assertGreaterEqual(first["ipv6"]["max_gap_ms"], 3000)
        self.assertLess(first["max_gap_ms"], 1500)
        self.assertEqual(lb["stats"]["ipv6_failed"]["median"], 30)
        self.assertEqual(lb["stats"]["failed"]["median"], 10)
        peer = runs["haproxy+keepalived"]["scenarios"][0]
        self.assertNotIn("ipv6", peer)
        self.assertNotIn("ipv6_failed", peer["stats"])
        with open(os.path.join(out, "report.md")) as f:
            md = f.read()
        self.assertIn("| scenario | IPv4 failed | IPv4 max gap ms | IPv6 failed |", md)
        self.assertIn("cpha-v6.jsonl", md)

    def test_dual_stack_events_missing(self):
        lab = lab_description()
        lab["runs"][0]["events_v6"] = "gone-v6.jsonl"
        d = tempfile.mkdtemp(prefix="cpha-test-report-")
        self.addCleanup(subprocess.run, ["rm", "-rf", d])
        for name in ("cpha.jsonl", "peer.jsonl"):
            with open(os.path.join(d, name), "w") as f:
                f.write("".join(json.dumps(e) + "\n" for e in events(T, 0, 0)))
        with open(os.path.join(d, "lab.json"), "w") as f:
            json.dump(lab, f)
        r = subprocess.run([cphacmd.binary(), "lab", "report", "--in",
                            os.path.join(d, "lab.json"), "--out", os.path.join(d, "out")],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 1)
        self.assertIn("gone-v6.jsonl", r.stderr)
        self.assertIn("IPv6 prober's events of stack cpha", r.stderr)


class Reader(unittest.TestCase):
    """load() refuses what does not fit, saying where and why."""

    def good(self):
        return {"runs": [{"stack": "cpha", "scenarios": []}], "goals": []}

    def refused(self, doc, *words):
        with self.assertRaises(report.ReportError) as cm:
            report.check(doc, "r.json")
        for w in words:
            self.assertIn(w, str(cm.exception))

    def test_fits(self):
        report.check(self.good())

    def test_refusals_name_the_place(self):
        doc = self.good()
        del doc["goals"]
        self.refused(doc, "r.json", "(top)", "'goals' is a required property")
        doc = self.good()
        doc["runs"][0]["extra"] = 1
        self.refused(doc, "runs/0", "extra")
        doc = self.good()
        doc["goals"] = [{"goal": "g", "scenario": "s", "metric": "failed", "verdict": "great",
                         "why": "", "ran": True,
                         "cpha": {"n": 0, "median": None, "min": None, "max": None,
                                  "ci95": None}}]
        self.refused(doc, "goals/0/verdict", "great")
        doc["goals"][0]["verdict"] = "met"
        doc["goals"][0]["cpha"]["ci95"] = [1]
        self.refused(doc, "goals/0/cpha/ci95")

    def test_files(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(report.ReportError) as cm:
                report.load(os.path.join(d, "none.json"))
            self.assertIn("none.json", str(cm.exception))
            p = os.path.join(d, "report.json")
            with open(p, "w") as f:
                f.write("{")
            with self.assertRaises(report.ReportError) as cm:
                report.load(d)
            self.assertIn("not JSON", str(cm.exception))
            with open(p, "w") as f:
                json.dump(self.good(), f)
            self.assertEqual(report.load(d), self.good())

    def test_failover_ratio_reads_through_it(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "report.json")
            doc = self.good()
            doc["runs"][0]["scenarios"] = [{"name": "lb-poweroff", "repeats": []}]
            with open(p, "w") as f:
                json.dump(doc, f)
            r = subprocess.run([sys.executable,
                                os.path.join(ROOT, "bench", "failover_ratio.py"), p],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertIn("runs/0/scenarios/0", r.stderr)


if __name__ == "__main__":
    unittest.main()
