"""The lab's monitoring, checked on a running lab: Debian's Prometheus,
Alertmanager and node-exporter on the client host, with what `cpha render`
wrote (monitoring.prometheus) and cpha's rules. integration.cpha_lab runs
these on its lab:

- every scrape target answers, every alert rule loads and is healthy,
  and `promtool check config` accepts the rendered configuration;
- a settled lab fires nothing and has nothing pending for a minute;
- `cpha lab run lb-daemon-down`: the backup LB host's lbd killed for
  150 s; CphaTargetDown for that lbd must fire (after its for: of 2
  minutes), reach Alertmanager's receiver, and resolve once lbd is back;
  nothing else fires; the run's goal "alerts as expected" holds;
- the VIP on two LB hosts (added by the caller): CphaVIPOnTwoHosts
  fires (after its for:) and resolves once the extra address is gone;
- every query of the Grafana dashboard returns data and no error from the
  lab's Prometheus (but the watchdog's: the lab has no watchdog device);
- the peer stack (`run --peer-only lb-daemon-down`): Prometheus reloaded
  with the haproxy job and the community's rules (peer-rules.yml), every
  target up; HAProxy killed on the backup LB host raises HaproxyDown,
  notified and resolved, and nothing else but that HAProxy's servers
  down while its first checks run after its restart.
"""

import calendar
import json
import os
import re
import shutil
import time
import urllib.parse

from cphalab import alertlog

from . import step, util

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
DASHBOARD = os.path.join(TOP, "monitoring", "cpha-dashboard.json")
# the lab has no watchdog device: fenced serves no fenced_watchdog_petting
NO_DATA_IN_LAB = ("fenced_watchdog_petting",)
PROGRAMS = ("prometheus", "prometheus-alertmanager", "prometheus-node-exporter", "promtool")

lab = None
NAME = None


def missing():
    """The first monitoring program not installed, or None."""
    for p in PROGRAMS:
        if not shutil.which(p):
            return p
    return None


def use(labcmd):
    """Check the lab of labcmd (a cphatest.labcmd.LabCmd) from now on."""
    global lab, NAME
    lab, NAME = labcmd, labcmd.name


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def prom(path, **params):
    """GET Prometheus's API on the client host: its data."""
    url = "http://127.0.0.1:9090/api/v1/%s" % path
    if params:
        url += "?" + urllib.parse.urlencode(params)
    r = lab("x", "client", "curl", "-sf", "-m", "10", url, check_rc=False, quiet=True)
    check(r.returncode == 0, "Prometheus %s: curl exit %d %s" % (path, r.returncode, r.stderr))
    d = json.loads(r.stdout)
    check(d.get("status") == "success", "Prometheus %s: %s" % (path, d))
    return d["data"]


def alerts(state):
    return sorted((a["labels"]["alertname"], a["labels"].get("host", ""))
                  for a in prom("alerts")["alerts"] if a["state"] == state)


def started(alert):
    """An alert's startsAt (RFC 3339 in UTC, as Alertmanager sends it) in
    seconds since the epoch; 0 when it cannot be read."""
    m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?Z$", alert.get("startsAt") or "")
    if not m:
        return 0
    return calendar.timegm(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S")) + float(
        m.group(2) or 0)


def recorded(since):
    return alertlog.read("/var/tmp/cpha-lab/%s/alerts.jsonl" % NAME, since, time.time() + 1)


def targets_and_rules():
    step("every target up, every rule healthy, promtool accepts the configuration")

    def all_up():
        t = prom("targets", state="active")["activeTargets"]
        down = [(x["labels"]["job"], x["labels"].get("host"), x["lastError"])
                for x in t if x["health"] != "up"]
        return (t and not down and t) or None
    t = util.wait_until(all_up, 120, interval=2, what="every scrape target up")
    jobs = sorted({x["labels"]["job"] for x in t})
    check(jobs == ["apiserver", "cpha-fenced", "cpha-lbd", "cpha-textfile", "cpha-vipd",
                   "etcd"], jobs)
    check(len(t) == 21, "%d targets" % len(t))
    rules = [r for g in prom("rules")["groups"] for r in g["rules"] if r["type"] == "alerting"]
    names = {r["name"] for r in rules}
    for n in ("CphaVIPMissing", "CphaVIPOnTwoHosts", "CphaLBServersDown", "CphaLBAllServersDown",
              "CphaLBServerFlapping", "CphaFencePending", "CphaFenceFailed",
              "CphaFencedNotQuorate", "CphaWatchdogNotPetted", "CphaEtcdNoLeader",
              "CphaEtcdMembersDown", "CphaEtcdEvenMembers", "CphaEtcdLeaderChanges",
              "CphaLeaseNotRenewed", "CphaCertExpiringSoon", "CphaConfigDrift"):
        check(n in names, "no rule %s in %s" % (n, sorted(names)))
    bad = [(r["name"], r.get("lastError")) for r in rules if r["health"] != "ok"]
    check(not bad, "rules not healthy: %s" % bad)
    r = lab("x", "client", "promtool", "check", "config", "/etc/prometheus/prometheus.yml",
            check_rc=False, quiet=True)
    check(r.returncode == 0, "promtool check config: %s%s" % (r.stdout, r.stderr))


