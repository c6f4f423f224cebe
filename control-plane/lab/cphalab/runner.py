"""cpha lab run: the prober on the client, the scenarios, the invariant
monitor, and the report (cpha lab report)."""

import json
import os
import shutil
import threading
import time

from . import alerts, build, events, judge, observe, scenarios, stackswitch
from . import lab as labmod
from .events import EventLog
from .hosts import LabError, write_json

STACK_NAMES = {"cpha": "cpha", "peer": "haproxy+keepalived",
               "peer-preempt": "haproxy+keepalived (preempt)",
               labmod.TWO_NODE: "cpha (two_node, no quorum device)"}
START_TIMEOUT = 150  # s a scenario waits for a settled start before it is "not started"
DEFAULT_SECONDS = 80  # a run's length before one was seen, for the time left
SWITCH_SECONDS = 45  # a change of stack on the LB hosts, for the time left
# scenarios that report the longest time without a controller-manager
NO_KCM_MEASURED = {"k8s-minor-upgrade", "cert-rotation"}


class Monitor(threading.Thread):
    """Samples the lab every 250 ms while a scenario runs: never two VIP
    holders, never two controller-managers or schedulers acting (running
    on masters that are powered and on the network, or, every 2 s, each
    saying it holds the Lease), no fence overdue; in a
    dual-stack lab never two IPv6 VIP holders either, and how long the
    two VIPs were apart (judge.vips_apart)."""

    def __init__(self, lab):
        super().__init__(daemon=True)
        self.lab = lab
        self.stop_ev = threading.Event()
        self.reset()

    def reset(self):
        self.bad = {"one_vip_holder": [], "one_controller_manager": [], "one_scheduler": [],
                    "no_fence_overdue": []}
        if self.lab.dual_stack:
            self.bad["one_vip6_holder"] = []
        self.apart_samples = []  # (t, the two VIPs apart)
        self.no_kcm_samples = []  # (t, no controller-manager running on a live master)
        self.samples = 0
        # program: [reads of its leader_election_master_status, reads in
        # which one said it leads]
        self.leader_reads = {}
        self.no_vip = []  # [from, to] while no live LB host held the VIP
        self.no_vip_since = None
        self.vip_samples = []  # (t, two or more live LB hosts held the VIP)
        # (t, "" or "6", the first read's holders, the second read's):
        # a VIP seen on two hosts that the first no longer held when read
        # again (a move between the reads, not two holders)
        self.moves = []

    def no_vip_phases(self, end):
        """The sampled intervals without a VIP holder, up to end: cut at
        end, and none that begins after it (the monitor samples on while
        the run ends; an interval it opened after end is not the run's)."""
        spans = list(self.no_vip)
        if self.no_vip_since is not None:
            spans.append((self.no_vip_since, end))
        return [{"phase": "no_vip", "from": a, "to": min(b, end)} for a, b in spans
                if a < min(b, end)]

    def run(self):
        while not self.stop_ev.is_set():
            try:
                self.sample()
            except Exception as e:  # a sample that failed is not a violation
                if "powered off" not in str(e):
                    pass
            self.stop_ev.wait(0.25)

    def sample(self):
        lab = self.lab
        now = time.time()
        holders, holders6 = observe.vip_holders_both(lab)
        if len(holders) > 1 or len(holders6) > 1:
            # the hosts are read one after the other: a VIP moving from
            # the first to the second between the two reads shows on
            # both. Two held it at once only if the first still holds it
            # when read again, after the second was seen holding it.
            again, again6 = observe.vip_holders_both(lab)
            for fam, hs, hs2 in (("", holders, again), ("6", holders6, again6)):
                if len(hs) > 1 and hs[0] not in hs2:
                    self.moves.append((now, fam, list(hs), hs2))
                    hs[:] = hs2
        self.vip_samples.append((now, len(holders) > 1))
        if len(holders) > 1:
            self.bad["one_vip_holder"].append((now, holders))
        if lab.dual_stack:
            if len(holders6) > 1:
                self.bad["one_vip6_holder"].append((now, holders6))
            self.apart_samples.append((now, judge.vips_apart(holders, holders6)))
        if not holders and self.no_vip_since is None:
            self.no_vip_since = now
        elif holders and self.no_vip_since is not None:
            self.no_vip.append((self.no_vip_since, now))
            self.no_vip_since = None
        connected = {h.name for h in observe.up_masters(lab)}
        for inv, prog in (("one_controller_manager", "kube-controller-manager"),
                          ("one_scheduler", "kube-scheduler")):
            running = {h for h, _ in observe.acting(lab, prog)}
            acting = sorted(running & connected)
            if len(acting) > 1:
                self.bad[inv].append((now, acting))
            if self.samples % 8 == 4 and running:
                self.leader_sample(now, inv, prog, running)
            if prog == "kube-controller-manager":
                self.no_kcm_samples.append((now, not acting))
        if self.samples % 8 == 0:
            for h in lab.by_role("lb"):
                # a hung host's fenced would not answer: no sample
                if h.powered() and h.link_up() and not h.frozen():
                    s = observe.fenced_show(h) or {}
                    for p in s.get("pending", []):
                        # due_in: seconds until the fence is due; below 0 it
                        # should have started (a second's grace for the poll)
                        if p.get("due_in", 0) < -1.0:
                            self.bad["no_fence_overdue"].append((now, h.name, p))
        self.samples += 1

    def leader_sample(self, now, inv, prog, running):
        """Every 2 s: the Lease as each running process sees it (its own
        leader_election_master_status), on every powered master, cut off
        or not: client-go's old leader stops leading (renew deadline)
        before a new one may take the Lease (lease duration), so two that
        say they lead at once both act. A frozen process acts on nothing
        (and would not answer)."""
        hosts = [h for h in self.lab.by_role("master")
                 if h.name in running and h.powered() and not h.frozen()]
        if not hosts:
            return
        leaders = sorted(observe.leading(hosts, prog))
        reads = self.leader_reads.setdefault(prog, [0, 0])
        reads[0] += 1
        if leaders:
            reads[1] += 1
        if len(leaders) > 1:
            self.bad[inv].append((now, leaders, "each holds the Lease by its own account"))

    def stop(self):
        self.stop_ev.set()


