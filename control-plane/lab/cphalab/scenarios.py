"""The scenarios: each breaks the lab the way hosts really fail and says
what it saw. A scenario returns marks, timings and notes; the runner
wraps it with the prober's window, the invariant monitor and the settle.
"""

import shutil
import signal
import time

from . import build, observe
from .hosts import LabError, wait_until


class Ctx:
    def __init__(self, lab, progress, stack):
        self.lab = lab
        self.progress = progress
        self.stack = stack
        self.marks = []
        self.timings = {}
        self.notes = []
        self.invariants = {}

    def mark(self, what):
        self.marks.append({"t": time.time(), "what": what})
        self.progress("    " + what)

    def ms_since(self, t0, t):
        return None if t is None else int(round((t - t0) * 1000))


def first_time(fn, timeout, interval=0.1):
    """The time fn() first held, or None."""
    end = time.time() + timeout
    while time.time() < end:
        if fn():
            return time.time()
        time.sleep(interval)
    return None


def first_times(conds, timeout, interval=0.1):
    """{name: time fn() first held, or None} for conds {name: fn}, all
    polled in each round (one slow or never-true condition does not delay
    the others' times)."""
    out = {k: None for k in conds}
    end = time.time() + timeout
    while time.time() < end and any(v is None for v in out.values()):
        for k, fn in conds.items():
            if out[k] is None:
                try:
                    if fn():
                        out[k] = time.time()
                except Exception:
                    pass
        time.sleep(interval)
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


def lb_daemons(ctx):
    return ("lbd", "vipd") if ctx.stack == "cpha" else ("haproxy", "keepalived")


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
        time.sleep(6)  # rise 2 x inter 2s before the next one goes


def reload_under_load(ctx):
    """20 reloads of each LB daemon on both LB hosts, while clients run."""
    lb, vip = lb_daemons(ctx)
    sig = {"lbd": signal.SIGHUP, "vipd": signal.SIGHUP, "haproxy": signal.SIGUSR2,
           "keepalived": signal.SIGHUP}
    ctx.mark("20 reloads of %s and of %s on each LB host, 0.5 s apart" % (lb, vip))
    for i in range(20):
        for h in ctx.lab.by_role("lb"):
            for d in (lb, vip):
                h.signal(d, sig[d])
        time.sleep(0.5)
    time.sleep(3)
    ctx.mark("reloads done")


def lb_poweroff(ctx):
    """The VIP holder loses power; the other LB host must fence it before
    it takes the VIP (the cpha stack). HAProxy + keepalived has no fencer:
    the VIP moves on VRRP alone, and nobody powers the dead host back on,
    so the lab does, as an operator would, once the VIP has moved."""
    lab = ctx.lab
    holders = observe.vip_holders(lab)
    if len(holders) != 1:
        raise LabError("lb-poweroff: VIP holders before: %s" % holders)
    victim = lab.host(holders[0])
    other = [h for h in lab.by_role("lb") if h is not victim][0]
    t0 = time.time()
    victim.power_off()
    ctx.mark("%s (VIP holder) lost power" % victim.name)

    def left():
        s = observe.fenced_show(other)
        return s is not None and victim.name not in s.get("members", [victim.name])
    conds = {"vip": lambda: other.name in observe.vip_holders(lab)}
    if ctx.stack == "cpha":
        conds["detect"] = left
        conds["fence"] = lambda: bmc_off_time(lab, victim.name, t0, reads=True)
    got = first_times(conds, 60)
    t_vip = got["vip"]
    t_fence = bmc_off_time(lab, victim.name, t0, reads=True)
    ctx.timings.update(detect_ms=ctx.ms_since(t0, got.get("detect")),
                       fence_ms=ctx.ms_since(t0, t_fence), vip_move_ms=ctx.ms_since(t0, t_vip))
    ctx.invariants["vip_after_fence"] = bool(t_vip and t_fence and t_vip >= t_fence)
    if t_vip:
        ctx.mark("VIP on %s" % other.name)
    if not t_fence:
        ctx.notes.append("no fence of %s seen at its BMC" % victim.name)
    if ctx.stack == "cpha":
        wait_until(lambda: victim.powered(), 60, 0.5, victim.name + " to boot after its fence")
        ctx.mark("%s booted (BMC power on)" % victim.name)
    else:
        time.sleep(3)
        build.boot(lab, victim)
        ctx.mark("%s powered on by the operator (no fencer in this stack)" % victim.name)
    if ctx.stack == "cpha":
        # vipd preempts: the old holder takes the VIP back once its daemons
        # are up (vrrp_startup_delay), and the other host resets the
        # connections on it. That failback belongs to this scenario's
        # window, not to whichever scenario runs next.
        t_back = first_time(lambda: observe.vip_holders(lab) == [victim.name], 90, 0.2)
        if t_back:
            ctx.mark("VIP back on %s (preempt)" % victim.name)
            time.sleep(6)  # the cut watches' clients notice (5 s without data) and reopen
        else:
            ctx.notes.append("the VIP did not come back to %s within 90 s" % victim.name)
    else:
        # keepalived.conf has nopreempt (it cannot reset the connections on
        # a VIP it gives up): no failback. Watched for longer than a
        # preempting host would take (vrrp_startup_delay 15 s, then
        # Master_Down_Interval) from its keepalived's start.
        t_moved = first_time(lambda: observe.vip_holders(lab) != [other.name], 30, 0.2)
        if t_moved:
            ctx.notes.append("the VIP left %s after %s came back: %s" % (
                other.name, victim.name, observe.vip_holders(lab)))
        else:
            ctx.mark("VIP stays on %s (nopreempt: no failback)" % other.name)
    return t0


