#!/usr/bin/env python3
"""Unit tests of the lab's alert accounting (cphalab/alerts.py and the
recorder's file, cphalab/alertlog.py): which alerts fired in a run, when
from the fault, and whether the scenario must or may raise them."""

import json
import os
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))

from cphalab import alertlog, alerts, build, scenarios  # noqa: E402


def note(name, status, **labels):
    return {"name": name, "status": status, "labels": dict(labels, cpha_cluster="lab")}


class Timeline(unittest.TestCase):
    def test_fired_and_resolved_from_the_fault(self):
        notes = [(100.0, note("CphaHostFenced", "firing", host="m1")),
                 (101.0, note("CphaHostFenced", "firing", host="m1")),  # a repeat
                 (160.5, note("CphaHostFenced", "resolved", host="m1"))]
        t = alerts.timeline(notes, 90, 200, t0=95)
        self.assertEqual(len(t), 1)
        self.assertEqual(t[0]["fired"], 5.0)
        self.assertEqual(t[0]["resolved"], 65.5)
        self.assertEqual(t[0]["labels"]["host"], "m1")

    def test_outside_the_window_is_not_this_runs(self):
        notes = [(80.0, note("CphaTargetDown", "firing", host="lb1")),
                 (250.0, note("CphaTargetDown", "firing", host="lb2"))]
        self.assertEqual(alerts.timeline(notes, 90, 200, t0=95), [])

    def test_still_firing_at_the_end(self):
        t = alerts.timeline([(120.0, note("CphaTargetDown", "firing", host="lb1"))], 90, 200, 95)
        self.assertIsNone(t[0]["resolved"])
        self.assertIn("still firing", alerts.describe(t[0]))

    def test_carried_alerts_are_an_earlier_runs_until_they_resolve(self):
        carried = {alerts.ident({"name": "CphaHostFenced", "labels": {"host": "m1"}})}
        notes = [(100.0, note("CphaHostFenced", "firing", host="m1")),
                 (110.0, note("CphaHostFenced", "resolved", host="m1")),
                 (150.0, note("CphaHostFenced", "firing", host="m1"))]
        t = alerts.timeline(notes, 90, 200, 95, carried)
        self.assertEqual([(a["fired"], a["resolved"]) for a in t], [(55.0, None)])

    def test_fires_twice(self):
        notes = [(100.0, note("CphaLBServerFlapping", "firing", server="m2")),
                 (110.0, note("CphaLBServerFlapping", "resolved", server="m2")),
                 (130.0, note("CphaLBServerFlapping", "firing", server="m2"))]
        t = alerts.timeline(notes, 90, 200, 100)
        self.assertEqual([(a["fired"], a["resolved"]) for a in t], [(0.0, 10.0), (30.0, None)])

    def test_external_labels_do_not_split_an_identity(self):
        a = alerts.ident({"name": "X", "labels": {"host": "m1", "cpha_cluster": "lab"}})
        b = alerts.ident({"name": "X", "labels": {"host": "m1"}})
        self.assertEqual(a, b)


class Attribute(unittest.TestCase):
    def test_an_alert_counts_for_the_run_its_condition_began_in(self):
        fired = [{"name": "CphaLBServerFlapping"}, {"name": "CphaTargetDown"},
                 {"name": "CphaHostFenced"}]
        kept = alerts.attribute(fired, [40.0, 100.5, None], start=100.0)
        self.assertEqual([a["name"] for a in kept], ["CphaTargetDown", "CphaHostFenced"])

    def test_promql_labels_are_quoted(self):
        self.assertEqual(alerts.promql_labels({"b": 'x"y', "a": "1\\2", "cpha_cluster": "lab"}),
                         'a="1\\\\2",b="x\\"y"')