def quiet_minute():
    step("a settled lab: nothing firing or pending for 60 s")
    util.wait_until(lambda: not alerts("firing") and not alerts("pending"), 150, interval=2,
                    what="no alert firing or pending (firing %s)" % alerts("firing"))
    t0 = time.time()
    while time.time() < t0 + 60:
        now = alerts("firing") + alerts("pending")
        check(not now, "alerts in a settled lab: %s" % now)
        time.sleep(5)
    check(not [a for _, a in recorded(t0)], "notified in a settled lab: %s" % recorded(t0))


def daemon_down(report):
    step("cpha lab run lb-daemon-down: CphaTargetDown fires, is notified, resolves")
    t_start = time.time()
    lab("run", "--report", report, "lb-daemon-down", timeout=900)
    with open(os.path.join(report, "report.json")) as f:
        rep = json.load(f)
    s = rep["runs"][0]["scenarios"][0]
    check(s["name"] == "lb-daemon-down", s["name"])
    r = s["repeats"][0]
    check(r["valid"], "lb-daemon-down invalid: %s" % r)
    check(s["failed"] == 0, "lb-daemon-down: %d requests failed" % s["failed"])
    check(s["invariants"].get("alerts_as_expected") is True,
          "alerts not as expected: %s" % s.get("notes"))
    notes = [n for n in s.get("notes", []) if n.startswith("alert ")]
    check(len(notes) == 1 and notes[0].startswith("alert CphaTargetDown{"),
          "alerts of the run: %s" % notes)

    # the run's window may end before the next scrape and evaluation (5 s
    # each) see lbd back: the resolved notification follows within them
    def seen():
        return [(a["name"], a["status"], a["labels"].get("job"))
                for _, a in recorded(t_start)]
    util.wait_until(lambda: ("CphaTargetDown", "resolved", "cpha-lbd") in seen(), 30,
                    interval=1, what="CphaTargetDown resolved (notified: %s)" % seen())
    check(("CphaTargetDown", "firing", "cpha-lbd") in seen(),
          "Alertmanager's notifications: %s" % seen())
    seen = seen()
    check({n for n, _, _ in seen} == {"CphaTargetDown"}, "notified besides: %s" % seen)
    fired = [float(n.split("fired ")[1].split(" s")[0]) for n in notes]
    check(fired[0] >= 120, "CphaTargetDown fired %.1f s after the kill: before its for:" %
          fired[0])
    goal = [g for g in rep["goals"] if g["scenario"] == "lb-daemon-down"
            and g["metric"] == "alerts_as_expected"]
    check(goal and goal[0]["verdict"] in ("met", "clearly met"), "goal: %s" % goal)


def vip_twice_firing(t0):
    """The VIP was added by hand on the LB host that does not hold it at
    t0: CphaVIPOnTwoHosts fires, after its for: of 30 s."""
    step("CphaVIPOnTwoHosts fires")
    util.wait_until(lambda: [a for a in alerts("firing") if a[0] == "CphaVIPOnTwoHosts"], 90,
                    interval=2, what="CphaVIPOnTwoHosts firing")
    check(time.time() - t0 >= 30, "CphaVIPOnTwoHosts fired before its for: of 30 s")


