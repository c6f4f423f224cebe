"""The soak's plan: a seeded schedule of random and compound faults for
`cpha lab soak`, with no I/O. plan() draws it, plan_check() verifies it;
the executor runs a plan only once plan_check() finds nothing wrong, and
maps each fault's kind to the lab's actions (docs/soak.md).

A fault is (id, kind, targets, start, duration, recovery, params,
compound). start is seconds from the soak's start, duration the seconds
the fault lasts (0 for an instantaneous one), recovery the seconds the
cluster is given after its end to heal (RECOVERY). Its window is
[start, start + duration + recovery): the hosts it impairs count as
impaired over the whole window. A fault is compound when its window
overlaps another fault's window: it starts while another is under way
or healing, or another starts while it is.

The rules the plan keeps (M masters, L LB hosts; both checked by
plan_check):
  - at every instant, outside the exclusive kinds' windows: masters whose
    cluster membership is impaired (MEMBER impact) <= (M - 1) // 2;
    masters impaired in any way (membership or their apiserver) <= M - 1;
    LB hosts impaired <= L - 1;
  - an exclusive kind (EXCLUSIVE) breaks those on purpose, so its window
    overlaps no other fault's window;
  - two overlapping windows share no target host, but for a bmc_silent
    and the fault it was paired with (the fence that needs the BMC);
  - a partition's side is one host, a minority of the masters, or one LB
    host with a minority of the masters;
  - nothing starts before START_S and every window ends by
    duration - TAIL_S;
  - every bmc_silent is paired: a power_off, freeze or partition of the
    same host starts inside its silence.
"""

import json
import random

START_S = 10.0  # nothing starts earlier: the executor's settled start
TAIL_S = 20.0  # every window ends this long before the soak does
EXCLUSIVE_EVERY_S = 600.0  # one exclusive fault per this much soak time
GAP_S = (1.0, 8.0)  # from one fault's start to the next draw
WAIT_S = 30.0  # a drawn fault waits this long at most for the rules to let it start
WAIT_SHARE = 0.1  # and no longer than this share of the soak's time for faults
STEP_S = 2.0  # in steps of this much
TRIES = 3  # draws of its targets and parameters at each step
PLAN_TRIES = 20  # whole plans drawn (next seeds) before plan() gives up

CPHA_STACKS = ("cpha", "cpha-two-node")  # lbd, vipd, corosync, fenced on the LB hosts
PEER_STACK = "peer"  # HAProxy and keepalived alone on the LB hosts
STACKS = CPHA_STACKS + (PEER_STACK,)

# The daemons a kill may hit. The masters are the same in every stack
# (corosync, Pacemaker with etcd and the apiserver as its resources, and
# fenced handing fences to Pacemaker); the LB hosts are not.
MASTER_DAEMONS = ("corosync", "pacemaker-controld", "fenced", "etcd", "kube-apiserver")
LB_DAEMONS = {"cpha": ("corosync", "fenced", "lbd", "vipd"),
              "peer": ("haproxy", "keepalived")}
# What brings a killed daemon back, and the recovery window it is given:
# "fence" (the host leaves corosync's membership, is fenced and boots),
# "pacemaker" (a resource's monitor sees it dead and restarts it),
# "respawn" (pacemakerd starts its child again, or the node is fenced),
# "restart" (its unit's Restart=on-failure, 5 s later; in the lab the
# executor does what systemd would).
KILL = {
    ("master", "corosync"): ("fence", 60.0),
    ("master", "pacemaker-controld"): ("respawn", 60.0),
    # fenced's rule: a member whose fenced process dies is fenced (its
    # unit restarts fenced 5 s later, after the fence has been asked for)
    ("master", "fenced"): ("fence", 60.0),
    ("master", "etcd"): ("pacemaker", 30.0),
    ("master", "kube-apiserver"): ("pacemaker", 25.0),
    ("lb", "corosync"): ("fence", 45.0),
    ("lb", "fenced"): ("fence", 45.0),
    ("lb", "lbd"): ("restart", 20.0),
    ("lb", "vipd"): ("restart", 20.0),
    ("lb", "haproxy"): ("restart", 20.0),
    ("lb", "keepalived"): ("restart", 20.0),
}


