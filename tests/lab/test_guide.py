#!/usr/bin/env python3
"""Unit tests of how the lab follows docs/deploy.md (no root, no
namespaces): the guide's lab blocks, their segments, and the systemd unit
lines the lab carries out in place of systemd (cphalab/guide.py,
cphalab/units.py). Also checks the guide itself: every lab block is
well formed and every unit it starts exists with one ExecStart=."""

import os
import signal
import sys
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.join(HERE, "..", "..")

from cphalab import guide, units  # noqa: E402
from cphalab.hosts import LabError  # noqa: E402

READ = guide.read

GUIDE = """# A guide

```sh
echo not for the lab
```

```sh lab=admin
cpha plan
```

Text.

```sh lab=masters
cd "$STAGE"
systemctl enable --now corosync pacemaker.service  # both
echo after \\
  continued
systemctl daemon-reload
```
"""

UNIT = """[Unit]
Description=x
After=network-online.target corosync.service
After=lbd.service
ConditionFileNotEmpty=/etc/x.conf

[Service]
Type=notify
Environment=CONFIG=/etc/x.conf "B=two words"
EnvironmentFile=-/etc/default/x
ExecStartPre=/usr/sbin/x -c -q -f ${CONFIG}
ExecStart=/usr/sbin/x -f ${CONFIG} $OPTS \\
    --tail
ExecReload=/bin/kill -HUP $MAINPID
"""


