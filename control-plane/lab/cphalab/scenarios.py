"""The scenarios: each breaks the lab the way hosts really fail and says
what it saw. A scenario returns marks, timings and notes; the runner
wraps it with the prober's window, the invariant monitor and the settle.
"""

import os
import shutil
import signal
import threading
import time

from . import build, judge, k8supgrade, masters, observe
from . import events as events_mod
from . import lab as labmod
from .hosts import LabError, wait_until


class Ctx:
    """What a scenario is given (the lab, its stack, the facts of its
    settled start, the prober's events) and what it says: marks, timings,
    notes, invariants, the facts its validity is judged on (check, see
    judge.validity) and the phases its failed requests fall in."""

    def __init__(self, lab, progress, stack, start_facts=None, events=None):
        self.lab = lab
        self.progress = progress
        self.stack = stack
        self.start_facts = start_facts or {}
        self.events = events
        self.events6 = None  # the IPv6 prober's, in a dual-stack lab
        self.marks = []
        self.timings = {}
        self.notes = []
        self.invariants = {}
        self.check = {}
        self.phases = []
        self.lb_down = None  # when the load balancer marked a dead apiserver down
        self.vip_samples = []  # (t, VIP on two hosts), beside the monitor's

    def mark(self, what):
        self.marks.append({"t": time.time(), "what": what})
        self.progress("    " + what)

    def ms_since(self, t0, t):
        return None if t is None else int(round((t - t0) * 1000))

    def phase(self, name, t_from, t_to):
        """Failed requests in [t_from, t_to] belong to phase name (one of
        before_detect, no_vip, dead_server, etcd_election)."""
        if t_from is not None and t_to is not None and t_to > t_from:
            self.phases.append({"phase": name, "from": t_from, "to": t_to})

    def first_ok_ms(self, t0, after=0.2):
        """ms from t0 to the first request served after t0 + after (a
        request in flight at the fault may still complete), or None."""
        if self.events is None:
            return None
        self.events.poll()
        for t, ok, _ in self.events.requests:
            if ok and t > t0 + after:
                return self.ms_since(t0, t)
        return None


def first_time(fn, timeout, interval=0.1):
    """The time fn() first held, or None."""
    end = time.time() + timeout
    while time.time() < end:
        if fn():
            return time.time()
        time.sleep(interval)
    return None


def first_times(conds, timeout, interval=0.1):
    """{name: time fn() first held, or None} for conds {name: fn}, each
    polled in a thread of its own (a slow condition, crm_mon's, does not
    coarsen a fast one's time, an admin socket's). The time is the end of
    the poll that first saw it hold: it held by then at the latest."""
    import threading
    out = {k: None for k in conds}
    end = time.time() + timeout

    def poll(k, fn):
        while time.time() < end:
            try:
                if fn():
                    out[k] = time.time()
                    return
            except Exception:
                pass
            time.sleep(interval)
    ts = [threading.Thread(target=poll, args=kv, daemon=True) for kv in conds.items()]
    for t in ts:
        t.start()
    for t in ts:
        t.join(max(0.0, end - time.time()) + 5)
    return out


def bmc_off_time(lab, name, since, reads=False):
    """When, after since, the host's BMC was first told to act ("set
    power": a fence, or the "on" of a reboot of a host already off). With
    reads, also when it first answered a power read with off ("get power
    0"): fenced's power-check, proof enough for vipd. Not for Pacemaker's
    masters: its fence devices' recurring monitor reads the power too,
    which decides nothing."""
    for t, what in build.bmc_events(lab, name, since):
        if what.startswith("set power") or (reads and what == "get power 0"):
            return t
    return None


def api_dead(lab, host):
    """The host's apiserver no longer answers (from the client, directly)."""
    return observe.api(lab, "/readyz", server=host.v4, timeout=1)[0] != 200


def etcd_leader_of(ctx):
    """(member name, member ID) of the etcd leader at the settled start,
    read before the fault; (None, None) when not known."""
    leaders = (ctx.start_facts.get("etcd") or {}).get("leaders") or []
    if not leaders:
        return None, None
    ids = observe.etcd_member_ids(ctx.lab)
    return next((n for n, i in ids.items() if i == leaders[0]), None), leaders[0]


def new_leader_cond(lab, victim, leader):
    """A condition for first_times: the survivors agree on a leader other
    than the victim's member (None when the victim did not lead etcd).
    leader: etcd_leader_of's answer."""
    name, old_id = leader
    if name != victim.name:
        return None
    survivors = [m for m in lab.by_role("master") if m is not victim]

    def cond():
        ls = observe.etcd_leaders(lab, masters=survivors)
        return len(ls) == len(survivors) and len(set(ls)) == 1 and ls[0] != old_id
    return cond


def lb_marked_down_cond(lab, holder, server):
    """A condition for first_times: the load balancer on holder no longer
    sends new connections to server (its status is not UP, and not UP in
    transition either, "UP 1/2")."""
    def cond():
        st = (observe.lb_servers(holder) or {}).get(server)
        return st is not None and not st.startswith("UP")
    return cond


def apiserver_loss(ctx, victim, t0, leader, extra):
    """The effects of a master's loss the client sees: the victim's
    apiserver dead (check), the load balancer holding the VIP marking it
    down (dead_server) and, when it led etcd, the election. extra: more
    conditions for first_times; leader: the etcd member that led at the
    start. Returns first_times' result."""
    lab = ctx.lab
    holders = observe.vip_holders(lab)
    holder = lab.host(holders[0]) if holders else None
    conds = dict(extra)
    if holder is not None:
        conds["lb_down"] = lb_marked_down_cond(lab, holder, victim.name)
    elect = new_leader_cond(lab, victim, leader)
    if elect:
        conds["elected"] = elect
    got = first_times(conds, 120, 0.2)
    ctx.check["victim_api_dead"] = api_dead(lab, victim)
    ctx.lb_down = got.get("lb_down")
    ctx.timings["lb_down_ms"] = ctx.ms_since(t0, got.get("lb_down"))
    ctx.phase("dead_server", t0, got.get("lb_down"))
    if elect:
        ctx.timings["etcd_election_ms"] = ctx.ms_since(t0, got.get("elected"))
        ctx.phase("etcd_election", t0, got.get("elected"))
        ctx.mark("etcd: a new leader (the victim led)")
    return got


