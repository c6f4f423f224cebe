#!/usr/bin/env python3
"""Unit tests of the lab's pure decisions (cphalab.judge: a settled start,
a valid run, the order of the runs, retries, time left, scenario
arguments, the figures of lb-hang and of a master's loss), of the
preempting keepalived variant and of the freezer helpers, against faked
observations: no root, no namespaces, no lab. The reader of the prober's
events is tested in test_lab_events.py."""

import collections
import copy
import os
import shutil
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True

from cphalab import judge, scenarios  # noqa: E402

NOW = 1000.0


def settled():
    """The facts of a settled lab: three masters, two LB hosts, lb1 (the
    higher priority) holding the VIP, a prober seeing everything work."""
    masters = ["m1", "m2", "m3"]

    def lb(name, vip, state, priority):
        return {"name": name, "powered": True, "vip": vip, "state": state,
                "priority": priority, "last_change": NOW - 300.0, "uptime": 400.0,
                "servers": {m: "UP" for m in masters}}

    return {
        "now": NOW, "advert_int": 1.0, "preempt": True, "startup_delay": 15.0,
        "masters": list(masters),
        "pcmk": {"online": ["m3", "m1", "m2"],
                 "resources": {"etcd": list(masters), "apiserver": list(masters),
                               "kcm": ["m2"], "scheduler": ["m1"]},
                 "idle": True, "failed": []},
        "etcd": {"members": 3, "healthy": 3, "leaders": ["8e9e", "8e9e", "8e9e"]},
        "lbs": [lb("lb1", True, "MASTER", 150), lb("lb2", False, "BACKUP", 100)],
        "leases": {"kube-controller-manager": 1.2, "kube-scheduler": 0.4},
        "prober": {"history": 120.0, "requests": 50, "failed": 0, "watches": 50, "open": 50},
    }


def lb(f, name):
    return [l for l in f["lbs"] if l["name"] == name][0]


def swap_vip(f):
    """The VIP and VRRP mastership on lb2, the lower priority host."""
    lb(f, "lb1").update(vip=False, state="BACKUP")
    lb(f, "lb2").update(vip=True, state="MASTER")