class Guide(unittest.TestCase):
    def test_only_marked_blocks_in_order(self):
        b = guide.parse(GUIDE)
        self.assertEqual([x.where for x in b], ["admin", "masters"])
        self.assertEqual(b[0].text, "cpha plan\n")
        self.assertEqual(b[0].line, 8)  # the first line of the block's body
        self.assertEqual(b[1].line, 14)

    def test_unknown_where_names_the_line(self):
        with self.assertRaisesRegex(LabError, r"deploy.md:3: a lab block"):
            guide.parse("x\n\n```sh lab=everywhere\nls\n```\n", "deploy.md")
        with self.assertRaisesRegex(LabError, r"g.md:1: a lab block"):
            guide.parse("```bash lab=admin\nls\n```\n", "g.md")

    def test_several_wheres(self):
        b = guide.parse("```sh lab=hosts,client\nls\n```\n")
        self.assertEqual([(x.where, x.line) for x in b], [("hosts", 2), ("client", 2)])
        with self.assertRaisesRegex(LabError, r"g.md:1: a lab block"):
            guide.parse("```sh lab=hosts,nowhere\nls\n```\n", "g.md")

    def test_if_condition(self):
        text = ("```sh lab=lbs if=qdevice\nqd\n```\n"
                "```sh lab=qnetd,first-lb if=qdevice\nx\n```\n")
        b = guide.parse(text)
        self.assertEqual([(x.where, x.cond) for x in b],
                         [("lbs", "qdevice"), ("qnetd", "qdevice"), ("first-lb", "qdevice")])
        self.assertIsNone(guide.parse("```sh lab=lbs\nls\n```\n")[0].cond)
        with self.assertRaisesRegex(LabError, r"g.md:1: if=raid: the lab knows if=qdevice"):
            guide.parse("```sh lab=lbs if=raid\nls\n```\n", "g.md")

    def test_unclosed_block(self):
        with self.assertRaisesRegex(LabError, r"g.md:2: code block never closed"):
            guide.parse("x\n```sh lab=admin\nls\n", "g.md")

    def test_segments(self):
        b = guide.parse(GUIDE)[1]
        s = guide.segments(b.text)
        self.assertEqual(s[0], ("sh", 'cd "$STAGE"\n'))
        self.assertEqual(s[1], ("systemctl", "start", ["corosync", "pacemaker"]))
        self.assertEqual(s[2][0], "sh")
        self.assertRegex(s[2][1], r"^echo after +continued\n$")
        self.assertEqual(s[3], ("systemctl", "daemon-reload", []))

    def test_systemctl_lines(self):
        self.assertEqual(units.systemctl_line("systemctl enable --now a b.service"),
                         ("start", ["a", "b"]))
        self.assertEqual(units.systemctl_line("systemctl enable a"), ("enable", ["a"]))
        self.assertEqual(units.systemctl_line("systemctl disable --now a b"), ("stop", ["a", "b"]))
        self.assertEqual(units.systemctl_line("systemctl disable a"), ("disable", ["a"]))
        self.assertIsNone(units.systemctl_line("echo systemctl start a"))
        with self.assertRaisesRegex(LabError, "systemctl isolate"):
            units.systemctl_line("systemctl isolate rescue.target")


    def test_run_marks_a_scenario_block(self):
        text = ("```sh lab=admin\nup\n```\n"
                "```sh lab=admin run=cert-rotation\nrenew\n```\n"
                "```sh lab=lbs run=cert-rotation\nsystemctl reload lbd\n```\n")
        b = guide.parse(text)
        self.assertEqual([(x.where, x.run) for x in b],
                         [("admin", None), ("admin", "cert-rotation"), ("lbs", "cert-rotation")])
        with self.assertRaisesRegex(LabError, r"g.md:1: run=Bad_Name"):
            guide.parse("```sh lab=admin run=Bad_Name\nls\n```\n", "g.md")

    def test_each_master_round(self):
        text = ("```sh lab=lbs each=master run=r\ncpha drain \"$MASTER\"\n```\n"
                "```sh lab=master each=master run=r\ncpha restart etcd\n```\n"
                "```sh lab=lbs,admin each=master run=r\ncpha undrain \"$MASTER\"\n```\n"
                "```sh lab=first-master run=r\ndone\n```\n")
        b = guide.parse(text)
        self.assertEqual([(x.where, x.each) for x in b],
                         [("lbs", "master"), ("master", "master"), ("lbs", "master"),
                          ("admin", "master"), ("first-master", None)])
        with self.assertRaisesRegex(LabError, r"g.md:1: lab=master is the master of an "
                                              r"each=master round"):
            guide.parse("```sh lab=master\nls\n```\n", "g.md")
        with self.assertRaisesRegex(LabError, r"g.md:1: each=rack: the lab knows "
                                              r"each=master\|lb"):
            guide.parse("```sh lab=lbs each=rack\nls\n```\n", "g.md")
        with self.assertRaisesRegex(LabError, r"g.md:1: lab=lb is the LB host of an each=lb "
                                              r"round"):
            guide.parse("```sh lab=lb each=master\nls\n```\n", "g.md")

        class Host:
            def __init__(self, name):
                self.name = name

        class Lab:
            hosts = {"master": [Host("m1"), Host("m2")], "lb": [Host("lb1"), Host("lb2")]}

            def by_role(self, role):
                return self.hosts[role]

            def host(self, name):
                return Host(name)

        done = []
        f = guide.Follower(Lab(), "/", {}, {}, [], {}, lambda m: None, name="runbook.md")
        f.path = os.path.join(HERE, "no-such-file")
        guide.read = lambda path: text
        f.on_host = lambda b, h, extra=None: done.append((b.line, h.name, extra.get("MASTER")
                                                          if extra else None))
        f.admin = lambda b, extra=None: done.append((b.line, "admin", extra.get("MASTER")))
        try:
            f.follow(run="r")
        finally:
            guide.read = READ
        # the round, whole, for m1, then for m2; then what follows it
        self.assertEqual(done, [(2, "lb1", "m1"), (2, "lb2", "m1"), (5, "m1", "m1"),
                                (8, "lb1", "m1"), (8, "lb2", "m1"), (8, "admin", "m1"),
                                (2, "lb1", "m2"), (2, "lb2", "m2"), (5, "m2", "m2"),
                                (8, "lb1", "m2"), (8, "lb2", "m2"), (8, "admin", "m2"),
                                (11, "m1", None)])

    def test_each_lb_round(self):
        """each=lb: every LB host in turn, the VIP's holder last, lab=lb
        that host; blocks of the other VIP daemon skipped (if=)."""
        text = ("```sh lab=lb each=lb run=r if=vipd\ncpha drain \"$HOST\"\n```\n"
                "```sh lab=lb each=lb run=r if=vipd\ncpha undrain \"$HOST\"\n```\n"
                "```sh lab=lb each=lb run=r if=keepalived\nsystemctl restart keepalived\n```\n")

        class Host:
            def __init__(self, name, addrs):
                self.name, self.addrs = name, addrs

            def addresses(self):
                return self.addrs

        class Lab:
            hosts = {"master": [], "lb": [Host("lb1", ["198.18.0.11", "198.18.0.2"]),
                                          Host("lb2", ["198.18.0.12"]),
                                          Host("lb3", ["198.18.0.13"])]}

            def by_role(self, role):
                return self.hosts[role]

        done = []
        f = guide.Follower(Lab(), "/", {"VIP": "198.18.0.2"}, {}, [], {}, lambda m: None,
                           conds=("vipd",), name="runbook.md")
        f.path = os.path.join(HERE, "no-such-file")
        guide.read = lambda path: text
        f.on_host = lambda b, h, extra=None: done.append((b.line, h.name, extra))
        try:
            f.follow(run="r")
        finally:
            guide.read = READ
        self.assertEqual(done, [(2, "lb2", {}), (5, "lb2", {}), (2, "lb3", {}), (5, "lb3", {}),
                                (2, "lb1", {}), (5, "lb1", {})])
        self.assertEqual(guide.vip_holders_last(Lab.hosts["lb"], lambda h: h.name == "lb2"),
                         [Lab.hosts["lb"][0], Lab.hosts["lb"][2], Lab.hosts["lb"][1]])

    def test_stop_order(self):
        """`systemctl stop` (and `disable --now`) stops in the reverse of
        the After= order, whatever order the line gives: a unit before the
        one it runs after (fenced and pacemaker before corosync)."""
        import tempfile
        d = tempfile.mkdtemp(prefix="cphalab-units-")
        try:
            for name, text in (("corosync", "[Service]\nExecStart=/usr/sbin/corosync -f\n"),
                               ("pacemaker", "[Unit]\nAfter=corosync.service\n[Service]\n"
                                "ExecStart=/usr/sbin/pacemakerd\n"),
                               ("fenced", "[Unit]\nAfter=corosync.service\n[Service]\n"
                                "ExecStart=/usr/sbin/fenced\n")):
                with open(os.path.join(d, name + ".service"), "w") as f:
                    f.write(text)
            stopped = []

            class Host:
                name = "m4"

                def path(self, p):
                    return os.path.join(d, "no-such-root") + p

                def stop(self, name):
                    stopped.append(name)

            f = guide.Follower(None, "/", {}, {}, [d], {}, lambda m: None, name="runbook.md")
            for line in ("systemctl disable --now corosync pacemaker fenced",
                         "systemctl stop fenced pacemaker corosync"):
                del stopped[:]
                f.on_host(guide.Block("removed", line + "\n", 1), Host())
                self.assertEqual(stopped[-1], "corosync", line)
                self.assertEqual(sorted(stopped), ["corosync", "fenced", "pacemakerd"])
        finally:
            import shutil
            shutil.rmtree(d)

    def test_timer_process(self):
        """A timer runs as the host's loop timer-STEM: what a stop stops."""
        self.assertEqual(units.process_name("cpha-check-textfile.timer", None),
                         "timer-cpha-check-textfile")

    def test_reload_lines(self):
        self.assertEqual(units.systemctl_line("systemctl reload lbd vipd.service"),
                         ("reload", ["lbd", "vipd"]))
        self.assertEqual(units.reload_signal("/bin/kill -HUP $MAINPID"), signal.SIGHUP)
        self.assertEqual(units.reload_signal("kill -s USR2 ${MAINPID}"), signal.SIGUSR2)
        self.assertEqual(units.reload_signal("-/bin/kill -SIGHUP $MAINPID"), signal.SIGHUP)
        self.assertEqual(units.reload_signal("/bin/kill -1 $MAINPID"), signal.SIGHUP)
        self.assertIsNone(units.reload_signal("/usr/sbin/lbd -c -q -f ${CONFIG}"))
        self.assertIsNone(units.reload_signal("/bin/kill -HUP 1"))
        self.assertIsNone(units.reload_signal("/bin/kill -NOSUCH $MAINPID"))


