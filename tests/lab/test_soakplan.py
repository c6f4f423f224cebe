#!/usr/bin/env python3
"""Unit tests of the soak's plan (cphalab/soakplan.py): the same seed
gives the same plan, plans hold enough faults and compound faults, every
kind comes up, no plan breaks the limits for 3 or 5 masters and 2 or 3 LB
hosts, the exclusive kinds run alone, the peer stack is only asked to
kill or reload its own daemons, and plan_check reports hand-made plans
that break the rules. No root, no lab."""

import json
import os
import sys
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "control-plane", "lab"))

from cphalab import soakplan as sp  # noqa: E402

M3 = ["m1", "m2", "m3"]
M5 = ["m1", "m2", "m3", "m4", "m5"]
L2 = ["lb1", "lb2"]
L3 = ["lb1", "lb2", "lb3"]
SEEDS = range(1, 51)
HOUR = 3600
CI = 180

_cache = {}


def plan(seed, duration, masters=M3, lbs=L2, stack="cpha"):
    key = (seed, duration, tuple(masters), tuple(lbs), stack)
    if key not in _cache:
        _cache[key] = sp.plan(seed, duration, masters, lbs, stack)
    return _cache[key]


def F(kind, targets, start, duration, params=None, masters=M3, lbs=L2):
    params = dict(params or {})
    return sp.Fault(kind, targets, start, duration,
                    sp.recovery_s(kind, targets, params, masters, lbs), params)


def numbered(faults, masters=M3, lbs=L2, duration=HOUR):
    """A hand-made plan: sorted, numbered, compound flags true."""
    faults = sorted(faults, key=lambda f: f.start)
    for i, f in enumerate(faults):
        f.id = i + 1
    for f in faults:
        f.compound = any(g is not f and g.overlaps(f) for g in faults)
    return sp.Plan(faults, 0, float(duration), masters, lbs, "cpha")


class Determinism(unittest.TestCase):
    def test_same_seed_same_bytes(self):
        for seed in (1, 7, 42):
            a = sp.plan(seed, HOUR, M3, L2).dumps()
            b = sp.plan(seed, HOUR, M3, L2).dumps()
            self.assertEqual(a, b)
            self.assertEqual(json.dumps(sp.plan(seed, CI, M5, L3, "peer").to_json()),
                             json.dumps(sp.plan(seed, CI, M5, L3, "peer").to_json()))

    def test_seeds_differ(self):
        texts = {json.dumps(plan(s, HOUR).to_json()) for s in range(1, 11)}
        self.assertEqual(len(texts), 10)
        texts = {json.dumps(plan(s, CI).to_json()) for s in range(1, 11)}
        self.assertEqual(len(texts), 10)

    def test_json_shape(self):
        p = plan(3, HOUR)
        d = p.to_json()
        self.assertEqual(list(d[0]), list(sp.Fault.FIELDS))
        for f in d:
            self.assertEqual(list(f["params"]), sorted(f["params"]))
            self.assertEqual(f["start"], round(f["start"], 1))
            self.assertEqual(f["duration"], round(f["duration"], 1))
        # a round trip through JSON gives the same plan
        back = [sp.Fault.from_json(x) for x in json.loads(json.dumps(d))]
        self.assertEqual([f.to_json() for f in back], d)
        self.assertEqual([f.id for f in p], list(range(1, len(p) + 1)))
        self.assertEqual(p.faults, sorted(p.faults, key=lambda f: f.start))

    def test_describe_one_line_each(self):
        p = plan(3, HOUR)
        lines = p.describe()
        self.assertEqual(len(lines), len(p))
        for f, line in zip(p, lines):
            self.assertNotIn("\n", line)
            self.assertTrue(line.startswith("#%d +%.1fs " % (f.id, f.start)), line)
            self.assertEqual(line.endswith("[compound]"), f.compound)


class Rates(unittest.TestCase):
    def test_hour(self):
        for seed in SEEDS:
            s = sp.stats(plan(seed, HOUR))
            self.assertGreaterEqual(s["faults"], 150, (seed, s))
            self.assertGreaterEqual(s["compound"], 30, (seed, s))

    def test_ci(self):
        for seed in SEEDS:
            s = sp.stats(plan(seed, CI))
            self.assertGreaterEqual(s["faults"], 6, (seed, s))
            self.assertGreaterEqual(s["compound"], 1, (seed, s))
            self.assertGreaterEqual(len(s["kinds"]), 3, (seed, s))

    def test_every_kind_comes_up(self):
        seen = {k: 0 for k in sp.KINDS}
        for seed in SEEDS:
            for k in sp.stats(plan(seed, HOUR))["kinds"]:
                seen[k] += 1
        for k, n in seen.items():
            self.assertGreaterEqual(n, 0.9 * len(SEEDS), (k, n))

    def test_every_kind_comes_up_peer(self):
        seen = {k: 0 for k in sp.KINDS}
        seeds = range(1, 21)
        for seed in seeds:
            for k in sp.stats(plan(seed, HOUR, stack="peer"))["kinds"]:
                seen[k] += 1
        for k, n in seen.items():
            self.assertGreaterEqual(n, 0.9 * len(seeds), (k, n))

    def test_short_soak_is_empty_not_wrong(self):
        p = sp.plan(1, 30, M3, L2)
        self.assertEqual(len(p), 0)
        self.assertEqual(sp.plan_check(p, M3, L2), [])