class Kind:
    """A fault kind: its weight among the draws (for an exclusive kind,
    its share of the exclusive slots), its duration range in seconds,
    its recovery window (seconds; a pair (master, LB host) where the
    role matters), whether it is exclusive, and how long a drawn one may
    wait for the rules to let it start (WAIT_S unless it needs every
    master or both LB hosts free at once, which comes seldom)."""

    def __init__(self, weight, duration, recovery, exclusive=False, wait=None):
        self.weight, self.duration, self.recovery = weight, duration, recovery
        self.exclusive = exclusive
        self.wait = wait


KINDS = {
    "power_off": Kind(8, (5.0, 30.0), (45.0, 30.0)),
    "freeze": Kind(7, (3.0, 15.0), (50.0, 35.0)),
    "kill": Kind(16, (0.0, 0.0), None),  # per daemon: KILL
    "partition": Kind(6, (10.0, 40.0), 50.0),
    "loss": Kind(4, (10.0, 45.0), 40.0),
    "flap": Kind(4, (10.0, 45.0), 40.0),
    "bmc_silent": Kind(3, (25.0, 60.0), 50.0),
    "etcd_stall": Kind(7, (2.0, 15.0), 20.0),
    "reload": Kind(8, (0.0, 0.0), 5.0),
    "watch_reload": Kind(5, (0.0, 0.0), 10.0),
    "rolling_restart": Kind(5, (20.0, 40.0), 15.0, wait=120.0),
    "advert_oneway": Kind(5, (10.0, 45.0), 20.0, wait=60.0),
    "track_timeout": Kind(4, (10.0, 40.0), 20.0),
    "apiserver_graceful_stop": Kind(5, (5.0, 45.0), 20.0),
    "standby": Kind(4, (20.0, 60.0), 30.0),
    "lb_both_boot": Kind(1, (5.0, 20.0), 45.0, exclusive=True),
    "etcd_quorum_loss": Kind(1, (10.0, 40.0), 60.0, exclusive=True),
    "all_apiservers_down": Kind(1, (10.0, 40.0), 30.0, exclusive=True),
}
EXCLUSIVE = tuple(k for k, v in KINDS.items() if v.exclusive)
# the faults a bmc_silent is paired with: each makes the cluster fence the host
FENCING_KINDS = ("power_off", "freeze", "partition")
PERCENT = (10, 50)  # loss
FLAP_PERIOD_S = (2.0, 10.0)  # flap: down for the first half of each period
RELOAD_AT_S = (1.0, 10.0)  # lb_both_boot: the reload, this long after power on

# A fault's impact on the limits
MEMBER = "member"  # a master's corosync/Pacemaker/etcd membership
API = "api"  # a master's apiserver alone
LB = "lb"  # an LB host's ability to serve or hold the VIP


def r1(x):
    """x at the plan's resolution, 0.1 s."""
    return round(x + 0.0, 1)


def stack_family(stack):
    """"cpha" or "peer": which daemons the stack's LB hosts run."""
    if stack in CPHA_STACKS:
        return "cpha"
    if stack == PEER_STACK:
        return "peer"
    raise ValueError("stack %r: one of %s" % (stack, ", ".join(STACKS)))


def lb_proxy(stack):
    """The load balancer daemon of the stack's LB hosts."""
    return "lbd" if stack_family(stack) == "cpha" else "haproxy"


def lb_reloadable(stack):
    """The LB hosts' daemons a reload may hit."""
    return ("lbd", "vipd") if stack_family(stack) == "cpha" else ("haproxy", "keepalived")