class Units(unittest.TestCase):
    def test_parse_and_lists(self):
        u = units.Unit("x", UNIT)
        self.assertEqual(u.after(), ["network-online.target", "corosync.service",
                                     "lbd.service"])
        self.assertEqual(u.service_type(), "notify")
        self.assertEqual(u.get("Service", "ExecStart"),
                         ["/usr/sbin/x -f ${CONFIG} $OPTS --tail"])
        self.assertEqual(u.get("Unit", "ConditionFileNotEmpty"), ["/etc/x.conf"])
        reset = units.Unit("y", "[Unit]\nAfter=a\nAfter=\nAfter=b\n")
        self.assertEqual(reset.after(), ["b"])

    def test_environment_and_command(self):
        u = units.Unit("x", UNIT)
        env = units.env_assignments(u.get("Service", "Environment")[0])
        self.assertEqual(env, {"CONFIG": "/etc/x.conf", "B": "two words"})
        env.update(units.env_file("# c\nOPTS='-v  -d'\n\nEMPTY=\n"))
        argv, ignore = units.command(u.get("Service", "ExecStart")[0], env)
        self.assertEqual(argv, ["/usr/sbin/x", "-f", "/etc/x.conf", "-v", "-d", "--tail"])
        self.assertFalse(ignore)
        argv, ignore = units.command("-/bin/true ${MISSING}x", env)
        self.assertEqual(argv, ["/bin/true", "x"])
        self.assertTrue(ignore)
        argv, _ = units.command("/usr/sbin/corosync -f $COROSYNC_OPTIONS", {})
        self.assertEqual(argv, ["/usr/sbin/corosync", "-f"])

    def test_order_follows_after(self):
        us = {n: units.Unit(n, t) for n, t in (
            ("vipd", "[Unit]\nAfter=lbd.service fenced.service\n"),
            ("corosync", "[Unit]\nAfter=network-online.target\n"),
            ("lbd", "[Unit]\n"),
            ("fenced", "[Unit]\nAfter=corosync.service\n"))}
        o = units.order(us)
        self.assertEqual(sorted(o), sorted(us))
        for a, b in (("corosync", "fenced"), ("lbd", "vipd"), ("fenced", "vipd")):
            self.assertLess(o.index(a), o.index(b), o)
        # no After= among them: the order given
        free = {n: units.Unit(n, "[Unit]\n") for n in ("b", "a", "c")}
        self.assertEqual(units.order(free), ["b", "a", "c"])
        cyc = {"a": units.Unit("a", "[Unit]\nAfter=b.service\n"),
               "b": units.Unit("b", "[Unit]\nAfter=a.service\n")}
        with self.assertRaisesRegex(LabError, "cycle: a -> b -> a"):
            units.order(cyc)