def kubectl_loop(lab, path, stop_ev):
    """The real kubectl from the client, when present: /readyz each second,
    the Leases every five."""
    client = lab.host("client")
    i = 0
    with open(path, "a") as f:
        while not stop_ev.is_set():
            args = ["get", "--raw", "/readyz"] if i % 5 else ["get", "leases", "-n",
                                                              "kube-system"]
            t = time.time()
            try:
                r = client.run(["kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf",
                                "--request-timeout=3s"] + args, check=False, timeout=10)
                ok = r.returncode == 0
                err = "" if ok else (r.stderr.strip().splitlines() or [""])[-1][:200]
            except Exception as e:
                ok, err = False, str(e)[:200]
            f.write(json.dumps({"t": t, "k": "kubectl " + args[1], "ok": ok, "err": err})
                    + "\n")
            f.flush()
            i += 1
            stop_ev.wait(1)


def kubectl_summary(path, start, end):
    ok = bad = 0
    try:
        with open(path) as f:
            for line in f:
                e = json.loads(line)
                if start <= e["t"] <= end:
                    ok, bad = (ok + 1, bad) if e["ok"] else (ok, bad + 1)
    except (OSError, ValueError):
        return None
    return "kubectl (real): %d ok, %d failed" % (ok, bad)


def lost_writes(path, start, end):
    return sum(1 for e in events.read_lines(path, start, end) if e.get("k") == "lost_write")


def serve_again(path, t0, end):
    """ms from t0 to the first successful request after the last failed one
    (0: no request failed after t0)."""
    last_bad, first_ok_after = None, None
    reqs = ("readyz", "lease_get", "lease_put")
    try:
        with open(path) as f:
            evs = [json.loads(l) for l in f if l.strip()]
    except (OSError, ValueError):
        return None
    evs = [e for e in evs if e.get("k") in reqs and t0 <= e.get("t", 0) <= end]
    for e in evs:
        if not e.get("ok"):
            last_bad = e["t"]
    if last_bad is None:
        return 0
    for e in evs:
        if e.get("ok") and e["t"] > last_bad:
            first_ok_after = e["t"] if first_ok_after is None else min(first_ok_after, e["t"])
    return None if first_ok_after is None else int(round((first_ok_after - t0) * 1000))