class Limits(unittest.TestCase):
    def check_many(self, masters, lbs, stack, seeds, durations=(HOUR, CI)):
        mem, anyone, lb = sp.limits(masters, lbs)
        for seed in seeds:
            for d in durations:
                p = plan(seed, d, masters, lbs, stack)
                self.assertEqual(sp.plan_check(p, masters, lbs), [], (seed, d))
                for f in p:
                    self.assertGreaterEqual(f.start, sp.START_S)
                    self.assertLessEqual(f.window_end, d - sp.TAIL_S)
                if seed > seeds[0] + 4:
                    continue
                # the limits again, sampled every second, without plan_check
                normal = [f for f in p if not sp.KINDS[f.kind].exclusive]
                for t10 in range(0, int(d * 10), 10):
                    t = t10 / 10.0
                    live = [f for f in normal if f.start <= t < f.window_end]
                    c = sp.counts(live, masters, lbs)
                    self.assertLessEqual(c[0], mem, (seed, d, t))
                    self.assertLessEqual(c[1], anyone, (seed, d, t))
                    self.assertLessEqual(c[2], lb, (seed, d, t))

    def test_three_masters_two_lbs(self):
        self.check_many(M3, L2, "cpha", SEEDS)

    def test_five_masters_three_lbs(self):
        self.check_many(M5, L3, "cpha", range(1, 16))

    def test_three_masters_three_lbs_peer(self):
        self.check_many(M3, L3, "peer", range(1, 16))

    def test_five_masters_two_lbs_two_node(self):
        self.check_many(M5, L2, "cpha-two-node", range(1, 16))

    def test_five_masters_impair_two_at_once(self):
        """With five masters two may be out of the cluster together: some
        plan does it (the limit is a limit, not a switch)."""
        best = 0
        for seed in range(1, 11):
            p = plan(seed, HOUR, M5, L3)
            normal = [f for f in p if not sp.KINDS[f.kind].exclusive]
            for f in normal:
                live = [g for g in normal if g.start <= f.start < g.window_end]
                best = max(best, sp.counts(live, M5, L3)[0])
        self.assertEqual(best, 2)

    def test_partition_sides(self):
        for masters, lbs in ((M3, L2), (M5, L3)):
            sides = set()
            for seed in range(1, 16):
                for f in plan(seed, HOUR, masters, lbs):
                    if f.kind == "partition":
                        self.assertTrue(sp.side_ok(f.params["side"], masters, lbs), f)
                        self.assertEqual(f.params["side"], f.targets)
                        ms = [h for h in f.targets if h in masters]
                        ls = [h for h in f.targets if h in lbs]
                        sides.add((len(ms), len(ls)))
            # one master, one LB host, an LB host with masters all come up
            self.assertIn((1, 0), sides)
            self.assertIn((0, 1), sides)
            self.assertIn((1, 1), sides)
            if masters == M5:
                self.assertIn((2, 0), sides)

    def test_side_rule(self):
        self.assertTrue(sp.side_ok(["m1"], M3, L2))
        self.assertTrue(sp.side_ok(["lb1", "m2"], M3, L2))
        self.assertTrue(sp.side_ok(["lb1", "m2", "m4"], M5, L2))
        self.assertFalse(sp.side_ok(["m1", "m2"], M3, L2))  # a majority
        self.assertFalse(sp.side_ok(["lb1", "lb2"], M3, L2))  # every LB host
        self.assertFalse(sp.side_ok(["lb1", "m1", "m2", "m3"], M5, L3))
        self.assertFalse(sp.side_ok(["client"], M3, L2))
        self.assertFalse(sp.side_ok([], M3, L2))


