"""The lab's judgements, with no I/O: whether the lab has settled enough
for a scenario to start, whether a scenario's fault did what it must (a
valid run), and in which order the runs go. Facts in, verdicts out:
observe.py gathers the facts, runner.py acts on the verdicts.

A measuring instrument starts every run from the same state and throws
away a run whose fault did not happen as intended: a power loss of the
VIP holder that broke no watch did not hit the VIP holder, whatever the
figures say.
"""

STEADY_SECS = 5.0  # the prober: every request OK for this long before a start
VRRP_QUIET_ADVERTS = 3  # no VRRP transition for this many advert intervals
# a dual-stack lab's two VIPs (a VRRP sync group): never apart for longer
# than this in the monitor's samples (every 250 ms, each a look at both)
VIPS_APART_MAX_MS = 1500
LEASE_MAX_AGE = 6.0  # s: a leader renews every retry period (2 s) well inside this
FIRST_OK_SLACK_MS = 300  # a request in flight at the fault may still complete
MAX_EXTRA_ATTEMPTS = 2  # invalid or unstarted runs retried, per stack and scenario
FAILED_ACTIONS = "Pacemaker failed actions"
PROBER_YOUNG = "the prober has run only"


def settle_reasons(f):
    """What keeps the lab from a settled start, as a list of reasons
    ([] when settled), from the facts f:
      now, advert_int (s), preempt (the VRRP configuration preempts),
      masters: [name],
      pcmk: None (no quorate DC) or {online, resources: {rid: [node]},
            idle, failed: [text]},
      etcd: None or {members, healthy, leaders: [id]},
      startup_delay (s, vrrp_startup_delay),
      lbs: [{name, powered, vip, state, priority, last_change, uptime (s
             since its VRRP daemon started, or None), servers:
             {server: status} or None}],
      leases: {name: seconds since renewTime, or None},
      prober: None or {history, requests, failed, watches, open},
      a dual-stack lab's too: vip6 in each powered lbs entry (it holds the
      IPv6 VIP), prober6 (the IPv6 prober's, as prober)
    The checks: Pacemaker quorate with every master online, every
    resource where it belongs and no transition or failed action; etcd
    with every member healthy and one leader; exactly one VIP holder, the
    one VRRP itself calls MASTER and, when the configuration preempts,
    the one the priorities prefer, with no transition for
    VRRP_QUIET_ADVERTS advert intervals and every VRRP daemon past its
    vrrp_startup_delay by as much; every apiserver up on every load
    balancer; the controller-manager's and scheduler's Leases renewed;
    the prober seeing every request succeed for STEADY_SECS and every
    watch open; dual stack: the IPv6 VIP on the VIP holder, the IPv6
    prober as the prober."""
    out = []
    masters = sorted(f.get("masters", []))
    nm = len(masters)
    pc = f.get("pcmk")
    if pc is None:
        return ["no quorate Pacemaker DC"]
    if sorted(pc.get("online", [])) != masters:
        out.append("Pacemaker nodes online: %s" % " ".join(sorted(pc.get("online", []))))
    res = pc.get("resources", {})
    for rid, n in (("etcd", nm), ("apiserver", nm), ("kcm", 1), ("scheduler", 1)):
        if len(res.get(rid, [])) != n:
            out.append("%s active on [%s]" % (rid, " ".join(res.get(rid, []))))
    if not pc.get("idle", False):
        out.append("Pacemaker has a transition in progress")
    if pc.get("failed"):
        out.append(FAILED_ACTIONS + ": %s" % "; ".join(pc["failed"][:3]))
    et = f.get("etcd")
    if et is None:
        out.append("etcd does not answer")
    else:
        if et.get("members") != nm or et.get("healthy") != nm:
            out.append("etcd: %s members, %s healthy" % (et.get("members"), et.get("healthy")))
        leaders = sorted(set(et.get("leaders", [])))
        if len(leaders) != 1:
            out.append("etcd leaders: %s" % (leaders or "none"))
    out += _lb_reasons(f)
    for name, age in sorted(f.get("leases", {}).items()):
        if age is None:
            out.append("no Lease %s" % name)
        elif age > LEASE_MAX_AGE:
            out.append("Lease %s last renewed %.1f s ago" % (name, age))
    out += _prober_reasons(f.get("prober"), "the prober", "")
    if "prober6" in f:
        out += _prober_reasons(f["prober6"], "the IPv6 prober", " (IPv6)")
    return out


