#!/usr/bin/env python3
"""cpha lab, short profile: up, its monitoring, six scenarios, the report,
a short soak, the peer, down.

`cpha lab up --dual-stack` (its own name, so it runs beside other tests;
two VIPs, 198.18.0.2 and 2001:db8:18::2, and a prober through each), then
`cpha lab run apiserver-rolling-restart reload-under-load lb-poweroff
master-poweroff cert-rotation lb-upgrade`
with the prober on the client host; the report must hold what docs/lab.md
says it holds and the scenarios must have happened:
- report.json has the three scenarios with every field; the prober made
  ~10 ticks a second (3 requests each) for the whole window;
- apiserver-rolling-restart and reload-under-load: 0 failed requests, all
  50 watches (and any broken by the restarts restored);
- lb-poweroff: the VIP moved only after the old holder was fenced, never
  on two hosts; the gap is finite and the clients served again; the IPv6
  VIP moved with it (within 1.5 s, never on two hosts, never apart for
  longer), and the IPv6 prober's clients were served again too;
- the IPv6 prober: its own events file, every request through
  https://[2001:db8:18::2]:6443, no failure in the scenarios that fail
  none over IPv4;
- master-poweroff: the controller-manager moved only after the fence, and
  fenced on every master (handing fencing to Pacemaker) still runs;
- cert-rotation: docs/runbook.md's blocks followed, every master's
  apiserver and etcd serve the renewed certificates, no alert fired;
- lb-upgrade: docs/runbook.md's blocks followed on each LB host in turn
  (drain, install, restart, undrain), both hosts run the other build of
  lbd, vipd and fenced afterwards, both VIPs moved together, no alert;
- every invariant held; report.md names the stand-ins as lab simulators;
  timeline.svg parses as XML;
- `cpha lab soak` for 3 minutes, seed 7: every fault of its plan
  injected, no invariant broken, the lab settled afterwards, the writers'
  history linearizable;
- the lab's monitoring (cphatest.labmon, which says what it checks):
  targets and rules, a quiet minute, lb-daemon-down for both stacks with
  the alerts it must raise, CphaVIPOnTwoHosts while cpha status sees the
  VIP on two hosts, the dashboard's queries; skipped, saying why, when
  Prometheus is not installed;
then `cpha lab down` leaves no namespace, bridge or process.
Exit 0 pass, 77 skip (not root), 1 fail.
    sudo python3 tests/integration/test_cpha_lab.py
"""

import json
import os
import signal
import sys
import time
import xml.dom.minidom

sys.dont_write_bytecode = True

from cphalab import netns  # noqa: E402
from cphatest import labcmd, labmon, step, util  # noqa: E402

NAME = "t%d" % (os.getpid() % 10000)
SCENARIOS = ["apiserver-rolling-restart", "reload-under-load", "lb-poweroff",
             "master-poweroff", "cert-rotation", "lb-upgrade"]
# lb-poweroff twice: repeats, each from a settled start
RUN = ["apiserver-rolling-restart", "reload-under-load", "lb-poweroff:2", "master-poweroff",
       "cert-rotation", "lb-upgrade"]


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


lab = labcmd.LabCmd(NAME)
leftovers = lab.leftovers
labmon.use(lab)
# the lab's monitoring is checked unless a program of it is missing
MONITORING = labmon.missing() is None


def status(host="m1"):
    r = lab("x", host, "cpha", "status", "--json", check_rc=False, quiet=True)
    try:
        return r.returncode, json.loads(r.stdout)
    except ValueError:
        raise AssertionError("cpha status --json: exit %d\n%s%s" % (r.returncode, r.stdout,
                                                                   r.stderr))


