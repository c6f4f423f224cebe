#!/usr/bin/env python3
"""Unit tests of the benchmarks' ratio of medians with its bootstrap
interval (bench/ratio.py) and of the failover report reader that prints
cpha against the peer from a lab report (bench/failover_ratio.py), on
made-up samples and reports: no lab, no root."""

import copy
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "bench")
sys.path.insert(0, BENCH)

import failover_ratio as fr  # noqa: E402
import ratio  # noqa: E402
from cphalab import report as report_format  # noqa: E402 (failover_ratio's path)


class RatioOfMedians(unittest.TestCase):
    def test_point_is_the_ratio_of_the_medians(self):
        r = ratio.ratio_of_medians([1, 2, 3, 100], [4, 4, 6])
        self.assertAlmostEqual(r[0], 2.5 / 4)

    def test_interval_holds_the_point_and_is_repeatable(self):
        a = [10, 12, 9, 11, 14, 10, 13]
        b = [20, 19, 25, 22, 21, 18, 23]
        r1, r2 = ratio.ratio_of_medians(a, b), ratio.ratio_of_medians(a, b)
        self.assertEqual(r1, r2, "the same input gives the same interval (fixed seed)")
        self.assertLessEqual(r1[1], r1[0])
        self.assertLessEqual(r1[0], r1[2])
        self.assertLess(r1[1], r1[2], "seven spread values give a real interval")

    def test_separated_samples_exclude_one_and_equal_ones_include_it(self):
        a = [10, 11, 9, 10, 12, 10, 11, 9]
        b = [20, 22, 19, 21, 20, 23, 18, 20]
        lo_hi = ratio.ratio_of_medians(a, b)
        self.assertLess(lo_hi[2], 1.0, "a clearly half of b: the interval is below 1")
        same = ratio.ratio_of_medians(a, list(reversed(a)))
        self.assertEqual(same[0], 1.0)
        self.assertLessEqual(same[1], 1.0)
        self.assertGreaterEqual(same[2], 1.0)

    def test_interval_cuts_the_tails(self):
        # of 7 values, a resample's median is the lowest (or the highest)
        # one in about 1% of the 2000 resamples: fewer than the 50 cut off
        # at each end, so the interval stops short of both
        r = ratio.ratio_of_medians([1, 2, 3, 4, 5, 6, 100], [1])
        self.assertEqual(r[0], 4)
        self.assertGreater(r[1], 1)
        self.assertLess(r[2], 100)
        self.assertLessEqual(r[2], 6)

    def test_one_value_each_and_none(self):
        self.assertEqual(ratio.ratio_of_medians([3], [6]), (0.5, 0.5, 0.5))
        self.assertIsNone(ratio.ratio_of_medians([], [1]))
        self.assertIsNone(ratio.ratio_of_medians([1], []))

    def test_zeros(self):
        self.assertEqual(ratio.ratio_of_medians([0, 0], [0, 0]), (1.0, 1.0, 1.0))
        r = ratio.ratio_of_medians([2, 3], [0, 0])
        self.assertTrue(math.isinf(r[0]))
        self.assertEqual(ratio.fmt_ratio(r), "inf [inf, inf]")
        self.assertEqual(ratio.fmt_ratio((0.5, 0.25, 1.0)), "0.500 [0.250, 1.000]")
        self.assertEqual(ratio.fmt_ratio(None), "-")


class MedianOfRatios(unittest.TestCase):
    def test_pairs_cancel_what_moves_both(self):
        # b moves a lot from pair to pair (the machine's load), a is always
        # 0.9 of it: the paired ratio is exactly 0.9, the ratio of the
        # medians of the unpaired samples has a wide interval
        b = [1000, 3000, 1500, 8000, 2000, 6000, 2500]
        a = [0.9 * x for x in b]
        self.assertEqual(ratio.median_of_ratios(a, b), (0.9, 0.9, 0.9))
        unpaired = ratio.ratio_of_medians(a, b)
        self.assertLess(unpaired[1], 0.8)
        self.assertGreater(unpaired[2], 1.0)

    def test_interval_and_errors(self):
        r = ratio.median_of_ratios([1, 2, 3, 4, 5, 6, 100], [1] * 7)
        self.assertEqual(r[0], 4)
        self.assertGreater(r[1], 1)
        self.assertLessEqual(r[2], 6)
        self.assertIsNone(ratio.median_of_ratios([], []))
        with self.assertRaises(ValueError):
            ratio.median_of_ratios([1], [1, 2])


CAUSES = {k: 0 for k in ("connect_refused", "connect_reset", "connect_timeout", "tls_timeout",
                         "http_5xx", "request_timeout", "other")}
PHASES = {k: 0 for k in ("before_detect", "no_vip", "dead_server", "etcd_election", "other")}


def figures(name, failed, gap, restored, timings, notes=None, broken=10):
    f = {"name": name, "requests": 1000, "failed": failed, "max_gap_ms": gap,
         "watches": 50, "watches_broken": broken, "watches_restored_ms": restored,
         "availability": 99.0, "invariants": {"no_lost_write": True}, "timings": timings}
    if notes:
        f["notes"] = notes
    return f


def attempt(failed, gap, restored, timings, valid=True, notes=None, broken=10,
            name="lb-poweroff", n=1):
    a = {"repeat": n, "valid": valid, "started": True, "start": 1.0, "end": 2.0, "t0": None,
         "causes": dict(CAUSES), "phases": dict(PHASES),
         **figures(name, failed, gap, restored, timings, notes, broken)}
    if not valid:
        a["invalid_reason"] = "not settled"
    return a