def split_dead_server(ctx, t0):
    """The failed requests of apiserver_loss's dead_server phase split by
    what could have saved them (judge.dead_server_split) into the
    timings lb_avoidable_failed, in_flight_failed, server_side_failed.
    Called at the scenario's end: a request that timed out is written
    seconds after it was sent."""
    if ctx.events is None:
        return
    t_end = ctx.lb_down if ctx.lb_down is not None else time.time()
    split = judge.dead_server_split(ctx.events.poll().failures_between(t0, time.time()),
                                    t0, t_end)
    for k, v in split.items():
        ctx.timings[k + "_failed"] = v


def lb_daemons(ctx):
    return ("lbd", "vipd") if labmod.is_cpha(ctx.stack) else ("haproxy", "keepalived")


# -- scenarios ------------------------------------------------------------------------
def apiserver_rolling_restart(ctx):
    """Each apiserver in turn, the operator's way: drained on every load
    balancer (`set server apiserver/NAME state drain`, as with HAProxy),
    restarted by `cpha restart apiserver` on its master (Pacemaker restarts
    that node's instance), back in rotation once ready."""
    lab = ctx.lab

    def lbs(cmd):
        for h in lab.by_role("lb"):
            if h.powered():
                observe.admin(h, observe.lb_socket(h), cmd)
    before = dict(observe.acting(lab, "kube-apiserver"))
    for m in lab.by_role("master"):
        lbs("set server apiserver/%s state drain" % m.name)
        ctx.mark("apiserver/%s drained on the load balancers" % m.name)
        time.sleep(2)
        t = time.time()
        m.run(["cpha", "restart", "apiserver"], timeout=180)
        ctx.mark("cpha restart apiserver on %s: done in %.1f s" % (m.name, time.time() - t))
        wait_until(lambda: observe.api(lab, "/readyz", server=m.v4)[0] == 200, 60, 0.5,
                   "apiserver on %s ready" % m.name)
        lbs("set server apiserver/%s state ready" % m.name)
        ctx.mark("apiserver/%s ready again, back in rotation" % m.name)
        # its checks pass again (rise) on every load balancer before the
        # next one goes
        wait_until(lambda: all((observe.lb_servers(h) or {}).get(m.name, "").startswith("UP")
                               for h in lab.by_role("lb") if h.powered()), 30, 0.2,
                   "apiserver/%s up on the load balancers" % m.name)
    after = dict(observe.acting(lab, "kube-apiserver"))
    ctx.check.update(masters=len(lab.by_role("master")), restarted=sum(
        1 for m in lab.by_role("master") if after.get(m.name) and after.get(m.name) !=
        before.get(m.name)))


def reload_under_load(ctx):
    """20 reloads of each LB daemon on both LB hosts, while clients run."""
    lb, vip = lb_daemons(ctx)
    sig = {"lbd": signal.SIGHUP, "vipd": signal.SIGHUP, "haproxy": signal.SIGUSR2,
           "keepalived": signal.SIGHUP}
    ctx.mark("20 reloads of %s and of %s on each LB host, 0.5 s apart" % (lb, vip))
    sent = 0
    for i in range(20):
        for h in ctx.lab.by_role("lb"):
            for d in (lb, vip):
                h.signal(d, sig[d])
                sent += 1
        time.sleep(0.5)
    ctx.check.update(reloads=sent, expected=20 * 2 * len(ctx.lab.by_role("lb")))
    time.sleep(3)
    ctx.mark("reloads done")


STEADY_S = 600


def steady(ctx):
    """Ten minutes of a settled lab, nothing done: the clients must see
    nothing fail and monitoring must raise nothing."""
    t0 = time.time()
    ctx.mark("%d s of a settled lab, nothing done" % STEADY_S)
    time.sleep(STEADY_S)
    ctx.check["quiet_s"] = round(time.time() - t0, 1)
    ctx.mark("done")
    return t0


# CphaTargetDown's for: is 2 minutes (monitoring/cpha-rules.yml): the
# daemon stays down longer, so that the alert must fire
DAEMON_DOWN_S = 150


def lb_daemon_down(ctx):
    """The load balancer of the LB host that does not hold the VIP crashes
    (SIGKILL) and stays down for DAEMON_DOWN_S seconds, then starts again.
    Clients see nothing: the VIP holder serves them. Only monitoring can
    tell, and it must: CphaTargetDown fires for that daemon, then
    resolves, and no other alert fires."""
    lab = ctx.lab
    holders = observe.vip_holders(lab)
    if len(holders) != 1:
        raise LabError("lb-daemon-down: VIP holders before: %s" % holders)
    backup = [h for h in lab.by_role("lb") if h.name != holders[0]][0]
    lb, _ = lb_daemons(ctx)
    pid = backup.service_pid(lb)
    t0 = time.time()
    if pid:
        backup.signal(lb, signal.SIGKILL)
    ctx.mark("%s on %s (the backup LB host) killed" % (lb, backup.name))
    time.sleep(1)
    ctx.check["killed"] = bool(pid) and not backup.service_pid(lb)
    time.sleep(max(0.0, t0 + DAEMON_DOWN_S - time.time()))
    ctx.check["down_s"] = round(time.time() - t0, 1)
    build.start_lb_proxy(backup)
    ctx.check["restarted"] = bool(backup.service_pid(lb))
    ctx.mark("%s on %s started again after %.0f s" % (lb, backup.name, ctx.check["down_s"]))
    return t0


