#!/usr/bin/env python3
"""vipd's keepalived_* metrics against what the keepalived exporter
(https://github.com/mehdy/keepalived-exporter) makes of the real
keepalived's dumps: the same names, label names, label values and meaning.

r1 runs keepalived 2.2.7 (priority 200: master), r2 vipd (100: backup),
one link, the same instance VI_1 (VRID 51, VRRPv3, advert_int 0.2 s) with
three addresses: 198.18.0.100/24, 198.18.0.101 (a host address, /32) and
198.18.0.102/24. keepalived writes its data and stats dumps on SIGUSR1
and SIGUSR2 (into its TMPDIR, the lab's); the test turns them into series
as the exporter does (its text parser and collector, ported below) and
reads vipd's /metrics (vipd_metrics_bind on r2).
1. every keepalived_* family vipd serves, the exporter serves from
   keepalived's dumps, with the same label names; keepalived_vrrp_state
   has the same series (iname, intf, vrid, ip_address: "198.18.0.101",
   not ".../32") on both sides;
2. the values mean the same: keepalived_vrrp_state 2 for keepalived
   (MASTER) and 1 for vipd (BACKUP); over two seconds the advertisements
   keepalived counts as sent and those vipd counts as received grow
   alike (within 2); keepalived_gratuitous_arp_delay_total 5 on both;
3. keepalived stops (SIGTERM: it sends priority 0): vipd counts one
   keepalived_priority_zero_received_total, becomes MASTER
   (keepalived_vrrp_state 2, keepalived_become_master_total 1) and
   vipd_vip_held is 1 for each address.
Exit 0 pass, 77 skip (not root, keepalived missing, vipd not built), else fail.
    sudo python3 tests/integration/test_vipd_keepalived_exporter.py [-v]
"""

import os
import signal
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import util, vipd  # noqa: E402

VIPS = ("198.18.0.100/24", "198.18.0.101", "198.18.0.102/24")
PORT = 9650
STATES = ("INIT", "BACKUP", "MASTER", "FAULT")  # the exporter's numbering
COUNTERS = (  # the exporter's name, (stats section, key) or a data key
    ("keepalived_advertisements_received_total", ("Advertisements", "Received")),
    ("keepalived_advertisements_sent_total", ("Advertisements", "Sent")),
    ("keepalived_become_master_total", ("", "Became master")),
    ("keepalived_release_master_total", ("", "Released master")),
    ("keepalived_packet_length_errors_total", ("Packet Errors", "Length")),
    ("keepalived_advertisements_interval_errors_total",
     ("Packet Errors", "Advertisement Interval")),
    ("keepalived_ip_ttl_errors_total", ("Packet Errors", "TTL")),
    ("keepalived_invalid_type_received_total", ("Packet Errors", "Invalid Type")),
    ("keepalived_address_list_errors_total", ("Packet Errors", "Address List")),
    ("keepalived_authentication_invalid_total", ("Authentication Errors", "Invalid Type")),
    ("keepalived_authentication_mismatch_total", ("Authentication Errors", "Type Mismatch")),
    ("keepalived_authentication_failure_total", ("Authentication Errors", "Failure")),
    ("keepalived_priority_zero_received_total", ("Priority Zero", "Received")),
    ("keepalived_priority_zero_sent_total", ("Priority Zero", "Sent")),
    ("keepalived_gratuitous_arp_delay_total", "Gratuitous ARP delay"),
)


def parse_data(text):
    """{instance: {"state", "intf", "vrid", "vips", and every key}} from
    keepalived.data, as the exporter's ParseVRRPData reads it."""
    out, inst, key = {}, None, None
    for line in text.splitlines():
        if line.startswith(" VRRP Instance") and "=" in line:
            inst = line.split("=", 1)[1].strip()
            out[inst] = {"vips": []}
        elif line.startswith("   ") and inst:
            if line.startswith("     "):
                val = line.strip()
            else:
                sep = "=" if "=" in line else ":" if ":" in line else None
                if not sep:
                    continue
                k, val = (x.strip() for x in line.strip().split(sep, 1))
                if k == "Virtual IP":
                    continue
                key = k
            if (key.startswith("Virtual IP (") or key == "Virtual IP") and val:
                out[inst]["vips"].append(val)
            elif key == "State":
                out[inst]["state"] = STATES.index(val)
            elif key in ("Interface", "Listening device"):
                out[inst]["intf"] = val
            elif key == "Virtual Router ID":
                out[inst]["vrid"] = val
            elif not line.startswith("     "):
                out[inst][key] = val
        elif line.startswith(" VRRP Version") or line.startswith(" VRRP Script"):
            continue
        else:
            inst = None
    return out


def parse_stats(text):
    """{instance: {(section, key): int}} from keepalived.stats (ParseStats)."""
    out, inst, section = {}, None, ""
    for line in text.splitlines():
        if line.startswith("VRRP Instance") and ":" in line:
            inst = line.split(":", 1)[1].strip()
            out[inst] = {}
        elif line.startswith("  ") and line.endswith(":"):
            section = line.strip()[:-1].strip()
        elif line.startswith("    ") and section:
            k, v = (x.strip() for x in line.strip().split(":", 1))
            out[inst][(section, k)] = int(v)
        elif line.startswith("  ") and not line.startswith("    "):
            k, v = (x.strip() for x in line.strip().split(":", 1))
            section = ""
            out[inst][("", k)] = int(v)
    return out


