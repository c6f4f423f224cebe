#!/usr/bin/env python3
"""Unit tests of what `cpha lab soak` makes of a run (cphalab/soak.py), no
lab needed: the faults in flight at a violation, the seconds below full
service and the worst windows from the prober's events, the report's
text, and that every kind the plan draws for the lab has an action."""

import json
import os
import sys
import tempfile
import time
import unittest

sys.dont_write_bytecode = True

from cphalab import soak, soakplan  # noqa: E402

MASTERS, LBS = ["m1", "m2", "m3"], ["lb1", "lb2"]


class TestActions(unittest.TestCase):
    def test_every_kind_drawn_has_an_action(self):
        ex = soak.Executor(lab=None, stack="cpha", progress=lambda s: None)
        for kind in soakplan.KINDS:
            with self.subTest(kind=kind):
                if kind in soak.NOT_DRAWN:
                    self.assertIn(kind, soak.NOT_DRAWN_WHY)
                    continue
                self.assertTrue(ex.supported(kind), kind)

    def test_the_lab_plan_leaves_out_what_it_cannot_do(self):
        for seed in (1, 2, 3):
            p = soakplan.plan(seed, 3600, MASTERS, LBS, weights=soak.NOT_DRAWN)
            self.assertFalse([f for f in p.faults if f.kind in soak.NOT_DRAWN])
            self.assertEqual(soakplan.plan_check(p, MASTERS, LBS), [])
            self.assertGreaterEqual(len(p.faults), 150)
            self.assertGreaterEqual(p.compound_count(), 30)

    def test_a_failed_repair_is_no_fault_not_injected(self):
        """A fault started whose undo fails (a host powered on whose
        corosync exits) is listed apart from those never started."""
        class Fault:
            def __init__(self, fid, kind):
                self.id, self.kind = fid, kind

        class Lab:
            hosts = {}

        def fails():
            raise RuntimeError("lb2: corosync.service: its process exited before READY=1")

        ex = soak.Executor(lab=Lab(), stack="cpha", progress=lambda s: None)
        ex.start(Fault(1, "no_such_kind"))
        self.assertEqual([e[:2] for e in ex.errors], [(1, "no_such_kind")])
        for fid in (83, 84):
            ex.applied.append((fid, "power_off", 0.0))
            ex.undo[fid] = fails
        ex.end(Fault(83, "power_off"))
        ex.undo_all()
        self.assertEqual(len(ex.errors), 1)
        self.assertEqual([(i, k, why.split(":")[0]) for i, k, why in ex.undo_errors],
                         [(83, "power_off", "undo"), (84, "power_off", "undo at the end")])


    def test_a_failed_rolling_restart_is_said(self):
        """cpha restart failing on a master (fenced meanwhile, say) is
        named in the progress lines, its exit code and last error line;
        the restart goes on with the next master."""
        class Result:
            def __init__(self, rc, err):
                self.returncode, self.stderr, self.stdout = rc, err, ""

        class Master:
            def __init__(self, name, rc, err=""):
                self.name, self.v4, self.rc, self.err, self.ran = name, "198.18.0.1", rc, err, []

            def powered(self):
                return True

            def run(self, argv, check=True, timeout=60):
                self.ran.append(argv)
                return Result(self.rc, self.err)

        ms = {"m1": Master("m1", 0), "m2": Master("m2", 1, "Error: waiting\nError: m2 gone")}

        class Lab:
            def host(self, name):
                return ms[name]

        said = []
        ex = soak.Executor(lab=Lab(), stack="cpha", progress=said.append)
        api = soak.observe.api
        soak.observe.api = lambda lab, path, server=None: (200, "ok")
        try:
            ex.rolling_restart(["m2", "m1"])
        finally:
            soak.observe.api = api
        self.assertEqual(said, ["  rolling restart: m2: cpha restart apiserver: exit 1: Error: m2 gone"])
        self.assertEqual(ms["m1"].ran, [["cpha", "restart", "apiserver"]])


