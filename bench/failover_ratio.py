#!/usr/bin/env python3
"""Each failover figure of a lab report, cpha against the peer, as a ratio.

    bench/failover_ratio.py [--peer-stack STACK] [--scenarios A,B] DIR/report.json

Reads the report.json that `cpha lab run --peer ... --report DIR` writes
(its shape: cpha(1), "report.json") and prints, for each scenario both
stacks ran and each figure, the median over the valid attempts of each
stack and cpha/peer as a ratio of the medians with a 95% bootstrap
interval computed from the per-attempt values (bench/ratio.py). Every
figure is lower-is-better, so a ratio below 1 favours cpha. The peer is
the first stack other than cpha, as the report's goals take it.

Figures, per valid attempt (the values report.json's "stats" are made
from): failed requests, the longest gap without a successful request,
the time until every watch delivered again (0 when none broke; when some
never came back, the lower bound the report's note gives), and every
timing the lab measured (vip_move_ms, serve_ms, detect_ms, fence_ms, ...).
Beside each median, in brackets, is the interval the lab itself computed
for it (report.json's stats ci95), when the report has one.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# report.json's format and its checked reader (cphalab.report)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "control-plane", "lab"))
from ratio import fmt_ratio, median, ratio_of_medians  # noqa: E402
from cphalab.report import ReportError, load  # noqa: E402

FIXED = ("failed", "max_gap_ms", "watches_restored_ms")
LABELS = {"failed": "failed requests", "max_gap_ms": "longest gap (ms)",
          "watches_restored_ms": "watches restored (ms)", "vip_move_ms": "VIP move (ms)",
          "serve_ms": "serve again (ms)", "detect_ms": "detect (ms)", "fence_ms": "fence (ms)"}
# the note report.json carries when watches never came back (cpha(1))
NEVER_RESTORED = re.compile(r"the statistics count (\d+) ms for watches_restored_ms")


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def attempt_value(rep, metric):
    """The value of metric in one attempt (an element of "repeats"), as the
    report's statistics count it; None when the attempt has none."""
    if metric == "watches_restored_ms":
        if number(rep.get(metric)):
            return rep[metric]
        for note in rep.get("notes") or []:
            m = NEVER_RESTORED.search(note)
            if m:
                return int(m.group(1))
        return 0  # no watch broke
    if metric in FIXED:
        return rep[metric] if number(rep.get(metric)) else None
    t = (rep.get("timings") or {}).get(metric)
    return t if number(t) else None


def valid_attempts(entry):
    return [r for r in entry.get("repeats") or [] if r.get("valid") and r.get("started", True)]


def values(entry, metric):
    """metric's values over the valid attempts of a scenario entry."""
    out = []
    for rep in valid_attempts(entry):
        v = attempt_value(rep, metric)
        if v is not None:
            out.append(v)
    return out


def metrics(*entries):
    """The fixed figures, then the timings with a number in any valid
    attempt of the entries, in the order they first appear."""
    out = list(FIXED)
    for e in entries:
        for rep in valid_attempts(e):
            for k, v in (rep.get("timings") or {}).items():
                if number(v) and k not in out:
                    out.append(k)
    return out


def pick_runs(report, peer_stack=None):
    """(cpha run, peer run): the peer is peer_stack, else the first run of
    another stack than cpha. Raises ValueError naming what is missing."""
    runs = report.get("runs") or []
    stacks = [r.get("stack") for r in runs]
    cpha = next((r for r in runs if r.get("stack") == "cpha"), None)
    if peer_stack:
        peer = next((r for r in runs if r.get("stack") == peer_stack), None)
    else:
        peer = next((r for r in runs if r.get("stack") != "cpha"), None)
    if cpha is None or peer is None:
        raise ValueError("the report has runs of %s; it needs cpha and %s" % (
            ", ".join(map(str, stacks)) or "no stack", peer_stack or "a peer (cpha lab run --peer)"))
    return cpha, peer


def rows(report, peer_stack=None, scenarios=None):
    """One row per (scenario, figure) both stacks ran: a dict with
    scenario, metric, n (cpha, peer), invalid (cpha, peer), the medians, the
    lab's intervals of them (or None) and the ratio (ratio_of_medians)."""
    cpha, peer = pick_runs(report, peer_stack)
    by_name = {s["name"]: s for s in peer.get("scenarios") or []}
    out = []
    for a in cpha.get("scenarios") or []:
        name = a["name"]
        if scenarios and name not in scenarios:
            continue
        b = by_name.get(name)
        if b is None:
            continue
        for m in metrics(a, b):
            va, vb = values(a, m), values(b, m)
            out.append({
                "scenario": name, "metric": m, "n": (len(va), len(vb)),
                "invalid": (a.get("invalid_runs", 0), b.get("invalid_runs", 0)),
                "median": (median(va), median(vb)),
                "lab_ci": (((a.get("stats") or {}).get(m) or {}).get("ci95"),
                           ((b.get("stats") or {}).get(m) or {}).get("ci95")),
                "ratio": ratio_of_medians(va, vb),
            })
    return out


def side(med, ci):
    if med != med:  # NaN: no value
        return "-"
    s = "%g" % med
    if ci and all(number(x) for x in ci):
        s += " [%g, %g]" % (ci[0], ci[1])
    return s


def render(report, peer_stack=None, scenarios=None):
    cpha, peer = pick_runs(report, peer_stack)
    rs = rows(report, peer_stack, scenarios)
    lines = ["cpha against %s: medians over the valid runs [the lab's 95%% interval], "
             "cpha/peer as a ratio of the medians [95%% bootstrap interval]; lower is better "
             "for every figure" % peer["stack"]]
    lines.append("%-18s %-24s %7s %22s %22s %26s" % ("scenario", "figure", "n", "cpha",
                                                     "peer", "cpha/peer"))
    last = None
    for r in rs:
        if r["scenario"] != last and last is not None:
            lines.append("")
        n = "%d/%d" % r["n"]
        lines.append("%-18s %-24s %7s %22s %22s %26s" % (
            r["scenario"] if r["scenario"] != last else "", LABELS.get(r["metric"], r["metric"]),
            n, side(r["median"][0], r["lab_ci"][0]), side(r["median"][1], r["lab_ci"][1]),
            fmt_ratio(r["ratio"])))
        last = r["scenario"]
    seen = {r["scenario"] for r in rs}
    asked = scenarios or [s["name"] for s in cpha.get("scenarios") or []]
    missing = [s for s in asked if s not in seen]
    if missing:
        lines.append("")
        lines.append("not run by both stacks: %s" % ", ".join(missing))
    invalid = sorted({(r["scenario"], r["invalid"]) for r in rs if any(r["invalid"])})
    for name, (ia, ib) in invalid:
        lines.append("%s: invalid runs (counted in no figure): cpha %d, peer %d" % (name, ia, ib))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("report", help="report.json of cpha lab run --peer")
    ap.add_argument("--peer-stack", help="the peer's stack name (default: the first run "
                    "of another stack than cpha)")
    ap.add_argument("--scenarios", help="comma-separated scenario names (default: all)")
    a = ap.parse_args()
    try:
        report = load(a.report)
        print(render(report, a.peer_stack,
                     [s.split(":")[0] for s in a.scenarios.split(",") if s]
                     if a.scenarios else None))
    except ReportError as e:
        print("failover_ratio: %s" % e, file=sys.stderr)
        return 1
    except (ValueError, KeyError) as e:
        print("failover_ratio: %s: %s" % (a.report, e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
