"""`cpha lab soak`: a seeded series of random and compound faults on the
running lab (cphalab.soakplan makes the series), the invariants sampled
all along (runner.Monitor), the workload's history (cphalab.workload)
checked for linearizability at the end (`cpha lab check-history`).

The faults run on their own threads, each started at its time whatever
the others do: recovery from one overlaps the next, within the limits the
plan keeps (docs/soak.md). Every fault is undone at its end, and all of
them again when the soak stops (also on an error or SIGTERM): nothing
stays frozen, cut, stopped or off.
"""

import json
import os
import shutil
import signal
import subprocess
import threading
import time

from . import arpwatch, build, events, observe, stackswitch
from . import lab as labmod
from . import runner
from .hosts import LabError

HISTORY = "/var/log/history-%s.jsonl"  # on the client
# kinds of cphalab.soakplan this lab does not draw, and why (the report
# says); every kind is drawn now (a silent BMC falls through to the second
# fence level, the host's stand-in PDU)
NOT_DRAWN = {}
NOT_DRAWN_WHY = {}
SETTLE_TIMEOUT = 240  # s the soak waits for a settled lab, before and after
RESTART_SEC = 5.0  # a unit's Restart=on-failure
# the daemons whose units restart them (Restart=on-failure); the others
# come back through Pacemaker or a fence and boot (soakplan.KILL)
UNIT_RESTARTED = ("fenced", "lbd", "vipd", "haproxy", "keepalived")
RELOAD_SIG = {"lbd": signal.SIGHUP, "vipd": signal.SIGHUP, "haproxy": signal.SIGUSR2,
              "keepalived": signal.SIGHUP}
LOSS_NFT = """table inet cphalab_soak_loss {
    chain in { type filter hook input priority -210; policy accept; numgen random mod 100 < %(p)d drop; }
    chain out { type filter hook output priority -210; policy accept; numgen random mod 100 < %(p)d drop; }
}
"""
PART_NFT = """table inet cphalab_soak_cut {
    chain in { type filter hook input priority -220; policy accept; ip saddr { %(peers)s } drop; }
    chain out { type filter hook output priority -220; policy accept; ip daddr { %(peers)s } drop; }
}
"""
# VRRP (IP protocol 112) from one LB host, dropped where it arrives
ONEWAY_NFT = """table inet cphalab_soak_vrrp {
    chain in { type filter hook input priority -230; policy accept; ip saddr %(peer)s ip protocol 112 drop; }
}
"""


def nft(host, text=None, delete=None):
    argv = ["ip", "netns", "exec", host.netns, "nft"]
    if text is not None:
        subprocess.run(argv + ["-f", "-"], input=text, text=True, capture_output=True,
                       check=True, timeout=10)
    else:
        subprocess.run(argv + ["delete", "table", "inet", delete], capture_output=True,
                       timeout=10)


OCF_DIR = "/resource.d/"


def pids_of(host, daemon):
    """PIDs of daemon on host: a service the lab started, or a process
    whose program (or a stand-in's script) is named daemon. Not the
    resource agent of the same name (ocf:cpha:kube-apiserver is
    .../resource.d/cpha/kube-apiserver): a fault that kills or stops the
    daemon while Pacemaker runs its agent must not hit the agent, whose
    failed stop Pacemaker answers by fencing the host."""
    pid = host.service_pid(daemon)
    if pid:
        return [pid]
    out = []
    for pid, argv in host.processes():
        if any(OCF_DIR in a for a in argv[:2]):
            continue
        names = [os.path.basename(a) for a in argv[:2]]
        if daemon in names:
            out.append(pid)
    return out


def signal_daemon(host, daemon, sig):
    n = 0
    for pid in pids_of(host, daemon):
        try:
            os.kill(pid, sig)
            n += 1
        except ProcessLookupError:
            pass
    return n