class TestBootOnce(unittest.TestCase):
    def test_two_boots_of_a_host_at_once_boot_it_once(self):
        """A BMC's delayed boot (its own process) and the soak's power-on
        of the same host: the second waits for the first and finds the
        host on, where both used to start every daemon."""
        import multiprocessing
        from cphalab import build

        with tempfile.TemporaryDirectory() as d:
            on, log = os.path.join(d, "on"), os.path.join(d, "boots")

            class Lab:
                def path(self, *parts):
                    return os.path.join(d, *parts)

            class Host:
                name = "lb2"

                def powered(self):
                    return os.path.exists(on)

            def boot(lab, host):
                with open(log, "a") as f:
                    f.write("start %d\n" % os.getpid())
                time.sleep(0.5)
                open(on, "w").close()
                with open(log, "a") as f:
                    f.write("end %d\n" % os.getpid())

            real = build.boot
            build.boot = boot
            try:
                ctx = multiprocessing.get_context("fork")
                ps = [ctx.Process(target=build.boot_if_off, args=(Lab(), Host())) for _ in range(2)]
                for p in ps:
                    p.start()
                for p in ps:
                    p.join(10)
                self.assertEqual([p.exitcode for p in ps], [0, 0])
                self.assertFalse(build.boot_if_off(Lab(), Host()))
            finally:
                build.boot = real
            with open(log) as f:
                lines = f.read().split()
            self.assertEqual(lines[0::2], ["start", "end"], lines)


class TestInFlight(unittest.TestCase):
    def test_intervals(self):
        faults = [soakplan.Fault("loss", ["lb1"], 10.0, 20.0, 40.0, {"percent": 20}, id=1),
                  soakplan.Fault("kill", ["m1"], 15.0, 0.0, 30.0, {"daemon": "etcd"}, id=2)]
        p = soakplan.Plan(faults, seed=1, duration_s=60, masters=MASTERS, lbs=LBS)
        t0 = 1000.0
        self.assertEqual(soak.in_flight(p, t0 + 5, t0), [])
        self.assertEqual(soak.in_flight(p, t0 + 15.5, t0), ["1 loss", "2 kill"])
        self.assertEqual(soak.in_flight(p, t0 + 25, t0), ["1 loss"])
        self.assertEqual(soak.in_flight(p, t0 + 31, t0), [])


class TestFencesExplained(unittest.TestCase):
    def test_causes(self):
        F = soakplan.Fault
        faults = [F("power_off", ["m3"], 10.0, 20.0, 45.0, id=1),
                  F("kill", ["m1"], 100.0, 0.0, 30.0, {"daemon": "etcd"}, id=2),
                  F("loss", ["lb1"], 200.0, 30.0, 40.0, {"percent": 30}, id=3),
                  F("kill", ["m2"], 400.0, 0.0, 60.0, {"daemon": "corosync"}, id=4),
                  F("freeze", ["lb1"], 520.0, 5.0, 35.0, id=5)]
        p = soakplan.Plan(faults, seed=1, duration_s=600, masters=MASTERS, lbs=LBS)
        t0 = 1000.0
        fences = [("m3", t0 + 20),    # its power_off
                  ("m3", t0 + 100),   # within the window's slack: 10 + 20 + 45 + 30
                  ("m1", t0 + 105),   # an etcd kill fences nobody
                  ("lb2", t0 + 210),  # loss on lb1: the two-node race may pick lb2
                  ("m1", t0 + 210),   # loss on an LB host explains no master's fence
                  ("m2", t0 + 430),   # its corosync killed
                  ("m3", t0 + 500),   # nothing in flight
                  ("lb2", t0 + 527)]  # lb1 frozen 5 s, thawed: it won the race
        self.assertEqual(soak.unexplained_fences(p, fences, t0),
                         [("m1", 105.0), ("m1", 210.0), ("m3", 500.0)])


class TestEtcdVoting(unittest.TestCase):
    def test_learners_do_not_vote(self):
        doc = {"header": {}, "members": [{"name": "m1"}, {"name": "m2"},
                                         {"name": "m3", "isLearner": True}]}
        self.assertEqual(soak.voting_members(doc), 2)
        doc["members"][2]["isLearner"] = False
        self.assertEqual(soak.voting_members(doc), 3)
        self.assertIsNone(soak.voting_members({"header": {}}))
        self.assertIsNone(soak.voting_members([]))


class TestBelowService(unittest.TestCase):
    def test_seconds_and_windows(self):
        t0 = 5000.0
        events = []
        for s in range(60):
            for k in ("readyz", "lease_get", "lease_put"):
                ok = not (10 <= s < 14 or s == 30 or 40 <= s < 50) or k == "readyz"
                events.append({"t": t0 + s + 0.1, "k": k, "ok": ok})
        events.append({"t": t0 + 20.5, "k": "watch", "ok": False})  # not a request
        events.append({"t": t0 - 5, "k": "readyz", "ok": False})  # before the soak
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            for e in events:
                f.write(json.dumps(e) + "\n")
            f.write("{not json\n")
        try:
            n, windows = soak.below_service(f.name, t0, t0 + 60)
        finally:
            os.unlink(f.name)
        self.assertEqual(n, 4 + 1 + 10)
        self.assertEqual(windows, [(40, 50), (10, 14), (30, 31)])

    def test_no_events_file(self):
        self.assertEqual(soak.below_service("/nonexistent/probe.jsonl", 0, 1), (None, []))