def holder_and_other(lab, scenario):
    """(the VIP holder, the other LB host) at the start of scenario; an
    error unless exactly one host holds the VIP."""
    holders = observe.vip_holders(lab)
    if len(holders) != 1:
        raise LabError("%s: VIP holders before: %s" % (scenario, holders))
    victim = lab.host(holders[0])
    return victim, [h for h in lab.by_role("lb") if h is not victim][0]


def lb_poweroff(ctx):
    """The VIP holder loses power; the other LB host must fence it before
    it takes the VIP (the cpha stack). HAProxy + keepalived has no fencer:
    the VIP moves on VRRP alone, and nobody powers the dead host back on,
    so the lab does, as an operator would, once the VIP has moved."""
    lab = ctx.lab
    victim, other = holder_and_other(lab, "lb-poweroff")
    vrrp = observe.vrrp_settings(other)
    t0 = time.time()
    victim.power_off()
    ctx.check["victim_held_vip"] = True
    ctx.check["victim_off"] = not victim.powered() and not victim.link_up()
    ctx.mark("%s (VIP holder) lost power" % victim.name)

    def left():
        s = observe.fenced_show(other)
        return s is not None and victim.name not in s.get("members", [victim.name])
    conds = {"vip": lambda: other.name in observe.vip_holders(lab)}
    if lab.dual_stack:
        conds["vip6"] = lambda: other.name in observe.vip_holders_both(lab)[1]
    if labmod.is_cpha(ctx.stack):
        conds["detect"] = left
        conds["fence"] = lambda: bmc_off_time(lab, victim.name, t0, reads=True)
    got = first_times(conds, 60)
    t_vip = got["vip"]
    t_fence = bmc_off_time(lab, victim.name, t0, reads=True)
    ctx.timings.update(detect_ms=ctx.ms_since(t0, got.get("detect")),
                       fence_ms=ctx.ms_since(t0, t_fence), vip_move_ms=ctx.ms_since(t0, t_vip))
    if lab.dual_stack:
        # the IPv6 VIP moves with the other (a sync group): its own time
        ctx.timings["vip6_move_ms"] = ctx.ms_since(t0, got["vip6"])
        if got["vip6"]:
            ctx.mark("IPv6 VIP on %s" % other.name)
    ctx.invariants["vip_after_fence"] = bool(t_vip and t_fence and t_vip >= t_fence)
    # detected: the survivor knew (its power read said off, or corosync
    # lost the host); keepalived's only sign is its own takeover
    t_detect = min([t for t in (got.get("detect"), t_fence) if t] or [t_vip or 0]) or None
    ctx.phase("before_detect", t0, t_detect)
    ctx.phase("no_vip", t_detect, t_vip)
    # keepalived notices a silent master after Master_Down_Interval (3
    # advert intervals and the skew, RFC 5798 section 6.1) counted from
    # the master's last advert, at most one interval before the fault
    ctx.check.update(vip_moved=t_vip is not None, vip_move_ms=ctx.ms_since(t0, t_vip),
                     floor_ms=(int(2000 * vrrp["advert_int"]) if not labmod.is_cpha(ctx.stack)
                               else 0))
    if t_vip:
        ctx.mark("VIP on %s" % other.name)
    if not t_fence:
        ctx.notes.append("no fence of %s seen at its BMC" % victim.name)
    wait_watches_broke(ctx, t0)
    ctx.check["first_ok_ms"] = ctx.timings["vip_serving_ms"] = wait_first_ok(ctx, t0)
    if labmod.is_cpha(ctx.stack):
        wait_until(lambda: victim.powered(), 60, 0.5, victim.name + " to boot after its fence")
        ctx.mark("%s booted (BMC power on)" % victim.name)
    else:
        time.sleep(3)
        build.boot(lab, victim)
        ctx.mark("%s powered on by the operator (no fencer in this stack)" % victim.name)
    failback(ctx, victim, other, vrrp)
    return t0


def failback(ctx, victim, other, vrrp):
    """The VIP's way back to victim after it moved to other, when the
    VRRP configuration preempts."""
    if not vrrp["preempt"]:
        ctx.notes.append("nopreempt: the VIP stays on %s" % other.name)
        return
    # the rendered VRRP priorities preempt: the old holder takes the VIP
    # back once its daemons are up (vrrp_startup_delay). That failback cuts
    # every connection through the other host, so it belongs to this
    # scenario's window, not to whichever scenario runs next.
    t_back = sample_vip(ctx, lambda hs: hs == [victim.name], 90)
    if t_back:
        ctx.mark("VIP back on %s (preempt)" % victim.name)
        time.sleep(6)  # the cut watches' clients notice (5 s without data) and reopen
    else:
        ctx.notes.append("the VIP did not come back to %s within 90 s" % victim.name)


def wait_watches_broke(ctx, t0):
    """Every watch open at t0 went through the VIP holder: wait, bounded,
    until each broke (its client notices the silence: the prober's
    --watch-stall, 5 s)."""
    if ctx.events is not None:
        opened = ctx.events.open_at(t0)
        if not first_time(lambda: opened <= ctx.events.poll().broken_between(
                t0, time.time()), 20, 0.2):
            ctx.notes.append("not every watch open at the fault broke within 20 s")