def prober_path(lab, stack):
    client = lab.host("client")
    return os.path.join(client.dir, "log", "probe-%s.jsonl" % stack)


def prober_path6(lab, stack):
    """The IPv6 prober's events file (a dual-stack lab)."""
    client = lab.host("client")
    return os.path.join(client.dir, "log", "probe-%s-v6.jsonl" % stack)


# the IPv6 prober: its own Lease (the two would race for one), fewer
# watches (enough to see them break and reopen) and half the ticks: the
# lab's two cores carry both probers' TLS handshakes, and a gap of seconds
# needs no finer grain than 200 ms
TAIL_S = 3  # seconds after the settle that still count for the run
PROBE6_LEASE = "cpha-lab-probe-v6"
PROBE6_WATCHES = 10
PROBE6_INTERVAL = "200ms"


def prober_names(lab, stack):
    """The client's prober services of stack: the IPv4 one, and the IPv6
    one in a dual-stack lab."""
    return ["probe-" + stack] + (["probe-%s-v6" % stack] if lab.dual_stack else [])


def start_prober(lab, stack):
    """The prober of stack on the client, appending to its events file;
    in a dual-stack lab a second one through the IPv6 VIP, to its own."""
    client = lab.host("client")
    tls = ["--server-name", "kubernetes", "--cacert", "/etc/kubernetes/pki/ca.pem",
           "--cert", "/etc/kubernetes/pki/admin.pem", "--key",
           "/etc/kubernetes/pki/admin-key.pem"]
    client.start("probe-" + stack, [
        "cpha", "lab", "probe", "--server", "https://%s:6443" % labmod.VIP] + tls + [
        "--out", "/var/log/probe-%s.jsonl" % stack])
    if lab.dual_stack:
        client.start("probe-%s-v6" % stack, [
            "cpha", "lab", "probe", "--server", "https://[%s]:6443" % labmod.VIP6] + tls + [
            "--lease", PROBE6_LEASE, "--watches", str(PROBE6_WATCHES),
            "--interval", PROBE6_INTERVAL,
            "--out", "/var/log/probe-%s-v6.jsonl" % stack])
    time.sleep(1)
    for name in prober_names(lab, stack):
        if not client.service_pid(name):
            raise LabError("the prober %s did not start: %s" % (name, open(os.path.join(
                client.dir, "logs", "%s.log" % name)).read()[-1500:]))


def stop_prober(lab, stack):
    for name in prober_names(lab, stack):
        lab.host("client").stop(name, timeout=10)


class Session:
    """One `cpha lab run`: the stack on the LB hosts with its prober, the
    real kubectl beside it, the invariant monitor, and every attempt."""

    def __init__(self, lab, stacks, progress, report_dir):
        self.lab, self.progress, self.report_dir = lab, progress, report_dir
        self.stack = None
        self.events, self.events6 = {}, {}
        for s in stacks:
            for d, path in ((self.events, prober_path), (self.events6, prober_path6)):
                if d is self.events6 and not lab.dual_stack:
                    continue
                p = path(lab, s)
                if os.path.exists(p):
                    os.unlink(p)
                d[s] = EventLog(p)
        self.attempts = {s: [] for s in stacks}
        self.kpath = os.path.join(report_dir, "kubectl.jsonl")
        if os.path.exists(self.kpath):
            os.unlink(self.kpath)
        self.kstop = threading.Event()
        threading.Thread(target=kubectl_loop, args=(lab, self.kpath, self.kstop),
                         daemon=True).start()
        self.mon = Monitor(lab)
        self.mon.start()

    def use(self, stack):
        """The LB hosts run stack, its prober running."""
        if self.stack == stack:
            return
        if self.stack:
            stop_prober(self.lab, self.stack)
        if self.lab.info.get("stack") != stack:
            self.progress("stack %s: rendering and starting %s on the LB hosts" % (
                STACK_NAMES[stack],
                "lbd, vipd" if labmod.is_cpha(stack) else "haproxy, keepalived"))
            stackswitch.switch(self.lab, stack, self.progress)
        start_prober(self.lab, stack)
        self.stack = stack

    def close(self):
        self.mon.stop()
        self.kstop.set()
        if self.stack:
            stop_prober(self.lab, self.stack)