class TestReport(unittest.TestCase):
    def test_markdown(self):
        r = {"seed": 7, "duration_s": 180, "stack": "cpha", "faults_planned": 13,
             "faults_injected": 12, "compound": 11, "by_kind": {"kill": 3, "loss": 2},
             "seconds_below_full_service": 9, "worst_windows_s": [[33, 40]],
             "settled_after": True, "fences": [{"host": "m2", "t": 61.2}], "history": {"exit": 0, "verdict": {"linearizable": True}},
             "violations": [{"invariant": "one_vip_holder", "t": 42.5,
                             "detail": ["['lb1', 'lb2']"], "faults_in_flight": ["4 partition"]}],
             "not_injected": [{"id": 5, "kind": "kill", "why": "etcd is not running on m2"}],
             "not_drawn": {"bmc_silent": "one fence level"}}
        md = soak.markdown(r)
        self.assertIn("13 planned, 12 injected, 11 of them compound", md)
        self.assertIn("kill 3, loss 2", md)
        self.assertIn("42.5 s: one_vip_holder ['lb1', 'lb2']; faults in flight: 4 partition",
                      md)
        self.assertIn("5 kill: etcd is not running on m2", md)
        self.assertNotIn("repair failed", md)
        r["not_undone"] = [{"id": 83, "kind": "power_off",
                            "why": "undo: lb2: corosync.service: its process exited"}]
        md = soak.markdown(r)
        self.assertIn("## Faults injected whose repair failed\n\n"
                      "- 83 power_off: undo: lb2: corosync.service", md)
        self.assertIn("bmc_silent: one fence level", md)
        self.assertIn("fences: m2 at 61 s", md)
        self.assertIn("ARP requests for the VIP: not watched", md)
        r["arp"] = {"requests": 36000, "answered": 35990, "answered_twice": 0, "error": None}
        r["vip_moves_seen_between_reads"] = [{"t": 1830.3}]
        md = soak.markdown(r)
        self.assertIn("36000 sent, 35990 answered, 0 answered by two hosts", md)
        self.assertIn("between two reads of the hosts (not two holders): 1", md)


class FakeLabHost:
    def __init__(self, name, role, v4):
        self.name, self.role, self.v4 = name, role, v4


class TestScenarioReport(unittest.TestCase):
    """The soak in the scenarios' report files, through this build's cpha."""

    def test_report_files(self):
        build = os.environ.get("CPHA_BUILD_DIR")
        if not build:
            self.skipTest("CPHA_BUILD_DIR is not set: no cpha to run")
        os.environ["CPHA_LAB_CPHA"] = os.path.join(build, "control-plane", "cpha")
        plan = soakplan.plan(7, 180, ["m1", "m2", "m3"], ["lb1", "lb2"])
        t0 = 1_800_000_000.0
        applied = [(f.id, f.kind, t0 + f.start) for f in plan.faults[:3]]
        with tempfile.TemporaryDirectory() as d:
            probe = os.path.join(d, "probe.jsonl")
            with open(probe, "w") as f:
                for i in range(100):
                    ok = not 40 <= i < 43
                    f.write(json.dumps({"t": t0 + i, "k": "read", "ok": ok, "ms": 3}) + "\n")
            report = {"seed": 7, "faults_injected": 3, "compound": 2,
                      "settled_after": True, "history": {"exit": 0},
                      "violations": [{"invariant": "one_vip_holder_by_arp", "t": 41.0,
                                      "detail": ["lb1", "lb2"],
                                      "faults_in_flight": ["2 partition"]}]}
            lab = type("L", (), {"name": "t", "info": {},
                                 "hosts": {"lb1": FakeLabHost("lb1", "lb", "198.18.0.21")}})()
            soak.scenario_report(lab, d, "cpha", probe, plan, applied, t0, t0 + 100, report,
                                 [{"phase": "no_vip", "from": t0 + 40, "to": t0 + 42}])
            for name in ("report.md", "report.json", "timeline.svg", "lab.json"):
                self.assertTrue(os.path.exists(os.path.join(d, name)), name)
            with open(os.path.join(d, "report.json")) as f:
                r = json.load(f)
            s = r["runs"][0]["scenarios"][0]
            self.assertEqual(s["name"], "soak")
            self.assertFalse(s["invariants"]["one_vip_holder_by_arp"])
            self.assertTrue(s["invariants"]["one_vip_holder"])
            self.assertTrue(s["invariants"]["linearizable"])
            self.assertEqual(len(s["marks"]), 3)
            with open(os.path.join(d, "report.md")) as f:
                md = f.read()
            self.assertIn("one_vip_holder_by_arp at +41.0 s (lb1 lb2)", md)
            self.assertIn("fault %d: " % plan.faults[0].id, md)
            with open(os.path.join(d, "timeline.svg")) as f:
                self.assertIn("<svg", f.read())