def status_faults():
    """cpha status on a master of the lab: healthy; then a controller-manager
    frozen (Pacemaker told to leave it alone, as an operator debugging it
    would) and the VIP added by hand on the other LB host: both problems,
    then healthy again once repaired."""
    step("cpha status on m1: healthy")
    util.wait_until(lambda: status()[0] == 0, 60, interval=2, what="cpha status healthy")
    rc, doc = status()
    check(doc["worst"] == "healthy" and doc["problems"] == [], doc["problems"])
    holder = [h for h, d in vip_state(doc).items() if d]
    check(len(holder) == 1, "one VIP holder: %s" % vip_state(doc))
    other = "lb2" if holder[0] == "lb1" else "lb1"
    r = lab("x", "m1", "crm_mon", "-1", "--output-as=xml", quiet=True)
    kcm = r.stdout.split('<resource id="kcm"')[1].split('<node name="')[1].split('"')[0]
    pids = programs_in(kcm, "/usr/bin/kube-controller-manager")
    check(len(pids) == 1, "one kube-controller-manager on %s: %s" % (kcm, pids))
    step("fault: kcm unmanaged and frozen on %s (pid %d); the VIP added by hand on %s" % (
        kcm, pids[0], other))
    lab("x", "m1", "pcs", "resource", "unmanage", "kcm", quiet=True)
    os.kill(pids[0], signal.SIGSTOP)
    t_vip = time.time()
    lab("x", other, "ip", "addr", "add", "198.18.0.2/24", "dev", "eth0", quiet=True)
    try:
        def both():
            rc, doc = status()
            texts = [p["text"] for p in doc["problems"]]
            lease = [t for t in texts if "Lease kube-controller-manager" in t
                     and "stopped renewing" in t]
            vip = [t for t in texts if "is on 2 hosts" in t]
            return rc in (1, 2) and lease and vip and doc
        doc = util.wait_until(both, 60, interval=2, what="cpha status to report both faults")
        r = lab("x", "m1", "cpha", "status", check_rc=False, quiet=True)
        print(r.stdout, flush=True)
        check(r.returncode in (1, 2) and "is on 2 hosts" in r.stdout and
              "stopped renewing" in r.stdout, r.stdout)
        if MONITORING:
            labmon.vip_twice_firing(t_vip)
    finally:
        os.kill(pids[0], signal.SIGCONT)
        lab("x", other, "ip", "addr", "del", "198.18.0.2/24", "dev", "eth0", check_rc=False,
            quiet=True)
        lab("x", "m1", "pcs", "resource", "manage", "kcm", check_rc=False, quiet=True)
    step("repair: healthy again")
    util.wait_until(lambda: status()[0] == 0, 90, interval=2, what="cpha status healthy again")
    if MONITORING:
        labmon.vip_twice_resolved(t_vip)


def programs_in(host, program):
    """PIDs of program running in the lab host (by network namespace)."""
    ident = netns.ns_ident("/run/netns/cl%s-%s" % (NAME, host))
    return [p for p in netns.pids_in({ident}) if program in netns.cmdline(p)[:2]]


def vip_state(doc):
    """{LB host: VIP present} from cpha status --json's details."""
    out = {}
    for lb in doc.get("details", {}).get("load_balancers", []):
        out[lb.get("host")] = bool(lb.get("vip_present"))
    return out


def instrument(report, stack, repeats, floor_ms):
    """The lab as a measuring instrument, from its lab.json and report.json:
    every run started settled (VRRP quiet for 3 advert intervals, the VIP
    where the run found it) and is valid; lb-poweroff broke every watch
    that was open, moved the VIP no sooner than the stack can notice a
    silent master and served no request before the VIP moved; the report
    has each scenario's repeats, statistics, causes and phases."""
    with open(os.path.join(report, "lab.json")) as f:
        doc = json.load(f)
    with open(os.path.join(report, "report.json")) as f:
        rep = json.load(f)
    attempts = doc["runs"][0]["scenarios"]
    for a in attempts:
        check(a["started"] and a["valid"], "%s attempt %d: %s" % (
            a["name"], a["attempt"], a.get("invalid_reason")))
        check(a["settle"]["vrrp_quiet_s"] >= 3.0, "%s: started %s s after a VRRP transition"
              % (a["name"], a["settle"]["vrrp_quiet_s"]))
    pw = [a for a in attempts if a["name"] == "lb-poweroff"]
    check(len(pw) == repeats.get("lb-poweroff", 1), "lb-poweroff attempts: %d" % len(pw))
    for a in pw:
        c = a["check"]
        check(c["watches_open_at_t0"] == 50 and c["watches_broken"] == 50,
              "lb-poweroff: %d of %d open watches broke" % (c["watches_broken"],
                                                           c["watches_open_at_t0"]))
        check(c["vip_move_ms"] >= floor_ms, "lb-poweroff: VIP moved in %s ms" % c["vip_move_ms"])
        check(c["first_ok_ms"] is None or c["first_ok_ms"] + 300 >= c["vip_move_ms"],
              "lb-poweroff: served at %s ms, VIP moved at %s ms" % (c["first_ok_ms"],
                                                                     c["vip_move_ms"]))
        check(a["phases"], "lb-poweroff: no phase marked")
    sc = {s["name"]: s for s in rep["runs"][0]["scenarios"]}
    for name, n in repeats.items():
        s = sc[name]
        check(len(s["repeats"]) == n and all(r["valid"] for r in s["repeats"]),
              "%s: repeats %s" % (name, s["repeats"]))
        check(s["stats"]["failed"]["n"] == n, "%s: stats %s" % (name, s["stats"]))
        check(sum(s["causes"].values()) == sum(r["failed"] for r in s["repeats"]) ==
              sum(s["phases"].values()), "%s: causes %s phases %s" % (
                  name, s["causes"], s["phases"]))
    check(rep.get("goals") and all(g["verdict"] in ("met", "clearly met", "within noise",
                                                    "not met", "clearly not met")
                                   for g in rep["goals"]), "goals: %s" % rep.get("goals"))
    return sc