class Exclusive(unittest.TestCase):
    def test_alone(self):
        for seed in SEEDS:
            p = plan(seed, HOUR)
            ex = [f for f in p if sp.KINDS[f.kind].exclusive]
            self.assertTrue(ex, seed)
            for f in ex:
                self.assertFalse(f.compound, (seed, f))
                for g in p:
                    if g is not f:
                        self.assertFalse(g.overlaps(f), (seed, f, g))

    def test_shapes(self):
        for seed in range(1, 11):
            for masters, lbs in ((M3, L2), (M5, L3)):
                for f in plan(seed, HOUR, masters, lbs):
                    if f.kind == "etcd_quorum_loss":
                        self.assertEqual(len(f.targets), len(masters) // 2 + 1)
                    elif f.kind == "all_apiservers_down":
                        self.assertEqual(sorted(f.targets), sorted(masters))
                    elif f.kind == "lb_both_boot":
                        self.assertEqual(sorted(f.targets), sorted(lbs))
                        self.assertIn(f.params["daemon"], ("lbd", "vipd"))

    def test_none_in_ci_soak(self):
        for seed in SEEDS:
            self.assertFalse([f for f in plan(seed, CI) if sp.KINDS[f.kind].exclusive])


class Stacks(unittest.TestCase):
    def daemons(self, stack, masters=M3, lbs=L2):
        on_master, on_lb = set(), set()
        for seed in range(1, 21):
            for f in plan(seed, HOUR, masters, lbs, stack):
                d = f.params.get("daemon")
                if d is None:
                    continue
                (on_master if f.targets[0] in masters else on_lb).add(d)
        return on_master, on_lb

    def test_peer_names_peer_daemons(self):
        on_master, on_lb = self.daemons("peer")
        self.assertEqual(on_lb, {"haproxy", "keepalived"})
        self.assertEqual(on_master, set(sp.MASTER_DAEMONS))

    def test_cpha_names_cpha_daemons(self):
        on_master, on_lb = self.daemons("cpha")
        self.assertEqual(on_lb, {"lbd", "vipd", "corosync", "fenced"})
        self.assertEqual(on_master, set(sp.MASTER_DAEMONS))

    def test_peer_details(self):
        for seed in range(1, 21):
            for f in plan(seed, HOUR, stack="peer"):
                if f.kind == "watch_reload":
                    self.assertEqual(f.params["daemon"], "haproxy")
                if f.kind == "track_timeout":
                    self.assertEqual(f.params["check"], "vrrp_script lb_healthy")
                if f.kind == "lb_both_boot":
                    self.assertIn(f.params["daemon"], ("haproxy", "keepalived"))

    def test_stacks_agree_with_the_lab(self):
        """The plan's two families are the lab's: is_cpha()."""
        try:
            from cphalab import lab as labmod
        except ImportError as e:  # the lab's own imports
            self.skipTest("cphalab.lab does not import here: %s" % e)
        for s in sp.STACKS:
            self.assertEqual(sp.stack_family(s) == "cpha", labmod.is_cpha(s), s)
        self.assertIn(labmod.TWO_NODE, sp.STACKS)

    def test_bad_arguments(self):
        with self.assertRaises(ValueError):
            sp.plan(1, HOUR, M3, L2, "nginx")
        with self.assertRaises(ValueError):
            sp.plan(1, HOUR, ["m1", "m2"], L2)
        with self.assertRaises(ValueError):
            sp.plan(1, HOUR, M3, ["lb1"])
        with self.assertRaises(ValueError):
            sp.plan(1, HOUR, M3, ["m1", "lb2"])
        with self.assertRaises(ValueError):
            sp.plan(1, HOUR, M3, L2, weights={"meteor": 3})


class BmcSilent(unittest.TestCase):
    def test_always_paired(self):
        n = 0
        for seed in SEEDS:
            p = plan(seed, HOUR)
            byid = {f.id: f for f in p}
            for f in p:
                if f.kind != "bmc_silent":
                    continue
                n += 1
                g = byid[f.params["paired_with"]]
                self.assertIn(g.kind, sp.FENCING_KINDS)
                self.assertEqual(g.targets, f.targets)
                self.assertTrue(f.start <= g.start < f.end, (f, g))
                self.assertEqual(g.params["bmc_silent"], f.id)
                self.assertTrue(f.compound and g.compound)
        self.assertGreater(n, 0)

    def test_unpaired_reported(self):
        p = numbered([F("bmc_silent", ["m1"], 100, 40)])
        self.assertTrue(any("silent" in v for v in sp.plan_check(p, M3, L2)))


class PlanCheck(unittest.TestCase):
    def test_two_of_three_masters_off(self):
        p = numbered([F("power_off", ["m1"], 100, 20), F("power_off", ["m2"], 110, 20)])
        v = sp.plan_check(p, M3, L2)
        self.assertTrue(any("2 masters out of the cluster (at most 1)" in x for x in v), v)

    def test_one_off_in_the_others_recovery(self):
        """m2 powered off while m1, back on, still rejoins."""
        a = F("power_off", ["m1"], 100, 20)
        p = numbered([a, F("power_off", ["m2"], a.end + 30, 10)])
        self.assertTrue(any("masters out of the cluster" in x
                            for x in sp.plan_check(p, M3, L2)))
        p = numbered([a, F("power_off", ["m2"], a.window_end + 0.1, 10)])
        self.assertEqual(sp.plan_check(p, M3, L2), [])

    def test_master_and_lb_together_are_fine(self):
        p = numbered([F("power_off", ["m1"], 100, 20), F("freeze", ["lb1"], 105, 5),
                      F("kill", ["m2"], 110, 0, {"daemon": "kube-apiserver",
                                                  "recovered_by": "pacemaker"})])
        self.assertEqual(sp.plan_check(p, M3, L2), [])
        self.assertTrue(all(f.compound for f in p))

    def test_every_apiserver(self):
        p = numbered([F("power_off", ["m1"], 100, 20),
                      F("apiserver_graceful_stop", ["m2"], 105, 10),
                      F("kill", ["m3"], 110, 0, {"daemon": "kube-apiserver",
                                                  "recovered_by": "pacemaker"})])
        self.assertTrue(any("3 masters impaired (at most 2)" in x
                            for x in sp.plan_check(p, M3, L2)))

    def test_both_lbs(self):
        p = numbered([F("loss", ["lb1"], 100, 20, {"percent": 30}),
                      F("track_timeout", ["lb2"], 110, 10, {"check": "track_lbd"})])
        self.assertTrue(any("2 LB hosts impaired (at most 1)" in x
                            for x in sp.plan_check(p, M3, L2)))

    def test_exclusive_not_alone(self):
        p = numbered([F("all_apiservers_down", M3, 100, 20),
                      F("reload", ["lb1"], 130, 0, {"daemon": "lbd", "watches": False})])
        self.assertTrue(any("exclusive" in x for x in sp.plan_check(p, M3, L2)))
        p = numbered([F("all_apiservers_down", M3, 100, 20)])
        self.assertEqual(sp.plan_check(p, M3, L2), [])

    def test_shared_target(self):
        p = numbered([F("loss", ["m1"], 100, 20, {"percent": 30}),
                      F("etcd_stall", ["m1"], 105, 5)])
        self.assertTrue(any("hits m1" in x for x in sp.plan_check(p, M3, L2)))

    def test_majority_side(self):
        p = numbered([F("partition", ["m1", "m2"], 100, 20, {"side": ["m1", "m2"]})])
        v = sp.plan_check(p, M3, L2)
        self.assertTrue(any("partition side" in x for x in v), v)

    def test_wrong_daemon_for_stack(self):
        p = numbered([F("kill", ["lb1"], 100, 0, {"daemon": "fenced", "recovered_by": "fence"})])
        p.stack = "peer"
        self.assertTrue(any("not a daemon" in x for x in sp.plan_check(p, M3, L2)))
        p.stack = "cpha"
        self.assertEqual(sp.plan_check(p, M3, L2), [])
        p = numbered([sp.Fault("kill", ["lb1"], 100, 0, 30,
                               {"daemon": "etcd", "recovered_by": "pacemaker"})])
        self.assertTrue(any("not a daemon" in x for x in sp.plan_check(p, M3, L2)))

    def test_times_and_flags(self):
        p = numbered([F("freeze", ["m1"], 5, 10)])
        self.assertTrue(any("before" in x for x in sp.plan_check(p, M3, L2)))
        p = numbered([F("freeze", ["m1"], 3540, 10)])
        self.assertTrue(any("tail" in x for x in sp.plan_check(p, M3, L2)))
        p = numbered([F("freeze", ["m1"], 100, 10)])
        p.faults[0].compound = True
        self.assertTrue(any("compound" in x for x in sp.plan_check(p, M3, L2)))
        p = numbered([F("freeze", ["m1"], 100, 10)])
        p.faults[0].recovery = 0.0
        self.assertTrue(any("recovery window" in x for x in sp.plan_check(p, M3, L2)))
        p = numbered([F("freeze", ["m1"], 100, 300)])
        self.assertTrue(any("lasts" in x for x in sp.plan_check(p, M3, L2)))

    def test_generated_plans_pass_and_tampered_fail(self):
        p = plan(5, HOUR)
        self.assertEqual(sp.plan_check(p, M3, L2), [])
        # move a power-off onto another master's: 2 out of the cluster
        offs = [f for f in p if f.kind in ("power_off", "freeze") and f.targets[0] in M3]
        a = offs[0]
        other = [m for m in M3 if m != a.targets[0]][0]
        extra = F("power_off", [other], a.start + 1, 10)
        q = numbered([sp.Fault.from_json(f.to_json()) for f in p] + [extra])
        v = sp.plan_check(q, M3, L2)
        self.assertTrue(any("masters out of the cluster" in x for x in v), v[:3])


if __name__ == "__main__":
    unittest.main()
