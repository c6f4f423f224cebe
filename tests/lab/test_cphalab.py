#!/usr/bin/env python3
"""Unit tests of the lab program's own logic (no root, no namespaces):
the invariant monitor's judgements, the serve-again time, lost writes and
kubectl counts from event files, crm_mon parsing, the lab description."""

import json
import os
import sys
import tempfile
import types
import unittest

sys.dont_write_bytecode = True

from cphalab import lab as labmod  # noqa: E402
from cphalab import observe, runner  # noqa: E402
from cphalab.hosts import LabError  # noqa: E402

CRM = """<pacemaker-result api-version="2.2" request="crm_mon">
  <summary><current_dc present="true" name="m1" with_quorum="true"/></summary>
  <nodes>
    <node name="m1" online="true" type="member"/>
    <node name="m2" online="true" type="member"/>
    <node name="m3" online="false" type="member"/>
  </nodes>
  <resources>
    <clone id="etcd-clone">
      <resource id="etcd" active="true" failed="false"><node name="m1"/></resource>
      <resource id="etcd" active="true" failed="false"><node name="m2"/></resource>
      <resource id="etcd" active="false" failed="false"/>
    </clone>
    <resource id="kcm" active="true" failed="false"><node name="m2"/></resource>
    <resource id="scheduler" active="true" failed="true"><node name="m1"/></resource>
  </resources>
</pacemaker-result>"""


def events_file(lines):
    f = tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False)
    for e in lines:
        f.write(json.dumps(e) + "\n")
    f.close()
    return f.name


class FakeHost:
    def __init__(self, name, role):
        self.name, self.role = name, role
        self.hung = False

    def frozen(self):
        return self.hung

    def powered(self):
        return True

    def link_up(self):
        return True


class FakeLab:
    def __init__(self):
        self.hosts = {n: FakeHost(n, r) for n, r in (("m1", "master"), ("m2", "master"),
                                                       ("m3", "master"), ("lb1", "lb"),
                                                       ("lb2", "lb"))}
        self.dual_stack = False

    def by_role(self, role):
        return [h for h in self.hosts.values() if h.role == role]