def families(report, stack_events, sc):
    """The IPv6 prober's records and each family's figures: its events
    file (a start line through the IPv6 VIP, requests served), every
    scenario's "ipv6" figures; lb-poweroff's two VIPs moved together,
    never on two hosts, and both families served again. Returns the
    per-family line for the log."""
    with open(os.path.join(report, "lab.json")) as f:
        run = json.load(f)["runs"][0]
    check(run.get("events_v6", "").endswith(stack_events),
          "lab.json: IPv6 events %s" % run.get("events_v6"))
    with open(run["events_v6"]) as f:
        evs = [json.loads(l) for l in f if l.strip()]
    starts = [e for e in evs if e["k"] == "start"]
    check(starts and all(e["server"] == "https://[2001:db8:18::2]:6443" for e in starts),
          "IPv6 prober start lines: %s" % starts)
    ok = [e for e in evs if e["k"] in ("readyz", "lease_get", "lease_put") and e["ok"]]
    # three requests a tick, a tick every 200 ms: at least half of that
    # over the time it ran (the peer's part is a short one)
    span = max(e["t"] for e in evs) - min(e["t"] for e in evs)
    check(span > 30 and len(ok) >= 0.5 * 15 * span,
          "the IPv6 prober was served %d times in %.0f s" % (len(ok), span))
    for name, s in sc.items():
        v6 = s.get("ipv6")
        check(v6 and v6["watches"] == 10 and v6["requests"] > 100,
              "%s: IPv6 figures %s" % (name, v6))
        check(s["stats"]["ipv6_failed"]["n"] == s["valid_runs"], "%s: stats %s" % (
            name, s["stats"]))
    s = sc["lb-poweroff"]
    inv, t = s["invariants"], s["timings"]
    check(inv.get("one_vip6_holder") is True and inv.get("vips_together") is True, inv)
    valid = [r for r in s["repeats"] if r["valid"]]
    check(valid, "lb-poweroff: no valid run")
    for r in valid:
        rt = r["timings"]
        check(rt.get("vip6_move_ms") is not None and rt.get("vip_move_ms") is not None and
              abs(rt["vip6_move_ms"] - rt["vip_move_ms"]) <= 1500,
              "lb-poweroff: the VIPs moved at %s and %s ms" % (rt.get("vip_move_ms"),
                                                            rt.get("vip6_move_ms")))
        check(rt.get("vips_apart_ms") is not None and rt["vips_apart_ms"] <= 1500, rt)
        check(rt.get("serve_ms") is not None and rt.get("serve6_ms") is not None,
              "lb-poweroff: served again over IPv4 at %s ms, over IPv6 at %s ms" % (
                  rt.get("serve_ms"), rt.get("serve6_ms")))
        check(r["ipv6"]["failed"] > 0 and r["ipv6"]["watches_broken"] >= 10 and
              r["ipv6"]["max_gap_ms"] < 60000,
              "lb-poweroff: the IPv6 clients did not see the VIP holder die: %s" % r["ipv6"])
    return ("lb-poweroff per family: IPv4 failed %d gap %d ms, IPv6 failed %d gap %d ms; "
            "VIP moved in %s ms, IPv6 VIP in %s ms, apart %s ms; served again %s / %s ms" % (
                s["failed"], s["max_gap_ms"], s["ipv6"]["failed"], s["ipv6"]["max_gap_ms"],
                t.get("vip_move_ms"), t.get("vip6_move_ms"), t.get("vips_apart_ms"),
                t.get("serve_ms"), t.get("serve6_ms")))


# a 3-minute soak, the seed fixed: its plan (cphalab.soakplan) holds 10
# faults of 6 kinds (a standby and a reload with watches among them), every
# one compound
SOAK_SEED, SOAK_S = 7, 180