class Executor:
    """Starts and undoes each fault of a plan on the lab."""

    def __init__(self, lab, stack, progress):
        self.lab, self.stack, self.progress = lab, stack, progress
        self.lock = threading.Lock()
        self.undo = {}  # fault id -> what undoes it
        self.applied = []  # (fault id, kind, time)
        self.errors = []  # faults that could not be started: (fault id, kind, why)
        # faults started whose repair failed (its undo, or a daemon's
        # restart after a kill): (fault id, kind, why)
        self.undo_errors = []
        self.stop_ev = threading.Event()

    def host(self, name):
        return self.lab.host(name)

    # -- each kind: start it, return its undo (None: nothing to undo) ----------------
    def k_power_off(self, f):
        h = self.host(f.targets[0])
        h.power_off()
        return lambda: self.power_on(h)

    def power_on(self, h):
        # a fence may have rebooted it already, or be booting it
        if not h.powered():
            h.set_power(True)
            build.boot_if_off(self.lab, h)

    def k_bmc_silent(self, f):
        """The host's BMC answers nothing (its ipmi_sim stopped) until the
        end: a fence of the host meanwhile fails at level 1 and must use
        level 2, its PDU."""
        name = "bmc-" + f.targets[0]
        b = self.lab.by_role("bmc")[0]
        pid = b.service_pid(name)
        if not pid:
            raise LabError("%s is not running" % name)
        os.kill(pid, signal.SIGSTOP)

        def undo():
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        return undo

    def k_freeze(self, f):
        h = self.host(f.targets[0])
        h.freeze()
        return h.thaw

    def k_kill(self, f):
        h = self.host(f.targets[0])
        d = f.params["daemon"]
        if not signal_daemon(h, d, signal.SIGKILL):
            raise LabError("%s is not running on %s" % (d, h.name))
        if d in UNIT_RESTARTED:
            # what systemd does for the unit (Restart=on-failure,
            # RestartSec=5): the lab has no systemd
            t = threading.Timer(RESTART_SEC, self.restart, args=(h, d))
            t.daemon = True
            t.start()
        return None

    def restart(self, h, d):
        try:
            with build.host_lock(self.lab, h):  # not while it boots
                if self.stop_ev.is_set() or not h.powered() or h.service_pid(d):
                    return
                if d == "keepalived":
                    build.start_lb_daemons(h)
                elif d == "haproxy":
                    build.start_lb_proxy(h)
                else:
                    build.start_units(h, [d])
        except Exception as e:
            self.undo_errors.append((0, "restart", "%s on %s: %s" % (d, h.name, str(e)[:200])))

    def k_partition(self, f):
        side = [self.host(n) for n in f.targets]
        names = set(f.targets)
        rest = [h for h in self.lab.hosts.values() if h.name not in names]
        cut = []
        for h in side:
            if h.powered():
                nft(h, PART_NFT % {"peers": ", ".join(r.v4 for r in rest)})
                cut.append(h)

        def heal():
            for h in cut:
                nft(h, delete="cphalab_soak_cut")
        return heal

    def k_loss(self, f):
        h = self.host(f.targets[0])
        nft(h, LOSS_NFT % {"p": int(f.params.get("percent", 20))})
        return lambda: nft(h, delete="cphalab_soak_loss")

    def k_flap(self, f):
        h = self.host(f.targets[0])
        period = float(f.params.get("period_s", 4))
        end = time.time() + f.duration
        stop = threading.Event()

        def loop():
            up = True
            while not stop.is_set() and time.time() < end:
                up = not up
                h.link(up)
                stop.wait(period / 2)
            h.link(True)
        t = threading.Thread(target=loop, daemon=True)
        t.start()

        def undo():
            stop.set()
            t.join(period + 2)
            h.link(True)
        return undo

    def k_etcd_stall(self, f):
        h = self.host(f.targets[0])
        if not signal_daemon(h, "etcd", signal.SIGSTOP):
            raise LabError("etcd is not running on %s" % h.name)
        return lambda: signal_daemon(h, "etcd", signal.SIGCONT)

    def k_reload(self, f):
        h = self.host(f.targets[0])
        d = f.params["daemon"]
        if not h.signal(d, RELOAD_SIG[d]):
            pass
        return None

    def k_watch_reload(self, f):
        return self.k_reload(f)

    def k_rolling_restart(self, f):
        t = threading.Thread(target=self.rolling_restart, args=(f.targets,), daemon=True)
        t.start()
        return lambda: t.join(240)

    def rolling_restart(self, order):
        """The operator's rolling restart: cpha restart apiserver on each
        master in turn, each back before the next."""
        for m in [self.host(n) for n in order]:
            if self.stop_ev.is_set():
                return
            if not m.powered():
                continue
            try:
                r = m.run(["cpha", "restart", "apiserver"], check=False, timeout=180)
                if r.returncode != 0:
                    # the master may have been fenced meanwhile: its
                    # effects are judged by the invariants, not here
                    err = (r.stderr or r.stdout).strip().splitlines()
                    self.progress("  rolling restart: %s: cpha restart apiserver: exit %d%s" % (
                        m.name, r.returncode, ": " + err[-1][:200] if err else ""))
                end = time.time() + 60
                while time.time() < end and not self.stop_ev.is_set():
                    if observe.api(self.lab, "/readyz", server=m.v4)[0] == 200:
                        break
                    time.sleep(0.5)
            except Exception as e:  # a master that went away meanwhile
                self.progress("  rolling restart: %s: %s" % (m.name, e))

    def k_lb_both_boot(self, f):
        """Every LB host off, then on together, each booting at once, and
        a reload of params.daemon on each params.reload_at_s after the
        power came back (a configuration pushed while they boot)."""
        lbs = [self.host(n) for n in f.targets]
        for h in lbs:
            h.power_off()

        def undo():
            for h in lbs:
                if not h.powered():
                    h.set_power(True)
            threads = [threading.Thread(target=build.boot_if_off, args=(self.lab, h), daemon=True)
                       for h in lbs if not h.service_pid(self.lb_daemons()[0])]
            for t in threads:
                t.start()
            time.sleep(float(f.params.get("reload_at_s", 2.0)))
            d = f.params.get("daemon", self.lb_daemons()[0])
            for h in lbs:
                if h.service_pid(d):
                    h.signal(d, RELOAD_SIG[d])
            for t in threads:
                t.join(120)
        return undo

    def lb_daemons(self):
        return ("lbd", "vipd") if labmod.is_cpha(self.stack) else ("haproxy", "keepalived")

    def k_advert_oneway(self, f):
        a, b = self.host(f.targets[0]), self.host(f.targets[1])
        nft(b, ONEWAY_NFT % {"peer": a.v4})
        return lambda: nft(b, delete="cphalab_soak_vrrp")

    def k_track_timeout(self, f):
        # the VIP's check asks the load balancer: a load balancer that
        # does not answer makes the check time out
        h = self.host(f.targets[0])
        lb = self.lb_daemons()[0]
        if not signal_daemon(h, lb, signal.SIGSTOP):
            raise LabError("%s is not running on %s" % (lb, h.name))
        return lambda: signal_daemon(h, lb, signal.SIGCONT)

    def k_etcd_quorum_loss(self, f):
        hs = [self.host(n) for n in f.targets]
        for h in hs:
            signal_daemon(h, "etcd", signal.SIGSTOP)
        return lambda: [signal_daemon(h, "etcd", signal.SIGCONT) for h in hs]

    def k_apiserver_graceful_stop(self, f):
        h = self.host(f.targets[0])
        if not signal_daemon(h, "kube-apiserver", signal.SIGTERM):
            raise LabError("kube-apiserver is not running on %s" % h.name)
        return None

    def k_all_apiservers_down(self, f):
        for n in f.targets:
            signal_daemon(self.host(n), "kube-apiserver", signal.SIGTERM)
        return None

    def k_standby(self, f):
        name = f.targets[0]
        via = [m for m in observe.up_masters(self.lab) if m.name != name]
        if not via:
            raise LabError("no master to run crm_standby from")
        via[0].run(["crm_standby", "-N", name, "-v", "on"], timeout=30)

        def undo():
            for m in observe.up_masters(self.lab):
                if m.run(["crm_standby", "-N", name, "-v", "off"], check=False,
                         timeout=30).returncode == 0:
                    return
        return undo

    # -- running ---------------------------------------------------------------------
    def supported(self, kind):
        return hasattr(self, "k_" + kind)

    def start(self, f):
        fn = getattr(self, "k_" + f.kind, None)
        try:
            if fn is None:
                raise LabError("no way to inject it in this lab")
            undo = fn(f)
        except Exception as e:
            self.errors.append((f.id, f.kind, str(e)[:300]))
            self.progress("  fault %d %s: NOT applied: %s" % (f.id, f.kind, e))
            return
        with self.lock:
            self.applied.append((f.id, f.kind, time.time()))
            if undo:
                self.undo[f.id] = undo

    def end(self, f):
        with self.lock:
            undo = self.undo.pop(f.id, None)
        if undo:
            try:
                undo()
            except Exception as e:
                self.undo_errors.append((f.id, f.kind, "undo: %s" % str(e)[:300]))

    def undo_all(self):
        """Whatever is still applied, undone (the soak's end, an error)."""
        self.stop_ev.set()
        with self.lock:
            pending = list(self.undo.items())
            self.undo.clear()
        for fid, undo in pending:
            try:
                undo()
            except Exception as e:
                kind = next((k for i, k, _ in self.applied if i == fid), "?")
                self.undo_errors.append((fid, kind, "undo at the end: %s" % str(e)[:300]))
        for h in self.lab.hosts.values():
            if h.powered():
                for t in ("cphalab_soak_cut", "cphalab_soak_loss", "cphalab_soak_vrrp"):
                    nft(h, delete=t)
                h.link(True)
                if h.frozen():
                    h.thaw()