class Monitor(unittest.TestCase):
    def setUp(self):
        self.saved = (observe.vip_holders_both, observe.up_masters, observe.acting,
                      observe.fenced_show, observe.leading)
        self.lab = FakeLab()
        self.holders = ["lb1"]
        self.holders6 = []
        self.connected = ["m1", "m2", "m3"]
        self.procs = {"kube-controller-manager": [("m2", 10)], "kube-scheduler": [("m1", 11)]}
        observe.vip_holders_both = lambda lab: (list(self.holders), list(self.holders6))
        observe.up_masters = lambda lab: [lab.hosts[n] for n in self.connected]
        observe.acting = lambda lab, prog: list(self.procs[prog])
        observe.fenced_show = lambda h: {"pending": []}
        # who says it holds its Lease (leader_election_master_status)
        self.leaders = {"kube-controller-manager": ["m2"], "kube-scheduler": ["m1"]}
        self.asked = []

        def leading(hosts, prog):
            self.asked.append((prog, sorted(h.name for h in hosts)))
            return [h.name for h in hosts if h.name in self.leaders[prog]]
        observe.leading = leading

    def tearDown(self):
        (observe.vip_holders_both, observe.up_masters, observe.acting,
         observe.fenced_show, observe.leading) = self.saved

    def test_healthy_samples_find_nothing(self):
        m = runner.Monitor(self.lab)
        for _ in range(20):
            m.sample()
        self.assertEqual({k: v for k, v in m.bad.items() if v}, {})

    def test_no_vip_phases_end_at_the_run(self):
        """An interval without a holder is cut at the run's end; one the
        monitor opened after it (it samples on while the run ends) is not
        the run's: never a phase whose "to" is before its "from"."""
        m = runner.Monitor(self.lab)
        m.no_vip = [(10.0, 12.0), (20.0, 30.0)]
        m.no_vip_since = 40.0
        self.assertEqual(m.no_vip_phases(25.0), [{"phase": "no_vip", "from": 10.0, "to": 12.0},
                                                 {"phase": "no_vip", "from": 20.0, "to": 25.0}])
        self.assertEqual(m.no_vip_phases(50.0)[-1], {"phase": "no_vip", "from": 40.0, "to": 50.0})

    def test_two_vip_holders(self):
        m = runner.Monitor(self.lab)
        m.sample()
        self.holders = ["lb1", "lb2"]
        m.sample()
        self.assertEqual(len(m.bad["one_vip_holder"]), 1)
        self.assertEqual(m.bad["one_vip_holder"][0][1], ["lb1", "lb2"])

    def test_dual_stack(self):
        """A dual-stack lab: two IPv6 VIP holders are a violation of their
        own; the two VIPs apart are sampled, not a violation by
        themselves (judge.longest_ms decides)."""
        m = runner.Monitor(self.lab)
        self.assertNotIn("one_vip6_holder", m.bad)
        self.lab.dual_stack = True
        m = runner.Monitor(self.lab)
        self.holders6 = ["lb1"]
        m.sample()
        self.holders6 = ["lb1", "lb2"]
        m.sample()
        self.holders6 = ["lb2"]
        m.sample()
        self.assertEqual(m.bad["one_vip6_holder"], [(m.bad["one_vip6_holder"][0][0],
                                                     ["lb1", "lb2"])])
        self.assertEqual(m.bad["one_vip_holder"], [])
        self.assertEqual([a for _, a in m.apart_samples], [False, True, True])

    def test_two_controller_managers_on_connected_masters(self):
        m = runner.Monitor(self.lab)
        self.procs["kube-controller-manager"] = [("m2", 10), ("m3", 12)]
        m.sample()
        self.assertEqual(m.bad["one_controller_manager"][0][1], ["m2", "m3"])
        # the same program twice on one host (a restart) is not two leaders
        m.reset()
        self.procs["kube-controller-manager"] = [("m2", 10), ("m2", 13)]
        m.sample()
        self.assertEqual(m.bad["one_controller_manager"], [])

    def test_a_cut_off_master_does_not_count(self):
        m = runner.Monitor(self.lab)
        self.procs["kube-scheduler"] = [("m1", 11), ("m3", 14)]
        self.connected = ["m1", "m2"]
        m.sample()
        self.assertEqual(m.bad["one_scheduler"], [])

    def test_two_leaders_by_their_own_account(self):
        """Every 8th sample (2 s) each running process is asked whether it
        holds its Lease, on connected masters and cut-off ones alike."""
        m = runner.Monitor(self.lab)
        self.procs["kube-scheduler"] = [("m1", 11), ("m3", 14)]
        self.connected = ["m1", "m2"]
        for _ in range(8):
            m.sample()
        self.assertEqual(self.asked, [("kube-controller-manager", ["m2"]),
                                      ("kube-scheduler", ["m1", "m3"])])
        self.assertEqual(m.bad["one_scheduler"], [])  # m3 waits for the Lease
        self.assertEqual(m.leader_reads, {"kube-controller-manager": [1, 1],
                                          "kube-scheduler": [1, 1]})
        self.leaders["kube-scheduler"] = ["m1", "m3"]  # m3 still says it leads
        for _ in range(8):
            m.sample()
        self.assertEqual(len(m.bad["one_scheduler"]), 1)
        self.assertEqual(m.bad["one_scheduler"][0][1], ["m1", "m3"])
        # a frozen master is not asked: its process acts on nothing
        m.reset()
        self.asked[:] = []
        self.lab.hosts["m3"].hung = True
        for _ in range(8):
            m.sample()
        self.assertEqual(self.asked[-1], ("kube-scheduler", ["m1"]))
        self.assertEqual(m.bad["one_scheduler"], [])

    def test_fence_overdue(self):
        m = runner.Monitor(self.lab)
        # fenced's show json: due_in counts down to the fence; a fence
        # running or just due is not overdue
        observe.fenced_show = lambda h: {"pending": [{"node": "lb2", "state": "victim",
                                                      "due_in": -0.3}]}
        m.sample()
        self.assertEqual(m.bad["no_fence_overdue"], [])
        m.reset()
        observe.fenced_show = lambda h: {"pending": [{"node": "lb2", "state": "victim",
                                                      "due_in": -4.0}]}
        m.sample()
        self.assertEqual(len(m.bad["no_fence_overdue"]), 2)  # seen from lb1 and lb2
        # a hung host's fenced is not asked (it would not answer)
        m.reset()
        self.lab.hosts["lb1"].hung = True
        asked = []
        observe.fenced_show = lambda h: asked.append(h.name) or {}
        m.sample()
        self.assertEqual(asked, ["lb2"])

    def test_two_vip_samples(self):
        m = runner.Monitor(self.lab)
        m.sample()
        self.holders = ["lb1", "lb2"]
        m.sample()
        self.assertEqual([held for _, held in m.vip_samples], [False, True])
        m.reset()
        self.assertEqual(m.vip_samples, [])