def vip_twice_resolved(t0):
    """The extra VIP removed: CphaVIPOnTwoHosts resolves, and Alertmanager's
    receiver is told."""
    step("CphaVIPOnTwoHosts resolves")
    util.wait_until(lambda: not [a for a in alerts("firing") if a[0] == "CphaVIPOnTwoHosts"],
                    60, interval=2, what="CphaVIPOnTwoHosts resolved")
    seen = [(a["name"], a["status"]) for _, a in recorded(t0)]
    util.wait_until(lambda: ("CphaVIPOnTwoHosts", "resolved") in
                    [(a["name"], a["status"]) for _, a in recorded(t0)], 30, interval=1,
                    what="the resolved notification (seen %s)" % seen)


def dashboard():
    step("every query of the dashboard returns data, without error")
    with open(DASHBOARD) as f:
        d = json.load(f)
    subst = {"$__rate_interval": "1m", "$__interval": "15s", "$__range": "5m",
             "${host}": ".*", "$host": ".*"}
    empty = []
    n = 0
    for p in d["panels"]:
        for t in p.get("targets", []):
            q = t["expr"]
            for k, v in subst.items():
                q = q.replace(k, v)
            res = prom("query", query=q)["result"]
            n += 1
            if not res and not any(m in q for m in NO_DATA_IN_LAB):
                empty.append((p.get("title"), q))
    check(n >= 10, "only %d queries" % n)
    check(not empty, "queries without data: %s" % empty)


def peer(report):
    step("the peer stack: HAProxy's exporter and the community's rules; HaproxyDown "
         "fires, is notified, resolves")
    t_start = time.time()
    lab("run", "--peer-only", "--report", report, "lb-daemon-down", timeout=900)
    with open(os.path.join(report, "report.json")) as f:
        rep = json.load(f)
    s = rep["runs"][0]["scenarios"][0]
    check(s["name"] == "lb-daemon-down", s["name"])
    check(s["repeats"][0]["valid"], "lb-daemon-down (peer) invalid: %s" % s["repeats"][0])
    check("alerts_as_expected" not in s["invariants"],
          "the peer's alerts judged: %s" % s["invariants"])
    # HaproxyDown for the killed HAProxy; besides it only what the
    # community's rules (no for:) may say of that HAProxy once started
    # again: a server down until its first checks pass
    notes = [n for n in s.get("notes", []) if n.startswith("alert ")]
    down = [n for n in notes if n.startswith("alert HaproxyDown{host=lb")]
    check(len(down) == 1, "alerts of the peer's run: %s" % notes)
    victim = down[0].split("host=")[1].split(",")[0]
    others = [n for n in notes if n not in down]
    check(all(n.startswith("alert HaproxyServerDown{") and "host=%s," % victim in n
              for n in others), "alerts of the peer's run: %s" % notes)
    groups = [g["name"] for g in prom("rules")["groups"]]
    check(groups == ["peer-haproxy", "peer-prometheus"], "rule groups: %s" % groups)
    jobs = {}
    for r in prom("query", query="up")["result"]:
        jobs.setdefault(r["metric"]["job"], []).append(
            (r["metric"].get("host"), r["value"][1]))
    check(sorted(h for h, _ in jobs.get("haproxy", [])) == ["lb1", "lb2"],
          "haproxy targets: %s" % jobs.get("haproxy"))
    check(all(v == "1" for h, v in jobs["haproxy"]), "haproxy targets: %s" % jobs["haproxy"])

    # the alerts that started with the run: the switch of stacks before it
    # is not what this step tests
    run_start = s["repeats"][0]["start"]

    def seen(every=False):
        return [(a["name"], a["status"], a["labels"].get("host"))
                + ((a["labels"].get("job"), a.get("startsAt")) if every else ())
                for _, a in recorded(t_start)
                if a["name"].startswith(("Haproxy", "PrometheusTarget"))
                and (every or started(a) >= run_start - 1)]
    util.wait_until(lambda: ("HaproxyDown", "resolved", victim) in seen(), 30, interval=1,
                    what="HaproxyDown resolved (notified: %s)" % seen(True))
    check(("HaproxyDown", "firing", victim) in seen(), "the peer's notifications: %s" % seen(True))
    check(all(n == "HaproxyDown" or (n == "HaproxyServerDown" and h == victim)
              for n, _, h in seen()), "the peer's notifications: %s" % seen(True))
    early = [x for x in seen(True) if x[:3] not in seen()]
    if early:
        step("notified before the run, during the switch of stacks: %s" % early)