def sample_vip(ctx, cond, timeout):
    """Sample the VIP holders every 20 ms, finer than the monitor's 250
    ms, into ctx.vip_samples (t, on two hosts) until cond(holders) has
    held for 1 s; returns when it first held, or None."""
    first, end = None, time.time() + timeout
    while time.time() < end:
        now, holders = time.time(), observe.vip_holders(ctx.lab)
        ctx.vip_samples.append((now, len(holders) > 1))
        first = (first or now) if cond(holders) else None
        if first and now - first >= 1.0:
            return first
        time.sleep(0.02)
    return None


def wait_first_ok(ctx, t0, timeout=10):
    """Ctx.first_ok_ms, once the prober has written a request served
    after the fault (bounded: None when none came)."""
    first_time(lambda: ctx.first_ok_ms(t0) is not None, timeout, 0.2)
    return ctx.first_ok_ms(t0)


HANG_SECS = 15  # s the VIP holder stays frozen: past the peer's takeover
                # (3 advert intervals) and a watch's stall (5 s), and past
                # cpha's fence (corosync's token and consensus, 6.6 s, then
                # fenced's post_fail_delay, 1 s, and priority_delay_vip,
                # 5 s, for the VIP holder: about 12.6 s). A holder thawed
                # before that is back in the membership at its turn, and
                # fenced averts its fence


def lb_hang(ctx):
    """The VIP holder hangs, power on and links up: every process of it
    frozen (its cgroup v1 freezer) for HANG_SECS, then thawed. With cpha
    the survivor's corosync loses it, fenced powers it off through its BMC
    (which ends the hang: the host reboots) and only then vipd takes the
    VIP. keepalived's backup takes the VIP after its Master_Down_Interval;
    the old holder, thawed, still believes it is MASTER: the VIP is on two
    hosts until VRRP sorts them out (two_vip_ms, the monitor's samples)."""
    lab = ctx.lab
    victim, other = holder_and_other(lab, "lb-hang")
    vrrp = observe.vrrp_settings(other)
    t0 = time.time()
    got = {}
    try:
        stopped, procs = victim.freeze()
        ctx.check.update(victim_held_vip=True, processes=procs, stopped=stopped,
                         links_up=victim.link_up() and victim.powered())
        ctx.mark("%s (VIP holder) hung: %d of %d processes stopped, links up" % (
            victim.name, stopped, procs))
        if victim.not_frozen:
            ctx.notes.append("not stopped: %s" % victim.not_frozen)

        def left():
            s = observe.fenced_show(other)
            return s is not None and victim.name not in s.get("members", [victim.name])
        conds = {"vip": lambda: other.name in observe.vip_holders(lab)}
        if labmod.is_cpha(ctx.stack):
            conds["detect"] = left
            conds["fence"] = lambda: bmc_off_time(lab, victim.name, t0)
        waiter = threading.Thread(target=lambda: got.update(first_times(conds, 60)),
                                  daemon=True)
        waiter.start()
        time.sleep(max(0.0, t0 + HANG_SECS - time.time()))
    finally:
        # thawed in any case, whatever failed: nothing stays frozen
        victim.thaw()
    ctx.mark("%s thawed after %.1f s%s" % (victim.name, time.time() - t0, "" if
                                            victim.powered() else " (powered off by its fence)"))
    # the thawed holder may still call itself MASTER beside the new one
    sample_vip(ctx, lambda hs: len(hs) == 1, 30)
    waiter.join(65)
    t_vip = got["vip"]
    # a fence is the BMC told to act ("set power"): the power read of a
    # hung host says on, which proves nothing
    t_fence = bmc_off_time(lab, victim.name, t0)
    ctx.timings.update(detect_ms=ctx.ms_since(t0, got.get("detect")),
                       fence_ms=ctx.ms_since(t0, t_fence), vip_move_ms=ctx.ms_since(t0, t_vip))
    if labmod.is_cpha(ctx.stack):
        ctx.invariants["vip_after_fence"] = bool(t_vip and t_fence and t_vip >= t_fence)
    t_detect = min([t for t in (got.get("detect"), t_fence) if t] or [t_vip or 0]) or None
    ctx.phase("before_detect", t0, t_detect)
    ctx.phase("no_vip", t_detect, t_vip)
    ctx.check.update(vip_moved=t_vip is not None, vip_move_ms=ctx.ms_since(t0, t_vip),
                     floor_ms=(int(2000 * vrrp["advert_int"]) if not labmod.is_cpha(ctx.stack)
                               else 0),
                     fenced=t_fence is not None, fence_needed=labmod.is_cpha(ctx.stack))
    if t_vip:
        ctx.mark("VIP on %s" % other.name)
    if t_fence:
        ctx.mark("%s fenced at +%.1f s" % (victim.name, t_fence - t0))
    wait_watches_broke(ctx, t0)
    first_ok = wait_first_ok(ctx, t0)
    ctx.check["first_ok_ms"] = ctx.timings["vip_serving_ms"] = first_ok
    if labmod.is_cpha(ctx.stack):
        ctx.timings["serving_after_fence_ms"] = judge.serving_after_fence(
            first_ok, ctx.timings["fence_ms"])
    if labmod.is_cpha(ctx.stack) and t_fence:
        wait_until(lambda: victim.powered(), 60, 0.5, victim.name + " to boot after its fence")
        ctx.mark("%s booted (BMC power on)" % victim.name)
        failback(ctx, victim, other, vrrp)
    else:
        # the thawed holder and the survivor both MASTER: VRRP settles it
        # (RFC 5798 section 6.4.3: the lower priority, or the lower
        # address at equal priority, backs off)
        t_one = first_time(lambda: len(observe.vip_holders(lab)) == 1, 30, 0.2)
        ctx.mark("one VIP holder again (%s)" % " ".join(observe.vip_holders(lab))
                 if t_one else "still two VIP holders 30 s after the thaw")
        if t_one and observe.vip_holders(lab) == [victim.name]:
            # keepalived has no connection reset: every watch through the
            # other host hangs until its client's own timeout
            ctx.notes.append("the VIP went back to %s after its thaw" % victim.name)
            time.sleep(6)  # those watches' clients notice (5 s without data)
    return t0