def voting_members(doc):
    """The voting members in `etcdctl member list -w json`'s answer (learners
    do not vote); None when it holds no member list."""
    if not isinstance(doc, dict) or not isinstance(doc.get("members"), list):
        return None
    return sum(1 for m in doc["members"] if not m.get("isLearner"))


class EtcdWatch(threading.Thread):
    """etcd's voting membership, every ETCD_EVERY_S from a master that
    answers: it must stay odd (the soak changes no membership: an even
    count means a member was added or removed behind its back)."""

    ETCD_EVERY_S = 10.0

    def __init__(self, lab):
        super().__init__(daemon=True)
        self.lab = lab
        self.stop_ev = threading.Event()
        self.bad = []  # (t, voting members)
        self.samples = 0

    def run(self):
        while not self.stop_ev.wait(self.ETCD_EVERY_S):
            try:
                for h in observe.up_masters(self.lab)[:1]:
                    r = observe.etcdctl(h, self.lab.by_role("master"), ["member", "list"])
                    n = voting_members(json.loads(r.stdout)) if r.returncode == 0 else None
                    if n is not None:
                        self.samples += 1
                        if n % 2 == 0:
                            self.bad.append((time.time(), n))
            except Exception:  # a master going away under the sample
                pass

    def stop(self):
        self.stop_ev.set()