class ProcHost:
    def __init__(self, procs):
        self.procs = procs

    def service_pid(self, name):
        return None

    def processes(self):
        return self.procs


class TestPidsOf(unittest.TestCase):
    """A fault on a daemon hits the daemon, never its resource agent: the
    hour-long soak killed ocf:cpha:kube-apiserver in the middle of its
    stop, and Pacemaker fenced the host for the failed stop."""

    def test_daemon_not_agent(self):
        h = ProcHost([
            (10, ["/usr/bin/python3", "/opt/lab/simulators/kube-apiserver", "--etcd-servers=x"]),
            (11, ["/usr/lib/ocf/resource.d/cpha/kube-apiserver", "stop"]),
            (12, ["/bin/sh", "/usr/lib/ocf/resource.d/cpha/etcd", "monitor"]),
            (13, ["/usr/bin/etcd", "--name", "m1"]),
            (14, ["/usr/sbin/pacemaker-execd"]),
        ])
        self.assertEqual(soak.pids_of(h, "kube-apiserver"), [10])
        self.assertEqual(soak.pids_of(h, "etcd"), [13])
        self.assertEqual(soak.pids_of(h, "kube-scheduler"), [])


class FakeHost:
    def __init__(self, name, reads):
        self.name, self.reads = name, reads

    def powered(self):
        return True

    def link_up(self):
        return True

    def frozen(self):
        return False

    def addresses(self):
        return self.reads.pop(0)


class FakeLab:
    dual_stack = False

    def __init__(self, lb1, lb2):
        self.lbs = [FakeHost("lb1", lb1), FakeHost("lb2", lb2)]

    def by_role(self, role):
        return self.lbs if role == "lb" else []


class TestMonitorVipReads(unittest.TestCase):
    """The hosts' addresses are read one host after the other."""

    def sample(self, lb1, lb2):
        from cphalab import observe, runner
        lab = FakeLab(lb1, lb2)
        mon = runner.Monitor(lab)
        real = (observe.up_masters, observe.acting)
        observe.up_masters, observe.acting = (lambda lab: []), (lambda lab, prog: [])
        try:
            mon.samples = 1  # not a fenced sample
            mon.sample()
        finally:
            observe.up_masters, observe.acting = real
        return mon

    def test_move_between_reads(self):
        vip = soak.labmod.VIP
        # lb1 read first (holds it), lb2 next (holds it), lb1 again: gone
        mon = self.sample([[vip], []], [[vip], [vip]])
        self.assertEqual(mon.bad["one_vip_holder"], [])
        self.assertEqual(len(mon.moves), 1)
        self.assertEqual(mon.moves[0][2:], (["lb1", "lb2"], ["lb2"]))
        self.assertEqual(mon.vip_samples[0][1], False)

    def test_two_holders_confirmed(self):
        vip = soak.labmod.VIP
        # lb1 still holds it when read again after lb2 was seen holding it
        mon = self.sample([[vip], [vip]], [[vip], [vip]])
        self.assertEqual(len(mon.bad["one_vip_holder"]), 1)
        self.assertEqual(mon.bad["one_vip_holder"][0][1], ["lb1", "lb2"])
        self.assertEqual(mon.moves, [])

    def test_one_holder_read_once(self):
        vip = soak.labmod.VIP
        mon = self.sample([[vip]], [[]])
        self.assertEqual(mon.bad["one_vip_holder"], [])
        self.assertEqual(mon.moves, [])