class TheGuide(unittest.TestCase):
    """docs/deploy.md as shipped."""

    def setUp(self):
        with open(os.path.join(TOP, "docs", "deploy.md")) as f:
            self.blocks = guide.parse(f.read())

    def test_every_part_of_the_bring_up_is_followed(self):
        wheres = [b.where for b in self.blocks]
        for w in ("admin", "hosts", "masters", "first-master", "lbs", "client"):
            self.assertIn(w, wheres)
        # the order an operator must keep: files before services, masters'
        # cluster before its configuration, the LB hosts after
        install = next(i for i, b in enumerate(self.blocks) if "install --host" in b.text)
        self.assertEqual(self.blocks[install].where, "hosts")
        self.assertLess(wheres.index("admin"), install)
        self.assertLess(wheres.index("masters"), wheres.index("first-master"))
        self.assertLess(wheres.index("first-master"), wheres.index("lbs"))

    def test_quorum_device_steps(self):
        """With a quorum device: qnetd's CA out, every LB host's database,
        the request, the signature, the PKCS#12 file, and only then
        corosync-qdevice; all marked if=qdevice."""
        q = [b for b in self.blocks if b.cond == "qdevice"]
        steps = [("qnetd", "qnetd-cacert.crt"), ("lbs", "-i -c"), ("first-lb", "-r -n"),
                 ("qnetd", "-s -c"), ("first-lb", "-M -c"), ("lbs", "-m -c"),
                 ("lbs", "corosync-qdevice")]
        at = -1
        for where, what in steps:
            i = next((k for k, b in enumerate(q) if k > at and b.where == where
                      and what in b.text), None)
            self.assertIsNotNone(i, "no %s step %r after block %d" % (where, what, at))
            at = i
        plain = [b for b in self.blocks if b.cond is None]
        self.assertFalse([b for b in plain if "qdevice" in b.text])

    def test_units_started_exist(self):
        dirs = [os.path.join(TOP, "etc", "systemd")] + units.UNIT_DIRS
        seen = set()
        for b in self.blocks:
            for s in guide.segments(b.text):
                if s[0] != "systemctl" or s[1] != "start":
                    continue
                for n in s[2]:
                    if n in RENDERED_TIMERS:
                        continue  # cpha render writes them (TimerUnits checks them)
                    p = next((os.path.join(d, n + ".service") for d in dirs
                              if os.path.exists(os.path.join(d, n + ".service"))), None)
                    if p is None and n in ("corosync", "pacemaker", "corosync-qdevice",
                                           "corosync-qnetd") + PROMETHEUS:
                        print("skipped: %s.service is not installed here" % n)
                        continue
                    self.assertIsNotNone(p, "docs/deploy.md:%d: no unit %s" % (b.line, n))
                    with open(p) as f:
                        u = units.Unit(n, f.read())
                    self.assertEqual(len(u.get("Service", "ExecStart")), 1, p)
                    seen.add(n)
        self.assertTrue({"lbd", "vipd", "fenced"} <= seen, seen)

    def test_vipd_starts_after_fenced_and_lbd(self):
        us = {}
        for n in ("corosync", "fenced", "lbd", "vipd"):
            p = os.path.join(TOP, "etc", "systemd", n + ".service")
            us[n] = units.Unit(n, open(p).read() if os.path.exists(p) else "[Unit]\n")
        self.assertIn("fenced.service", us["vipd"].after())
        self.assertIn("lbd.service", us["vipd"].after())
        o = units.order(us)
        self.assertLess(o.index("lbd"), o.index("vipd"))
        self.assertLess(o.index("fenced"), o.index("vipd"))