class SettleReasons(unittest.TestCase):
    def reasons(self, change):
        f = settled()
        change(f)
        return judge.settle_reasons(f)

    def assertOneReason(self, change, *words):
        r = self.reasons(change)
        self.assertEqual(len(r), 1, r)
        for w in words:
            self.assertIn(w, r[0])
        return r[0]

    def assertSettled(self, change):
        self.assertEqual(self.reasons(change), [])

    def test_settled(self):
        self.assertEqual(judge.settle_reasons(settled()), [])

    # -- Pacemaker
    def test_no_quorate_dc(self):
        self.assertEqual(self.reasons(lambda f: f.update(pcmk=None)),
                         ["no quorate Pacemaker DC"])

    def test_master_offline(self):
        def change(f):
            f["pcmk"]["online"] = ["m1", "m2"]
        r = self.assertOneReason(change, "Pacemaker nodes online", "m1 m2")
        self.assertNotIn("m3", r)

    def test_kcm_on_no_node(self):
        def change(f):
            f["pcmk"]["resources"]["kcm"] = []
        self.assertOneReason(change, "kcm active on []")

    def test_kcm_absent_from_the_resources(self):
        def change(f):
            del f["pcmk"]["resources"]["kcm"]
        self.assertOneReason(change, "kcm active on []")

    def test_two_schedulers(self):
        def change(f):
            f["pcmk"]["resources"]["scheduler"] = ["m1", "m3"]
        self.assertOneReason(change, "scheduler active on [m1 m3]")

    def test_apiserver_on_two_of_three(self):
        def change(f):
            f["pcmk"]["resources"]["apiserver"] = ["m1", "m2"]
        self.assertOneReason(change, "apiserver active on [m1 m2]")

    def test_pacemaker_not_idle(self):
        def change(f):
            f["pcmk"]["idle"] = False
        self.assertOneReason(change, "transition in progress")

    def test_failed_actions(self):
        def change(f):
            f["pcmk"]["failed"] = ["etcd_monitor_10000 on m2", "kcm_start_0 on m1", "c", "d"]
        r = self.assertOneReason(change, "Pacemaker failed actions",
                                 "etcd_monitor_10000 on m2; kcm_start_0 on m1; c")
        self.assertNotIn("d", r.split(": ", 1)[1].split("; "))  # at most three named

    # -- etcd
    def test_etcd_does_not_answer(self):
        self.assertOneReason(lambda f: f.update(etcd=None), "etcd does not answer")

    def test_etcd_two_of_three_healthy(self):
        def change(f):
            f["etcd"]["healthy"] = 2
        self.assertOneReason(change, "etcd: 3 members, 2 healthy")

    def test_etcd_two_members(self):
        def change(f):
            f["etcd"]["members"] = 2
        self.assertOneReason(change, "etcd: 2 members")

    def test_etcd_two_leaders(self):
        def change(f):
            f["etcd"]["leaders"] = ["8e9e", "91bc", "8e9e"]
        self.assertOneReason(change, "etcd leaders", "8e9e", "91bc")

    def test_etcd_no_leader(self):
        def change(f):
            f["etcd"]["leaders"] = []
        self.assertOneReason(change, "etcd leaders: none")

    # -- the load balancers and the VIP
    def test_lb_host_off(self):
        def change(f):
            # observe.settle_facts says nothing more of a host that is off
            f["lbs"][1] = {"name": "lb2", "powered": False}
        self.assertEqual(self.reasons(change), ["LB hosts off: lb2"])

    def test_no_vip_holder(self):
        def change(f):
            lb(f, "lb1")["vip"] = False
        self.assertEqual(self.reasons(change), ["VIP holders: []"])

    def test_two_vip_holders(self):
        def change(f):
            lb(f, "lb2")["vip"] = True
        self.assertEqual(self.reasons(change), ["VIP holders: [lb1 lb2]"])

    def test_vip_on_a_vrrp_backup(self):
        def change(f):
            lb(f, "lb1")["state"] = "BACKUP"
        self.assertOneReason(change, "the VIP is on lb1 but VRRP MASTER is []")

    def test_vip_holder_not_the_vrrp_master(self):
        def change(f):
            lb(f, "lb1")["state"] = "BACKUP"
            lb(f, "lb2")["state"] = "MASTER"
        r = self.reasons(change)
        self.assertIn("the VIP is on lb1 but VRRP MASTER is [lb2]", r)

    def test_other_host_fault(self):
        def change(f):
            lb(f, "lb2")["state"] = "FAULT"
        self.assertOneReason(change, "lb2: VRRP FAULT, not BACKUP")

    def test_preempt_vip_on_lower_priority(self):
        def change(f):
            swap_vip(f)
        self.assertOneReason(change, "the VIP is on lb2 but the priorities prefer lb1")

    def test_nopreempt_vip_on_lower_priority(self):
        def change(f):
            swap_vip(f)
            f["preempt"] = False
        self.assertSettled(change)

    def test_equal_priorities_preempt(self):
        def change(f):
            swap_vip(f)
            lb(f, "lb1")["priority"] = lb(f, "lb2")["priority"] = 100
        self.assertSettled(change)

    def vrrp_quiet(self, adverts, advert_int):
        def change(f):
            f["advert_int"] = advert_int
            lb(f, "lb2")["last_change"] = NOW - adverts * advert_int
        return self.reasons(change)

    def test_vrrp_transition_recent(self):
        for adv in (1.0, 0.5):
            r = self.vrrp_quiet(2.9, adv)
            self.assertEqual(len(r), 1, (adv, r))
            self.assertIn("VRRP transition", r[0])
            self.assertIn("under 3 advert intervals", r[0])

    def test_vrrp_transition_quiet(self):
        for adv in (1.0, 0.5):
            self.assertEqual(self.vrrp_quiet(3.1, adv), [], adv)

    def test_vrrp_transition_on_the_holder(self):
        def change(f):
            lb(f, "lb1")["last_change"] = NOW - 1.0  # the latest of both counts
        self.assertOneReason(change, "VRRP transition 1.0 s ago")

    def test_daemon_in_its_startup_delay(self):
        # a backup just started cannot take the VIP over before its
        # vrrp_startup_delay: the run would measure the delay
        def change(f):
            lb(f, "lb2")["uptime"] = 17.9  # 15 s + 3 advert intervals not yet
        self.assertOneReason(change, "lb2: its VRRP daemon started 17.9 s ago "
                             "(vrrp_startup_delay 15 s)")
        f = settled()
        lb(f, "lb2")["uptime"] = 18.1
        self.assertEqual(judge.settle_reasons(f), [])
        f["startup_delay"] = 0.0
        lb(f, "lb2")["uptime"] = 3.1
        self.assertEqual(judge.settle_reasons(f), [])

    def test_daemon_without_last_change(self):
        def change(f):
            del lb(f, "lb2")["last_change"]
        self.assertOneReason(change, "does not say when it last changed state")

    def test_daemon_that_does_not_answer(self):
        def change(f):
            # vrrp_state() gives {} when the daemon does not answer
            for k in ("state", "priority", "last_change"):
                del lb(f, "lb2")[k]
        r = self.reasons(change)
        self.assertIn("lb2: VRRP None, not BACKUP", r)
        self.assertIn("a VRRP daemon does not say when it last changed state", r)

    def server(self, lbname, status):
        def change(f):
            lb(f, lbname)["servers"]["m2"] = status
        return change

    def test_apiserver_down(self):
        self.assertOneReason(self.server("lb1", "DOWN"), "lb1: apiservers not up: m2 DOWN")

    def test_apiserver_going_up(self):
        self.assertOneReason(self.server("lb2", "UP 1/2"), "lb2: apiservers not up: m2 UP 1/2")

    def test_apiserver_drain(self):
        self.assertOneReason(self.server("lb1", "DRAIN"), "lb1: apiservers not up: m2 DRAIN")

    def test_apiserver_not_listed(self):
        def change(f):
            del lb(f, "lb2")["servers"]["m3"]
        self.assertOneReason(change, "lb2: apiservers not up: 2 of 3 listed")

    def test_servers_none(self):
        def change(f):
            lb(f, "lb2")["servers"] = None
        self.assertOneReason(change, "lb2: the load balancer does not answer")

    # -- the Leases
    def test_lease_not_renewed(self):
        def change(f):
            f["leases"]["kube-scheduler"] = 7.0
        self.assertOneReason(change, "Lease kube-scheduler last renewed 7.0 s ago")

    def test_lease_renewed_recently_enough(self):
        def change(f):
            f["leases"]["kube-scheduler"] = 5.0
        self.assertSettled(change)

    def test_lease_at_the_limit(self):
        def change(f):
            f["leases"]["kube-controller-manager"] = judge.LEASE_MAX_AGE
        self.assertSettled(change)

    def test_missing_lease(self):
        def change(f):
            f["leases"]["kube-controller-manager"] = None
        self.assertOneReason(change, "no Lease kube-controller-manager")

    # -- the prober
    def test_prober_not_running(self):
        self.assertOneReason(lambda f: f.update(prober=None), "the prober is not running")

    def test_prober_history_short(self):
        def change(f):
            f["prober"]["history"] = 4.0
        self.assertOneReason(change, "the prober has run only 4.0 s")

    def test_prober_history_short_hides_the_rest(self):
        def change(f):
            f["prober"].update(history=4.0, requests=0, open=0)
        self.assertOneReason(change, "has run only")

    def test_prober_history_just_enough(self):
        def change(f):
            f["prober"]["history"] = judge.STEADY_SECS
        self.assertSettled(change)

    def test_failed_request(self):
        def change(f):
            f["prober"]["failed"] = 1
        self.assertOneReason(change, "1 of 50 requests failed in the last 5 s")

    def test_no_requests(self):
        def change(f):
            f["prober"].update(requests=0, failed=0)
        self.assertOneReason(change, "no request in the last 5 s")

    def test_watch_not_open(self):
        def change(f):
            f["prober"]["open"] = 49
        self.assertOneReason(change, "49 of 50 watches open")

    # -- a dual-stack lab: the IPv6 VIP beside the other, its own prober
    def dual(self, f):
        lb(f, "lb1")["vip6"], lb(f, "lb2")["vip6"] = True, False
        f["prober6"] = dict(f["prober"], watches=10, open=10)

    def test_dual_stack_settled(self):
        self.assertSettled(self.dual)

    def test_ipv6_vip_elsewhere(self):
        def change(f):
            self.dual(f)
            lb(f, "lb1")["vip6"], lb(f, "lb2")["vip6"] = False, True
        self.assertOneReason(change, "the VIP is on lb1 but the IPv6 VIP on [lb2]")

    def test_ipv6_vip_nowhere_or_twice(self):
        def nowhere(f):
            self.dual(f)
            lb(f, "lb1")["vip6"] = False
        self.assertOneReason(nowhere, "IPv6 VIP on []")

        def twice(f):
            self.dual(f)
            lb(f, "lb2")["vip6"] = True
        self.assertOneReason(twice, "IPv6 VIP on [lb1 lb2]")

    def test_ipv6_prober(self):
        def failed(f):
            self.dual(f)
            f["prober6"]["failed"] = 2
        self.assertOneReason(failed, "2 of 50 requests failed in the last 5 s (IPv6)")

        def young(f):
            self.dual(f)
            f["prober6"]["history"] = 1.0
        self.assertOneReason(young, "the prober has run only 1.0 s (IPv6)")

        def gone(f):
            self.dual(f)
            f["prober6"] = None
        self.assertOneReason(gone, "the IPv6 prober is not running")

    # -- together
    def test_defects_add_up(self):
        def change(f):
            f["pcmk"]["idle"] = False
            f["etcd"] = None
            f["prober"] = None
        r = self.reasons(change)
        self.assertEqual(len(r), 3, r)
        self.assertIn("transition", r[0])  # Pacemaker first, the prober last
        self.assertIn("prober", r[2])