def in_flight(plan, t, t0):
    """The faults whose interval holds t (unix time), as "id kind"."""
    s = t - t0
    return ["%d %s" % (f.id, f.kind) for f in plan.faults
            if f.start <= s <= f.start + max(f.duration, 1.0)]


# What may make the cluster fence a host: a fault on that host that takes
# it out of corosync's membership (it is off, frozen, cut, or its link
# loses or flaps; its corosync or Pacemaker's controller killed), and in
# the LB hosts' two-node cluster also a network fault or a freeze of the
# other LB host (each side then sees the other go, and the fence race,
# which the VIP holder wins, picks one).
FENCE_CAUSES = ("power_off", "freeze", "partition", "loss", "flap", "lb_both_boot")
# (fenced's rule: a member whose fenced process dies is fenced)
FENCE_KILLS = ("corosync", "pacemaker-controld", "fenced")
NET_FAULTS = ("partition", "loss", "flap", "freeze")
FENCE_SLACK_S = 30.0  # a fence may come this long after the fault's window


def unexplained_fences(plan, fences, t0):
    """The fences no fault of the plan explains: [(host, s from t0)] of
    fences, each (host, unix time), in whose window (from its start to the
    end of its recovery, plus FENCE_SLACK_S) no fault that can cause a
    fence of that host was. A fence of a host in good standing is a
    violation."""
    out = []
    for host, t in fences:
        s = t - t0
        why = False
        for f in plan.faults:
            if not f.start - 1.0 <= s <= f.window_end + FENCE_SLACK_S:
                continue
            if host in f.targets and (f.kind in FENCE_CAUSES or (
                    f.kind == "kill" and f.params.get("daemon") in FENCE_KILLS)):
                why = True
            elif (host in plan.lbs and f.kind in NET_FAULTS
                  and any(h in plan.lbs for h in f.targets)):
                why = True
            if why:
                break
        if not why:
            out.append((host, round(s, 1)))
    return out