class FakeMaster(FakeHost):
    def __init__(self, name, powered=True, frozen=False):
        super().__init__(name, [])
        self.on, self.ice = powered, frozen

    def powered(self):
        return self.on

    def frozen(self):
        return self.ice


class FakeMasters(FakeLab):
    def __init__(self, masters):
        super().__init__([], [])
        self.masters = masters

    def by_role(self, role):
        return self.masters if role == "master" else []


class TestMonitorLeaders(unittest.TestCase):
    """Every 2 s, each running controller-manager and scheduler says
    whether it holds its Lease: two at once is a violation, cut off from
    the others or not; a frozen or powered-off master is not asked."""

    def sample(self, masters, running, says_leads):
        from cphalab import observe, runner
        mon = runner.Monitor(FakeMasters(masters))
        asked = []

        def leading(hosts, prog):
            asked.append((prog, [h.name for h in hosts]))
            return [h.name for h in hosts if h.name in says_leads]
        real = (observe.leading,)
        observe.leading = leading
        try:
            mon.leader_sample(100.0, "one_controller_manager", "kube-controller-manager",
                              set(running))
        finally:
            observe.leading, = real
        return mon, asked

    def test_one_leader(self):
        ms = [FakeMaster("m1"), FakeMaster("m2"), FakeMaster("m3")]
        mon, asked = self.sample(ms, ["m1"], ["m1"])
        self.assertEqual(asked, [("kube-controller-manager", ["m1"])])
        self.assertEqual(mon.bad["one_controller_manager"], [])
        self.assertEqual(mon.leader_reads, {"kube-controller-manager": [1, 1]})

    def test_two_leaders_one_cut_off(self):
        # m3 partitioned, its process still says it leads: a violation
        ms = [FakeMaster("m1"), FakeMaster("m2"), FakeMaster("m3")]
        mon, _ = self.sample(ms, ["m1", "m3"], ["m1", "m3"])
        self.assertEqual(len(mon.bad["one_controller_manager"]), 1)
        self.assertEqual(mon.bad["one_controller_manager"][0][1], ["m1", "m3"])

    def test_a_waiting_candidate(self):
        ms = [FakeMaster("m1"), FakeMaster("m2"), FakeMaster("m3")]
        mon, _ = self.sample(ms, ["m1", "m2"], ["m2"])
        self.assertEqual(mon.bad["one_controller_manager"], [])

    def test_frozen_and_off_not_asked(self):
        ms = [FakeMaster("m1", frozen=True), FakeMaster("m2", powered=False),
              FakeMaster("m3")]
        mon, asked = self.sample(ms, ["m1", "m2", "m3"], ["m1", "m2", "m3"])
        self.assertEqual(asked, [("kube-controller-manager", ["m3"])])
        self.assertEqual(mon.bad["one_controller_manager"], [])

    def test_no_leader_read(self):
        ms = [FakeMaster("m1")]
        mon, _ = self.sample(ms, ["m1"], [])
        self.assertEqual(mon.leader_reads, {"kube-controller-manager": [1, 0]})


class TestLeaseStatus(unittest.TestCase):
    def test_master_status(self):
        from cphalab import observe
        text = ("# HELP leader_election_master_status x\n"
                "# TYPE leader_election_master_status gauge\n"
                'leader_election_master_status{name="kube-scheduler"} 0\n'
                'leader_election_master_status{name="kube-controller-manager"} 1\n')
        self.assertEqual(observe.master_status(text, "kube-controller-manager"), 1)
        self.assertEqual(observe.master_status(text, "kube-scheduler"), 0)
        self.assertIsNone(observe.master_status(text, "cloud-controller-manager"))
        self.assertIsNone(observe.master_status("403 Forbidden", "kube-scheduler"))
        self.assertIsNone(observe.master_status(
            'leader_election_master_status{name="kube-scheduler"} x\n', "kube-scheduler"))

    def test_reads_that_saw_no_leader_fail_the_soak(self):
        ok = {"kube-controller-manager": {"reads": 90, "with_a_leader": 88},
              "kube-scheduler": {"reads": 90, "with_a_leader": 90}}
        self.assertTrue(soak.lease_reads_ok(ok))
        self.assertFalse(soak.lease_reads_ok(dict(ok, **{"kube-scheduler": {
            "reads": 90, "with_a_leader": 0}})))
        self.assertFalse(soak.lease_reads_ok({}))
        self.assertIn("kube-scheduler 90, a leader in 90", soak.lease_line(ok))


if __name__ == "__main__":
    unittest.main()