class Fault:
    """One fault of a plan; see the module's docstring for the fields."""

    FIELDS = ("id", "kind", "targets", "start", "duration", "recovery", "compound", "params")

    def __init__(self, kind, targets, start, duration, recovery, params=None, id=0,
                 compound=False):
        self.id, self.kind, self.targets = id, kind, list(targets)
        self.start, self.duration, self.recovery = r1(start), r1(duration), r1(recovery)
        self.params = dict(params or {})
        self.compound = compound

    @property
    def end(self):
        """When the fault itself is over (its recovery window opens)."""
        return round(self.start + self.duration, 1)

    @property
    def window_end(self):
        """When its recovery window closes."""
        return round(self.start + self.duration + self.recovery, 1)

    def overlaps(self, other):
        return self.start < other.window_end and other.start < self.window_end

    def to_json(self):
        d = {}
        for k in self.FIELDS:
            v = getattr(self, k)
            d[k] = {p: v[p] for p in sorted(v)} if k == "params" else v
        return d

    @classmethod
    def from_json(cls, d):
        return cls(d["kind"], d["targets"], d["start"], d["duration"], d["recovery"],
                   d.get("params"), d.get("id", 0), d.get("compound", False))

    def what(self):
        """The fault in words, without its time."""
        p, t = self.params, " ".join(self.targets)
        k = self.kind
        if k == "kill":
            return "kill %s on %s" % (p.get("daemon"), t)
        if k in ("reload", "watch_reload"):
            return "reload %s on %s%s" % (p.get("daemon"), t,
                                          " with watches open" if p.get("watches") else "")
        if k == "partition":
            return "partition: %s cut from the rest for %.1f s" % (t, self.duration)
        if k == "loss":
            return "loss %d%% on %s's link for %.1f s" % (p.get("percent", 0), t, self.duration)
        if k == "flap":
            return "flap %s's link every %.1f s for %.1f s" % (t, p.get("period_s", 0),
                                                               self.duration)
        if k == "advert_oneway":
            return "VRRP adverts %s -> %s lost for %.1f s" % (p.get("from"), p.get("to"),
                                                              self.duration)
        if k == "rolling_restart":
            return "rolling restart of the apiservers (%s), %.1f s" % (t, self.duration)
        if k == "lb_both_boot":
            return "power cycle of %s together, off %.1f s, reload of %s %.1f s after power on" % (
                t, self.duration, p.get("daemon"), p.get("reload_at_s", 0))
        s = "%s %s for %.1f s" % (k, t, self.duration)
        if k == "bmc_silent" and p.get("paired_with"):
            s += " (with #%d)" % p["paired_with"]
        return s

    def describe(self):
        """One line for the soak's progress: id, start, what, compound."""
        return "#%d +%.1fs %s%s" % (self.id, self.start, self.what(),
                                    " [compound]" if self.compound else "")

    def __repr__(self):
        return "Fault(%s)" % json.dumps(self.to_json())


class Plan:
    """The faults of a soak, sorted by start, and what they were drawn for."""

    def __init__(self, faults, seed=None, duration_s=0.0, masters=(), lbs=(), stack="cpha"):
        self.faults = list(faults)
        self.seed, self.duration_s = seed, duration_s
        self.masters, self.lbs, self.stack = list(masters), list(lbs), stack

    def __iter__(self):
        return iter(self.faults)

    def __len__(self):
        return len(self.faults)

    def to_json(self):
        """The faults as a list of dicts, keys in a fixed order."""
        return [f.to_json() for f in self.faults]

    def dumps(self):
        """The plan as JSON text: its parameters and its faults. The same
        seed, duration, hosts and stack give the same bytes."""
        return json.dumps({"seed": self.seed, "duration_s": self.duration_s,
                           "masters": self.masters, "lbs": self.lbs, "stack": self.stack,
                           "faults": self.to_json()}, indent=1)

    def describe(self):
        return [f.describe() for f in self.faults]

    def compound_count(self):
        return sum(1 for f in self.faults if f.compound)


# -- what a fault does to the limits ----------------------------------------------------------
def role_of(host, masters, lbs):
    if host in masters:
        return "master"
    if host in lbs:
        return "lb"
    return None


def recovery_s(kind, targets, params, masters, lbs):
    """The recovery window of a fault (seconds after its end)."""
    k = KINDS[kind]
    if kind == "kill":
        return KILL[(role_of(targets[0], masters, lbs), params["daemon"])][1]
    if isinstance(k.recovery, tuple):
        roles = {role_of(h, masters, lbs) for h in targets}
        return max(k.recovery[0] if r == "master" else k.recovery[1] for r in roles)
    return k.recovery


def impact(f, masters, lbs):
    """{MEMBER: masters, API: masters, LB: LB hosts, "api_any": n} the fault
    impairs over its window. api_any counts a master the fault impairs
    without saying which (a rolling restart takes one apiserver at a
    time)."""
    t = list(f.targets)
    ms = [h for h in t if h in masters]
    ls = [h for h in t if h in lbs]
    out = {MEMBER: set(), API: set(), LB: set(), "api_any": 0}
    k = f.kind
    if k in ("power_off", "freeze", "loss", "flap", "bmc_silent", "partition",
             "etcd_stall", "standby", "etcd_quorum_loss", "lb_both_boot"):
        out[MEMBER].update(ms)
        out[LB].update(ls)
    elif k == "kill":
        d = f.params.get("daemon")
        if ms and d in ("corosync", "pacemaker-controld", "etcd", "fenced"):
            out[MEMBER].update(ms)
        elif ms and d == "kube-apiserver":
            out[API].update(ms)
        out[LB].update(ls)
    elif k in ("apiserver_graceful_stop", "all_apiservers_down"):
        out[API].update(ms)
    elif k == "rolling_restart":
        out["api_any"] = 1
    elif k == "advert_oneway":
        out[LB].add(f.params.get("to"))
    elif k == "track_timeout":
        out[LB].update(ls)
    # reload, watch_reload: nothing (a reload must lose nothing)
    return out