def fences_since(lab, t0):
    """[(host, unix time)] of every fence (a BMC told to power off) since t0."""
    out = []
    for h in lab.by_role("master") + lab.by_role("lb"):
        out += [(h.name, t) for t, e in build.bmc_events(lab, h.name, t0)
                if e.startswith("set power 0")]
    return sorted(out, key=lambda x: x[1])


def below_service(path, t0, t1):
    """From the prober's events: seconds with at least one failed request,
    and the worst windows (runs of such seconds), longest first."""
    if not os.path.exists(path):
        return None, []
    bad = {int(e["t"] - t0) for e in events.read_lines(path, t0, t1)
           if e.get("k") in events.REQUESTS and not e.get("ok")}
    windows, start, prev = [], None, None
    for s in sorted(bad):
        if start is None:
            start = prev = s
        elif s == prev + 1:
            prev = s
        else:
            windows.append((start, prev + 1))
            start = prev = s
    if start is not None:
        windows.append((start, prev + 1))
    windows.sort(key=lambda w: w[0] - w[1])
    return len(bad), windows[:5]


def check_history(path):
    """`cpha lab check-history --json` on path: (exit code, verdict)."""
    r = subprocess.run([build.Programs().cpha, "lab", "check-history", "--json", path],
                       capture_output=True, text=True, timeout=1800)
    try:
        verdict = json.loads(r.stdout)
    except ValueError:
        verdict = {"error": (r.stdout + r.stderr).strip()[-500:]}
    return r.returncode, verdict