def _prober_reasons(pr, name, suffix):
    """What keeps a prober (name) from a settled start; suffix tells the
    IPv6 prober's reasons apart."""
    out = []
    if pr is None:
        out.append("%s is not running" % name)
    elif pr.get("history", 0) < STEADY_SECS:
        out.append(PROBER_YOUNG + " %.1f s%s" % (pr.get("history", 0), suffix))
    else:
        if not pr.get("requests"):
            out.append("no request in the last %.0f s%s" % (STEADY_SECS, suffix))
        elif pr.get("failed"):
            out.append("%d of %d requests failed in the last %.0f s%s" % (
                pr["failed"], pr["requests"], STEADY_SECS, suffix))
        if pr.get("open", 0) < pr.get("watches", 0):
            out.append("%d of %d watches open%s" % (pr.get("open", 0), pr.get("watches", 0),
                                                    suffix))
    return out


def _lb_reasons(f):
    out = []
    lbs = f.get("lbs", [])
    now, adv = f.get("now", 0.0), f.get("advert_int", 1.0)
    off = [l["name"] for l in lbs if not l.get("powered")]
    if off:
        return ["LB hosts off: %s" % " ".join(off)]
    holders = [l for l in lbs if l.get("vip")]
    if len(holders) != 1:
        return ["VIP holders: [%s]" % " ".join(l["name"] for l in holders)]
    h = holders[0]
    if any("vip6" in l for l in lbs):
        holders6 = [l["name"] for l in lbs if l.get("vip6")]
        if holders6 != [h["name"]]:
            out.append("the VIP is on %s but the IPv6 VIP on [%s]" % (h["name"],
                                                                   " ".join(holders6)))
    masters = [l["name"] for l in lbs if l.get("state") == "MASTER"]
    if masters != [h["name"]]:
        out.append("the VIP is on %s but VRRP MASTER is [%s]" % (h["name"], " ".join(masters)))
    others = [l for l in lbs if l is not h and l.get("state") != "BACKUP"]
    if others:
        out.append("%s: VRRP %s, not BACKUP" % (others[0]["name"], others[0].get("state")))
    if f.get("preempt"):
        best = max(lbs, key=lambda l: l.get("priority") or 0)
        if best is not h and (best.get("priority") or 0) > (h.get("priority") or 0):
            out.append("the VIP is on %s but the priorities prefer %s" % (h["name"],
                                                                       best["name"]))
    # a daemon in its vrrp_startup_delay cannot take the VIP over yet: the
    # run would measure the delay, not the failover
    ready = f.get("startup_delay", 0.0) + VRRP_QUIET_ADVERTS * adv
    for l in lbs:
        if l.get("uptime") is not None and l["uptime"] < ready:
            out.append("%s: its VRRP daemon started %.1f s ago (vrrp_startup_delay %g s)" % (
                l["name"], l["uptime"], f.get("startup_delay", 0.0)))
    changes = [l["last_change"] for l in lbs if l.get("last_change")]
    if len(changes) != len(lbs):
        out.append("a VRRP daemon does not say when it last changed state")
    elif now - max(changes) < VRRP_QUIET_ADVERTS * adv:
        out.append("VRRP transition %.1f s ago (under %d advert intervals)" % (
            now - max(changes), VRRP_QUIET_ADVERTS))
    for l in lbs:
        srv = l.get("servers")
        if srv is None:
            out.append("%s: the load balancer does not answer" % l["name"])
            continue
        bad = sorted(s for s, st in srv.items() if st != "UP")
        if bad or len(srv) != len(f.get("masters", [])):
            out.append("%s: apiservers not up: %s" % (l["name"], " ".join(
                "%s %s" % (s, srv[s]) for s in bad) or "%d of %d listed" % (
                    len(srv), len(f.get("masters", [])))))
    return out