def wait_start(lab, events, progress, timeout, events6=None):
    """Wait, bounded, for a settled start (judge.settle_reasons), clearing
    Pacemaker's failed actions of earlier faults once, as an operator does
    after an incident. events6: the IPv6 prober's (dual stack). Returns
    (facts, why, notes): why is "" when settled."""
    deadline = time.time() + timeout
    last, notes, cleaned = "", [], False
    while True:
        try:
            f = observe.settle_facts(lab, events, events6=events6)
            reasons = judge.settle_reasons(f)
        except LabError as e:
            f, reasons = {}, [str(e)]
        what, why = judge.settle_decide(reasons, time.time(), deadline, cleaned)
        if what == "go":
            return f, "", notes
        if what == "give_up":
            return f, why, notes
        if what == "cleanup":
            m = observe.up_masters(lab)
            if m:
                m[0].run(["crm_resource", "--cleanup"], check=False, timeout=60)
                notes.append("cleared before the start: " + why)
            cleaned = True
        if why != last:
            progress("  settling: " + why)
            last = why
        time.sleep(1)


def settle_summary(f, waited):
    """What the report keeps of a settled start: how long it was waited
    for, the VIP holder, how long VRRP had been quiet."""
    lbs = f.get("lbs") or []
    changes = [l["last_change"] for l in lbs if l.get("last_change")]
    return {"waited_s": round(waited, 1),
            "vip_holder": next((l["name"] for l in lbs if l.get("vip")), None),
            "vrrp_quiet_s": round(f["now"] - max(changes), 1) if changes and "now" in f
            else None}