def limits(masters, lbs):
    """(membership-impaired masters, impaired masters, impaired LB hosts)
    the plan allows at once."""
    m, n = len(masters), len(lbs)
    return (m - 1) // 2, m - 1, n - 1


def counts(faults, masters, lbs):
    """(membership-impaired masters, impaired masters, impaired LB hosts)
    of faults taken together."""
    mem, api, lb, anyn = set(), set(), set(), 0
    for f in faults:
        i = impact(f, masters, lbs)
        mem |= i[MEMBER]
        api |= i[API]
        lb |= i[LB]
        anyn += i["api_any"]
    return len(mem), len(mem | api) + anyn, len(lb)


def side_ok(side, masters, lbs):
    """A partition's side: one host, a minority of the masters, or one LB
    host with a minority of the masters."""
    ms = [h for h in side if h in masters]
    ls = [h for h in side if h in lbs]
    if len(ms) + len(ls) != len(side) or not side or len(set(side)) != len(side):
        return False
    return len(ls) <= 1 and len(ms) <= (len(masters) - 1) // 2


# -- drawing ---------------------------------------------------------------------------------
class _Draw:
    """The state of one plan's drawing."""

    def __init__(self, rng, masters, lbs, stack, horizon):
        self.rng, self.masters, self.lbs, self.stack = rng, masters, lbs, stack
        self.family = stack_family(stack)
        self.horizon = horizon

    def dur(self, kind):
        lo, hi = KINDS[kind].duration
        return r1(self.rng.uniform(lo, hi))

    def fault(self, kind, targets, start, duration, params=None):
        """The fault, its duration cut short where its window would end past
        the horizon; None where even its shortest would."""
        params = params or {}
        rec = recovery_s(kind, targets, params, self.masters, self.lbs)
        room = int((self.horizon - start - rec) * 10) / 10.0
        if duration > room:
            duration = room
        if duration < KINDS[kind].duration[0]:
            return None
        return Fault(kind, targets, start, duration, rec, params)

    def host(self, free, role=None):
        pool = [h for h in (self.masters if role == "master" else self.lbs if role == "lb"
                            else self.masters + self.lbs) if h in free]
        return self.rng.choice(pool) if pool else None

    def build(self, kind, t, free):
        """The faults (one, or a bmc_silent and its pair) of kind at t on
        hosts of free, or [] when kind has no target free or no room
        before the horizon."""
        new = self._build(kind, t, free)
        return [] if None in new else new

    def _build(self, kind, t, free):
        rng = self.rng
        if kind in ("power_off", "freeze", "loss", "flap"):
            h = self.host(free)
            if h is None:
                return []
            params = {}
            if kind == "loss":
                params["percent"] = rng.randint(*PERCENT)
            if kind == "flap":
                params["period_s"] = r1(rng.uniform(*FLAP_PERIOD_S))
            return [self.fault(kind, [h], t, self.dur(kind), params)]
        if kind == "kill":
            h = self.host(free)
            if h is None:
                return []
            if h in self.masters:
                daemons = MASTER_DAEMONS
            else:
                daemons = LB_DAEMONS[self.family]
            d = rng.choice(daemons)
            role = "master" if h in self.masters else "lb"
            return [self.fault(kind, [h], t, 0.0, {"daemon": d,
                                                    "recovered_by": KILL[(role, d)][0]})]
        if kind == "partition":
            side = self.side(free)
            if not side:
                return []
            return [self.fault(kind, side, t, self.dur(kind), {"side": list(side)})]
        if kind == "bmc_silent":
            return self.bmc_pair(t, free)
        if kind in ("etcd_stall", "standby", "apiserver_graceful_stop"):
            h = self.host(free, "master")
            return [self.fault(kind, [h], t, self.dur(kind))] if h else []
        if kind in ("reload", "watch_reload"):
            h = self.host(free, "lb")
            if h is None:
                return []
            if kind == "reload":
                params = {"daemon": rng.choice(lb_reloadable(self.stack)), "watches": False}
            else:
                params = {"daemon": lb_proxy(self.stack), "watches": True}
            return [self.fault(kind, [h], t, 0.0, params)]
        if kind == "rolling_restart":
            if any(m not in free for m in self.masters):
                return []
            order = list(self.masters)
            rng.shuffle(order)
            return [self.fault(kind, order, t, self.dur(kind))]
        if kind == "advert_oneway":
            pool = [h for h in self.lbs if h in free]
            if len(pool) < 2:
                return []
            a, b = rng.sample(pool, 2)
            return [self.fault(kind, [a, b], t, self.dur(kind), {"from": a, "to": b})]
        if kind == "track_timeout":
            h = self.host(free, "lb")
            if h is None:
                return []
            check = "track_lbd" if self.family == "cpha" else "vrrp_script lb_healthy"
            return [self.fault(kind, [h], t, self.dur(kind), {"check": check})]
        raise ValueError("kind %r is not drawn this way" % kind)

    def side(self, free):
        """A partition's side of free hosts (side_ok)."""
        rng = self.rng
        minority = (len(self.masters) - 1) // 2
        fm = [h for h in self.masters if h in free]
        fl = [h for h in self.lbs if h in free]
        shape = rng.choice(("host", "masters", "lb+masters"))
        if shape == "host":
            pool = fm + fl
            return [rng.choice(pool)] if pool else []
        if shape == "masters":
            if not fm:
                return []
            return sorted(rng.sample(fm, rng.randint(1, min(minority, len(fm)))))
        if not fm or not fl:
            return []
        return [rng.choice(fl)] + sorted(rng.sample(fm, rng.randint(1, min(minority,
                                                                           len(fm)))))

    def bmc_pair(self, t, free):
        """A bmc_silent of a host and, inside the silence, a fault that
        makes the cluster fence that host: the fence finds the BMC mute."""
        rng = self.rng
        h = self.host(free)
        if h is None:
            return []
        d = self.dur("bmc_silent")
        kind = rng.choice(FENCING_KINDS)
        # the fence comes seconds after the fault starts: start it early
        # enough that the BMC is still silent then
        at = r1(t + rng.uniform(1.0, max(1.0, d - 15.0)))
        params = {"side": [h]} if kind == "partition" else {}
        pair = self.fault(kind, [h], at, self.dur(kind), params)
        silent = self.fault("bmc_silent", [h], t, d)
        return [silent, pair]

    def exclusive(self, kind, t):
        rng = self.rng
        if kind == "lb_both_boot":
            return self.fault(kind, list(self.lbs), t, self.dur(kind), {
                "daemon": rng.choice(lb_reloadable(self.stack)),
                "reload_at_s": r1(rng.uniform(*RELOAD_AT_S))})
        if kind == "etcd_quorum_loss":
            n = len(self.masters) // 2 + 1
            return self.fault(kind, sorted(rng.sample(self.masters, n)), t, self.dur(kind))
        if kind == "all_apiservers_down":
            return self.fault(kind, list(self.masters), t, self.dur(kind))
        raise ValueError("kind %r is not exclusive" % kind)