def master_poweroff(ctx):
    """The master running the controller-manager loses power."""
    lab = ctx.lab
    x = observe.crm(lab)
    kcm = observe.resources(x).get("kcm", [])
    if len(kcm) != 1:
        raise LabError("master-poweroff: kcm runs on %s" % kcm)
    victim = lab.host(kcm[0])
    t0 = time.time()
    victim.power_off()
    ctx.mark("%s (controller-manager) lost power" % victim.name)
    def crm_now():
        return observe.crm(lab)
    got = first_times({
        "detect": lambda: (lambda x: x is not None and victim.name not in
                           observe.nodes_online(x))(crm_now()),
        "move": lambda: any(n != victim.name for n in observe.resources(crm_now()).get(
            "kcm", [])),
        "fence": lambda: bmc_off_time(lab, victim.name, t0)}, 120, 0.3)
    t_detect, t_move = got["detect"], got["move"]
    t_fence = bmc_off_time(lab, victim.name, t0)
    ctx.timings.update(detect_ms=ctx.ms_since(t0, t_detect), fence_ms=ctx.ms_since(t0, t_fence),
                       move_ms=ctx.ms_since(t0, t_move))
    ctx.invariants["move_after_fence"] = bool(t_move and t_fence and t_move >= t_fence)
    if t_move:
        ctx.mark("controller-manager started elsewhere")
    wait_until(lambda: victim.powered(), 90, 0.5, victim.name + " to boot after its fence")
    ctx.mark("%s booted (BMC power on)" % victim.name)
    return t0


def master_partition(ctx):
    """A master cut off the network, alive: the majority fences it."""
    lab = ctx.lab
    kcm = observe.resources(observe.crm(lab)).get("kcm", [])
    victim = lab.host(kcm[0]) if kcm else lab.by_role("master")[-1]
    t0 = time.time()
    victim.link(False)
    ctx.mark("%s cut off the network (alive)" % victim.name)
    t_fence = None
    end = time.time() + 90
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