def run(lab, a, progress):
    stack = "peer" if a.peer else "cpha"
    os.makedirs(a.report, exist_ok=True)
    masters = [h.name for h in lab.by_role("master")]
    lbs = [h.name for h in lab.by_role("lb")]
    from . import soakplan
    # the lab renders one fence level per host: a silent BMC would only
    # hold a fence past its deadline, with no second level to take over
    plan = soakplan.plan(a.seed, a.duration, masters, lbs, stack=stack,
                         weights=NOT_DRAWN)
    bad = soakplan.plan_check(plan, masters, lbs)
    if bad:
        raise LabError("the plan for seed %d breaks its limits: %s" % (a.seed, "; ".join(bad)))
    ex = Executor(lab, stack, progress)
    skipped = sorted({f.kind for f in plan.faults if not ex.supported(f.kind)})
    progress("soak: seed %d, %g s, stack %s: %d faults (%d compound)%s" % (
        a.seed, a.duration, runner.STACK_NAMES[stack], len(plan.faults),
        sum(1 for f in plan.faults if f.compound),
        "; not injected in this lab: " + ", ".join(skipped) if skipped else ""))
    with open(os.path.join(a.report, "soak-plan.json"), "w") as f:
        f.write(plan.dumps())
    if lab.info.get("stack") != stack:
        stackswitch.switch(lab, stack, progress)
    progress("soak: waiting for a settled lab")
    observe.wait_settled(lab, SETTLE_TIMEOUT, progress)
    client = lab.host("client")
    probe_path = runner.prober_path(lab, stack)
    hist_inside = HISTORY % stack
    hist = client.path(hist_inside)
    for p in (probe_path, hist):
        if os.path.exists(p):
            os.unlink(p)
    runner.start_prober(lab, stack)
    client.start("workload-" + stack, ["cpha", "lab", "workload", "--server",
                                        "%s:6443" % labmod.VIP, "--out", hist_inside,
                                        "--seed", str(a.seed)])
    mon = runner.Monitor(lab)
    mon.start()
    etcdw = EtcdWatch(lab)
    etcdw.start()
    arp = arpwatch.ArpWatch(client.netns, client.v4, labmod.VIP, arpwatch.lb_macs(lab))
    arp.start()
    t0 = time.time()
    timers = []
    done = False
    try:
        for f in plan.faults:
            def go(f=f):
                progress("  fault %d at %.0f s: %s" % (f.id, time.time() - t0, f.describe()))
                ex.start(f)
                if f.duration:
                    t = threading.Timer(f.duration, ex.end, args=(f,))
                    t.daemon = True
                    timers.append(t)
                    t.start()
            t = threading.Timer(max(0.0, t0 + f.start - time.time()), go)
            t.daemon = True
            timers.append(t)
            t.start()
        end = t0 + a.duration
        while time.time() < end:
            time.sleep(min(5, max(0.1, end - time.time())))
            # a host that booted again has a new eth0 (a new address)
            arp.names.update(arpwatch.lb_macs(lab))
        done = True
    finally:
        for t in list(timers):
            t.cancel()
        ex.undo_all()
        if not done:  # failed or stopped: the clients and watches go too
            for w in (mon, etcdw, arp):
                w.stop()
            client.stop("workload-" + stack, timeout=20)
            runner.stop_prober(lab, stack)
    t1 = time.time()
    progress("soak: faults over after %.0f s; waiting for a settled lab" % (t1 - t0))
    settled = True
    try:
        observe.wait_settled(lab, SETTLE_TIMEOUT, progress)
    except LabError as e:
        settled = False
        progress("soak: NOT settled: %s" % e)
    mon.stop()
    etcdw.stop()
    arp.stop()
    client.stop("workload-" + stack, timeout=20)
    runner.stop_prober(lab, stack)
    code, verdict = check_history(hist)
    seconds_bad, windows = below_service(probe_path, t0, t1)
    violations = []
    for inv, samples in mon.bad.items():
        for s in samples:
            violations.append({"invariant": inv, "t": round(s[0] - t0, 1),
                               "detail": [str(x) for x in s[1:]],
                               "faults_in_flight": in_flight(plan, s[0], t0)})
    for t, names in arp.doubles:
        violations.append({"invariant": "one_vip_holder_by_arp", "t": round(t - t0, 1),
                           "detail": names, "faults_in_flight": in_flight(plan, t, t0)})
    for t, n in etcdw.bad:
        violations.append({"invariant": "odd_etcd_voting_members", "t": round(t - t0, 1),
                           "detail": ["%d voting members" % n],
                           "faults_in_flight": in_flight(plan, t, t0)})
    fences = fences_since(lab, t0)
    for host, s in unexplained_fences(plan, fences, t0):
        violations.append({"invariant": "no_fence_without_cause", "t": s,
                           "detail": [host], "faults_in_flight": in_flight(plan, t0 + s, t0)})
    violations.sort(key=lambda v: v["t"])
    kinds = {}
    for fid, kind, _ in ex.applied:
        kinds[kind] = kinds.get(kind, 0) + 1
    report = {
        "seed": a.seed, "duration_s": a.duration, "stack": runner.STACK_NAMES[stack],
        "started": round(t0, 3),
        "faults_planned": len(plan.faults),
        "faults_injected": len(ex.applied),
        "fences": [{"host": h, "t": round(t - t0, 1)} for h, t in fences],
        "compound": sum(1 for f in plan.faults if f.compound
                        and f.id in {fid for fid, _, _ in ex.applied}),
        "by_kind": kinds, "not_injected": [
            {"id": fid, "kind": k, "why": why} for fid, k, why in ex.errors],
        "not_undone": [
            {"id": fid, "kind": k, "why": why} for fid, k, why in ex.undo_errors],
        "seconds_below_full_service": seconds_bad,
        "worst_windows_s": [list(w) for w in windows],
        "not_drawn": dict(NOT_DRAWN_WHY),
        "violations": violations, "settled_after": settled,
        # the client's ARP requests for the VIP, and the moves the
        # address reads caught half-way (not violations: runner.Monitor)
        "arp": {"requests": arp.rounds, "answered": arp.answered,
                "answered_twice": len(arp.doubles), "error": arp.error},
        # runner.Monitor.leader_sample: reads of each program's own
        # leader_election_master_status, and those in which one led
        "lease_reads": {p: {"reads": n, "with_a_leader": k}
                        for p, (n, k) in sorted(mon.leader_reads.items())},
        "vip_moves_seen_between_reads": [
            {"t": round(t - t0, 1), "family": "IPv6" if fam else "IPv4",
             "first_read": hs, "second_read": hs2} for t, fam, hs, hs2 in mon.moves],
        "history": {"exit": code, "verdict": verdict},
    }
    with open(os.path.join(a.report, "soak.json"), "w") as f:
        json.dump(report, f, indent=2)
    with open(os.path.join(a.report, "soak.md"), "w") as f:
        f.write(markdown(report))
    try:
        scenario_report(lab, a.report, stack, probe_path, plan, ex.applied, t0, t1,
                        report, mon.no_vip_phases(t1))
    except (LabError, OSError, subprocess.SubprocessError) as e:
        progress("soak: %s" % e)
    # an instrument that did not run checked nothing: the soak fails
    arp_ok = not arp.error and arp.rounds > 0 and arp.answered > 0
    if not arp_ok:
        progress("soak: the ARP watch did not run: %s" % arp_line(report["arp"]))
    lease_ok = lease_reads_ok(report["lease_reads"])
    if not lease_ok:
        progress("soak: the Lease reads saw no leader: %s" % lease_line(report["lease_reads"]))
    ok = not violations and code == 0 and settled and arp_ok and lease_ok
    progress("soak: %d faults injected (%d compound), %d violations, history %s, %s; "
             "report in %s" % (report["faults_injected"], report["compound"], len(violations),
                               {0: "linearizable", 1: "NOT linearizable"}.get(
                                   code, "not checked (exit %d)" % code),
                               "settled" if settled else "NOT settled", a.report))
    return 0 if ok else 1