def _fits(new, placed, masters, lbs, horizon):
    """Can the faults new join placed? The generator's own check; plan_check
    verifies the finished plan on its own."""
    lim = limits(masters, lbs)
    for f in new:
        if f.start < START_S or f.window_end > horizon:
            return False
    near = [p for p in placed if any(p.overlaps(f) for f in new)]
    for f in new:
        if KINDS[f.kind].exclusive and near:
            return False
    for p in near:
        if KINDS[p.kind].exclusive:
            return False
        for f in new:
            if p.overlaps(f) and set(p.targets) & set(f.targets):
                return False
    # the limits at every start inside the new windows (counts only change there)
    everyone = [x for x in near + list(new) if not KINDS[x.kind].exclusive]
    for f in everyone:
        if f not in new:
            continue
        for t in sorted({x.start for x in everyone if f.start <= x.start < f.window_end}
                        | {f.start}):
            live = [x for x in everyone if x.start <= t < x.window_end]
            c = counts(live, masters, lbs)
            if any(a > b for a, b in zip(c, lim)):
                return False
    return True


def _check_hosts(masters, lbs):
    masters, lbs = list(masters), list(lbs)
    if len(masters) < 3:
        raise ValueError("masters %s: at least 3" % masters)
    if len(lbs) < 2:
        raise ValueError("LB hosts %s: at least 2" % lbs)
    if len(set(masters + lbs)) != len(masters) + len(lbs):
        raise ValueError("host names repeat: %s %s" % (masters, lbs))
    return masters, lbs


