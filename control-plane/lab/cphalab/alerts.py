"""Alerts in the lab: what the client host's Prometheus and Alertmanager
said during a run, and whether it was what the scenario must raise.

The client host runs Debian's Prometheus with the rendered configuration
and cpha's rules (docs/deploy.md, "Monitoring"), every second, and an
Alertmanager that notifies the lab's recorder (alertlog.py) at once. A run
lists every alert that fired in it, with its time to fire and to resolve
from the fault, and fails its goal on an alert the scenario must raise
that did not fire (missed) or one it may not raise that did (spurious).

The judging is pure (unit-tested in tests/lab); firing() and pending()
ask Prometheus."""

import datetime
import json
import re
import urllib.parse

from . import alertlog

PROMETHEUS = "http://127.0.0.1:9090"

# What each scenario must raise, and what it may raise besides (timing
# decides: a host powered off for longer than an alert's for:). Anything
# else that fires during a run is spurious. The reasons are in docs/lab.md,
# "Alerts".
#   CphaHostFenced: fenced reports a fence (info), at once.
#   CphaTargetDown: a host's daemons stop answering for longer than its
#     for: (a host off or frozen).
#   CphaLBServersDown, CphaEtcdMembersDown: a master off for longer than
#     their for:.
HOST_DOWN = {"CphaTargetDown", "CphaLBServersDown", "CphaEtcdMembersDown", "CphaStatusStale",
             "CphaFencedNotQuorate"}
EXPECTED = {
    "apiserver-rolling-restart": (set(), set()),
    "reload-under-load": (set(), set()),
    "lb-poweroff": ({"CphaHostFenced"}, HOST_DOWN),
    "lb-daemon-down": ({"CphaTargetDown"}, set()),
    "steady": (set(), set()),
    "lb-hang": ({"CphaHostFenced"}, HOST_DOWN),
    "master-poweroff": ({"CphaHostFenced"}, HOST_DOWN),
    "lb-partition": ({"CphaHostFenced"}, HOST_DOWN),
    "lb-isolated": ({"CphaHostFenced"}, HOST_DOWN),
    "master-partition": ({"CphaHostFenced"}, HOST_DOWN),
    "etcd-data-loss": (set(), {"CphaEtcdMembersDown", "CphaLBServersDown"}),
    # the lost master is fenced (the run is valid only then)
    "master-rebuild": ({"CphaHostFenced"}, HOST_DOWN | {"CphaEtcdEvenMembers"}),
    "cert-rotation": (set(), set()),
    "lb-upgrade": (set(), set()),
    "k8s-minor-upgrade": (set(), set()),
    # etcd has four voting members between the two joins or removals, a
    # new master's apiserver is down on the LB hosts until it starts, a
    # removed one's etcd member down until it is removed
    "master-add": (set(), {"CphaEtcdEvenMembers", "CphaLBServersDown"}),
    "master-remove": (set(), {"CphaEtcdEvenMembers", "CphaEtcdMembersDown",
                              "CphaLBServersDown"}),
    # the API down until the restore (minutes): whatever says so may fire;
    # the lost masters confirmed down by hand count as fenced
    "etcd-quorum-loss": (set(), HOST_DOWN | {"CphaHostFenced", "CphaLBAllServersDown",
                                             "CphaEtcdNoLeader", "CphaLeaseNotRenewed",
                                             "CphaEtcdEvenMembers"}),
}


# Prometheus's external labels: on notifications, not on its ALERTS series
EXTERNAL = ("cpha_cluster",)


def ident(a):
    """An alert's identity: its name and labels."""
    return (a["name"], tuple(sorted((k, v) for k, v in a.get("labels", {}).items()
                                    if k not in EXTERNAL)))


def timeline(notes, start, end, t0, carried=()):
    """The alerts that fired in [start, end] from the recorder's (t, alert)
    notifications: [{"name", "labels", "fired", "resolved"}], times in
    seconds from t0 (the fault), resolved None while still firing at end.
    Alerts in carried (identities firing when the run started) are left
    out: they belong to an earlier run."""
    out, by = [], {}
    carried = set(carried)
    for t, a in notes:
        if t < start or t > end:
            continue
        k = ident(a)
        if k in carried:
            if a["status"] == "resolved":
                carried.discard(k)  # it may fire again, then it is this run's
            continue
        if a["status"] == "firing":
            if k not in by or by[k]["resolved"] is not None:
                by[k] = {"name": a["name"], "labels": dict(a.get("labels", {})),
                         "fired": round(t - t0, 1), "resolved": None, "at": t}
                out.append(by[k])
        elif a["status"] == "resolved" and k in by and by[k]["resolved"] is None:
            by[k]["resolved"] = round(t - t0, 1)
    return out