def settle_decide(reasons, now, deadline, cleaned=False):
    """("go", "") when settled; ("cleanup", why) when all that is left is
    Pacemaker's record of failed actions (of an earlier fault: everything
    runs where it should), once per wait (cleaned: done already), as an
    operator clears them after an incident; ("wait", why) until the
    deadline, then ("give_up", why): the scenario is reported as not
    started."""
    if not reasons:
        return "go", ""
    failed = [r for r in reasons if r.startswith(FAILED_ACTIONS)]
    if failed and not cleaned and all(r.startswith(FAILED_ACTIONS) or r.startswith(
            PROBER_YOUNG) for r in reasons):
        return "cleanup", failed[0]
    return ("give_up" if now >= deadline else "wait"), reasons[0]


def vip_moved_why(f, opened, broke):
    """Why a VIP holder's loss (lb-poweroff, lb-hang) is not a valid run
    of its kind, from the VIP's side; None when it is."""
    if not f.get("vip_moved"):
        return "the VIP never came to the other host"
    if not opened:
        return "no watch was open at the fault"
    if broke < opened:
        return ("only %d of the %d watches open through the VIP holder broke: "
                "they did not go through it" % (broke, opened))
    move, floor = f.get("vip_move_ms"), f.get("floor_ms", 0)
    if move is not None and move < floor:
        return ("the VIP moved %d ms after the fault, before the stack can "
                "notice a silent master (%d ms)" % (move, floor))
    first = f.get("first_ok_ms")
    if move is not None and first is not None and first + FIRST_OK_SLACK_MS < move:
        return ("a request was served %d ms after the fault, before the VIP "
                "moved (%d ms)" % (first, move))
    return None