def _draw(rng, duration_s, masters, lbs, stack, weights, exclusive_every_s):
    horizon = duration_s - TAIL_S
    d = _Draw(rng, masters, lbs, stack, horizon)
    placed = []
    # the exclusive slots first, one per exclusive_every_s, each kind in turn
    # (a shuffled deck that holds each kind weight times)
    usable = horizon - START_S
    n = int(usable // exclusive_every_s) if exclusive_every_s else 0
    deck = []
    for i in range(n):
        if not deck:
            deck = [k for k in EXCLUSIVE for _ in range(weights.get(k, KINDS[k].weight))]
            rng.shuffle(deck)
        if not deck:
            break  # every exclusive kind weighted 0
        kind = deck.pop()
        seg = usable / n
        lo = START_S + i * seg
        hi = lo + seg - (KINDS[kind].duration[1] + KINDS[kind].recovery)
        f = d.exclusive(kind, r1(rng.uniform(lo, max(lo, hi))))
        if f and _fits([f], placed, masters, lbs, horizon):
            placed.append(f)
    # then the others: a kind drawn by weight, placed at the first time
    # from t on (within WAIT_S) where a draw of its targets keeps the
    # rules, or dropped; the next draw comes a gap after it
    kinds = sorted(k for k in KINDS if not KINDS[k].exclusive
                   and weights.get(k, KINDS[k].weight) > 0)
    w = [weights.get(k, KINDS[k].weight) for k in kinds]
    t = START_S
    active = list(placed)
    while t < horizon:
        kind = rng.choices(kinds, w)[0]
        # the faults that matter from t on (those over earlier cannot
        # overlap anything placed now or later)
        active = [p for p in active if p.window_end > t]
        at = None
        # a short soak does not spend its time waiting
        most = min(KINDS[kind].wait or WAIT_S, usable * WAIT_SHARE)
        for wait in range(0, int(most / STEP_S) + 1):
            tt = r1(t + wait * STEP_S)
            if tt >= horizon:
                break
            free = set(masters + lbs) - {h for p in active if p.start <= tt < p.window_end
                                         for h in p.targets}
            for _ in range(TRIES):
                new = d.build(kind, tt, free)
                if new and _fits(new, active, masters, lbs, horizon):
                    placed.extend(new)
                    active.extend(new)
                    at = tt
                    break
            if at is not None:
                break
        t = r1((at if at is not None else t + STEP_S) + rng.uniform(*GAP_S))
    return placed


def _finish(placed, masters, lbs):
    """Sorted, numbered, compound flags set, pairs named."""
    placed.sort(key=lambda f: (f.start, f.kind, f.targets))
    for i, f in enumerate(placed):
        f.id = i + 1
    for f in placed:
        f.compound = any(g is not f and g.overlaps(f) for g in placed)
    for f in placed:
        if f.kind == "bmc_silent":
            pair = [g for g in placed if g.kind in FENCING_KINDS and g.targets == f.targets
                    and f.start <= g.start < f.end]
            f.params["paired_with"] = pair[0].id
            pair[0].params["bmc_silent"] = f.id
    return placed


def plan(seed, duration_s, masters, lbs, stack="cpha", weights=None,
         exclusive_every_s=EXCLUSIVE_EVERY_S):
    """The soak's faults for seed (an int) over duration_s seconds on the
    masters and LB hosts named (lists of host names), for stack (STACKS):
    a Plan whose faults keep every rule plan_check checks. weights:
    {kind: weight} over KINDS' (0 leaves a kind out); exclusive_every_s:
    the soak time per exclusive fault (None: none). The same arguments
    give the same plan. A drawing that breaks a rule (it should not) is
    thrown away and the next one, from a seed derived from seed, taken;
    ValueError after PLAN_TRIES."""
    masters, lbs = _check_hosts(masters, lbs)
    stack_family(stack)
    if not isinstance(seed, int):
        raise ValueError("seed %r: an integer" % (seed,))
    weights = dict(weights or {})
    bad = [k for k in weights if k not in KINDS]
    if bad:
        raise ValueError("unknown fault kinds: %s" % " ".join(sorted(bad)))
    for i in range(PLAN_TRIES):
        rng = random.Random(seed * 1009 + i if i else seed)
        faults = _finish(_draw(rng, float(duration_s), masters, lbs, stack, weights,
                               exclusive_every_s), masters, lbs)
        p = Plan(faults, seed, float(duration_s), masters, lbs, stack)
        if not plan_check(p, masters, lbs):
            return p
    raise ValueError("seed %d: no plan within the rules in %d drawings" % (seed, PLAN_TRIES))


# -- checking --------------------------------------------------------------------------------
def _params_problems(f, masters, lbs, family):
    out = []
    p = f.params
    role = role_of(f.targets[0], masters, lbs) if f.targets else None
    if f.kind == "kill":
        d = p.get("daemon")
        allowed = MASTER_DAEMONS if role == "master" else LB_DAEMONS[family]
        if len(f.targets) != 1 or d not in allowed:
            out.append("kills %s on %s: not a daemon of that host in this stack"
                       % (d, " ".join(f.targets)))
        elif p.get("recovered_by") != KILL[(role, d)][0]:
            out.append("recovered_by %r, %s on a %s comes back by %s"
                       % (p.get("recovered_by"), d, role, KILL[(role, d)][0]))
    elif f.kind in ("reload", "watch_reload"):
        d = p.get("daemon")
        allowed = (lb_reloadable(family) if f.kind == "reload" else (lb_proxy(family),))
        if role != "lb" or len(f.targets) != 1 or d not in allowed:
            out.append("reloads %s on %s: not a load balancer daemon of this stack"
                       % (d, " ".join(f.targets)))
        if bool(p.get("watches")) != (f.kind == "watch_reload"):
            out.append("watches is %r" % p.get("watches"))
    elif f.kind == "loss":
        if not PERCENT[0] <= p.get("percent", -1) <= PERCENT[1]:
            out.append("loss of %r%%" % p.get("percent"))
    elif f.kind == "flap":
        if not FLAP_PERIOD_S[0] <= p.get("period_s", -1) <= FLAP_PERIOD_S[1]:
            out.append("flap period %r s" % p.get("period_s"))
    elif f.kind == "partition":
        if sorted(p.get("side", [])) != sorted(f.targets) or not side_ok(f.targets,
                                                                         masters, lbs):
            out.append("partition side %s: not one host, a minority of the masters or "
                       "one LB host with a minority of the masters" % p.get("side"))
    elif f.kind in ("etcd_stall", "standby", "apiserver_graceful_stop"):
        if len(f.targets) != 1 or role != "master":
            out.append("%s of %s: one master" % (f.kind, f.targets))
    elif f.kind == "rolling_restart" or f.kind == "all_apiservers_down":
        if sorted(f.targets) != sorted(masters):
            out.append("%s of %s: every master" % (f.kind, f.targets))
    elif f.kind == "etcd_quorum_loss":
        if len(set(f.targets)) <= len(masters) // 2 or not set(f.targets) <= set(masters):
            out.append("etcd_quorum_loss of %s: a majority of the masters" % f.targets)
    elif f.kind == "lb_both_boot":
        if sorted(f.targets) != sorted(lbs) or not RELOAD_AT_S[0] <= p.get(
                "reload_at_s", -1) <= RELOAD_AT_S[1]:
            out.append("lb_both_boot of %s: every LB host, a reload while they boot"
                       % f.targets)
    elif f.kind == "advert_oneway":
        if (len(f.targets) != 2 or not set(f.targets) <= set(lbs)
                or [p.get("from"), p.get("to")] != f.targets):
            out.append("advert_oneway of %s: two LB hosts, from and to" % f.targets)
    elif f.kind == "track_timeout":
        if len(f.targets) != 1 or role != "lb":
            out.append("track_timeout of %s: one LB host" % f.targets)
    elif f.kind in ("power_off", "freeze", "bmc_silent"):
        if len(f.targets) != 1 or role is None:
            out.append("%s of %s: one master or LB host" % (f.kind, f.targets))
    return out


def plan_check(plan, masters, lbs):
    """Every rule the plan breaks, as sentences ([] when it keeps them all):
    the module's rules, and each fault well formed (a known kind, hosts of
    the lab, durations in range, the recovery window its kind gives, the
    daemons of plan.stack, ids 1..n in order of start, the compound flag
    true to its definition). Takes a Plan, or a list of Faults (then the
    stack is cpha) with the lab's masters and LB hosts."""
    masters, lbs = list(masters), list(lbs)
    faults = list(plan.faults if isinstance(plan, Plan) else plan)
    stack = plan.stack if isinstance(plan, Plan) else "cpha"
    family = stack_family(stack)
    horizon = (plan.duration_s - TAIL_S) if isinstance(plan, Plan) else None
    out = []

    def say(f, msg):
        out.append("#%s %s: %s" % (f.id, f.kind, msg))

    # each fault on its own
    for i, f in enumerate(faults):
        if f.kind not in KINDS:
            say(f, "unknown kind")
            continue
        if f.id != i + 1:
            say(f, "id %s at place %d" % (f.id, i + 1))
        if i and f.start < faults[i - 1].start:
            say(f, "starts before the fault listed ahead of it")
        unknown = [h for h in f.targets if role_of(h, masters, lbs) is None]
        if unknown or not f.targets:
            say(f, "targets %s: not masters or LB hosts of the lab" % f.targets)
            continue
        lo, hi = KINDS[f.kind].duration
        if not lo <= f.duration <= hi:
            say(f, "lasts %.1f s, not %.0f-%.0f s" % (f.duration, lo, hi))
        for p in _params_problems(f, masters, lbs, family):
            say(f, p)
        try:
            want = recovery_s(f.kind, f.targets, f.params, masters, lbs)
        except KeyError:
            want = None
        if want is not None and f.recovery != want:
            say(f, "recovery window %.1f s, its kind gives %.1f s" % (f.recovery, want))
        if f.start < START_S:
            say(f, "starts at %.1f s, before %.0f s" % (f.start, START_S))
        if horizon is not None and f.window_end > horizon:
            say(f, "its recovery ends at %.1f s, past %.1f s (the tail to settle)"
                % (f.window_end, horizon))
    known = [f for f in faults if f.kind in KINDS
             and all(role_of(h, masters, lbs) for h in f.targets) and f.targets]

    # pairs of faults (by start: once g starts after f's window, so do the rest)
    bystart = sorted(known, key=lambda f: f.start)
    ends = {id(f): f.window_end for f in bystart}
    overlapping = set()
    for i, f in enumerate(bystart):
        for g in bystart[i + 1:]:
            if g.start >= ends[id(f)]:
                break
            if not f.overlaps(g):
                continue
            overlapping.update((id(f), id(g)))
            for a, b in ((f, g), (g, f)):
                if KINDS[a.kind].exclusive:
                    say(a, "exclusive, but #%d %s overlaps its window" % (b.id, b.kind))
            if set(f.targets) & set(g.targets) and not _paired(f, g):
                say(g, "hits %s while #%d %s does" % (
                    " ".join(sorted(set(f.targets) & set(g.targets))), f.id, f.kind))
    for f in known:
        want = id(f) in overlapping
        if f.compound != want:
            say(f, "compound is %s, its window says %s" % (f.compound, want))
        if f.kind == "bmc_silent":
            if not any(g.kind in FENCING_KINDS and g.targets == f.targets
                       and f.start <= g.start < f.end for g in known):
                say(f, "no power_off, freeze or partition of %s starts while its BMC is "
                       "silent" % " ".join(f.targets))

    # the limits, at every start (the counts change only there), outside
    # the exclusive kinds
    lim = limits(masters, lbs)
    names = ("masters out of the cluster", "masters impaired", "LB hosts impaired")
    normal = [f for f in known if not KINDS[f.kind].exclusive]
    seen = set()
    normal.sort(key=lambda f: f.start)
    live, j = [], 0
    for t in sorted({f.start for f in normal}):
        while j < len(normal) and normal[j].start <= t:
            live.append(normal[j])
            j += 1
        live = [g for g in live if g.window_end > t]
        c = counts(live, masters, lbs)
        for n, have, most in zip(names, c, lim):
            if have > most:
                key = (n, tuple(f.id for f in live))
                if key not in seen:
                    seen.add(key)
                    out.append("at %.1f s: %d %s (at most %d): %s" % (
                        t, have, n, most, ", ".join("#%s %s %s" % (f.id, f.kind,
                                                                   " ".join(f.targets))
                                                    for f in live)))
    return out


def _paired(a, b):
    """a and b are a bmc_silent and the fault paired with it."""
    for s, p in ((a, b), (b, a)):
        if (s.kind == "bmc_silent" and p.kind in FENCING_KINDS and s.targets == p.targets
                and s.start <= p.start < s.end):
            return True
    return False


def stats(plan):
    """{faults, compound, kinds: {kind: n}} of a plan (for reports and tests)."""
    kinds = {}
    for f in plan.faults:
        kinds[f.kind] = kinds.get(f.kind, 0) + 1
    return {"faults": len(plan.faults), "compound": plan.compound_count(),
            "kinds": {k: kinds[k] for k in sorted(kinds)}}
