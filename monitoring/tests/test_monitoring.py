#!/usr/bin/env python3
"""Unit tests of what cpha ships for Prometheus and Grafana, apart from the
rules' behaviour (promtool test rules does that, unit.monitoring_rules):

- monitoring/cpha-dashboard.json is a Grafana dashboard (schemaVersion 36
  or later) whose data source is the template variable ${datasource} of
  type prometheus, every panel has a query, every query parses as PromQL
  (promtool check rules, on a rule file made of them), and every metric
  it reads is one that docs/monitoring.md lists or a recording rule of
  monitoring/cpha-rules.yml;
- cpha-rules.yml has every alert of the monitoring design, each with a
  severity, a summary, a description and a runbook_url that points at its
  own section of docs/monitoring.md, reads only metrics the document
  lists, and is tested by monitoring/tests/*.yml: fired at least once with
  its labels and annotations, silent at least twice.

Usage: test_monitoring.py [PROMTOOL]"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
MON = os.path.dirname(HERE)
ROOT = os.path.dirname(MON)
RULES = os.path.join(MON, "cpha-rules.yml")
DASHBOARD = os.path.join(MON, "cpha-dashboard.json")
DOC = os.path.join(ROOT, "docs", "monitoring.md")
PROMTOOL = None

try:
    import yaml
except ImportError:  # a failure, not a skip: scripts/setup.sh installs it
    yaml = None

# The alerts the monitoring design names; cpha-rules.yml must have each.
ALERTS = [
    "CphaVIPMissing", "CphaVIPOnTwoHosts", "CphaLBServersDown", "CphaLBAllServersDown",
    "CphaLBServerFlapping", "CphaFencePending", "CphaFenceFailed", "CphaFencedNotQuorate",
    "CphaWatchdogNotPetted", "CphaEtcdNoLeader", "CphaEtcdMembersDown",
    "CphaEtcdEvenMembers", "CphaEtcdLearnerNotPromoted", "CphaEtcdLeaderChanges", "CphaLeaseNotRenewed",
    "CphaCertExpiringSoon", "CphaConfigDrift", "CphaTargetDown", "CphaHostFenced",
    "CphaStatusStale", "CphaQuorumDeviceNoVote",
]
SEVERITIES = {"critical", "warning", "info"}

# Grafana's own variables, and the dashboard's, as a query would see them
GRAFANA_VARS = [("$__rate_interval", "1m"), ("$__interval", "15s"), ("$__range", "1h"),
                ("${host}", ".*"), ("$host", ".*")]

PROMQL_WORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool",
                "and", "or", "unless", "offset", "atan2", "inf", "nan"}


def metric_names(expr):
    """The metric names a PromQL expression reads: identifiers that are not
    functions (followed by "("), keywords, label names (in {...} or in a
    by/without/on/ignoring/group_x list), durations or numbers."""
    s = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`', '""', expr)
    s = re.sub(r"\{[^}]*\}", " ", s)
    s = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", r" ", s)
    s = re.sub(r"\[[^\]]*\]", " ", s)
    names = set()
    for m in re.finditer(r"(?<![\w:.])([A-Za-z_:][A-Za-z0-9_:]*)(\s*\()?", s):
        word, call = m.group(1), m.group(2)
        if call or word.lower() in PROMQL_WORDS:
            continue
        names.add(word)
    return names


METRICS_SECTION = "## Metrics the rules and the dashboard read"


def doc_lines():
    """docs/monitoring.md's lines outside fenced code blocks."""
    out, fenced = [], False
    with open(DOC, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fenced = not fenced
            elif not fenced:
                out.append(line)
    return out


def documented_metrics():
    """Metric names in the tables of docs/monitoring.md's metrics section: a
    row whose first cell is a `name` (labels in braces after it allowed)."""
    names, inside = set(), False
    for line in doc_lines():
        if line.startswith("## "):
            inside = line.strip() == METRICS_SECTION
        m = re.match(r"\|\s*`([a-z_:][a-z0-9_:]*)(\{[^`]*\})?`", line)
        if inside and m:
            names.add(m.group(1))
    return names


def doc_anchors():
    """GitHub's anchor of every heading of docs/monitoring.md."""
    anchors = set()
    for line in doc_lines():
        m = re.match(r"#+\s+(.*?)\s*$", line)
        if m:
            anchors.add(re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-"))
    return anchors


def load_rules():
    with open(RULES, encoding="utf-8") as f:
        return yaml.safe_load(f)


def all_rules():
    return [r for g in load_rules()["groups"] for r in g["rules"]]


def recorded_names():
    return {r["record"] for r in all_rules() if "record" in r}


def doc_yaml_block(first_line):
    """The ```yaml block of docs/monitoring.md that starts with first_line."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    for block in re.findall(r"```yaml\n(.*?)```", text, re.S):
        if block.startswith(first_line):
            return block
    raise AssertionError("docs/monitoring.md has no yaml block starting " + first_line)


def run_tool(argv, path, text):
    """Write text to path and run argv + [path]; return (ok, output)."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    p = subprocess.run(argv + [path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=60)
    return p.returncode == 0, p.stdout


def promtool_parses(exprs):
    """Run promtool check rules on a rule file recording each expression;
    return (ok, output)."""
    d = tempfile.mkdtemp(prefix="cpha-mon-")
    try:
        path = os.path.join(d, "exprs.yml")
        rules = [{"record": "cpha_dashboard_query_%d" % i, "expr": e}
                 for i, e in enumerate(exprs)]
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"groups": [{"name": "dashboard", "rules": rules}]}, f)
        p = subprocess.run([PROMTOOL, "check", "rules", path], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=60)
        return p.returncode == 0, p.stdout
    finally:
        shutil.rmtree(d)