class SettleDecide(unittest.TestCase):
    def test_go(self):
        self.assertEqual(judge.settle_decide([], 5.0, 10.0), ("go", ""))
        # settled at or past the deadline still goes
        self.assertEqual(judge.settle_decide([], 10.0, 10.0), ("go", ""))
        self.assertEqual(judge.settle_decide([], 11.0, 10.0), ("go", ""))

    def test_wait_then_give_up(self):
        r = ["etcd does not answer", "the prober is not running"]
        self.assertEqual(judge.settle_decide(r, 9.999, 10.0), ("wait", r[0]))
        self.assertEqual(judge.settle_decide(r, 10.0, 10.0), ("give_up", r[0]))
        self.assertEqual(judge.settle_decide(r, 10.001, 10.0), ("give_up", r[0]))

    def test_cleanup_once(self):
        f = settled()
        f["pcmk"]["failed"] = ["kcm_monitor_10000 on m2: not running"]
        r = judge.settle_reasons(f)
        what, why = judge.settle_decide(r, 1.0, 10.0)
        self.assertEqual(what, "cleanup")
        self.assertIn("kcm_monitor_10000", why)
        # once per wait: then it is waited on like anything else
        self.assertEqual(judge.settle_decide(r, 1.0, 10.0, cleaned=True)[0], "wait")
        self.assertEqual(judge.settle_decide(r, 10.0, 10.0, cleaned=True)[0], "give_up")
        # a young prober does not hold it back
        f["prober"]["history"] = 2.0
        self.assertEqual(judge.settle_decide(judge.settle_reasons(f), 1.0, 10.0)[0], "cleanup")
        # but anything else out of place does: failed actions are only
        # cleared when everything runs where it should
        f["pcmk"]["resources"]["kcm"] = []
        self.assertEqual(judge.settle_decide(judge.settle_reasons(f), 1.0, 10.0)[0], "wait")

    def loop(self, observe, timeout=30.0, step=1.0):
        """A runner.wait_start loop on a fake clock: observe(t) gives the
        facts at t. Returns (decision, why, number of waits, t)."""
        t, deadline, waits = 0.0, timeout, 0
        while True:
            what, why = judge.settle_decide(judge.settle_reasons(observe(t)), t, deadline)
            if what != "wait":
                return what, why, waits, t
            waits += 1
            t += step
            self.assertLess(waits, 1000)

    def test_unsettled_start_is_refused(self):
        def observe(t):
            f = settled()
            f["pcmk"]["idle"] = False
            f["leases"]["kube-scheduler"] = 10.0 + t  # never renewed
            return f
        what, why, waits, t = self.loop(observe)
        self.assertEqual(what, "give_up")
        self.assertEqual(why, "Pacemaker has a transition in progress")
        self.assertEqual(waits, 30)
        self.assertEqual(t, 30.0)

    def test_settling_start_goes(self):
        def observe(t):
            f = settled()
            f["prober"]["history"] = t  # a prober started at 0
            if t < 12:
                lb(f, "lb2")["servers"]["m1"] = "DOWN"
            return f
        what, why, waits, t = self.loop(observe)
        self.assertEqual((what, why), ("go", ""))
        self.assertEqual(t, 12.0)
        self.assertEqual(waits, 12)

    def test_reasons_change_while_waiting(self):
        seen = []

        def observe(t):
            f = settled()
            if t < 3:
                f["etcd"] = None
            elif t < 6:
                f["prober"]["failed"] = 2
            else:
                f["prober"] = None
            seen.append(judge.settle_reasons(f)[0])
            return f
        what, why, _, _ = self.loop(observe, timeout=8.0)
        self.assertEqual((what, why), ("give_up", "the prober is not running"))
        self.assertEqual(seen[0], "etcd does not answer")
        self.assertIn("2 of 50 requests failed", seen[4])