def attribute(fired, since, start):
    """The alerts of fired whose condition began in the run: since[i] is
    when fired[i] became active (pending), None when unknown (a rule
    without for: fires when it becomes active). One that became active
    before the run's start fired late for an earlier run's cause (a for:
    longer than the runs, as CphaLBServerFlapping's 5 minutes) and is not
    this run's."""
    return [a for a, s in zip(fired, since) if s is None or s >= start - 1.0]


def judge(name, fired, firing_at_end=()):
    """(missed, spurious): the names the scenario must raise that did not
    fire, and those that fired but it may not raise. An alert the scenario
    must raise that was firing already when the run began (a rule with a
    window, such as CphaHostFenced's 15 minutes, still covering an earlier
    fence) counts as raised when it is firing at the run's end: its rule
    holds for this run's fault too, and Alertmanager rightly sends nothing
    new."""
    must, may = EXPECTED.get(name, (set(), set()))
    names = {a["name"] for a in fired}
    raised = names | {n for n, _ in firing_at_end}
    return sorted(must - raised), sorted(names - must - may)


def describe(a):
    """One line of the report: "CphaHostFenced{node=m1} fired +4.2 s,
    resolved +190.0 s"."""
    lab = ",".join("%s=%s" % kv for kv in sorted(a["labels"].items())
                   if kv[0] in ("job", "host", "node", "backend", "server", "vip", "lease",
                                    "member"))
    return "alert %s%s fired %+.1f s, %s" % (
        a["name"], "{%s}" % lab if lab else "", a["fired"],
        "resolved %+.1f s" % a["resolved"] if a["resolved"] is not None else "still firing")


def query(lab, promql, timeout=5, at=None):
    """Prometheus's instant query on the client host (at a time, or now):
    the result list, or None when Prometheus does not answer."""
    params = {"query": promql}
    if at is not None:
        params["time"] = "%.3f" % at
    url = "%s/api/v1/query?%s" % (PROMETHEUS, urllib.parse.urlencode(params))
    r = lab.host("client").run(["curl", "-sf", "-m", str(timeout), url], check=False,
                               timeout=timeout + 5)
    if r.returncode:
        return None
    try:
        d = json.loads(r.stdout)
    except ValueError:
        return None
    return d.get("data", {}).get("result") if d.get("status") == "success" else None


def active(lab, state):
    """The identities of the alerts in state ("firing", "pending")."""
    res = query(lab, 'ALERTS{alertstate="%s"}' % state) or []
    out = set()
    for r in res:
        labels = dict(r["metric"])
        name = labels.pop("alertname", "?")
        for k in ("__name__", "alertstate"):
            labels.pop(k, None)
        out.add(ident({"name": name, "labels": labels}))
    return out


def promql_labels(labels):
    """{k="v",...} of labels, quoted as PromQL string literals."""
    return ",".join('%s="%s"' % (k, v.replace("\\", "\\\\").replace('"', '\\"'))
                    for k, v in sorted(labels.items()) if k not in EXTERNAL)


def active_since(lab, a):
    """When alert a (a timeline entry) became active, from the series
    Prometheus keeps for alerts with a for: (ALERTS_FOR_STATE, whose value
    is that time) at the moment it fired; None without one."""
    sel = promql_labels(dict(a["labels"], alertname=a["name"]))
    res = query(lab, "ALERTS_FOR_STATE{%s}" % sel, at=a["at"])
    try:
        return float(res[0]["value"][1]) if res else None
    except (KeyError, IndexError, ValueError):
        return None


def config_time(lab):
    """When Prometheus last loaded its configuration successfully (its
    runtime information), as a time stamp; None when it does not answer or
    its last reload failed."""
    r = lab.host("client").run(["curl", "-sf", "-m", "5",
                                PROMETHEUS + "/api/v1/status/runtimeinfo"],
                               check=False, timeout=10)
    try:
        d = json.loads(r.stdout)["data"] if r.returncode == 0 else None
    except (ValueError, KeyError):
        return None
    if not d or not d.get("reloadConfigSuccess"):
        return None
    return rfc3339(d.get("lastConfigTime", ""))


def rfc3339(s):
    """Seconds since the epoch of an RFC 3339 time as Prometheus writes
    it ("2026-11-29T03:50:01.123456789Z"); None if it is not one."""
    m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$", s)
    if not m:
        return None
    tz = "+00:00" if m.group(3) == "Z" else m.group(3)
    base = datetime.datetime.fromisoformat(m.group(1) + tz).timestamp()
    return base + float("0" + (m.group(2) or ""))


def running(lab):
    """True when the lab has its Prometheus (the cpha stack's lab)."""
    return query(lab, "up") is not None


def recorded(lab, start, end):
    return alertlog.read(lab.path("alerts.jsonl"), start, end)