def master_poweroff(ctx):
    """The master running the controller-manager loses power."""
    lab = ctx.lab
    x = observe.crm(lab)
    kcm = observe.resources(x).get("kcm", [])
    if len(kcm) != 1:
        raise LabError("master-poweroff: kcm runs on %s" % kcm)
    victim = lab.host(kcm[0])
    leader = etcd_leader_of(ctx)
    t0 = time.time()
    victim.power_off()
    ctx.mark("%s (controller-manager) lost power" % victim.name)

    def crm_now():
        return observe.crm(lab)
    got = apiserver_loss(ctx, victim, t0, leader, {
        "detect": lambda: (lambda x: x is not None and victim.name not in
                           observe.nodes_online(x))(crm_now()),
        "move": lambda: any(n != victim.name for n in observe.resources(crm_now()).get(
            "kcm", [])),
        "fence": lambda: bmc_off_time(lab, victim.name, t0)})
    t_detect, t_move = got["detect"], got["move"]
    t_fence = bmc_off_time(lab, victim.name, t0)
    ctx.timings.update(detect_ms=ctx.ms_since(t0, t_detect), fence_ms=ctx.ms_since(t0, t_fence),
                       move_ms=ctx.ms_since(t0, t_move))
    ctx.invariants["move_after_fence"] = bool(t_move and t_fence and t_move >= t_fence)
    if t_move:
        ctx.mark("controller-manager started elsewhere")
    wait_until(lambda: victim.powered(), 90, 0.5, victim.name + " to boot after its fence")
    ctx.mark("%s booted (BMC power on)" % victim.name)
    split_dead_server(ctx, t0)
    return t0


def master_partition(ctx):
    """A master cut off the network, alive: the majority fences it."""
    lab = ctx.lab
    kcm = observe.resources(observe.crm(lab)).get("kcm", [])
    victim = lab.host(kcm[0]) if kcm else lab.by_role("master")[-1]
    leader = etcd_leader_of(ctx)
    t0 = time.time()
    victim.link(False)
    ctx.mark("%s cut off the network (alive)" % victim.name)
    got = apiserver_loss(ctx, victim, t0, leader, {
        "fence": lambda: bmc_off_time(lab, victim.name, t0)})
    t_fence = got.get("fence") and bmc_off_time(lab, victim.name, t0)
    end = time.time() + 90 - (time.time() - t0)
    while time.time() < end and not t_fence:
        t_fence = bmc_off_time(lab, victim.name, t0)
        time.sleep(0.3)
    ctx.timings.update(fence_ms=ctx.ms_since(t0, t_fence))
    if t_fence:
        ctx.mark("%s fenced by the majority" % victim.name)
        wait_until(lambda: victim.powered() and victim.link_up(), 90, 0.5,
                   victim.name + " to boot after its fence")
        ctx.mark("%s booted" % victim.name)
    else:
        victim.link(True)
        ctx.notes.append("%s was not fenced within 90 s; link restored by the lab"
                         % victim.name)
    split_dead_server(ctx, t0)
    return t0


PARTITION_NFT = """table inet cphalab_cut {
    chain in { type filter hook input priority -200; policy accept; ip saddr %(peer)s drop; }
    chain out { type filter hook output priority -200; policy accept; ip daddr %(peer)s drop; }
}
"""


def cut(host, peer, on):
    """Drop everything between host and peer, both ways (nftables in the
    host's namespace: VRRP's raw sockets pass by routes, not by this)."""
    from .hosts import run
    ns = ["ip", "netns", "exec", host.netns, "nft"]
    if on:
        run(ns + ["-f", "-"], input=PARTITION_NFT % {"peer": peer.v4})
    else:
        run(ns + ["delete", "table", "inet", "cphalab_cut"], check=False)


def reaches(host, peer):
    """host gets an answer from peer (one ICMP echo, 1 s)."""
    if not host.powered():
        return False
    r = host.run(["ping", "-n", "-q", "-c", "1", "-W", "1", peer.v4], check=False, timeout=10)
    return r.returncode == 0


def lb_partition(ctx):
    """The two LB hosts cut apart, both alive and reachable by clients."""
    lab = ctx.lab
    a, b = lab.by_role("lb")[:2]
    t0 = time.time()
    cut(a, b, True)
    cut(b, a, True)
    ctx.mark("%s and %s cut apart (both alive)" % (a.name, b.name))
    # the cut, seen from each side: nothing reaches the other host
    ctx.check["cut_ab"] = not reaches(a, b)
    ctx.check["cut_ba"] = not reaches(b, a)
    time.sleep(max(0.0, 30 - (time.time() - t0)))
    cut(a, b, False)
    cut(b, a, False)
    ctx.mark("partition healed")
    boot_after_split(ctx, (a, b), t0)
    return t0


def boot_after_split(ctx, hosts, t0):
    """After a split healed: each of hosts fenced since t0 noted and given
    30 s to boot; one still off is powered on as an operator would (both
    fenced each other: each fencer died with its host before it could
    power the other on again). Returns {name: fenced since t0}."""
    fenced = {}
    for h in hosts:
        t = bmc_off_time(ctx.lab, h.name, t0)
        fenced[h.name] = t is not None
        if t:
            ctx.notes.append("%s fenced at +%.1f s" % (h.name, t - t0))
            first_time(lambda: h.powered(), 30, 0.5)
        if not h.powered():
            ctx.notes.append("%s stayed off: powered on by the operator" % h.name)
            build.boot_if_off(ctx.lab, h)
    return fenced