def soak(report):
    """cpha lab soak: every fault injected, no invariant broken, the lab
    settled afterwards, the writers' history linearizable."""
    step("cpha lab soak --duration %d --seed %d" % (SOAK_S, SOAK_SEED))
    r = lab("soak", "--duration", str(SOAK_S), "--seed", str(SOAK_SEED), "--report", report,
            check_rc=False, timeout=SOAK_S + 900)
    with open(os.path.join(report, "soak.json")) as f:
        s = json.load(f)
    with open(os.path.join(report, "soak.md")) as f:
        md = f.read()
    check(r.returncode == 0, "cpha lab soak: exit %d\n%s" % (r.returncode, md))
    check(s["faults_injected"] >= 6 and s["compound"] >= 1 and len(s["by_kind"]) >= 3,
          "soak: %d faults injected, %d compound, kinds %s" % (
              s["faults_injected"], s["compound"], s["by_kind"]))
    check(not s["not_injected"], "soak: faults not injected: %s" % s["not_injected"])
    check(not s["not_undone"], "soak: faults whose repair failed: %s" % s["not_undone"])
    check(s["violations"] == [] and s["settled_after"], md)
    a = s["arp"]
    # the client asked every 100 ms and the VIP answered nearly always
    check(not a["error"] and a["requests"] >= SOAK_S * 5 and a["answered"] >= a["requests"] // 2,
          "soak: the ARP watch: %s" % a)
    for name in ("report.md", "report.json", "timeline.svg"):
        check(os.path.exists(os.path.join(report, name)), "soak: no %s" % name)
    v = s["history"]["verdict"]
    check(s["history"]["exit"] == 0 and v.get("linearizable") is True and
          v.get("operations", 0) > 200, "soak: history %s" % s["history"])
    step("soak: %d faults (%d compound), %d s below full service, history of %d operations "
         "linearizable" % (s["faults_injected"], s["compound"],
                           s["seconds_below_full_service"], v["operations"]))


def peer_after_reloads(report):
    """HAProxy + keepalived: lb-poweroff right after 20 reloads of each
    daemon, the start that once gave impossible figures (the VIP on the
    survivor 225 ms after the holder lost power, no watch broken)."""
    step("cpha lab run --peer-only reload-under-load lb-poweroff")
    lab("run", "--peer-only", "--report", report, "reload-under-load", "lb-poweroff")
    sc = instrument(report, "haproxy+keepalived", {"lb-poweroff": 1}, floor_ms=2000)
    s = sc["lb-poweroff"]
    step("peer lb-poweroff after the reloads: failed %d, gap %s ms, VIP moved in %s ms" % (
        s["failed"], s["max_gap_ms"], s["timings"].get("vip_move_ms")))
    # keepalived, dual stack too: a sync group of its own
    step("peer " + families(report, "events-peer-v6.jsonl", sc))