INVARIANTS = ("one_vip_holder", "one_vip_holder_by_arp", "one_controller_manager",
              "one_scheduler", "no_fence_overdue", "odd_etcd_voting_members",
              "no_fence_without_cause")


def soak_scenario(report, plan, applied, t0, t1, phases):
    """The soak as one attempt of lab.json (the scenarios' format): its
    invariants, each fault injected as a mark, each violation as a note."""
    by_id = {f.id: f for f in plan.faults}
    seen = {v["invariant"] for v in report["violations"]}
    inv = {k: k not in seen for k in INVARIANTS}
    inv["linearizable"] = report["history"]["exit"] == 0
    inv["settled"] = bool(report["settled_after"])
    marks = [{"t": t, "what": "fault %d: %s" % (fid, by_id[fid].what() if fid in by_id else kind)}
             for fid, kind, t in applied]
    notes = ["seed %d, %d faults injected (%d compound)" % (
        report["seed"], report["faults_injected"], report["compound"])]
    notes += ["%s at +%.1f s (%s); faults in flight: %s" % (
        v["invariant"], v["t"], " ".join(v["detail"]),
        ", ".join(v["faults_in_flight"]) or "none") for v in report["violations"]]
    return {"name": "soak", "repeat": 1, "start": t0, "end": t1, "t0": t0, "started": True,
            "valid": True, "invariants": inv, "marks": marks, "notes": notes,
            "phases": phases}