def lb_isolated(ctx):
    """The VIP holder cut from the other LB host and from the clients'
    host, alive: only the other host can serve. With a quorum device
    (corosync-qnetd on the clients' host, `cpha lab up --qdevice`) the
    other host keeps quorum and fences the holder, which, without quorum,
    fences nobody; in a two_node pair the race decides, and the holder
    (priority_delay_vip) wins it: it fences the host the clients can reach
    and keeps a VIP they cannot. The cut lasts 30 s."""
    lab = ctx.lab
    victim, other = holder_and_other(lab, "lb-isolated")
    client = lab.host("client")
    t0 = time.time()
    for a, b in ((victim, other), (other, victim), (victim, client), (client, victim)):
        cut(a, b, True)
    ctx.mark("%s (VIP holder) cut from %s and from the client host" % (victim.name,
                                                                        other.name))
    ctx.check["victim_held_vip"] = True
    ctx.check["cut_ab"] = not reaches(victim, other)
    ctx.check["cut_ba"] = not reaches(other, victim)
    ctx.check["cut_client"] = not reaches(client, victim) and not reaches(victim, client)
    t_vip = first_time(lambda: other.name in observe.vip_holders(lab), 30 - (time.time() - t0),
                       0.2)
    ctx.check.update(vip_moved=t_vip is not None, vip_move_ms=ctx.ms_since(t0, t_vip))
    if t_vip:
        ctx.mark("VIP on %s" % other.name)
    time.sleep(max(0.0, 30 - (time.time() - t0)))
    for a, b in ((victim, other), (other, victim), (victim, client), (client, victim)):
        cut(a, b, False)
    ctx.mark("cut healed")
    fenced = boot_after_split(ctx, (victim, other), t0)
    # the host the clients reach, fenced: the outage lasts as long as the cut
    ctx.check.update(victim_fenced=fenced[victim.name], reachable_fenced=fenced[other.name])
    ctx.invariants["reachable_host_kept"] = not fenced[other.name]
    if t_vip:
        ctx.check["first_ok_ms"] = ctx.timings["vip_serving_ms"] = wait_first_ok(ctx, t0)
    return t0


def etcd_data_loss(ctx):
    """One member's data wiped: the agent replaces the member."""
    lab = ctx.lab
    victim = lab.by_role("master")[-1]
    leader = etcd_leader_of(ctx)
    elect = new_leader_cond(lab, victim, leader)
    t0 = time.time()
    pids = [p for p, argv in victim.processes() if argv and argv[0].endswith("etcd")]
    for p in pids:
        os.kill(p, signal.SIGKILL)
    shutil.rmtree(victim.path("/var/lib/etcd/member"), ignore_errors=True)
    ctx.mark("etcd on %s killed, its data directory wiped" % victim.name)

    def healthy():
        ms = observe.etcd_members(lab)
        h = observe.etcd_health(lab)
        n = len(lab.by_role("master"))
        return ms and len(ms) == n and all(m[0] for m in ms) and len(h) == n and all(h.values())
    if elect:
        t_elected = first_time(elect, 30, 0.2)
        ctx.phase("etcd_election", t0, t_elected)
        ctx.timings["etcd_election_ms"] = ctx.ms_since(t0, t_elected)
    t_bad = first_time(lambda: not healthy(), 60, 0.5)
    ctx.check["unhealthy_seen"] = t_bad is not None
    if t_bad:
        ctx.mark("etcd member on %s seen unhealthy" % victim.name)
    t_ok = first_time(healthy, 180, 1)
    ctx.timings.update(detect_ms=ctx.ms_since(t0, t_bad), replaced_ms=ctx.ms_since(t0, t_ok))
    if t_ok:
        ctx.mark("etcd has all its members healthy again")
    return t0


def reinstall(ctx, host):
    """docs/runbook.md's sections 2 and 3 for a blank master: its files
    rendered (`cpha render --host`) and installed with its certificates."""
    lab = ctx.lab
    desc = lab.path("cluster-%s.yaml" % ctx.stack)
    out = lab.path("rebuild-" + host.name)
    shutil.rmtree(out, ignore_errors=True)
    build.cpha(build.Programs(), ["-f", desc, "render", "--host", host.name, "--out", out])
    build.install_host(lab, host, desc, out, ctx.stack)
    ctx.mark("runbook 2-3: cpha render --host %s, files and certificates in place" % host.name)


def master_rebuild(ctx):
    """A master lost with its disk; rebuilt from nothing as docs/runbook.md
    says: render --host, files and PKI into place, corosync and Pacemaker."""
    lab = ctx.lab
    victim = lab.by_role("master")[-1]
    t0 = time.time()
    build.lose_disk(victim)
    ctx.mark("%s lost with its disk" % victim.name)
    t_fence = first_time(lambda: bmc_off_time(lab, victim.name, t0), 90, 0.3)
    ctx.check["fenced"] = t_fence is not None
    wait_until(lambda: victim.powered(), 60, 0.5, victim.name + " to power on")
    # the BMC powered it on: a blank machine; stop what its init started
    first_time(lambda: "pacemakerd" in victim.refresh().services, 15, 0.2)
    for n in list(victim.services):
        victim.stop(n, timeout=5)
    ctx.mark("%s is a blank machine; following docs/runbook.md" % victim.name)
    reinstall(ctx, victim)
    build.start_master(victim)
    ctx.mark("runbook 5: corosync and Pacemaker started")
    observe.wait_settled(lab, 180, ctx.progress)
    r = victim.run(["cpha", "check", "--host", victim.name], check=False, timeout=120)
    ctx.invariants["rebuilt_host_checks_ok"] = r.returncode == 0
    ctx.notes.append("cpha check --host %s: exit %d" % (victim.name, r.returncode))
    return t0