def exporter_series(data, stats):
    """{(name, labels sorted): value}: what the exporter's Collect() serves."""
    out = {("keepalived_up", ()): 1.0}
    for inst, d in data.items():
        common = (("iname", inst), ("intf", d["intf"]), ("vrid", d["vrid"]))
        for name, src in COUNTERS:
            v = stats[inst][src] if isinstance(src, tuple) else int(d[src])
            out[(name, tuple(sorted(common)))] = float(v)
        for vip in d["vips"]:
            args = vip.split(" ")
            labels = (("iname", inst), ("intf", args[2]), ("vrid", d["vrid"]),
                      ("ip_address", args[0]))
            out[("keepalived_vrrp_state", tuple(sorted(labels)))] = float(d["state"])
    return out


def families(series):
    """{name: {label names tuple}}."""
    out = {}
    for name, labels in series:
        out.setdefault(name, set()).add(tuple(k for k, _ in labels))
    return out


class KeepalivedExporterNames(unittest.TestCase):

    def dumps(self, lab, ka):
        """SIGUSR1 and SIGUSR2 to keepalived; its fresh data and stats."""
        paths = [os.path.join(lab.tmp_dir, "keepalived." + x) for x in ("data", "stats")]
        for p in paths:
            if os.path.exists(p):
                os.unlink(p)
        ka.proc.kill(signal.SIGUSR1)
        ka.proc.kill(signal.SIGUSR2)

        def read():
            texts = []
            for p in paths:
                try:
                    with open(p) as f:
                        texts.append(f.read())
                except OSError:
                    return None
            ok = "Priority Zero" in texts[1] and "VRRP Instance" in texts[0]
            return texts if ok else None
        texts = util.wait_until(read, 5, 0.05, "keepalived's data and stats dumps")
        return parse_data(texts[0]), parse_stats(texts[1])

    def test_same_series_as_the_exporter(self):
        with cphatest.Lab("vipd-kaexp") as lab:
            r1, r2, _c = vipd.hosts(lab, 2)
            addr = "%s:%d" % (r2.v4, PORT)
            ka = vipd.Keepalived(lab, r1, vipd.instance(priority=200, vips=VIPS))
            vd = vipd.Vipd(lab, r2, vipd.instance(priority=100, vips=VIPS),
                           global_extra=["vipd_metrics_bind %s" % addr])
            ka.start()
            vipd.wait_holders([r1], vipd.VIP, ["r1"], vipd.master_down(200, 0.2) + 3)
            vd.start()
            vd.wait_state("BACKUP", timeout=3)
            time.sleep(1)

            data, stats = self.dumps(lab, ka)
            theirs = exporter_series(data, stats)
            mine = {k: v for k, v in vipd.metrics(r2, addr).items()
                    if k[0].startswith("keepalived_")}
            util.step("keepalived: %s; vipd serves %d keepalived_* series"
                      % ({k: (v["state"], v["vips"]) for k, v in data.items()}, len(mine)))

            with self.subTest("names and labels"):
                f_theirs, f_mine = families(theirs), families(mine)
                self.assertGreaterEqual(len(f_mine), 15, sorted(f_mine))
                for f, labels in sorted(f_mine.items()):
                    self.assertIn(f, f_theirs, "vipd serves %s, the exporter does not" % f)
                    self.assertEqual(labels, f_theirs[f], f)
                state = {k[1] for k in theirs if k[0] == "keepalived_vrrp_state"}
                self.assertEqual({k[1] for k in mine if k[0] == "keepalived_vrrp_state"}, state)
                self.assertIn(tuple(sorted((("intf", "eth0"), ("iname", "VI_1"),
                                            ("ip_address", "198.18.0.101"),
                                            ("vrid", "51")))), state)
            with self.subTest("values"):
                for labels in state:
                    self.assertEqual(theirs[("keepalived_vrrp_state", labels)], 2)
                    self.assertEqual(mine[("keepalived_vrrp_state", labels)], 1)
                common = (("iname", "VI_1"), ("intf", "eth0"), ("vrid", "51"))
                for name in ("keepalived_gratuitous_arp_delay_total",):
                    self.assertEqual(mine[(name, common)], theirs[(name, common)], name)
                self.assertEqual(theirs[("keepalived_become_master_total", common)], 1)
                self.assertEqual(mine[("keepalived_become_master_total", common)], 0)
                sent0 = theirs[("keepalived_advertisements_sent_total", common)]
                rcvd0 = mine[("keepalived_advertisements_received_total", common)]
                time.sleep(2)
                data, stats = self.dumps(lab, ka)
                mine2 = vipd.metrics(r2, addr)
                sent = exporter_series(data, stats)[
                    ("keepalived_advertisements_sent_total", common)] - sent0
                rcvd = mine2[("keepalived_advertisements_received_total", common)] - rcvd0
                util.step("in 2 s keepalived sent %d advertisements, vipd received %d"
                          % (sent, rcvd))
                self.assertGreaterEqual(sent, 8)
                self.assertLessEqual(abs(sent - rcvd), 2)

            with self.subTest("priority 0 and takeover"):
                ka.stop()
                vd.wait_state("MASTER", timeout=3)
                m = vipd.metrics(r2, addr)
                common = (("iname", "VI_1"), ("intf", "eth0"), ("vrid", "51"))
                self.assertEqual(m[("keepalived_priority_zero_received_total", common)], 1)
                self.assertEqual(m[("keepalived_become_master_total", common)], 1)
                for labels in state:
                    self.assertEqual(m[("keepalived_vrrp_state", labels)], 2)
                for v in VIPS:
                    self.assertEqual(vipd.metric(m, "vipd_vip_held", vrrp_instance="VI_1",
                                                 vip=v.split("/")[0]), 1, v)


def main():
    vipd.require(tools=())
    reason = vipd.keepalived_skip_reason()
    if reason:
        print("SKIP: %s" % reason, flush=True)
        return util.SKIP
    return util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