def sample(ci95=None):
    return {"n": 0, "median": None, "min": None, "max": None, "ci95": ci95}


def scenario(name, repeats, ci95=None):
    """A scenario's entry: its first attempt's figures, the counts, stats
    (only the failed requests' interval matters here), the attempts."""
    nvalid = sum(1 for a in repeats if a["valid"])
    s = {k: v for k, v in repeats[0].items()
         if k not in ("repeat", "valid", "started", "start", "end", "t0", "invalid_reason")}
    s.update(valid_runs=nvalid, invalid_runs=len(repeats) - nvalid,
             stats={"failed": sample(ci95), "max_gap_ms": sample(),
                    "watches_restored_ms": sample()},
             repeats=repeats)
    return s


def report():
    """A report of the format (cphalab/report.schema.json): the reader is
    tested on what the writer may write."""
    cpha = scenario("lb-poweroff", [
        attempt(10, 1000, 200, {"vip_move_ms": 1500, "fence_ms": 700}),
        attempt(20, 1200, None, {"vip_move_ms": 1700, "fence_ms": 900}, broken=0, n=2),
        attempt(30, 1400, None, {"vip_move_ms": 1900}, n=3,
                notes=["2 of the watches that broke had not reopened by the end: "
                       "the statistics count 5300 ms for watches_restored_ms (to "
                       "the end), a lower bound"]),
        # invalid: in no figure
        attempt(999, 99999, 99999, {"vip_move_ms": 99999}, valid=False, n=4)], [10, 30])
    peer = scenario("lb-poweroff", [attempt(40, 3000, 100, {"vip_move_ms": 3000}),
                                    attempt(60, 3400, 300, {"vip_move_ms": 3400}, n=2)])
    only_cpha = scenario("lb-hang", [attempt(1, 1, 1, {}, name="lb-hang")])
    return {"runs": [{"stack": "cpha", "scenarios": [cpha, only_cpha]},
                     {"stack": "haproxy+keepalived", "scenarios": [peer]},
                     {"stack": "haproxy+keepalived (preempt)",
                      "scenarios": [copy.deepcopy(peer)]}],
            "goals": []}


class FailoverReport(unittest.TestCase):
    def row(self, rows, metric):
        return [r for r in rows if r["metric"] == metric][0]

    def test_made_up_report_fits_the_format(self):
        report_format.check(report())

    def test_values_count_only_valid_attempts(self):
        rows = fr.rows(report())
        f = self.row(rows, "failed")
        self.assertEqual(f["n"], (3, 2))
        self.assertEqual(f["median"], (20, 50))
        self.assertEqual(f["ratio"][0], 0.4)
        self.assertEqual(f["invalid"], (1, 0))
        self.assertEqual(f["lab_ci"], ([10, 30], None))

    def test_watches_restored_as_the_lab_counts_it(self):
        # 200 ms; none broke: 0; never came back: the note's lower bound
        rows = fr.rows(report())
        self.assertEqual(fr.values(report()["runs"][0]["scenarios"][0], "watches_restored_ms"),
                         [200, 0, 5300])
        self.assertEqual(self.row(rows, "watches_restored_ms")["median"], (200, 200))

    def test_timings_of_either_stack_and_missing_sides(self):
        rows = fr.rows(report())
        self.assertEqual([r["metric"] for r in rows],
                         ["failed", "max_gap_ms", "watches_restored_ms", "vip_move_ms",
                          "fence_ms"])
        self.assertAlmostEqual(self.row(rows, "vip_move_ms")["ratio"][0], 1700 / 3200)
        fence = self.row(rows, "fence_ms")
        self.assertEqual(fence["n"], (2, 0))
        self.assertIsNone(fence["ratio"], "the peer has no fence timing: no ratio")

    def test_peer_is_the_first_other_stack_unless_named(self):
        rep = report()
        rep["runs"][2]["scenarios"][0]["repeats"][0]["failed"] = 0
        rep["runs"][2]["scenarios"][0]["repeats"][1]["failed"] = 0
        self.assertEqual(self.row(fr.rows(rep), "failed")["median"][1], 50)
        named = fr.rows(rep, peer_stack="haproxy+keepalived (preempt)")
        self.assertTrue(math.isinf(self.row(named, "failed")["ratio"][0]))
        with self.assertRaises(ValueError):
            fr.rows({"runs": [{"stack": "cpha", "scenarios": []}]})

    def test_render_names_what_is_missing_and_the_invalid(self):
        out = fr.render(report(), scenarios=["lb-poweroff", "lb-hang", "master-poweroff"])
        self.assertIn("not run by both stacks: lb-hang, master-poweroff", out)
        self.assertIn("lb-poweroff: invalid runs (counted in no figure): cpha 1, peer 0", out)
        self.assertRegex(out, r"failed requests +3/2 +20 \[10, 30\] +50 +0\.400 \[")

    def test_command_line(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "report.json")
            with open(p, "w") as f:
                json.dump(report(), f)
            out = subprocess.run([sys.executable, os.path.join(BENCH, "failover_ratio.py"),
                                  "--scenarios", "lb-poweroff:5", p],
                                 capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("VIP move (ms)", out.stdout)
            bad = subprocess.run([sys.executable, os.path.join(BENCH, "failover_ratio.py"),
                                  os.path.join(d, "none.json")], capture_output=True, text=True)
            self.assertEqual(bad.returncode, 1)
            self.assertIn("none.json", bad.stderr)


if __name__ == "__main__":
    unittest.main()