def validity(name, f):
    """(valid, why) of one run of scenario name from what its fault did
    (f, filled by the scenario and the runner):
      every scenario: watches_open_at_t0, watches_broken (of those, how
        many broke in the window);
      lb-poweroff: victim_held_vip, victim_off, vip_moved, vip_move_ms,
        floor_ms (the earliest the stack can notice a silent master),
        first_ok_ms (the first request served after the fault);
      lb-hang: victim_held_vip, processes (the holder's), stopped (of
        those, frozen), links_up, fence_needed (the stack fences: cpha),
        fenced, and lb-poweroff's vip_moved, vip_move_ms, floor_ms,
        first_ok_ms;
      master-poweroff, master-partition: victim_api_dead;
      lb-partition: cut_ab, cut_ba (each way, nothing got through);
      lb-isolated: victim_held_vip, cut_ab, cut_ba, cut_client (the
        holder reached neither the other LB host nor the client host);
      apiserver-rolling-restart: restarted, masters;
      etcd-data-loss: unhealthy_seen; master-rebuild: fenced;
      reload-under-load: reloads, expected;
      lb-daemon-down: killed, down_s, restarted;
      steady: quiet_s (how long nothing was done);
      cert-rotation: masters, served_new (the masters whose apiserver and
        etcd both serve the renewed certificate afterwards);
      lb-upgrade: lb_hosts, upgraded (the LB hosts whose daemons all run
        again afterwards, from the new programs on cpha's stack);
      etcd-quorum-loss: snapshot (one was taken first), api_down_seen (a
        request failed after the loss), restored (the runbook's restore
        done);
      k8s-minor-upgrade: masters, apiservers_upgraded (those whose
        /version names the new version afterwards), controllers (2),
        controllers_upgraded (the controller-manager and scheduler that
        started as the new version);
      master-add, master-remove: masters (the description's, after the
        runbook: 5, 3), etcd_voting (etcd's voting members then).
    A run is invalid when its fault did not have the effects it must."""
    if "started" in f and not f["started"]:
        return False, "not started: %s" % f.get("why", "the lab did not settle")
    if f.get("error"):
        return False, "scenario error: %s" % f["error"]
    opened, broke = f.get("watches_open_at_t0"), f.get("watches_broken", 0)
    if name == "lb-poweroff":
        if not f.get("victim_held_vip"):
            return False, "the host that lost power did not hold the VIP"
        if not f.get("victim_off"):
            return False, "the VIP holder was still up after its power loss"
        why = vip_moved_why(f, opened, broke)
        if why:
            return False, why
    elif name == "steady":
        if f.get("quiet_s", 0) < 599:
            return False, "only %s s of the 600 s quiet" % f.get("quiet_s")
    elif name == "lb-daemon-down":
        if not f.get("killed"):
            return False, "the backup's load balancer was not running, or survived SIGKILL"
        if not f.get("restarted"):
            return False, "the backup's load balancer did not start again"
    elif name == "lb-hang":
        if not f.get("victim_held_vip"):
            return False, "the host that hung did not hold the VIP"
        if not f.get("processes") or f.get("stopped", 0) < f["processes"]:
            return False, "only %d of the VIP holder's %d processes were stopped" % (
                f.get("stopped", 0), f.get("processes", 0))
        if not f.get("links_up"):
            return False, "the hung VIP holder was not powered with its links up"
        if f.get("fence_needed") and not f.get("fenced"):
            return False, "the hung VIP holder was never fenced"
        why = vip_moved_why(f, opened, broke)
        if why:
            return False, why
    elif name in ("master-poweroff", "master-partition"):
        if not f.get("victim_api_dead"):
            return False, "the victim's apiserver still answered after the fault"
        if opened and not broke:
            return False, "no watch broke: none went through the victim's apiserver"
    elif name == "lb-partition":
        if not (f.get("cut_ab") and f.get("cut_ba")):
            open_ways = [w for w, k in (("first to second", "cut_ab"),
                                        ("second to first", "cut_ba")) if not f.get(k)]
            return False, "the partition did not cut both ways (%s open)" % " and ".join(
                open_ways)
    elif name == "lb-isolated":
        if not f.get("victim_held_vip"):
            return False, "the host cut off did not hold the VIP"
        if not (f.get("cut_ab") and f.get("cut_ba") and f.get("cut_client")):
            return False, "the VIP holder was not cut from both the other LB host and the client"
    elif name == "apiserver-rolling-restart":
        if f.get("restarted", 0) < f.get("masters", 1):
            return False, "only %d of %d apiservers restarted" % (f.get("restarted", 0),
                                                                 f.get("masters", 1))
    elif name == "etcd-data-loss":
        if not f.get("unhealthy_seen"):
            return False, "etcd was never seen unhealthy after the member's data was wiped"
    elif name == "master-rebuild":
        if not f.get("fenced"):
            return False, "the lost master was never fenced"
    elif name == "cert-rotation":
        if f.get("served_new", 0) < f.get("masters", 1):
            return False, "only %d of %d masters serve the renewed certificates" % (
                f.get("served_new", 0), f.get("masters", 1))
    elif name == "lb-upgrade":
        if f.get("upgraded", 0) < f.get("lb_hosts", 1):
            return False, "only %d of %d LB hosts were upgraded" % (f.get("upgraded", 0),
                                                                   f.get("lb_hosts", 1))
    elif name == "k8s-minor-upgrade":
        if f.get("apiservers_upgraded", 0) < f.get("masters", 1):
            return False, "only %d of %d apiservers run the new version" % (
                f.get("apiservers_upgraded", 0), f.get("masters", 1))
        if f.get("controllers_upgraded", 0) < f.get("controllers", 2):
            return False, "only %d of %d controllers run the new version" % (
                f.get("controllers_upgraded", 0), f.get("controllers", 2))
    elif name in ("master-add", "master-remove"):
        want = 5 if name == "master-add" else 3
        if f.get("masters") != want:
            return False, "the description has %s masters after the runbook, not %d" % (
                f.get("masters"), want)
    elif name == "etcd-quorum-loss":
        if not f.get("snapshot"):
            return False, "no snapshot was taken before the loss"
        if not f.get("api_down_seen"):
            return False, "no request failed after two masters were lost: quorum was not lost"
        if not f.get("restored"):
            return False, "the restore was not done"
    elif name == "reload-under-load":
        if f.get("reloads", 0) < f.get("expected", 0):
            return False, "only %d of %d reloads were sent" % (f.get("reloads", 0),
                                                              f.get("expected", 0))
    return True, ""


def serving_after_fence(first_ok_ms, fence_ms):
    """ms from the fence of a hung VIP holder to the first request served
    through the VIP after the fault (negative: served before the fence),
    or None when either is unknown."""
    if first_ok_ms is None or fence_ms is None:
        return None
    return first_ok_ms - fence_ms