def run_attempt(sess, stack, name, rnd, attempt):
    """One run of a scenario on stack: a settled start, the fault, the
    lab settled again, and its validity. Returns its lab.json object."""
    lab, progress = sess.lab, sess.progress
    ev = sess.events[stack]
    ev6 = sess.events6.get(stack)
    prep, prep_err = scenarios.PREPARE.get(name), ""
    if prep:
        try:
            prep(lab, stack, progress)
        except LabError as e:
            prep_err = "its preparation failed: %s" % e
    t_wait = time.time()
    facts, why, notes = wait_start(lab, ev, progress, START_TIMEOUT, ev6)
    why = prep_err or why
    base = {"name": name, "repeat": rnd, "attempt": attempt,
            "settle": settle_summary(facts, time.time() - t_wait)}
    if why:
        now = time.time()
        progress("  NOT STARTED: " + why)
        return dict(base, start=now, end=now, started=False, valid=False,
                    invalid_reason="not started: " + why, notes=notes, invariants={},
                    timings={}, marks=[], phases=[], t0=None)
    fn = dict(scenarios.SCENARIOS)[name]
    ctx = scenarios.Ctx(lab, progress, stack, facts, ev)
    ctx.events6 = ev6
    ctx.notes += notes
    sess.mon.reset()
    # alerts firing already belong to an earlier run (or a rule's window)
    watching = alerts.running(lab)
    carried = alerts.active(lab, "firing") if watching else set()
    start = time.time()
    err, t0 = None, None
    try:
        t0 = fn(ctx)
        observe.wait_settled(lab, 240, progress)
    except LabError as e:
        err = str(e)
        ctx.notes.append("scenario error: " + err)
        progress("  ERROR: " + err)
        try:
            observe.wait_settled(lab, 180, progress)
        except LabError as e2:
            ctx.notes.append("did not settle: %s" % e2)
    # the tail: requests in flight at the settle complete (the prober's
    # timeout is 2 s), and Alertmanager's notifications (group_wait 0s)
    # reach the recorder
    time.sleep(TAIL_S)
    end = time.time()
    if t0:
        ctx.timings["serve_ms"] = serve_again(ev.path, t0, end)
        if ev6:
            ctx.timings["serve6_ms"] = serve_again(ev6.path, t0, end)
    if ev6:
        # a VRRP sync group moves both VIPs at once
        apart = judge.longest_ms(sess.mon.apart_samples, end)
        ctx.timings["vips_apart_ms"] = apart
        ctx.invariants["vips_together"] = apart <= judge.VIPS_APART_MAX_MS
        if apart > judge.VIPS_APART_MAX_MS:
            ctx.notes.append("the two VIPs were apart for %d ms (at most %d)" % (
                apart, judge.VIPS_APART_MAX_MS))
    if name in NO_KCM_MEASURED:
        # a restart of the controller-manager, which runs once in the
        # cluster, leaves none for as long as its stop and start take
        ctx.timings["no_controller_manager_ms"] = judge.longest_ms(sess.mon.no_kcm_samples, end)
    if name == "lb-hang":
        # the monitor's samples and the scenario's finer ones (after the
        # thaw, and a failback's): for keepalived, the new holder beside
        # the hung one, whose kernel still has the VIP; for cpha 0
        ctx.timings["two_vip_ms"] = judge.intervals_ms(
            sorted(sess.mon.vip_samples + ctx.vip_samples), end)
    inv = {k: not v for k, v in sess.mon.bad.items()}
    for k, v in sess.mon.bad.items():
        if v:
            ctx.notes.append("%s violated %d times, first at +%.1f s: %s" % (
                k, len(v), v[0][0] - start, v[0][1:]))
    members = observe.etcd_members(lab)
    inv["etcd_odd"] = bool(members) and len(members) % 2 == 1
    if name not in scenarios.RESTORES_SNAPSHOT:
        inv["no_lost_write"] = lost_writes(ev.path, start, end) == 0 and (
            not ev6 or lost_writes(ev6.path, start, end) == 0)
    inv["settled"] = err is None
    inv.update(ctx.invariants)
    fired = None
    if watching:
        fired = alerts.timeline(alerts.recorded(lab, start, end), start, end, t0 or start,
                                carried)
        fired = alerts.attribute(fired, [alerts.active_since(lab, a) for a in fired], start)
        ctx.notes += [alerts.describe(a) for a in fired] or ["alerts: none fired"]
        if labmod.is_cpha(stack):
            # the peer's rules are the community's (peer-rules.yml): what
            # they saw is reported, cpha's are judged
            missed, spurious = alerts.judge(name, fired, alerts.active(lab, "firing"))
            if missed:
                ctx.notes.append("alerts missed: " + ", ".join(missed))
            if spurious:
                ctx.notes.append("alerts spurious: " + ", ".join(spurious))
            inv["alerts_as_expected"] = not missed and not spurious
    note = kubectl_summary(sess.kpath, start, end)
    if note:
        ctx.notes.append(note)
    # the monitor's sampled intervals without a VIP holder, where the
    # scenario marked none itself (a failback's, after its own)
    phases = list(ctx.phases)
    last = max([p["to"] for p in phases], default=0.0)
    phases += [p for p in sess.mon.no_vip_phases(end) if p["from"] > last]
    ev.poll()
    if ev6:
        ev6.poll()
    check = dict(ctx.check)
    if err:
        check["error"] = err
    # a scenario without one fault time faults from its start
    opened = ev.open_at(t0 or start)
    check["watches_open_at_t0"] = len(opened)
    check["watches_broken"] = len(ev.broken_between(t0 or start, end) & opened)
    valid, why = judge.validity(name, check)
    progress("  done in %.0f s; %s; invariants %s" % (
        end - start, "valid" if valid else "INVALID: " + why, "all held" if all(
            inv.values()) else "FAILED: " + ", ".join(k for k, v in inv.items() if not v)))
    out = dict(base, start=start, end=end, t0=t0, started=True, valid=valid, invariants=inv,
               timings=ctx.timings, marks=ctx.marks, notes=ctx.notes, phases=phases,
               check=check)
    if fired is not None:
        out["alerts"] = fired
    if not valid:
        out["invalid_reason"] = why
    return out