def scenario_report(lab, out, stack, probe_path, plan, applied, t0, t1, report, phases):
    """report.md, report.json and timeline.svg in out, as the scenarios
    write them (`cpha lab report` on a lab.json of one attempt)."""
    kept = os.path.join(out, "events-%s.jsonl" % stack)
    if os.path.exists(probe_path):
        shutil.copyfile(probe_path, kept)
    else:
        open(kept, "w").close()
    doc = {"lab": {"name": lab.name, "binaries": lab.info.get("binaries", {}),
                   "hosts": [{"name": h.name, "role": h.role, "address": h.v4}
                             for h in lab.hosts.values()],
                   "started": lab.info.get("started")},
           "runs": [{"stack": runner.STACK_NAMES[stack], "events": kept,
                     "scenarios": [soak_scenario(report, plan, applied, t0, t1, phases)]}]}
    labjson = os.path.join(out, "lab.json")
    with open(labjson, "w") as f:
        json.dump(doc, f, indent=1)
    r = build.cpha(build.Programs(), ["lab", "report", "--in", labjson, "--out", out],
                   check=False)
    if r.returncode != 0:
        raise LabError("cpha lab report: %s%s" % (r.stdout, r.stderr))


def arp_line(a):
    if not a:
        return "not watched"
    if a.get("error"):
        return "not watched (%s)" % a["error"]
    return "%d sent, %d answered, %d answered by two hosts" % (
        a["requests"], a["answered"], a["answered_twice"])


def lease_reads_ok(reads):
    """Both programs' own Lease status was read, and a leader seen: reads
    that never found one checked nothing (a program that serves no such
    gauge, or a client refused)."""
    return all(reads.get(p, {}).get("with_a_leader", 0) > 0
               for p in ("kube-controller-manager", "kube-scheduler"))


def lease_line(reads):
    if not reads:
        return "none"
    return "; ".join("%s %d, a leader in %d" % (p, v["reads"], v["with_a_leader"])
                     for p, v in sorted(reads.items()))


def markdown(r):
    out = ["# cpha lab soak: seed %d, %g s, %s" % (r["seed"], r["duration_s"], r["stack"]), "",
           "- faults: %d planned, %d injected, %d of them compound" % (
               r["faults_planned"], r["faults_injected"], r["compound"]),
           "- by kind: " + ", ".join("%s %d" % kv for kv in sorted(r["by_kind"].items())),
           "- seconds below full service (a prober request failed): %s" %
           r["seconds_below_full_service"],
           "- worst windows (s from the start): " + (", ".join(
               "%d-%d" % tuple(w) for w in r["worst_windows_s"]) or "none"),
           "- fences: %s" % (", ".join("%s at %.0f s" % (f["host"], f["t"])
                                       for f in r.get("fences", [])) or "none"),
           "- the lab settled afterwards: %s" % ("yes" if r["settled_after"] else "NO"),
           "- the client's ARP requests for the VIP: %s" % arp_line(r.get("arp")),
           "- the programs' own Lease status read (leader_election_master_status): %s" %
           lease_line(r.get("lease_reads")),
           "- VIP moves caught between two reads of the hosts (not two holders): %d" %
           len(r.get("vip_moves_seen_between_reads", [])),
           "- history: exit %d, %s" % (r["history"]["exit"], json.dumps(
               r["history"]["verdict"])), "", "## Violations", ""]
    if not r["violations"]:
        out.append("None.")
    for v in r["violations"]:
        out.append("- %.1f s: %s %s; faults in flight: %s" % (
            v["t"], v["invariant"], " ".join(v["detail"]), ", ".join(v["faults_in_flight"])
            or "none"))
    if r["not_injected"]:
        out += ["", "## Faults not injected", ""]
        out += ["- %d %s: %s" % (e["id"], e["kind"], e["why"]) for e in r["not_injected"]]
    if r.get("not_undone"):
        out += ["", "## Faults injected whose repair failed", ""]
        out += ["- %d %s: %s" % (e["id"], e["kind"], e["why"]) for e in r["not_undone"]]
    if r.get("not_drawn"):
        out += ["", "## Kinds this lab does not draw", ""]
        out += ["- %s: %s" % kv for kv in sorted(r["not_drawn"].items())]
    return "\n".join(out) + "\n"