def restore_losses(events, t_snap, t_loss):
    """What a restore from a snapshot lost, from a prober's events in time
    order: its acknowledged writes (lease_put answered 2xx, each with the
    sequence number it wrote) and the lost_write lines of its reads after
    t_loss (seq_read: the number read back, lower than the highest it had
    acknowledged; an earlier one belongs to another fault). Returns
    {"seq_read": the lowest number read back (None: no write was lost),
    "lost": [(seq, t)] of every acknowledged write above it,
    "before_snapshot": those of them acknowledged before t_snap}. A restore
    from a snapshot taken at t_snap may lose what was acknowledged after
    t_snap, never anything before."""
    reads = [e for e in events if e.get("k") == "lost_write" and e.get("t", 0) > t_loss
             and isinstance(e.get("seq_read"), int)]
    if not reads:
        return {"seq_read": None, "lost": [], "before_snapshot": []}
    seq_read = min(e["seq_read"] for e in reads)
    t_read = min(e.get("t", 0) for e in reads)
    lost = sorted((e["seq"], e.get("t", 0)) for e in events
                  if e.get("k") == "lease_put" and e.get("ok") and not e.get("conflict")
                  and isinstance(e.get("seq"), int) and e["seq"] > seq_read
                  and e.get("t", 0) < t_read)
    return {"seq_read": seq_read, "lost": lost,
            "before_snapshot": [x for x in lost if x[1] < t_snap]}


def seq_ranges(writes, t_ref):
    """[(seq, t)] in order as runs of consecutive numbers, each named:
    [("388-436", "+0.1 to +4.9"), ("438", "+5.1")], times in seconds
    from t_ref."""
    out, run = [], []
    for q, t in writes:
        if run and q != run[-1][0] + 1:
            out.append(run)
            run = []
        run.append((q, t))
    if run:
        out.append(run)

    def name(r):
        if len(r) == 1:
            return "%d" % r[0][0], "%+.1f" % (r[0][1] - t_ref)
        return ("%d-%d" % (r[0][0], r[-1][0]),
                "%+.1f to %+.1f" % (r[0][1] - t_ref, r[-1][1] - t_ref))
    return [name(r) for r in out]


def recovered_ms(requests, t0):
    """ms from t0 to the first request served after the last one that
    failed, from [(t, ok)] in time order (0: none failed after t0; None:
    none served after the last failure)."""
    requests = [(t, ok) for t, ok in requests if t >= t0]
    bad = [t for t, ok in requests if not ok]
    if not bad:
        return 0
    after = [t for t, ok in requests if ok and t > bad[-1]]
    return int(round((after[0] - t0) * 1000)) if after else None


def longest_ms(samples, end):
    """The longest time in ms the sampled condition held without a break,
    from samples [(t, held)] in time order: from a sample that saw it hold
    after one that did not (or the first) to the next sample that saw it
    not hold (the last one up to end). The monitor's two VIPs apart."""
    best, since = 0.0, None
    samples = [x for x in samples if x[0] <= end]
    for t, held in samples:
        if held and since is None:
            since = t
        elif not held and since is not None:
            best, since = max(best, t - since), None
    if since is not None:
        best = max(best, end - since)
    return int(round(best * 1000))


def vips_apart(v4, v6):
    """Whether the two VIPs of a dual-stack lab are apart in one look at
    the LB hosts: held by different hosts (one held, the other not,
    counts)."""
    return sorted(v4) != sorted(v6)


def intervals_ms(samples, end):
    """Total ms the sampled condition held, from samples [(t, held)] in
    time order: each sample that saw it hold counts up to the next sample
    (the last one up to end). The monitor's VIP on two hosts."""
    total = 0.0
    samples = [x for x in samples if x[0] <= end]
    for i, (t, held) in enumerate(samples):
        if held:
            nxt = samples[i + 1][0] if i + 1 < len(samples) else end
            total += max(0.0, nxt - t)
    return int(round(total * 1000))