# seconds of the prober's writes between the snapshot and the loss: what a
# restore from that snapshot loses (the recovery point)
AFTER_SNAPSHOT_S = 5


def etcd_quorum_loss(ctx):
    """Two masters of three lost with their disks for good, a few seconds
    after the last snapshot: etcd has lost quorum and the API is down.
    docs/runbook.md's "etcd's data lost on every member", its blocks run
    as written: on the survivor, the lost masters confirmed down and etcd
    stopped; the two installed again (sections 2, 3 and 5, as
    master-rebuild does); every member, the survivor too, restored from
    the survivor's newest snapshot (`cpha etcd restore`); etcd started
    again. The recovery time is from the loss to the first request served
    again; the recovery point, the prober's acknowledged writes that the
    restore lost, each named: only those after the snapshot may be."""
    lab = ctx.lab
    masters = lab.by_role("master")
    survivor, lost = masters[0], masters[1:]
    names = " ".join(h.name for h in lost)
    ctx.mark("following docs/runbook.md, \"Snapshots\"")
    t_snap = time.time()
    build.follow_runbook(lab, ctx.stack, "etcd-snapshot", ctx.mark)
    snaps = sorted(f for f in os.listdir(survivor.path("/var/lib/etcd-snapshots"))
                   if f.endswith(".db")) if os.path.isdir(
                       survivor.path("/var/lib/etcd-snapshots")) else []
    ctx.check["snapshot"] = bool(snaps)
    if not snaps:
        raise LabError("etcd-quorum-loss: no snapshot on %s after the runbook's block"
                       % survivor.name)
    ctx.notes.append("snapshot %s on %s, taken at +0.0 s" % (snaps[-1], survivor.name))
    time.sleep(max(0.0, t_snap + AFTER_SNAPSHOT_S - time.time()))
    t0 = time.time()
    for h in lost:
        build.lose_disk(h)
    ctx.mark("%s lost with their disks, %.1f s after the snapshot began" % (
        " and ".join(h.name for h in lost), t0 - t_snap))
    ctx.check["api_down_seen"] = first_time(lambda: any(
        not ok for t, ok, _ in ctx.events.poll().requests if t > t0 + 0.2), 60, 0.2) is not None
    variables = {"LOST": names}
    ctx.mark("following docs/runbook.md, \"etcd's data lost on every member\"")
    build.follow_runbook(lab, ctx.stack, "etcd-quorum-loss", ctx.mark, variables)
    for h in lost:
        h.power_on()
        ctx.mark("%s powered on: a blank machine" % h.name)
        reinstall(ctx, h)
    for h in lost:
        build.start_master(h)
    ctx.mark("runbook 5: corosync and Pacemaker started on %s" % names)
    online = first_time(lambda: set(h.name for h in masters) <= set(
        observe.nodes_online(observe.crm(lab))), 120, 1)
    if online is None:
        raise LabError("etcd-quorum-loss: %s not online in Pacemaker after 2 minutes"
                       % names)
    build.follow_runbook(lab, ctx.stack, "etcd-restore", ctx.mark, variables)
    t_restored = time.time()
    ctx.mark("runbook done: etcd restored and started again")
    # the prober reads its Lease back (a lost_write line names the loss);
    # /readyz may answer before etcd does
    t_ok = first_time(lambda: any(e.get("k") == "lease_get" and e.get("ok") for e in
                                  events_mod.read_lines(ctx.events.path, t_restored)), 240, 1)
    if t_ok is None:
        raise LabError("etcd-quorum-loss: the prober's Lease not read within 4 minutes of "
                       "the restore")
    ctx.mark("the prober reads its Lease again")
    time.sleep(2)
    for name, ev in (("IPv4", ctx.events), ("IPv6", ctx.events6)):
        if ev is None:
            continue
        evs = events_mod.read_lines(ev.path, t_snap - 60, time.time())
        rto = judge.recovered_ms([(t, ok) for t, ok, _ in ev.poll().requests], t0)
        loss = judge.restore_losses(evs, t_snap, t0)
        key = "" if name == "IPv4" else "6"
        ctx.timings["rto%s_ms" % key] = rto
        ctx.timings["rpo%s_writes" % key] = len(loss["lost"])
        ctx.invariants["lost_only_after_snapshot" + ("" if name == "IPv4" else "_v6")] = \
            not loss["before_snapshot"]
        ctx.notes.append("%s prober: served again %s s after the loss; %d acknowledged "
                         "writes lost%s" % (
                             name, "?" if rto is None else "%.1f" % (rto / 1000.0),
                             len(loss["lost"]), ": " + ", ".join(
                                 "seq %s (acknowledged %s s after the snapshot began)" % r
                                 for r in judge.seq_ranges(loss["lost"], t_snap))
                             if loss["lost"] else ""))
        for q, t in loss["before_snapshot"]:
            ctx.notes.append("%s prober: seq %d acknowledged %.1f s BEFORE the snapshot "
                             "began, lost by the restore" % (name, q, t_snap - t))
    ctx.check["restored"] = True
    return t0


def served_fingerprint(client, ip, port):
    """The SHA-256 fingerprint of the certificate served on ip:port, as
    the client host reads it (openssl s_client: etcd asks for a client
    certificate, the server's own comes first), or None."""
    r = client.run(["sh", "-c", "openssl s_client -connect %s:%d </dev/null 2>/dev/null | "
                    "openssl x509 -noout -fingerprint -sha256" % (ip, port)],
                   check=False, timeout=30)
    out = r.stdout.strip()
    return out.split("=", 1)[1] if r.returncode == 0 and "=" in out else None