# The facts of a valid run of every scenario, and for each the changes that
# make it invalid with a word its reason must contain.
GOOD = {
    "lb-poweroff": {"victim_held_vip": True, "victim_off": True, "vip_moved": True,
                    "watches_open_at_t0": 50, "watches_broken": 50, "vip_move_ms": 3000,
                    "floor_ms": 2000, "first_ok_ms": 3100},
    "lb-hang": {"victim_held_vip": True, "processes": 5, "stopped": 5, "links_up": True,
                "fence_needed": True, "fenced": True, "vip_moved": True,
                "watches_open_at_t0": 50, "watches_broken": 50, "vip_move_ms": 11900,
                "floor_ms": 0, "first_ok_ms": 12000},
    "master-poweroff": {"victim_api_dead": True, "watches_open_at_t0": 50,
                        "watches_broken": 17},
    "master-partition": {"victim_api_dead": True, "watches_open_at_t0": 50,
                         "watches_broken": 16},
    "lb-partition": {"cut_ab": True, "cut_ba": True, "watches_open_at_t0": 50,
                     "watches_broken": 0},
    "lb-isolated": {"victim_held_vip": True, "cut_ab": True, "cut_ba": True, "cut_client": True,
                    "watches_open_at_t0": 50, "watches_broken": 50},
    "apiserver-rolling-restart": {"restarted": 3, "masters": 3, "watches_open_at_t0": 50,
                                  "watches_broken": 50},
    "etcd-data-loss": {"unhealthy_seen": True, "watches_open_at_t0": 50,
                       "watches_broken": 0},
    "master-rebuild": {"fenced": True, "watches_open_at_t0": 50, "watches_broken": 17},
    "reload-under-load": {"reloads": 20, "expected": 20, "watches_open_at_t0": 50,
                          "watches_broken": 0},
    "lb-daemon-down": {"killed": True, "down_s": 150.2, "restarted": True,
                       "watches_open_at_t0": 50, "watches_broken": 0},
    "steady": {"quiet_s": 600.1, "watches_open_at_t0": 50, "watches_broken": 0},
    "cert-rotation": {"masters": 3, "served_new": 3, "watches_open_at_t0": 50,
                      "watches_broken": 50},
    "lb-upgrade": {"lb_hosts": 2, "upgraded": 2, "watches_open_at_t0": 50,
                   "watches_broken": 50},
    "etcd-quorum-loss": {"snapshot": True, "api_down_seen": True, "restored": True,
                         "watches_open_at_t0": 50, "watches_broken": 50},
    "k8s-minor-upgrade": {"masters": 3, "apiservers_upgraded": 3, "controllers": 2,
                          "controllers_upgraded": 2, "watches_open_at_t0": 50,
                          "watches_broken": 50},
    "master-add": {"masters": 5, "etcd_voting": 5},
    "master-remove": {"masters": 3, "etcd_voting": 3},
}
BAD = {
    "lb-poweroff": [
        ({"victim_held_vip": False}, "did not hold the VIP"),
        ({"victim_off": False}, "still up after its power loss"),
        ({"vip_moved": False}, "never came to the other host"),
        ({"watches_open_at_t0": 0, "watches_broken": 0}, "no watch was open"),
        ({"watches_broken": 0}, "only 0 of the 50 watches"),
        ({"watches_broken": 49}, "only 49 of the 50 watches"),
        ({"vip_move_ms": 225, "first_ok_ms": 300}, "moved 225 ms after the fault"),
        ({"first_ok_ms": 400}, "served 400 ms after the fault"),
    ],
    "lb-hang": [
        ({"victim_held_vip": False}, "did not hold the VIP"),
        ({"stopped": 4}, "only 4 of the VIP holder's 5 processes"),
        ({"processes": 0, "stopped": 0}, "only 0 of the VIP holder's 0 processes"),
        ({"links_up": False}, "links up"),
        ({"fenced": False}, "never fenced"),
        ({"vip_moved": False}, "never came to the other host"),
        ({"watches_broken": 49}, "only 49 of the 50 watches"),
        ({"watches_open_at_t0": 0, "watches_broken": 0}, "no watch was open"),
        ({"fence_needed": False, "fenced": False, "vip_move_ms": 1500, "floor_ms": 2000},
         "moved 1500 ms after the fault"),
        ({"first_ok_ms": 400}, "served 400 ms after the fault"),
    ],
    "master-poweroff": [
        ({"victim_api_dead": False}, "still answered"),
        ({"watches_broken": 0}, "no watch broke"),
    ],
    "master-partition": [
        ({"victim_api_dead": False}, "still answered"),
        ({"watches_broken": 0}, "no watch broke"),
    ],
    "lb-partition": [
        ({"cut_ab": False}, "first to second open"),
        ({"cut_ba": False}, "second to first open"),
    ],
    "lb-isolated": [
        ({"victim_held_vip": False}, "did not hold the VIP"),
        ({"cut_ab": False}, "was not cut"),
        ({"cut_ba": False}, "was not cut"),
        ({"cut_client": False}, "was not cut"),
    ],
    "apiserver-rolling-restart": [
        ({"restarted": 2}, "only 2 of 3 apiservers restarted"),
        ({"restarted": 0}, "only 0 of 3"),
    ],
    "etcd-data-loss": [({"unhealthy_seen": False}, "never seen unhealthy")],
    "master-rebuild": [({"fenced": False}, "never fenced")],
    "reload-under-load": [({"reloads": 19}, "only 19 of 20 reloads")],
    "lb-daemon-down": [({"killed": False}, "not running, or survived SIGKILL"),
                       ({"restarted": False}, "did not start again")],
    "steady": [({"quiet_s": 300.0}, "only 300.0 s of the 600 s quiet")],
    "cert-rotation": [({"served_new": 2}, "only 2 of 3 masters serve the renewed"),
                      ({"served_new": 0}, "only 0 of 3")],
    "lb-upgrade": [({"upgraded": 1}, "only 1 of 2 LB hosts were upgraded")],
    "etcd-quorum-loss": [({"snapshot": False}, "no snapshot was taken"),
                         ({"api_down_seen": False}, "quorum was not lost"),
                         ({"restored": None}, "the restore was not done")],
    "master-add": [({"masters": 3}, "has 3 masters after the runbook, not 5")],
    "master-remove": [({"masters": 5}, "has 5 masters after the runbook, not 3")],
    "k8s-minor-upgrade": [({"apiservers_upgraded": 2}, "only 2 of 3 apiservers run the new"),
                          ({"controllers_upgraded": 1}, "only 1 of 2 controllers run the new"),
                          ({"apiservers_upgraded": 0, "controllers_upgraded": 0},
                           "only 0 of 3 apiservers")],
}