class Events(unittest.TestCase):
    def test_serve_again(self):
        p = events_file([
            {"t": 10.0, "k": "readyz", "ok": True},
            {"t": 11.0, "k": "readyz", "ok": False},
            {"t": 12.5, "k": "lease_put", "ok": False},
            {"t": 12.7, "k": "watch_open", "w": 1},
            {"t": 13.0, "k": "lease_get", "ok": True},
            {"t": 13.1, "k": "readyz", "ok": True}])
        self.assertEqual(runner.serve_again(p, 10.5, 20), 2500)
        self.assertEqual(runner.serve_again(p, 13.0, 20), 0)  # nothing failed after t0
        p2 = events_file([{"t": 11.0, "k": "readyz", "ok": False}])
        self.assertIsNone(runner.serve_again(p2, 10.0, 20))  # never served again
        os.unlink(p)
        os.unlink(p2)

    def test_lost_writes_in_window(self):
        p = events_file([{"t": 5, "k": "lost_write"}, {"t": 15, "k": "lost_write"},
                         {"t": 16, "k": "readyz", "ok": True}])
        self.assertEqual(runner.lost_writes(p, 10, 20), 1)
        self.assertEqual(runner.lost_writes(p, 0, 20), 2)
        os.unlink(p)

    def test_kubectl_summary(self):
        p = events_file([{"t": 1, "k": "kubectl --raw", "ok": True, "err": ""},
                         {"t": 2, "k": "kubectl leases", "ok": False, "err": "x"},
                         {"t": 9, "k": "kubectl --raw", "ok": True, "err": ""}])
        self.assertEqual(runner.kubectl_summary(p, 0, 5), "kubectl (real): 1 ok, 1 failed")
        os.unlink(p)


class Crm(unittest.TestCase):
    def test_resources_and_nodes(self):
        import xml.etree.ElementTree as ET
        x = ET.fromstring(CRM)
        res = observe.resources(x)
        self.assertEqual(sorted(res["etcd"]), ["m1", "m2"])
        self.assertEqual(res["kcm"], ["m2"])
        self.assertEqual(res["scheduler"], [])  # failed is not active
        self.assertEqual(sorted(observe.nodes_online(x)), ["m1", "m2"])
        self.assertEqual(observe.resources(None), {})