def run(lab, a, progress):
    known = [n for n, _ in scenarios.SCENARIOS]
    if not 1 <= a.repeat <= 20:
        raise LabError("--repeat %d: 1 to 20 runs per stack" % a.repeat)
    try:
        names, counts = judge.parse_counts(a.scenarios or known, a.repeat)
    except ValueError as e:
        raise LabError(str(e))
    for n in names:
        if n not in known:
            raise LabError("unknown scenario %r (known: %s)" % (n, " ".join(known)))
    stacks = ["peer"] if a.peer_only else (["cpha", "peer"] if a.peer else ["cpha"])
    only = {}
    if a.two_node and not lab.info.get("qdevice"):
        raise LabError("--two-node compares with the quorum device: the lab was not up "
                       "with --qdevice")
    for opt, given, stack in (("--peer-preempt", a.peer_preempt, "peer-preempt"),
                              ("--two-node", a.two_node, labmod.TWO_NODE)):
        if not given:
            continue
        try:
            xn, xc = judge.parse_counts(given, a.repeat)
        except ValueError as e:
            raise LabError(str(e))
        for n in xn:
            if n not in known:
                raise LabError("%s: unknown scenario %r" % (opt, n))
            if n not in names:
                names.append(n)
                counts[n] = 0
        stacks.append(stack)
        only[stack] = xc
    report = os.path.abspath(a.report)
    os.makedirs(report, exist_ok=True)
    plan = judge.schedule(names, counts, stacks, only)
    skipped = sorted({n for _, st, n in plan if n in scenarios.CPHA_ONLY and
                      not labmod.is_cpha(st)})
    if skipped:
        plan = [p for p in plan if not (p[2] in scenarios.CPHA_ONLY and
                                        not labmod.is_cpha(p[1]))]
        progress("%s: cpha's stack only (the peer has no such procedure here)"
                 % ", ".join(skipped))
    # a hang left by a run that was killed mid-scenario: thawed, or no
    # run would ever start settled
    for h in lab.by_role("lb") + lab.by_role("master"):
        if h.frozen():
            h.thaw()
            progress("%s was left hung by an earlier run: thawed" % h.name)
    seconds = {}
    tried, extra = {}, {}
    sess = Session(lab, stacks, progress, report)
    try:
        i = 0
        while i < len(plan):
            rnd, stack, name = plan[i]
            sess.use(stack)
            key = (stack, name)
            tried[key] = tried.get(key, 0) + 1
            left = judge.time_left(plan[i:], seconds, DEFAULT_SECONDS, SWITCH_SECONDS, stack)
            progress("run %d of %d: %s %s, repeat %d (attempt %d); about %d min left" % (
                i + 1, len(plan), STACK_NAMES[stack], name, rnd, tried[key],
                round(left / 60.0)))
            t = time.time()
            out = run_attempt(sess, stack, name, rnd, tried[key])
            sess.attempts[stack].append(out)
            seconds.setdefault(key, []).append(time.time() - t)
            if judge.retry(extra.get(key, 0), out["valid"], only.get(stack, counts).get(name, 1)):
                extra[key] = extra.get(key, 0) + 1
                progress("  run again (an invalid run counts in no figure)")
                continue
            i += 1
    finally:
        sess.close()
    runs = []
    for s in stacks:
        kept = os.path.join(report, "events-%s.jsonl" % s)
        if os.path.exists(sess.events[s].path):
            shutil.copyfile(sess.events[s].path, kept)
        else:
            open(kept, "w").close()
        runs.append({"stack": STACK_NAMES[s], "events": kept, "scenarios": sess.attempts[s]})
        if s in sess.events6:
            kept = os.path.join(report, "events-%s-v6.jsonl" % s)
            if os.path.exists(sess.events6[s].path):
                shutil.copyfile(sess.events6[s].path, kept)
            else:
                open(kept, "w").close()
            runs[-1]["events_v6"] = kept
    doc = {"lab": {"name": lab.name, "binaries": lab.info.get("binaries", {}),
                   "hosts": [{"name": h.name, "role": h.role, "address": h.v4}
                             for h in lab.hosts.values()],
                   "started": lab.info.get("started")},
           "runs": runs}
    if lab.dual_stack:
        doc["lab"]["vips"] = [labmod.VIP, labmod.VIP6]
    labjson = os.path.join(report, "lab.json")
    write_json(labjson, doc)
    progs = build.Programs()
    r = build.cpha(progs, ["lab", "report", "--in", labjson, "--out", report], check=False)
    if r.returncode != 0:
        raise LabError("cpha lab report: %s%s" % (r.stdout, r.stderr))
    progress("report: %s/report.md, report.json, timeline.svg" % report)
    return 0