class MetricNames(unittest.TestCase):
    """The readers the other classes rely on."""

    def test_documented_metrics_and_anchors(self):
        names = documented_metrics()
        self.assertIn("up", names)
        self.assertIn("vipd_vip_held", names)
        self.assertIn("vip:vipd_vip_held:sum", names)
        self.assertNotIn("etcd", names)  # a job, in the scrape jobs table
        anchors = doc_anchors()
        self.assertIn("cphavipmissing", anchors)
        self.assertNotIn("prometheusyml", anchors)  # a comment in a code block

    def test_selectors_functions_and_label_lists(self):
        self.assertEqual(metric_names('sum by (host, backend) (lbd_server_up{host=~"$host"})'),
                         {"lbd_server_up"})
        self.assertEqual(metric_names(
            'increase((max by (job) (etcd_server_leader_changes_seen_total{job="etcd"}))[15m:1m])'),
            {"etcd_server_leader_changes_seen_total"})
        self.assertEqual(metric_names("vip:vipd_vip_held:sum == 0 or (absent(vipd_vip_held) and "
                                      'on () (count(up{job="cpha-vipd"}) > 0))'),
                         {"vip:vipd_vip_held:sum", "vipd_vip_held", "up"})
        self.assertEqual(metric_names("(cpha_cert_expiry_timestamp_seconds - time()) / 86400"),
                         {"cpha_cert_expiry_timestamp_seconds"})
        self.assertEqual(metric_names("a > bool 4 unless ignoring(x) b offset 5m"), {"a", "b"})
        self.assertEqual(metric_names('x{a="sum(y)"} * 1e3'), {"x"})