def dead_server_split(failures, t_fault, t_lb_down):
    """The failed requests of a master's loss that overlap the time the
    load balancer still sent to the victim's apiserver ([t_fault,
    t_lb_down]), split by what could have saved them, weighted by their
    request counts:
      in_flight: its tick was sent before the fault, on a connection that
        may have gone to the victim: it died with the server, and no load
        balancer could have saved it;
      lb_avoidable: sent at or after the fault and failed before its TLS
        handshake completed (or not known to have completed): the load
        balancer routed it to a dead server, or made it wait on a dead
        connect;
      server_side: sent after the fault, failed after its TLS handshake
        completed: a live apiserver answered it (an etcd election's 5xx,
        say), not the load balancer's doing.
    failures: [(t, ms, n, tls, not_sent)] in time order, as the prober
    writes them: t when the line was written, ms since its tick began, n
    requests, tls True/False/None (not written), not_sent (a later step
    of a tick whose earlier step failed: it shares that step's tick, sent
    when that step was). Returns {lb_avoidable, in_flight, server_side}."""
    out = {"lb_avoidable": 0, "in_flight": 0, "server_side": 0}
    if t_fault is None:
        return out
    end = t_lb_down if t_lb_down is not None else float("inf")
    tick = None  # (sent, tls) of the last step that was sent
    for t, ms, n, tls, not_sent in failures:
        if not not_sent or tick is None:
            tick = (t - (ms or 0) / 1000.0, tls)
        sent, tls = tick
        if t < t_fault or sent > end:
            continue
        if sent < t_fault:
            out["in_flight"] += n
        elif tls is True:
            out["server_side"] += n
        else:
            out["lb_avoidable"] += n
    return out


def schedule(names, counts, stacks, only=None):
    """The runs in order: [(round, stack, name)]. Round r runs every
    scenario asked for at least r times, stack by stack, the stacks'
    order reversed every other round (cpha, peer, peer, cpha, ...) so
    that drift and machine load fall on both alike and a stack switch is
    saved at every turn. only: {stack: {name: N}} for a stack that runs
    just these scenarios, N times each (a variant of the peer)."""
    only = only or {}

    def count(s, n):
        return only[s].get(n, 0) if s in only else counts.get(n, 1)
    rounds = max([count(s, n) for s in stacks for n in names], default=0)
    out = []
    for r in range(1, rounds + 1):
        order = stacks if r % 2 else list(reversed(stacks))
        for s in order:
            out += [(r, s, n) for n in names if count(s, n) >= r]
    return out


def retry(extra_so_far, valid, repeats=1):
    """Whether an invalid or unstarted run is run again at once: while the
    scenario has had fewer extra attempts on this stack (extra_so_far: the
    attempts beyond its scheduled runs) than MAX_EXTRA_ATTEMPTS, or half
    its repeats when that is more."""
    return not valid and extra_so_far < max(MAX_EXTRA_ATTEMPTS, (repeats + 1) // 2)


def time_left(remaining, seconds, default=90.0, switch=0.0, stack=None):
    """Seconds the runs left (remaining: [(round, stack, name)]) should
    take, from the mean duration seen so far per (stack, name)
    (seconds: {(stack, name): [s]}), else per name, else default; plus
    switch seconds for every change of stack from stack (the one running)."""
    total = 0.0
    for _, s, n in remaining:
        if s != stack:
            total += switch if stack is not None else 0.0
            stack = s
        seen = seconds.get((s, n)) or [v for (s2, n2), vs in seconds.items() if n2 == n
                                       for v in vs]
        total += sum(seen) / len(seen) if seen else default
    return total


def parse_counts(args, default):
    """Scenario arguments NAME or NAME:N into ([names], {name: N});
    N from 1 to 20. Raises ValueError naming the bad argument."""
    names, counts = [], {}
    for a in args:
        name, sep, n = a.partition(":")
        if not name or (sep and not n):
            raise ValueError("%s: NAME or NAME:N" % a)
        if n:
            if not (n.isascii() and n.isdigit()) or not 1 <= int(n) <= 20:
                raise ValueError("%s: the repeat count must be 1 to 20" % a)
            counts[name] = int(n)
        else:
            counts[name] = default
        if name not in names:
            names.append(name)
    return names, counts