RENDERED_TIMERS = ("cpha-check-textfile.timer", "cpha-status-textfile.timer")
PROMETHEUS = ("prometheus", "prometheus-node-exporter", "prometheus-alertmanager")


class TheRunbook(unittest.TestCase):
    """docs/runbook.md as shipped: the blocks the lab's scenarios follow."""

    def setUp(self):
        with open(os.path.join(TOP, "docs", "runbook.md")) as f:
            self.blocks = guide.parse(f.read(), "docs/runbook.md")

    def test_cert_rotation(self):
        """Renew on the admin host, install everywhere, then a round per
        master (drained on the LB hosts, restarted, undrained), the
        controllers' restarts and the LB hosts' reloads (lbd and vipd, fenced
        where the LB hosts are fenced, HAProxy's exporter restarted beside
        keepalived), in that order; every reloaded unit has an ExecReload=
        the lab can do."""
        b = [x for x in self.blocks if x.run == "cert-rotation"]
        self.assertEqual([(x.where, x.each, x.cond) for x in b],
                         [("admin", None, None), ("hosts", None, None), ("lbs", "master", None),
                          ("master", "master", None), ("lbs", "master", None),
                          ("first-master", None, None), ("lbs", None, "vipd"),
                          ("lbs", None, "lbs-fenced"), ("lbs", None, "keepalived")])
        self.assertEqual(b[-1].text, "systemctl restart prometheus-haproxy-exporter\n")
        self.assertIn("renew", b[0].text)
        self.assertIn("install --host", b[1].text)
        self.assertEqual(b[2].text, 'cpha drain "$MASTER"\n')
        self.assertLess(b[3].text.index("restart etcd"), b[3].text.index("restart apiserver"))
        self.assertIn("cpha status", b[3].text)
        self.assertEqual(b[4].text, 'cpha undrain "$MASTER"\n')
        self.assertFalse([x for x in self.blocks if x.run is None],
                         "a runbook block the lab runs must name its scenario (run=)")
        for x in b:
            for s in guide.segments(x.text):
                if s[0] != "systemctl" or x is b[-1]:
                    continue
                self.assertEqual(s[1], "reload", "docs/runbook.md:%d" % x.line)
                for n in s[2]:
                    with open(os.path.join(TOP, "etc", "systemd", n + ".service")) as f:
                        u = units.Unit(n, f.read())
                    lines = u.get("Service", "ExecReload")
                    self.assertTrue(lines and units.reload_signal(lines[-1]), n)


    def test_masters_added_and_removed(self):
        """master-add: plan, pki and render beside the running render; the
        new BMC passwords and the files everywhere; the LB reload; corosync
        reloaded, the new masters started, every fenced reloaded; the CIB's
        difference pushed and cpha status awaited. master-remove: the SANs
        out, the files; the LB reload; standby and cpha etcd remove per
        leaving master; their stack stopped; corosync reloaded, the nodes
        forgotten, the CIB's difference; fenced reloaded and cpha status."""
        add = [x for x in self.blocks if x.run == "master-add"]
        self.assertEqual([(x.where, x.cond) for x in add],
                         [("admin", None), ("hosts", None), ("lbs", "vipd"),
                          ("lbs", "keepalived"), ("first-master", None), ("added", None),
                          ("masters", None), ("first-master", None), ("client", None)])
        self.assertIn("mv out out.prev", add[0].text)
        self.assertEqual(guide.segments(add[5].text),
                         [("systemctl", "start", ["corosync", "pacemaker", "fenced"]),
                          ("systemctl", "start", ["prometheus-node-exporter",
                                                  "cpha-check-textfile.timer"])])
        self.assertIn("diff-against=out.prev/cluster/cib.xml", add[-2].text)
        self.assertIn("cpha status --quiet", add[-2].text)
        self.assertIn("systemctl reload prometheus", add[-1].text)
        rm = [x for x in self.blocks if x.run == "master-remove"]
        self.assertEqual([(x.where, x.cond) for x in rm],
                         [("admin", None), ("client", None), ("hosts", None), ("lbs", "vipd"),
                          ("lbs", "keepalived"), ("first-master", None), ("removed", None),
                          ("first-master", None), ("masters", None)])
        self.assertIn("remove-san $REMOVED_SANS", rm[0].text)
        self.assertIn("systemctl reload prometheus", rm[1].text)
        self.assertLess(rm[5].text.index("pcs node standby"), rm[5].text.index("cpha etcd remove"))
        self.assertEqual(guide.segments(rm[6].text),
                         [("systemctl", "stop", ["fenced", "pacemaker", "corosync"]),
                          ("systemctl", "stop", ["prometheus-node-exporter",
                                                 "cpha-check-textfile.timer"])])
        self.assertLess(rm[7].text.index("corosync-cfgtool -R"), rm[7].text.index("cib-push"))

    def test_added_removed_hosts(self):
        """lab=added and lab=removed: the hosts $ADDED and $REMOVED name."""
        class Host:
            def __init__(self, name):
                self.name = name

        class Lab:
            def by_role(self, role):
                return []

            def host(self, name):
                return Host(name)

        f = guide.Follower(Lab(), "/", {"ADDED": "m4 m5", "REMOVED": ""}, {}, [], {},
                           lambda m: None, name="runbook.md")
        self.assertEqual([h.name for h in f.hosts_of("added")], ["m4", "m5"])
        self.assertEqual(f.hosts_of("removed"), [])