def main():
    if os.geteuid() != 0:
        return util.skip("cpha lab needs root")
    report = os.path.join("/var/tmp", "cpha-lab-test-" + NAME)
    try:
        step("cpha lab up (lab %s)" % NAME)
        lab("up", "--dual-stack", timeout=400)
        r = lab("status")
        check("VIP 198.18.0.2 on: lb" in r.stdout, r.stdout)
        holder = r.stdout.split("VIP 198.18.0.2 on: ")[1].split()[0]
        check("VIP 2001:db8:18::2 on: %s\n" % holder in r.stdout, r.stdout)
        if MONITORING:
            # on a fresh lab: the scenarios below leave rules with a long
            # for: (CphaLBServerFlapping's 5 minutes) firing later
            labmon.targets_and_rules()
            labmon.quiet_minute()
            labmon.daemon_down(report + "-down")
        else:
            step("skipped, the lab's monitoring: %s is not installed (scripts/setup.sh "
                 "installs it)" % labmon.missing())
        step("cpha lab run %s" % " ".join(RUN))
        lab("run", "--report", report, *RUN)
        with open(os.path.join(report, "report.json")) as f:
            rep = json.load(f)
        runs = rep["runs"]
        check(len(runs) == 1 and runs[0]["stack"] == "cpha", "one cpha run: %s" % runs)
        sc = {s["name"]: s for s in runs[0]["scenarios"]}
        check(sorted(sc) == sorted(SCENARIOS), "scenarios %s" % sorted(sc))
        for name, s in sc.items():
            for k in ("requests", "failed", "max_gap_ms", "watches", "watches_broken",
                      "watches_restored_ms", "availability", "invariants"):
                check(k in s, "%s: no %s in %s" % (name, k, s))
            bad = [k for k, v in s["invariants"].items() if v is not True]
            check(not bad, "%s: invariants failed: %s (%s)" % (name, bad, s.get("notes")))
            check(s["watches"] == 50, "%s: %s watches" % (name, s["watches"]))
        for name in ("apiserver-rolling-restart", "reload-under-load"):
            s = sc[name]
            check(s["requests"] > 100, "%s: only %d requests" % (name, s["requests"]))
            check(s["failed"] == 0, "%s: %d requests failed (gap %s ms)" % (
                name, s["failed"], s["max_gap_ms"]))
            check(s["ipv6"]["failed"] == 0, "%s: %d IPv6 requests failed (gap %s ms)" % (
                name, s["ipv6"]["failed"], s["ipv6"]["max_gap_ms"]))
        # every certificate renewed with new keys, rolled out by the
        # runbook's blocks: every master serves the new ones, no alert; its
        # failed requests are the report's goal (docs/lab.md), not asserted
        s = sc["cert-rotation"]
        check(s["valid_runs"] == 1, "cert-rotation: %s" % s.get("notes"))
        check(any("served by m1, m2, m3 of 3" in n for n in s["notes"]), s["notes"])
        check(any("runbook.md:" in m["what"] for m in s["marks"]), s["marks"])
        check("alerts: none fired" in s["notes"], s["notes"])
        print("  cert-rotation: %d failed requests, watches restored in %s ms"
              % (s["failed"], s["watches_restored_ms"]), flush=True)
        # the LB hosts upgraded one at a time through cpha drain/undrain:
        # its failed requests and watches are the report's goals
        s = sc["lb-upgrade"]
        check(s["valid_runs"] == 1, "lb-upgrade: %s" % s.get("notes"))
        check(any("2 of 2 LB hosts run the new lbd, vipd, fenced" in n for n in s["notes"]),
              s["notes"])
        check(any("runbook.md:" in m["what"] and "lb1" in m["what"] for m in s["marks"]) and
              any("runbook.md:" in m["what"] and "lb2" in m["what"] for m in s["marks"]),
              s["marks"])
        check("alerts: none fired" in s["notes"], s["notes"])
        print("  lb-upgrade: %d failed requests, watches restored in %s ms"
              % (s["failed"], s["watches_restored_ms"]), flush=True)
        s = sc["master-poweroff"]
        check(s["invariants"].get("move_after_fence") is True, s)
        # fenced on the masters hands fencing to Pacemaker: it must still
        # run after a fence (it once crashed when it had started before
        # pacemaker-fenced)
        for m in ("m1", "m2", "m3"):
            r = lab("x", m, "fenced", "show", "json", check_rc=False, quiet=True)
            check(r.returncode == 0 and '"quorate":true' in r.stdout,
                  "fenced on %s after master-poweroff: %s %s" % (m, r.stdout, r.stderr))
        s = sc["lb-poweroff"]
        check(s["invariants"].get("vip_after_fence") is True and
              s["invariants"].get("one_vip_holder") is True, s)
        check(s["max_gap_ms"] is not None and s["max_gap_ms"] < 60000,
              "lb-poweroff: gap %s" % s["max_gap_ms"])
        check(s["timings"].get("vip_move_ms") and s["timings"].get("fence_ms") and
              s["timings"]["vip_move_ms"] >= s["timings"]["fence_ms"], s["timings"])
        instrument(report, "cpha", {"lb-poweroff": 2}, floor_ms=0)
        step(families(report, "events-cpha-v6.jsonl", sc))
        with open(os.path.join(report, "report.md")) as f:
            md = f.read()
        check("lab simulator" in md and "lb-poweroff" in md, md[:2000])
        check("| scenario | IPv4 failed | IPv4 max gap ms | IPv6 failed |" in md, md[:3000])
        xml.dom.minidom.parse(os.path.join(report, "timeline.svg"))
        step("report: %d scenarios, every invariant held; %s" % (
            len(sc), ", ".join("%s failed %d gap %s ms" % (n, s["failed"], s["max_gap_ms"])
                               for n, s in sc.items())))
        status_faults()
        if MONITORING:
            labmon.dashboard()
        soak(report + "-soak")
        if MONITORING:
            labmon.peer(report + "-peer-down")
        peer_after_reloads(report + "-peer")
        import shutil
        for d in ("", "-down", "-soak", "-peer-down", "-peer"):
            shutil.rmtree(report + d, ignore_errors=True)  # kept only when the test fails
    finally:
        step("cpha lab down")
        r = lab("down", check_rc=False)
        left = leftovers()
        if r.returncode != 0 or left:
            raise AssertionError("cpha lab down: exit %d, left %s" % (r.returncode, left))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as e:
        print("FAIL: %s" % e, flush=True)
        sys.exit(1)