def lb_partition(ctx):
    """The two LB hosts cut apart, both alive and reachable by clients."""
    lab = ctx.lab
    a, b = lab.by_role("lb")[:2]
    t0 = time.time()
    cut(a, b, True)
    cut(b, a, True)
    ctx.mark("%s and %s cut apart (both alive)" % (a.name, b.name))
    time.sleep(30)
    cut(a, b, False)
    cut(b, a, False)
    ctx.mark("partition healed")
    for h in (a, b):
        s = bmc_off_time(lab, h.name, t0)
        if s:
            ctx.notes.append("%s fenced at +%.1f s" % (h.name, s - t0))
            first_time(lambda: h.powered(), 30, 0.5)
        if not h.powered():
            # both fenced each other: each fencer died with its host before
            # it could power the other on again
            ctx.notes.append("%s stayed off: powered on by the operator" % h.name)
            build.boot(lab, h)
    return t0


def etcd_data_loss(ctx):
    """One member's data wiped: the agent replaces the member."""
    lab = ctx.lab
    victim = lab.by_role("master")[-1]
    t0 = time.time()
    pids = [p for p, argv in victim.processes() if argv and argv[0].endswith("etcd")]
    for p in pids:
        import os
        os.kill(p, signal.SIGKILL)
    shutil.rmtree(victim.path("/var/lib/etcd/member"), ignore_errors=True)
    ctx.mark("etcd on %s killed, its data directory wiped" % victim.name)

    def healthy():
        ms = observe.etcd_members(lab)
        h = observe.etcd_health(lab)
        n = len(lab.by_role("master"))
        return ms and len(ms) == n and all(m[0] for m in ms) and len(h) == n and all(h.values())
    t_bad = first_time(lambda: not healthy(), 60, 0.5)
    if t_bad:
        ctx.mark("etcd member on %s seen unhealthy" % victim.name)
    t_ok = first_time(healthy, 180, 1)
    ctx.timings.update(detect_ms=ctx.ms_since(t0, t_bad), replaced_ms=ctx.ms_since(t0, t_ok))
    if t_ok:
        ctx.mark("etcd has all its members healthy again")
    return t0


def master_rebuild(ctx):
    """A master lost with its disk; rebuilt from nothing as docs/runbook.md
    says: render --host, files and PKI into place, corosync and Pacemaker."""
    lab = ctx.lab
    victim = lab.by_role("master")[-1]
    t0 = time.time()
    victim.power_off()
    for d in ("etc.up", "varlib.up", "log"):
        shutil.rmtree(victim.dir + "/" + d, ignore_errors=True)
    ctx.mark("%s lost with its disk" % victim.name)
    end = time.time() + 90
    while time.time() < end and not bmc_off_time(lab, victim.name, t0):
        time.sleep(0.3)
    wait_until(lambda: victim.powered(), 60, 0.5, victim.name + " to power on")
    # the BMC powered it on: a blank machine; stop what its init started
    first_time(lambda: "pacemakerd" in victim.refresh().services, 15, 0.2)
    for n in list(victim.services):
        victim.stop(n, timeout=5)
    ctx.mark("%s is a blank machine; following docs/runbook.md" % victim.name)
    progs = build.Programs()
    desc = lab.path("cluster-%s.yaml" % ctx.stack)
    out = lab.path("rebuild-" + victim.name)
    shutil.rmtree(out, ignore_errors=True)
    build.cpha(progs, ["-f", desc, "render", "--host", victim.name, "--out", out])
    build.install_host(lab, victim, desc, out, ctx.stack, seed_cib=False)
    ctx.mark("runbook 2-3: cpha render --host %s, files and certificates in place" % victim.name)
    build.start_master(victim)
    ctx.mark("runbook 5: corosync and Pacemaker started")
    observe.wait_settled(lab, 180, ctx.progress)
    r = victim.run(["cpha", "check", "--host", victim.name], check=False, timeout=120)
    ctx.invariants["rebuilt_host_checks_ok"] = r.returncode == 0
    ctx.notes.append("cpha check --host %s: exit %d" % (victim.name, r.returncode))
    return t0


SCENARIOS = [
    ("apiserver-rolling-restart", apiserver_rolling_restart),
    ("reload-under-load", reload_under_load),
    ("lb-poweroff", lb_poweroff),
    ("master-poweroff", master_poweroff),
    ("lb-partition", lb_partition),
    ("master-partition", master_partition),
    ("etcd-data-loss", etcd_data_loss),
    ("master-rebuild", master_rebuild),
]