class Dashboard(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        with open(DASHBOARD, encoding="utf-8") as f:
            cls.d = json.load(f)
        cls.panels = [p for p in cls.d["panels"] if p["type"] != "row"]
        for p in cls.d["panels"]:
            cls.panels += [q for q in p.get("panels", []) if q["type"] != "row"]

    def exprs(self):
        return [t.get("expr", "") for p in self.panels for t in p.get("targets", [])]

    def test_schema_and_datasource_variable(self):
        self.assertGreaterEqual(self.d["schemaVersion"], 36)
        self.assertTrue(self.d.get("uid"))
        var = [v for v in self.d["templating"]["list"] if v["name"] == "datasource"]
        self.assertEqual(len(var), 1, "no template variable named datasource")
        self.assertEqual(var[0]["type"], "datasource")
        self.assertEqual(var[0]["query"], "prometheus")

    def test_every_panel_queries_prometheus_through_the_variable(self):
        self.assertGreater(len(self.panels), 0)
        ids = [p["id"] for p in self.d["panels"]]
        self.assertEqual(len(ids), len(set(ids)), "panel ids repeat")
        for p in self.panels:
            with self.subTest(panel=p["title"]):
                self.assertEqual(p["datasource"], {"type": "prometheus", "uid": "${datasource}"})
                self.assertTrue(p["targets"], "no query")
                for t in p["targets"]:
                    self.assertTrue(t.get("expr", "").strip(), "a query without expr")
                    self.assertEqual(t["datasource"]["uid"], "${datasource}")
                g = p["gridPos"]
                self.assertLessEqual(g["x"] + g["w"], 24)

    def test_the_panels_asked_for(self):
        """The availability matrix, the VIP holder, LB servers per host,
        fencing, etcd's leader, the Leases: each read by some panel."""
        joined = "\n".join(self.exprs())
        for metric in ["up", "vipd_instance_state", "lbd_server_up", "vipd_vip_held",
                       "lbd_backend_active_servers", "fenced_pending", "fenced_pending_overdue",
                       "fenced_failed", "fenced_node_fenced_total", "fenced_quorate",
                       "etcd_server_leader_changes_seen_total", "etcd_server_has_leader",
                       "cpha_lease_renew_age_seconds"]:
            with self.subTest(metric=metric):
                self.assertRegex(joined, r"(?<![\w:])%s(?![\w:])" % re.escape(metric))

    def test_every_query_parses(self):
        exprs = []
        for e in self.exprs():
            for var, value in GRAFANA_VARS:
                e = e.replace(var, value)
            self.assertNotIn("$", e, "a Grafana variable this test does not know: " + e)
            exprs.append(e)
        ok, out = promtool_parses(exprs)
        self.assertTrue(ok, "promtool check rules on the dashboard's queries:\n" + out)

    def test_the_parse_check_can_fail(self):
        ok, out = promtool_parses(['sum by (host (up)'])
        self.assertFalse(ok, out)

    def test_every_metric_is_documented_or_recorded(self):
        known = documented_metrics() | recorded_names()
        for e in self.exprs():
            for name in metric_names(e):
                with self.subTest(metric=name):
                    self.assertIn(name, known,
                                  "not in docs/monitoring.md's tables nor a recording rule")


class DocExamples(unittest.TestCase):
    """The configuration excerpts of docs/monitoring.md are valid."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="cpha-mon-")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_prometheus_excerpt_loads_the_rules(self):
        text = doc_yaml_block("# prometheus.yml")
        self.assertIn("/usr/share/cpha/cpha-rules.yml", text)
        text = text.replace("/usr/share/cpha/cpha-rules.yml", RULES)
        ok, out = run_tool([PROMTOOL, "check", "config"],
                           os.path.join(self.dir, "prometheus.yml"), text)
        self.assertTrue(ok, out)
        self.assertRegex(out, r"SUCCESS: \d+ rules found")

    def test_alertmanager_excerpt(self):
        amtool = shutil.which("amtool")
        if not amtool:
            self.skipTest("amtool not installed (Debian package prometheus-alertmanager, "
                          "scripts/setup.sh installs it): the Alertmanager excerpt is not checked")
        text = doc_yaml_block("# alertmanager.yml")
        ok, out = run_tool([amtool, "check-config"],
                           os.path.join(self.dir, "alertmanager.yml"), text)
        self.assertTrue(ok, out)
        for name in re.findall(r"alertname=\"(\w+)\"", text):
            self.assertIn(name, ALERTS)


class Rules(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.alerts = [r for r in all_rules() if "alert" in r]
        cls.tests = []
        for name in sorted(os.listdir(HERE)):
            if name.endswith(".yml"):
                with open(os.path.join(HERE, name), encoding="utf-8") as f:
                    cls.tests.append((name, yaml.safe_load(f)))

    def test_every_alert_of_the_design_and_no_other(self):
        names = {r["alert"] for r in self.alerts}
        self.assertEqual(names, set(ALERTS))
        self.assertEqual(len(names), len(self.alerts), "an alert is defined twice")

    def test_groups_are_named_cpha(self):
        for g in load_rules()["groups"]:
            self.assertRegex(g["name"], r"^cpha-[a-z-]+$")

    def test_labels_and_annotations(self):
        anchors = doc_anchors()
        for r in self.alerts:
            with self.subTest(alert=r["alert"]):
                self.assertIn(r["labels"]["severity"], SEVERITIES)
                a = r["annotations"]
                self.assertTrue(a["summary"].strip())
                self.assertTrue(a["description"].strip())
                self.assertEqual(a["runbook_url"], "docs/monitoring.md#" + r["alert"].lower())
                self.assertIn(r["alert"].lower(), anchors,
                              "docs/monitoring.md has no section " + r["alert"])

    def test_every_metric_is_documented_or_recorded(self):
        known = documented_metrics() | recorded_names()
        for r in all_rules():
            for name in metric_names(r["expr"]):
                with self.subTest(rule=r.get("alert") or r.get("record"), metric=name):
                    self.assertIn(name, known,
                                  "not in docs/monitoring.md's tables nor a recording rule")

    def test_every_alert_is_tested_firing_and_silent(self):
        fired, silent = {}, {}
        for fname, t in self.tests:
            self.assertEqual(t["rule_files"], ["../cpha-rules.yml"], fname)
            for group in t["tests"]:
                for case in group.get("alert_rule_test", []):
                    name = case["alertname"]
                    if case.get("exp_alerts"):
                        fired[name] = fired.get(name, 0) + 1
                        for a in case["exp_alerts"]:
                            self.assertIn("severity", a["exp_labels"], fname)
                            self.assertIn("runbook_url", a["exp_annotations"], fname)
                    else:
                        silent[name] = silent.get(name, 0) + 1
        for name in ALERTS:
            with self.subTest(alert=name):
                self.assertGreaterEqual(fired.get(name, 0), 1, "never tested firing")
                self.assertGreaterEqual(silent.get(name, 0), 2, "not tested silent twice")

    def test_every_alert_waits_except_the_fence_alert(self):
        """A `for:` on every alert but CphaHostFenced, which must appear at
        the first evaluation after a fence."""
        for r in self.alerts:
            with self.subTest(alert=r["alert"]):
                if r["alert"] == "CphaHostFenced":
                    self.assertNotIn("for", r)
                else:
                    self.assertRegex(r.get("for", ""), r"^[1-9][0-9]*[sm]$")


def main():
    global PROMTOOL
    args = sys.argv[1:]
    PROMTOOL = args.pop(0) if args else (shutil.which("promtool") or "promtool")
    if not (os.path.isfile(PROMTOOL) and os.access(PROMTOOL, os.X_OK)):
        found = shutil.which("promtool")
        if not found:
            print("FAIL: promtool not found (%s): it checks the dashboard's queries; install "
                  "Debian's prometheus package (scripts/setup.sh does)" % PROMTOOL)
            return 1
        PROMTOOL = found
    if yaml is None:
        print("FAIL: python3-yaml is not installed: it reads the rule and test files "
              "(scripts/setup.sh installs it)")
        return 1
    prog = unittest.main(argv=[sys.argv[0]], exit=False, verbosity=1)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