def cert_rotation(ctx):
    """Every certificate renewed with new keys and rolled out the operator's
    way: docs/runbook.md's "Rotating the certificates", its blocks run as
    written (renew, install on every host, then each master in turn,
    drained on the LB hosts around its etcd's and apiserver's restarts
    through `cpha restart`, the controllers, and the reload of lbd, vipd
    and fenced)."""
    lab = ctx.lab
    client = lab.host("client")
    masters = lab.by_role("master")

    def served():
        return {m.name: (served_fingerprint(client, m.v4, 6443),
                         served_fingerprint(client, m.v4, 2379)) for m in masters}
    before = served()
    ctx.mark("following docs/runbook.md, \"Rotating the certificates\"")
    t0 = time.time()
    build.follow_runbook(lab, ctx.stack, "cert-rotation", ctx.mark)
    ctx.mark("runbook done in %.0f s" % (time.time() - t0))
    after = served()
    new = [m for m in after if None not in after[m] and all(
        a != b for a, b in zip(after[m], before.get(m, (None, None))))]
    ctx.check.update(masters=len(masters), served_new=len(new))
    ctx.notes.append("renewed certificates served by %s of %d masters (apiserver and etcd)"
                     % (", ".join(new) or "none", len(masters)))
    return t0


def exe_digest(pid):
    """The SHA-256 of the program a process runs (/proc/PID/exe), or None."""
    import hashlib
    try:
        with open("/proc/%d/exe" % pid, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def file_digest(path):
    import hashlib
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


LB_PROGRAMS = {"cpha": ("lbd", "vipd", "fenced"), "peer": ("haproxy", "keepalived")}


def lb_upgrade(ctx):
    """A new lbd, vipd and fenced on each LB host in turn, the VIP holder
    last: docs/runbook.md's "Upgrading the load-balancer hosts", its blocks
    run as written (drain, install, restart, undrain). The new programs
    are a build of their own (build.upgrade_dirs), or this build again when
    the hosts run that one: a different file each time. The peer restarts HAProxy and keepalived the
    same way, the backups first."""
    lab = ctx.lab
    lbs = lab.by_role("lb")
    cpha = labmod.is_cpha(ctx.stack)
    names = LB_PROGRAMS["cpha" if cpha else "peer"]
    variables = {}
    if cpha:
        dirs = build.upgrade_dirs(lab)
        r = lbs[0].run(["lbd", "-v"], check=False, timeout=30)
        new = dirs["this"] if build.UPGRADE_SUFFIX in r.stdout else dirs["upgrade"]
        variables["NEW"] = new
        want = {n: file_digest(os.path.join(new, n)) for n in names}
        ctx.notes.append("new programs: %s (%s)" % (new, lbs[0].run(
            [os.path.join(new, "lbd"), "-v"], check=False, timeout=30).stdout.strip()))
    before = {h.name: {n: h.service_pid(n) for n in names} for h in lbs}
    ctx.mark("following docs/runbook.md, \"Upgrading the load-balancer hosts\"")
    t0 = time.time()
    build.follow_runbook(lab, ctx.stack, "lb-upgrade", ctx.mark, variables)
    ctx.mark("runbook done in %.0f s" % (time.time() - t0))
    done = 0
    for h in lbs:
        pids = {n: h.service_pid(n) for n in names}
        ok = all(pids[n] and pids[n] != before[h.name][n] for n in names)
        if cpha:
            ok = ok and all(exe_digest(pids[n]) == want[n] for n in names)
        done += ok
        if not ok:
            ctx.notes.append("%s: not all of %s restarted%s" % (
                h.name, ", ".join(names), " with the new programs" if cpha else ""))
    ctx.check.update(lb_hosts=len(lbs), upgraded=done)
    ctx.notes.append("%d of %d LB hosts run %s" % (
        done, len(lbs), "the new " + ", ".join(names) if cpha else "a restarted " +
        " and ".join(names)))
    return t0


# scenarios run for cpha's stack alone: the peer (HAProxy and keepalived,
# as kubeadm's HA guide has them) has no runbook of its own for them
CPHA_ONLY = {"etcd-quorum-loss", "k8s-minor-upgrade", "master-add", "master-remove"}
# scenarios that restore etcd from a snapshot: the writes acknowledged
# after it are lost by design (their invariant is lost_only_after_snapshot)
RESTORES_SNAPSHOT = {"etcd-quorum-loss"}
# what a scenario needs done before its settled start, outside its run
# (lab, stack, progress)
PREPARE = {"k8s-minor-upgrade": k8supgrade.prepare, "master-add": masters.prepare_add,
           "master-remove": masters.prepare_remove}

SCENARIOS = [
    ("apiserver-rolling-restart", apiserver_rolling_restart),
    ("reload-under-load", reload_under_load),
    ("lb-poweroff", lb_poweroff),
    ("lb-daemon-down", lb_daemon_down),
    ("steady", steady),
    ("lb-hang", lb_hang),
    ("master-poweroff", master_poweroff),
    ("lb-partition", lb_partition),
    ("lb-isolated", lb_isolated),
    ("master-partition", master_partition),
    ("etcd-data-loss", etcd_data_loss),
    ("master-rebuild", master_rebuild),
    ("cert-rotation", cert_rotation),
    ("lb-upgrade", lb_upgrade),
    ("etcd-quorum-loss", etcd_quorum_loss),
    ("k8s-minor-upgrade", k8supgrade.k8s_minor_upgrade),
    ("master-add", masters.master_add),
    ("master-remove", masters.master_remove),
]