class TimerUnits(unittest.TestCase):
    """A timer as the lab runs it: its service again every
    OnUnitActiveSec=, first after OnActiveSec=."""

    TIMER = ("[Unit]\nDescription=x\n[Timer]\nOnActiveSec=10s\nOnUnitActiveSec=5min\n"
             "[Install]\nWantedBy=timers.target\n")

    def test_time_spans(self):
        self.assertEqual(units.seconds("30s"), 30)
        self.assertEqual(units.seconds("5min"), 300)
        self.assertEqual(units.seconds("2min 30s"), 150)
        self.assertEqual(units.seconds("45"), 45)
        self.assertEqual(units.seconds("1h"), 3600)
        with self.assertRaises(LabError):
            units.seconds("5 fortnights")
        with self.assertRaises(LabError):
            units.seconds("soon")

    def test_loop(self):
        argv = units.timer_loop(units.Unit("t.timer", self.TIMER), ["cpha", "check", "a b"])
        self.assertEqual(argv[:2], ["sh", "-c"])
        self.assertEqual(argv[2], "sleep 10; while :; do cpha check 'a b'; sleep 300; done")

    def test_only_periodic_timers(self):
        t = units.Unit("t.timer", "[Timer]\nOnCalendar=daily\n")
        with self.assertRaises(LabError):
            units.timer_loop(t, ["true"])

    def test_unit_file_names(self):
        self.assertEqual(units.unit_file("lbd"), "lbd.service")
        self.assertEqual(units.unit_file("cpha-check-textfile.timer"),
                         "cpha-check-textfile.timer")
        self.assertEqual(units.systemctl_line("systemctl enable --now x.timer y.service"),
                         ("start", ["x.timer", "y"]))


if __name__ == "__main__":
    unittest.main(verbosity=2)