class Judge(unittest.TestCase):
    def fired(self, *names):
        return [{"name": n, "labels": {}, "fired": 1.0, "resolved": None} for n in names]

    def test_master_poweroff_must_raise_a_fence(self):
        self.assertEqual(alerts.judge("master-poweroff", self.fired()), (["CphaHostFenced"], []))
        self.assertEqual(alerts.judge("master-poweroff", self.fired("CphaHostFenced")), ([], []))

    def test_a_must_alert_firing_since_before_the_run(self):
        still = {alerts.ident({"name": "CphaHostFenced", "labels": {"host": "m2"}})}
        self.assertEqual(alerts.judge("master-poweroff", self.fired(), still), ([], []))
        # firing at the end but not the one the scenario must raise
        other = {alerts.ident({"name": "CphaTargetDown", "labels": {"host": "m2"}})}
        self.assertEqual(alerts.judge("master-poweroff", self.fired(), other),
                         (["CphaHostFenced"], []))

    def test_master_rebuild_fences_the_lost_master(self):
        fired = [{"name": "CphaHostFenced", "labels": {"node": "m3"}}]
        self.assertEqual(alerts.judge("master-rebuild", fired), ([], []))
        self.assertEqual(alerts.judge("master-rebuild", []), (["CphaHostFenced"], []))
        # firing since an earlier fence of it (15 minutes): raised all the same
        self.assertEqual(alerts.judge("master-rebuild", [], [("CphaHostFenced", ())]), ([], []))

    def test_a_host_down_may_outlast_a_for(self):
        self.assertEqual(alerts.judge("master-poweroff", self.fired(
            "CphaHostFenced", "CphaLBServersDown", "CphaEtcdMembersDown")), ([], []))

    def test_the_quiet_scenarios_raise_nothing(self):
        self.assertEqual(alerts.judge("apiserver-rolling-restart", self.fired()), ([], []))
        self.assertEqual(alerts.judge("reload-under-load", self.fired("CphaLBServersDown")),
                         ([], ["CphaLBServersDown"]))

    def test_a_vip_gap_under_its_for_is_spurious(self):
        _, spurious = alerts.judge("lb-poweroff", self.fired("CphaHostFenced", "CphaVIPMissing"))
        self.assertEqual(spurious, ["CphaVIPMissing"])

    def test_every_scenario_has_expectations(self):
        self.assertEqual(set(alerts.EXPECTED), {n for n, _ in scenarios.SCENARIOS})


class Recorder(unittest.TestCase):
    BODY = {"version": "4", "status": "firing", "alerts": [
        {"status": "firing", "labels": {"alertname": "CphaHostFenced", "host": "m1"},
         "startsAt": "2026-11-29T00:00:00Z", "endsAt": "0001-01-01T00:00:00Z"}]}

    def test_summary_and_read_back(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "alerts.jsonl")
            with open(p, "w") as f:
                f.write(json.dumps(alertlog.summary(self.BODY, 100.0)) + "\n")
                f.write('{"t": 150.0, "alerts": [\n')  # cut by a power loss
                f.write(json.dumps(alertlog.summary(self.BODY, 300.0)) + "\n")
            got = alertlog.read(p, 0, 200)
        self.assertEqual(len(got), 1)
        t, a = got[0]
        self.assertEqual((t, a["name"], a["status"], a["labels"]),
                         (100.0, "CphaHostFenced", "firing", {"host": "m1"}))

    def test_no_file_no_alerts(self):
        self.assertEqual(alertlog.read("/nonexistent/alerts.jsonl", 0, 1), [])


class Rfc3339(unittest.TestCase):
    def test_prometheus_times(self):
        self.assertEqual(alerts.rfc3339("2026-11-29T03:50:01Z"), 1795924201.0)
        self.assertAlmostEqual(alerts.rfc3339("2026-11-29T03:50:01.25Z"), 1795924201.25)
        self.assertAlmostEqual(alerts.rfc3339("2026-11-29T04:50:01.5+01:00"), 1795924201.5)
        self.assertIsNone(alerts.rfc3339("0001-01-01"))
        self.assertIsNone(alerts.rfc3339(""))


class PeerPrometheus(unittest.TestCase):
    """The peer stack's Prometheus configuration: cpha render's, without
    the fenced targets of the LB hosts (the lab runs none beside
    keepalived)."""
    YML = """scrape_configs:
  - job_name: cpha-fenced
    static_configs:
      - targets: ['198.18.0.11:9122']
        labels: {host: m1}
      - targets: ['198.18.0.21:9122']
        labels: {host: lb1}
      - targets: ['198.18.0.22:9122']
        labels: {host: lb2}
  - job_name: haproxy
    static_configs:
      - targets: ['198.18.0.21:9101']
        labels: {host: lb1}
"""

    def test_only_the_jobs_targets_on_those_hosts_go(self):
        got = build.without_targets(self.YML, "cpha-fenced", ["lb1", "lb2"])
        self.assertEqual(got, self.YML.replace(
            "      - targets: ['198.18.0.21:9122']\n        labels: {host: lb1}\n", "").replace(
            "      - targets: ['198.18.0.22:9122']\n        labels: {host: lb2}\n", ""))
        self.assertIn("198.18.0.21:9101", got)
        self.assertIn("198.18.0.11:9122", got)

    def test_a_whole_job(self):
        got = build.without_targets(self.YML, "cpha-fenced")
        self.assertEqual(got, self.YML[:self.YML.index("  - job_name: cpha-fenced")]
                         + self.YML[self.YML.index("  - job_name: haproxy"):])
        self.assertEqual(build.without_targets(self.YML, "haproxy"),
                         self.YML[:self.YML.index("  - job_name: haproxy")])

    def test_nothing_to_remove(self):
        self.assertEqual(build.without_targets(self.YML, "etcd", ["lb1"]), self.YML)


if __name__ == "__main__":
    unittest.main(verbosity=2)