class Description(unittest.TestCase):
    def test_qdevice(self):
        line = "qdevice: {address: 198.18.0.31, algorithm: ffsplit}"
        self.assertNotIn("qdevice", labmod.description("cpha"))
        self.assertIn(line, labmod.description("cpha", qdevice=True))
        # the stack it is compared with: the same lab, two_node
        two = labmod.description(labmod.TWO_NODE, qdevice=True)
        self.assertNotIn("qdevice", two)
        self.assertIn("load_balancer: lbd, vip: vipd", two)
        self.assertTrue(labmod.is_cpha(labmod.TWO_NODE))
        self.assertFalse(labmod.is_cpha("peer"))
        self.assertEqual(labmod.lb_cluster_name(), "lab-lb")
        self.assertEqual(labmod.lb_cluster_name({"cluster": {"name": "prod"}}), "prod-lb")

    def test_dual_stack(self):
        for stack in ("cpha", "peer"):
            self.assertIn("api: {name: kubernetes, vip: 198.18.0.2/24, interface: eth0}",
                          labmod.description(stack))
            d = labmod.description(stack, dual_stack=True)
            self.assertIn("api: {name: kubernetes, vip: [198.18.0.2/24, 2001:db8:18::2/64], "
                          "interface: eth0}", d)
        try:
            import yaml
        except ImportError:
            return
        self.assertEqual(yaml.safe_load(d)["api"]["vip"], ["198.18.0.2/24",
                                                          "2001:db8:18::2/64"])
        src = {"masters": [{"name": n} for n in ("a", "b", "c")],
               "load_balancers": [{"name": "x"}, {"name": "y"}],
               "api": {"vip": "10.0.0.2/24"}}
        for dual, want in ((False, "198.18.0.2/24"),
                           (True, ["198.18.0.2/24", "2001:db8:18::2/64"])):
            got = yaml.safe_load(labmod.description("cpha", src, dual_stack=dual))["api"]["vip"]
            self.assertEqual(got, want)

    def test_stacks(self):
        d = labmod.description("cpha")
        self.assertIn("components: {load_balancer: lbd, vip: vipd, manager: pacemaker}", d)
        self.assertIn("load_balancer: haproxy, vip: keepalived",
                      labmod.description("peer"))
        # /metrics and /status on each host's address, behind basic auth
        self.assertIn("monitoring:\n  listen: host\n  tls: true\n  basic_auth: {user: prometheus, "
                      "password_hash: '%s', password_file: /etc/cpha/secrets/metrics}\n"
                      % labmod.METRICS_HASH, d)
        # one BMC per master and LB host (level 1) and one stand-in PDU
        # (level 2), on the bmc host, own port each
        try:
            import yaml
        except ImportError:
            self.skipTest("no PyYAML (python3-yaml): the description is not parsed")
        devs = yaml.safe_load(d)["fencing"]["devices"]
        self.assertEqual(len(devs), 10)
        self.assertEqual(len({x["params"]["ipport"] for x in devs}), 10)
        for h in ("m1", "m2", "m3", "lb1", "lb2"):
            self.assertEqual(sorted((x["level"], x["name"]) for x in devs if x["host"] == h),
                             [(1, "ipmi-" + h), (2, "pdu-" + h)])
        src = {"masters": [{"name": n} for n in ("a", "b", "c")],
               "load_balancers": [{"name": "x"}, {"name": "y"}], "api": {"vip": "10.0.0.2/24"}}
        devs = yaml.safe_load(labmod.description("cpha", src))["fencing"]["devices"]
        self.assertEqual(sorted((x["level"], x["host"]) for x in devs),
                         sorted([(1, h) for h in "abcxy"] + [(2, h) for h in "abcxy"]))
        for h in labmod.HOSTS:
            self.assertTrue(h[2].startswith("198.18.") and h[3].startswith("2001:db8:"))
        self.assertNotIn("password:", d)

    def test_added_masters(self):
        """master-add's edit: the spares m4 and m5 as masters 4 and 5,
        after the others, with fence devices of their own on ports after
        every other host's (no port moves); a name that is no spare is
        refused."""
        try:
            import yaml
        except ImportError:
            self.skipTest("no PyYAML (python3-yaml): the description is not parsed")
        spares = [h[0] for h in labmod.HOSTS if h[1] == labmod.SPARE]
        self.assertEqual(spares, ["m4", "m5"])
        three = yaml.safe_load(labmod.description("cpha"))
        five = yaml.safe_load(labmod.description("cpha", added=spares))
        self.assertEqual([m["name"] for m in five["masters"]], ["m1", "m2", "m3", "m4", "m5"])
        self.assertEqual(five["masters"][3]["address"], "198.18.0.14")
        ports = {(x["name"]): x["params"]["ipport"] for x in five["fencing"]["devices"]}
        self.assertEqual({k: v for k, v in ports.items() if k.split("-", 1)[1] not in spares},
                         {x["name"]: x["params"]["ipport"] for x in three["fencing"]["devices"]})
        self.assertEqual((ports["ipmi-m4"], ports["ipmi-m5"], ports["pdu-m5"]),
                         (labmod.BMC_PORT0 + 6, labmod.BMC_PORT0 + 7, labmod.PDU_PORT0 + 7))
        self.assertEqual(len(set(ports.values())), 14)
        # the peer's description fences the new masters too (not its LB hosts)
        peer = yaml.safe_load(labmod.description("peer", added=spares))
        self.assertEqual(sorted({x["host"] for x in peer["fencing"]["devices"]}),
                         ["m1", "m2", "m3", "m4", "m5"])
        with self.assertRaisesRegex(LabError, "no spare hosts lb1"):
            labmod.description("cpha", added=["lb1"])
        # the BMCs' order: masters, LB hosts, spares
        self.assertEqual([h[0] for h in labmod.bmc_targets(labmod.HOSTS)],
                         ["m1", "m2", "m3", "lb1", "lb2", "m4", "m5"])
        # a lab made from a description has no spares
        src = {"masters": [{"name": n} for n in ("a", "b", "c")],
               "load_balancers": [{"name": "x"}, {"name": "y"}]}
        self.assertNotIn(labmod.SPARE, [h[1] for h in labmod.lab_hosts(src)])

    def test_peer_unfenced(self):
        """The peer (HAProxy and keepalived, as kubeadm's HA guide has
        them) fences no LB host, and its description says so: no LB fence
        device, fencing.load_balancers none, no quorum device; the masters
        are fenced as in cpha's."""
        try:
            import yaml
        except ImportError:
            self.skipTest("no PyYAML (python3-yaml): the description is not parsed")
        src = {"masters": [{"name": n} for n in ("a", "b", "c")],
               "load_balancers": [{"name": "x"}, {"name": "y"}], "api": {"vip": "10.0.0.2/24"},
               "fencing": {"load_balancers": "fenced"}}
        for stack in ("peer", "peer-preempt"):
            for d, masters in ((labmod.description(stack, qdevice=True), ("m1", "m2", "m3")),
                               (labmod.description(stack, src, qdevice=True), "abc")):
                y = yaml.safe_load(d)
                self.assertEqual(y["fencing"]["load_balancers"], "none")
                self.assertEqual(sorted({x["host"] for x in y["fencing"]["devices"]}),
                                 sorted(masters))
                self.assertNotIn("qdevice", y)
        for stack in ("cpha", labmod.TWO_NODE):
            y = yaml.safe_load(labmod.description(stack, src))
            self.assertNotIn("load_balancers", y["fencing"])
            self.assertEqual(len({x["host"] for x in y["fencing"]["devices"]}), 5)

    def test_stage_files(self):
        """A switch of stacks makes the admin workstation's description and
        render (the stage directory the runbooks use) the new stack's."""
        from cphalab import stackswitch
        with tempfile.TemporaryDirectory() as d:
            lab = types.SimpleNamespace(path=lambda *p: os.path.join(d, *p))
            os.makedirs(os.path.join(d, "stage", "out", "lb1"))
            with open(os.path.join(d, "stage", "out", "lb1", "lbd.cfg"), "w") as f:
                f.write("cpha\n")
            os.makedirs(os.path.join(d, "render-peer", "lb1"))
            with open(os.path.join(d, "render-peer", "lb1", "haproxy.cfg"), "w") as f:
                f.write("peer\n")
            with open(os.path.join(d, "cluster-peer.yaml"), "w") as f:
                f.write("components: {load_balancer: haproxy}\n")
            stackswitch.stage_files(lab, os.path.join(d, "cluster-peer.yaml"),
                                    os.path.join(d, "render-peer"))
            with open(os.path.join(d, "stage", "cluster.yaml")) as f:
                self.assertEqual(f.read(), "components: {load_balancer: haproxy}\n")
            self.assertEqual(os.listdir(os.path.join(d, "stage", "out", "lb1")),
                             ["haproxy.cfg"])

    def test_names(self):
        for bad in ("", "toolong7", "a-b", "a b"):
            with self.assertRaises(LabError):
                labmod.Lab(bad)
        self.assertEqual(labmod.Lab("t42").bridge, "clt42br")


if __name__ == "__main__":
    unittest.main(verbosity=2)