class Validity(unittest.TestCase):
    def check(self, name, **change):
        f = copy.deepcopy(GOOD[name])
        f.update(change)
        return judge.validity(name, f)

    def test_every_scenario_is_covered(self):
        self.assertEqual(sorted(GOOD), sorted(n for n, _ in scenarios.SCENARIOS))
        self.assertEqual(sorted(BAD), sorted(GOOD))

    def test_good_runs_are_valid(self):
        for name in GOOD:
            with self.subTest(name=name):
                self.assertEqual(self.check(name), (True, ""))
                self.assertEqual(self.check(name, started=True), (True, ""))

    def test_each_rule(self):
        for name, cases in BAD.items():
            for change, word in cases:
                with self.subTest(name=name, change=change):
                    valid, why = self.check(name, **change)
                    self.assertFalse(valid)
                    self.assertIn(word, why)

    def test_rule_removed_key(self):
        # a fact the scenario never filled in does not make a run valid
        for name, key in (("lb-poweroff", "victim_held_vip"), ("lb-poweroff", "victim_off"),
                          ("lb-poweroff", "vip_moved"), ("master-poweroff", "victim_api_dead"),
                          ("master-partition", "victim_api_dead"), ("lb-partition", "cut_ab"),
                          ("lb-partition", "cut_ba"), ("apiserver-rolling-restart", "restarted"),
                          ("etcd-data-loss", "unhealthy_seen"), ("master-rebuild", "fenced")):
            with self.subTest(name=name, key=key):
                f = copy.deepcopy(GOOD[name])
                del f[key]
                self.assertFalse(judge.validity(name, f)[0])

    def test_poweroff_that_broke_no_watch(self):
        valid, why = self.check("lb-poweroff", watches_open_at_t0=50, watches_broken=0)
        self.assertFalse(valid)
        self.assertIn("did not go through it", why)

    def test_vip_move_floor(self):
        valid, why = self.check("lb-poweroff", vip_move_ms=225, floor_ms=2000, first_ok_ms=300)
        self.assertFalse(valid)
        self.assertIn("(2000 ms)", why)
        self.assertEqual(self.check("lb-poweroff", vip_move_ms=2000, floor_ms=2000,
                                    first_ok_ms=2100), (True, ""))
        # cpha's own stack: no floor
        self.assertEqual(self.check("lb-poweroff", vip_move_ms=225, floor_ms=0,
                                    first_ok_ms=300), (True, ""))
        del_floor = copy.deepcopy(GOOD["lb-poweroff"])
        del del_floor["floor_ms"]
        self.assertTrue(judge.validity("lb-poweroff", del_floor)[0])

    def test_first_ok_before_the_vip_moved(self):
        valid, why = self.check("lb-poweroff", vip_move_ms=3000, first_ok_ms=400)
        self.assertFalse(valid)
        self.assertIn("before the VIP moved (3000 ms)", why)

    def test_first_ok_within_slack(self):
        slack = judge.FIRST_OK_SLACK_MS
        self.assertEqual(self.check("lb-poweroff", vip_move_ms=3000,
                                    first_ok_ms=3000 - slack), (True, ""))
        self.assertEqual(self.check("lb-poweroff", vip_move_ms=3000,
                                    first_ok_ms=3000 - slack // 2), (True, ""))
        self.assertFalse(self.check("lb-poweroff", vip_move_ms=3000,
                                    first_ok_ms=3000 - slack - 1)[0])

    def test_times_unknown(self):
        self.assertEqual(self.check("lb-poweroff", first_ok_ms=None), (True, ""))
        self.assertEqual(self.check("lb-poweroff", vip_move_ms=None, first_ok_ms=10),
                         (True, ""))

    def test_master_fault_with_no_watch_open(self):
        # nothing to judge by: no watch was open at the fault
        self.assertEqual(self.check("master-poweroff", watches_open_at_t0=0,
                                    watches_broken=0), (True, ""))

    def test_not_started(self):
        for name in GOOD:
            with self.subTest(name=name):
                self.assertEqual(judge.validity(name, {"started": False, "why": "etcd does "
                                                       "not answer"}),
                                 (False, "not started: etcd does not answer"))
        self.assertEqual(judge.validity("lb-poweroff", {"started": False}),
                         (False, "not started: the lab did not settle"))

    def test_error(self):
        for name in GOOD:
            with self.subTest(name=name):
                valid, why = self.check(name, error="crm_resource: timed out")
                self.assertFalse(valid)
                self.assertEqual(why, "scenario error: crm_resource: timed out")

    def test_not_started_before_error(self):
        valid, why = judge.validity("lb-poweroff", {"started": False, "why": "x", "error": "y"})
        self.assertEqual((valid, why), (False, "not started: x"))


class Schedule(unittest.TestCase):
    NAMES = ["a", "b", "c"]
    COUNTS = {"a": 3, "b": 1, "c": 2}

    def test_variant_runs_only_its_scenarios(self):
        # a third stack running b twice and nothing else; d only there
        plan = judge.schedule(self.NAMES + ["d"], dict(self.COUNTS, d=0),
                              ["cpha", "peer", "var"], {"var": {"b": 2, "d": 1}})
        self.assertEqual([x for x in plan if x[1] == "var"],
                         [(1, "var", "b"), (1, "var", "d"), (2, "var", "b")])
        self.assertFalse([x for x in plan if x[2] == "d" and x[1] != "var"])
        self.assertEqual(sum(1 for x in plan if x[1] == "cpha"), 6)
        # round 2 turns the order: the variant first
        self.assertEqual(plan[[x[0] for x in plan].index(2)], (2, "var", "b"))

    def test_expected_order(self):
        self.assertEqual(judge.schedule(self.NAMES, self.COUNTS, ["cpha", "peer"]), [
            (1, "cpha", "a"), (1, "cpha", "b"), (1, "cpha", "c"),
            (1, "peer", "a"), (1, "peer", "b"), (1, "peer", "c"),
            (2, "peer", "a"), (2, "peer", "c"),
            (2, "cpha", "a"), (2, "cpha", "c"),
            (3, "cpha", "a"),
            (3, "peer", "a"),
        ])

    def test_counts_and_alternation(self):
        for counts in (self.COUNTS, {"a": 1, "b": 1, "c": 1}, {"a": 20, "b": 7, "c": 1},
                       {"a": 2, "c": 5}):
            for stacks in (["cpha", "peer"], ["peer", "cpha"], ["cpha"], ["peer"]):
                with self.subTest(counts=counts, stacks=stacks):
                    plan = judge.schedule(self.NAMES, counts, stacks)
                    got = collections.Counter((s, n) for _, s, n in plan)
                    self.assertEqual(got, collections.Counter(
                        {(s, n): counts.get(n, 1) for s in stacks for n in self.NAMES}))
                    # rounds in order, a scenario's repeats numbered 1..count
                    self.assertEqual([r for r, _, _ in plan], sorted(r for r, _, _ in plan))
                    for s in stacks:
                        for n in self.NAMES:
                            self.assertEqual([r for r, s2, n2 in plan if (s2, n2) == (s, n)],
                                             list(range(1, counts.get(n, 1) + 1)))
                    # within a round one stack after the other, the names in order
                    for r in set(r for r, _, _ in plan):
                        rs = [(s, n) for r2, s, n in plan if r2 == r]
                        order = [s for i, (s, _) in enumerate(rs) if i == 0 or rs[i - 1][0] != s]
                        self.assertEqual(order, stacks if r % 2 else stacks[::-1])
                        for s in stacks:
                            ns = [n for s2, n in rs if s2 == s]
                            self.assertEqual(ns, [n for n in self.NAMES if n in ns])
                    # adjacent rounds share a stack: no switch at a turn
                    switches = sum(1 for i in range(1, len(plan))
                                   if plan[i][1] != plan[i - 1][1])
                    rounds = max(r for r, _, _ in plan)
                    self.assertEqual(switches, rounds * (len(stacks) - 1))
                    for i in range(1, len(plan)):
                        if plan[i][0] != plan[i - 1][0]:
                            self.assertEqual(plan[i][1], plan[i - 1][1])

    def test_empty(self):
        self.assertEqual(judge.schedule([], {}, ["cpha", "peer"]), [])

    def test_default_count(self):
        self.assertEqual(judge.schedule(["x"], {}, ["cpha", "peer"]),
                         [(1, "cpha", "x"), (1, "peer", "x")])


def attempts(repeats, stacks=("cpha",), valid=lambda attempt: False):
    """runner.run's loop over judge.schedule and judge.retry, one scenario
    "a": the attempts per stack, valid(attempt number) deciding each run."""
    plan = judge.schedule(["a"], {"a": repeats}, list(stacks))
    tried, extra, i = {}, {}, 0
    while i < len(plan):
        _, s, n = plan[i]
        tried[s] = tried.get(s, 0) + 1
        if judge.retry(extra.get(s, 0), valid(tried[s]), repeats):
            extra[s] = extra.get(s, 0) + 1
            continue
        i += 1
    return tried


class Retry(unittest.TestCase):
    def test_never_for_a_valid_run(self):
        for n in range(0, 50):
            self.assertFalse(judge.retry(n, True))

    def test_bounded(self):
        for n in range(0, 60):
            self.assertEqual(judge.retry(n, False), n < judge.MAX_EXTRA_ATTEMPTS, n)

    def test_single_repeat_loop(self):
        self.assertEqual(attempts(1, ("cpha", "peer")), {"cpha": 3, "peer": 3})
        self.assertEqual(attempts(1, valid=lambda a: a == 2), {"cpha": 2})
        self.assertEqual(attempts(3, valid=lambda a: True), {"cpha": 3})

    def test_late_invalid_runs_loop(self):
        # the last repeat invalid over and over: two extra attempts
        self.assertEqual(attempts(3, valid=lambda a: a < 3), {"cpha": 5})

    def test_early_invalid_runs_loop(self):
        # every run invalid: the scheduled runs and MAX_EXTRA_ATTEMPTS more
        # (half the repeats when more), whichever round they fall in
        for repeats, extra in ((1, 2), (2, 2), (3, 2), (5, 3), (20, 10)):
            got = attempts(repeats)["cpha"]
            self.assertEqual(got, repeats + extra, repeats)

    def test_more_repeats_more_retries(self):
        self.assertTrue(judge.retry(2, False, 5))
        self.assertFalse(judge.retry(3, False, 5))
        self.assertFalse(judge.retry(2, False, 4))


class TimeLeft(unittest.TestCase):
    PLAN = [(1, "cpha", "a"), (1, "peer", "a"), (2, "peer", "b")]

    def test_nothing_seen(self):
        self.assertEqual(judge.time_left(self.PLAN, {}), 270.0)
        self.assertEqual(judge.time_left(self.PLAN, {}, 60.0), 180.0)
        self.assertEqual(judge.time_left([], {}), 0.0)

    def test_per_stack_and_name(self):
        seen = {("cpha", "a"): [10.0, 20.0], ("peer", "a"): [40.0]}
        self.assertEqual(judge.time_left(self.PLAN, seen, 60.0), 15.0 + 40.0 + 60.0)

    def test_per_name(self):
        # peer's a not seen yet: the mean of a on every stack
        seen = {("cpha", "a"): [10.0, 20.0]}
        self.assertEqual(judge.time_left(self.PLAN, seen, 60.0), 15.0 + 15.0 + 60.0)
        seen = {("cpha", "b"): [10.0], ("x", "b"): [30.0], ("cpha", "a"): [100.0]}
        self.assertEqual(judge.time_left([(1, "peer", "b")], seen, 60.0), 20.0)

    def test_stack_switches(self):
        # from peer: a (cpha) is a switch, then peer a another, b none
        self.assertEqual(judge.time_left(self.PLAN, {}, 60.0, 45.0, "peer"), 180.0 + 90.0)
        self.assertEqual(judge.time_left(self.PLAN, {}, 60.0, 45.0, "cpha"), 180.0 + 45.0)
        self.assertEqual(judge.time_left(self.PLAN, {}, 60.0, 45.0), 180.0 + 45.0)

    def test_empty_list_seen(self):
        self.assertEqual(judge.time_left([(1, "cpha", "a")], {("cpha", "a"): []}, 60.0), 60.0)


class ParseCounts(unittest.TestCase):
    def test_counts(self):
        self.assertEqual(judge.parse_counts(["x:3"], 2), (["x"], {"x": 3}))
        self.assertEqual(judge.parse_counts(["x"], 2), (["x"], {"x": 2}))
        self.assertEqual(judge.parse_counts(["x:1", "y:20", "z"], 5),
                         (["x", "y", "z"], {"x": 1, "y": 20, "z": 5}))
        self.assertEqual(judge.parse_counts([], 1), ([], {}))

    def test_rejected(self):
        for bad in ("x:0", "x:21", "x:y", "x:-1", "x:1.5", "x: 3"):
            with self.subTest(arg=bad):
                with self.assertRaises(ValueError) as cm:
                    judge.parse_counts(["ok", bad], 1)
                self.assertIn(bad, str(cm.exception))
                self.assertIn("1 to 20", str(cm.exception))

    def test_duplicates_keep_first_order(self):
        names, counts = judge.parse_counts(["b", "a:2", "c", "b:3", "a"], 1)
        self.assertEqual(names, ["b", "a", "c"])
        self.assertEqual(sorted(counts), ["a", "b", "c"])


class PreemptVariant(unittest.TestCase):
    """The lab's preempting keepalived: what cpha render makes, with
    nopreempt taken out and the check weighted, as kubeadm's guide does."""

    CONF = ("! keepalived's configuration language. VRRPv3: no authentication.\n"
            "vrrp_script lb_healthy {\n    script \"x\"\n    interval 2\n    timeout 2\n"
            "    rise 2\n    fall 2\n    ! no weight\n}\n"
            "vrrp_instance apiserver {\n    state BACKUP\n    priority 150\n"
            "    advert_int 1\n    nopreempt\n    track_script {\n        lb_healthy\n"
            "    }\n}\n")

    def test_preempting(self):
        from cphalab import build
        out = build.preempting(self.CONF)
        self.assertNotIn("nopreempt", out)
        self.assertIn("    fall 2\n    weight -51\n    init_fail\n", out)
        self.assertIn("The lab's variant: preempting.", out)
        self.assertEqual(out.count("weight"), self.CONF.count("weight") + 1)


class LbHangFigures(unittest.TestCase):
    def test_serving_after_fence(self):
        self.assertEqual(judge.serving_after_fence(12300, 11800), 500)
        self.assertEqual(judge.serving_after_fence(11000, 11800), -800)
        self.assertIsNone(judge.serving_after_fence(None, 11800))
        self.assertIsNone(judge.serving_after_fence(12300, None))

    def test_two_vip_ms(self):
        # samples every 250 ms: two holders seen at 10.5 and 10.75, one again at 11.0
        s = [(10.0, False), (10.25, False), (10.5, True), (10.75, True), (11.0, False)]
        self.assertEqual(judge.intervals_ms(s, 12.0), 500)
        self.assertEqual(judge.intervals_ms([(t, False) for t, _ in s], 12.0), 0)
        self.assertEqual(judge.intervals_ms([], 12.0), 0)
        # still two at the end: counted up to the end, samples after it ignored
        self.assertEqual(judge.intervals_ms(s[:4] + [(13.0, True)], 11.5), 1000)


class DeadServerSplit(unittest.TestCase):
    """The failed requests of a master's loss, by what could have saved
    them: the fault at 100.0, the load balancer marks the server down at
    104.0."""

    def split(self, failures, t_lb_down=104.0):
        return judge.dead_server_split(failures, 100.0, t_lb_down)

    def test_in_flight(self):
        # a tick sent at 99.8 (written 100.3 after 500 ms), its TLS done
        # before the fault, and the rest of it never sent
        f = [(100.3, 500, 1, True, False), (100.3, 0, 1, True, True),
             (100.3, 0, 1, True, True)]
        self.assertEqual(self.split(f), {"lb_avoidable": 0, "in_flight": 3, "server_side": 0})

    def test_routed_to_the_dead_server(self):
        # sent at 101.0, reset before its TLS handshake completed; a
        # connect that waited 1 s on the dead server
        f = [(101.0, 0, 1, False, False), (101.0, 0, 1, False, True),
             (101.0, 0, 1, False, True), (102.5, 1000, 1, False, False)]
        self.assertEqual(self.split(f), {"lb_avoidable": 4, "in_flight": 0, "server_side": 0})

    def test_tls_not_known_counts_against_the_lb(self):
        self.assertEqual(self.split([(101.0, 10, 1, None, False)])["lb_avoidable"], 1)

    def test_server_side(self):
        # TLS completed after the fault: a live apiserver answered (5xx)
        f = [(101.0, 30, 1, True, False), (101.0, 0, 1, True, True)]
        self.assertEqual(self.split(f), {"lb_avoidable": 0, "in_flight": 0, "server_side": 2})

    def test_outside_the_span(self):
        f = [(99.0, 10, 1, False, False),   # failed before the fault
             (104.5, 100, 1, False, False),  # sent after the lb marked it down
             (104.05, 100, 1, False, False)]  # sent before: counts
        self.assertEqual(self.split(f), {"lb_avoidable": 1, "in_flight": 0, "server_side": 0})

    def test_never_marked_down(self):
        self.assertEqual(self.split([(150.0, 10, 1, False, False)], None)["lb_avoidable"], 1)
        self.assertEqual(judge.dead_server_split([(150.0, 10, 1, False, False)], None, 104.0),
                         {"lb_avoidable": 0, "in_flight": 0, "server_side": 0})

    def test_weights(self):
        self.assertEqual(self.split([(101.0, 10, 3, False, False)])["lb_avoidable"], 3)

    def test_not_sent_follows_its_tick(self):
        # the tick's first step sent before the fault, a later one not sent
        f = [(100.2, 400, 1, False, False), (100.2, 0, 1, False, True)]
        self.assertEqual(self.split(f)["in_flight"], 2)
        # a not_sent line with no step before it: its own time
        self.assertEqual(self.split([(101.0, 0, 1, True, True)])["server_side"], 1)


class Freezer(unittest.TestCase):
    """hosts' freezer helpers on a directory laid out as a cgroup v1
    freezer cgroup (no root needed): a kill before the thaw."""

    def test_thaw_kills_first(self):
        import signal
        import subprocess
        from cphalab import hosts
        d = tempfile.mkdtemp(prefix="cphalab-freezer-")
        p = subprocess.Popen(["sleep", "60"])
        try:
            self.assertIsNone(hosts.freezer_state(d))
            hosts.thaw(d, kill=True)  # not a cgroup: nothing done
            self.assertIsNone(p.poll())
            with open(os.path.join(d, "freezer.state"), "w") as f:
                f.write("FROZEN\n")
            with open(os.path.join(d, "cgroup.procs"), "w") as f:
                f.write("%d\n" % p.pid)
            self.assertEqual(hosts.freezer_procs(d), [p.pid])
            self.assertEqual(hosts.freezer_state(d), "FROZEN")
            hosts.thaw(d)
            self.assertEqual(hosts.freezer_state(d), "THAWED")
            self.assertIsNone(p.poll())  # a thaw alone kills nothing
            hosts.thaw(d, kill=True)
            self.assertEqual(p.wait(5), -signal.SIGKILL)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            shutil.rmtree(d)

    def test_thaw_all_of_one_lab(self):
        from cphalab import hosts
        d = tempfile.mkdtemp(prefix="cphalab-freezer-")
        saved = hosts.FREEZER
        try:
            hosts.FREEZER = d
            for n in ("clab-lb1", "clab-m1", "clabx-lb1", "other"):
                os.makedirs(os.path.join(d, n))
                with open(os.path.join(d, n, "freezer.state"), "w") as f:
                    f.write("FROZEN\n")
                open(os.path.join(d, n, "cgroup.procs"), "w").close()
            got = sorted(hosts.thaw_all("clab"))
            self.assertEqual(got, [os.path.join(d, "clab-lb1"), os.path.join(d, "clab-m1")])
            for n, state in (("clab-lb1", "THAWED"), ("clab-m1", "THAWED"),
                             ("clabx-lb1", "FROZEN"), ("other", "FROZEN")):
                self.assertEqual(hosts.freezer_state(os.path.join(d, n)), state, n)
            # a directory with files is no empty cgroup: rmdir fails, said so
            self.assertFalse(hosts.remove_cgroup(os.path.join(d, "clab-m1")))
            self.assertTrue(hosts.remove_cgroup(os.path.join(d, "gone")))
        finally:
            hosts.FREEZER = saved
            shutil.rmtree(d)



class TwoVips(unittest.TestCase):
    def test_apart(self):
        self.assertFalse(judge.vips_apart(["lb1"], ["lb1"]))
        self.assertFalse(judge.vips_apart([], []))
        self.assertTrue(judge.vips_apart(["lb1"], ["lb2"]))
        self.assertTrue(judge.vips_apart(["lb1"], []))
        self.assertTrue(judge.vips_apart(["lb1"], ["lb1", "lb2"]))
        self.assertFalse(judge.vips_apart(["lb2", "lb1"], ["lb1", "lb2"]))

    def test_longest(self):
        self.assertEqual(judge.longest_ms([], 10.0), 0)
        self.assertEqual(judge.longest_ms([(1.0, False), (2.0, False)], 3.0), 0)
        # two spells, 0.5 s and 1.25 s: the longer
        s = [(1.0, False), (1.25, True), (1.75, False), (2.0, True), (2.5, True),
             (3.25, False)]
        self.assertEqual(judge.longest_ms(s, 9.0), 1250)
        # held at the end: up to end; samples after end left out
        self.assertEqual(judge.longest_ms([(1.0, False), (2.0, True), (9.0, False)], 2.5), 500)
        self.assertLess(judge.longest_ms(s, 9.0), judge.intervals_ms(s, 9.0))


if __name__ == "__main__":
    unittest.main(verbosity=2)


def put(t, seq, ok=True, conflict=False):
    e = {"t": t, "k": "lease_put", "ok": ok or conflict, "seq": seq}
    if conflict:
        e["conflict"] = True
    return e


class RestoreLosses(unittest.TestCase):
    """What a restore from a snapshot lost, from the prober's events."""

    def test_nothing_lost_without_a_lost_write_line(self):
        evs = [put(1.0, 1), put(2.0, 2), {"t": 3.0, "k": "lease_get", "ok": True, "seq": 2}]
        self.assertEqual(judge.restore_losses(evs, 1.5, 2.5),
                         {"seq_read": None, "lost": [], "before_snapshot": []})

    def test_the_writes_after_the_snapshot_are_named(self):
        evs = [put(1.0, 1), put(2.0, 2), put(3.0, 3), put(3.5, 4, ok=False),
               put(4.0, 5, conflict=True), put(4.5, 6),
               {"t": 9.0, "k": "lost_write", "seq_read": 2, "seq_acked": 6},
               put(9.5, 7)]  # after the read back: the restored cluster's
        self.assertEqual(judge.restore_losses(evs, 2.5, 5.0),
                         {"seq_read": 2, "lost": [(3, 3.0), (6, 4.5)], "before_snapshot": []})

    def test_a_lost_write_line_of_an_earlier_fault_is_not_this_one(self):
        """Two restores in a row: the first one's read back is older than
        the second fault, and names nothing of it."""
        evs = [{"t": 0.5, "k": "lost_write", "seq_read": 0, "seq_acked": 1},
               put(1.0, 1), put(2.0, 2), put(3.0, 3),
               {"t": 9.0, "k": "lost_write", "seq_read": 2, "seq_acked": 3}]
        self.assertEqual(judge.restore_losses(evs, 2.5, 4.0),
                         {"seq_read": 2, "lost": [(3, 3.0)], "before_snapshot": []})

    def test_a_write_from_before_the_snapshot_lost_is_named_apart(self):
        """Jepsen's lost update: acknowledged before the snapshot began,
        gone after the restore."""
        evs = [put(1.0, 1), put(2.0, 2), put(3.0, 3),
               {"t": 9.0, "k": "lost_write", "seq_read": 1, "seq_acked": 3},
               {"t": 9.2, "k": "lost_write", "seq_read": 2, "seq_acked": 3}]
        r = judge.restore_losses(evs, 2.5, 4.0)
        self.assertEqual(r["seq_read"], 1)
        self.assertEqual(r["lost"], [(2, 2.0), (3, 3.0)])
        self.assertEqual(r["before_snapshot"], [(2, 2.0)])


class RecoveredMs(unittest.TestCase):
    def test_first_served_after_the_last_failure(self):
        reqs = [(9.0, False), (10.0, True), (10.5, False), (11.0, True), (12.0, False),
                (12.25, True), (13.0, True)]
        self.assertEqual(judge.recovered_ms(reqs, 10.0), 2250)

    def test_none_failed_or_none_served_again(self):
        self.assertEqual(judge.recovered_ms([(9.0, False), (10.5, True)], 10.0), 0)
        self.assertIsNone(judge.recovered_ms([(10.5, True), (11.0, False)], 10.0))


class SeqRanges(unittest.TestCase):
    def test_runs_of_consecutive_numbers(self):
        w = [(388, 10.1), (389, 10.2), (390, 10.3), (392, 10.5), (395, 10.8), (396, 10.9)]
        self.assertEqual(judge.seq_ranges(w, 10.0),
                         [("388-390", "+0.1 to +0.3"), ("392", "+0.5"),
                          ("395-396", "+0.8 to +0.9")])
        self.assertEqual(judge.seq_ranges([], 0), [])
