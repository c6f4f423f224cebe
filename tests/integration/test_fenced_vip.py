#!/usr/bin/env python3
"""vipd and fenced on two load-balancer hosts: the VIP moves only after its
holder is fenced, and a split never leaves two holders.

Two lab hosts lb1 and lb2 run corosync (two_node), fenced and vipd with
`track_fenced`; a third host runs their BMCs (ipmi_sim, reached with the
real fence_ipmilan; cphatest.fencedlab). Both fence_node blocks have
`priority_delay_vip 8s`, so whoever holds the VIP is fenced last; lb2 has
`delay 4s` too, so that in the split its vipd has long stopped hearing lb1
(3.6 s) when lb1 fences it: only track_fenced keeps it from taking the VIP.

  1. lb1 (priority 150) holds the VIP; both fenced know it.
  2. lb1 loses power (every process killed, its address gone, its link
     down): lb2's vipd stops hearing it after about 3.6 s but waits for
     fenced; lb2's fenced waits priority_delay_vip (lb1 held the VIP), then
     powers lb1 off through its BMC; only then does lb2 take the VIP.
  3. lb1 boots again and takes the VIP back (preempt).
     Its vipd asked fenced for lb1's power after 1.5 silent intervals:
     the BMC said on (a crash, not a power loss), so nothing moved early.
  3b. lb1's adverts after that takeover come every advert_int (the first
     takeover through fenced once re-armed the timer with
     Master_Down_Interval: a 3.4 s silence right after becoming master).
  4. lb1 and lb2 are cut apart (nftables in lb2 drops lb1's packets; both
     alive, the BMC network still reachable): both keep quorum (two_node)
     and race; lb1, the VIP holder, waits least and fences lb2; lb2's vipd
     never takes the VIP. Sampled every 0.1 s: never two holders, and
     exactly one host survives.
  5. lb2 boots again; lb1 loses power and its BMC says so: lb2's vipd
     asks fenced for lb1's power 1.5 intervals after the last advert,
     fenced reads "off" from the BMC, and lb2 takes the VIP at once,
     before corosync has noticed (no fence yet, no priority_delay_vip);
     fenced fences lb1 when corosync does.
Exit 0 pass, 77 skip, 1 fail.
    sudo python3 tests/integration/test_fenced_vip.py
"""

import subprocess
import sys
import time

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import fenced_vip, step, util  # noqa: E402
from cphatest.fenced_vip import (PRIO_DELAY, holds, power_loss,  # noqa: E402
                                 start_vipd, vip_holder_known, vipd_conf)
from cphatest.util import check  # noqa: E402


def boot(cl, lab, node):
    cl.bmc_power(node, True)  # switched on: its BMC says so from now
    lab.link_up(node.host)
    cl.wait_left(node)
    time.sleep(2)
    node.boot()
    start_vipd(node)
    util.wait_until(lambda: all(cl.domain_ok(n) for n in cl.nodes), 60, 0.5,
                    "%s back in the fence domain" % node.name)


def scenario_holder_dies(cl, lab):
    lb1, lb2 = cl.nodes
    step("2. lb1 (the VIP holder) loses power: lb2 takes the VIP only after fencing it")
    before = len(lb2.history("lb1", "fenced"))
    t0 = time.time()
    power_loss(cl, lab, lb1)
    tv = util.wait_until(lambda: holds(lb2) and time.time(), PRIO_DELAY + 30, 0.05,
                         "lb2 to take the VIP")
    fenced = lb2.history("lb1", "fenced")
    check(len(fenced) == before + 1 and fenced[-1]["by"] == "lb2",
          "lb2 holds the VIP but its fenced has not fenced lb1: %r" % fenced)
    ev = [t for t, e in cl.bmc_events(lb1, t0) if e == "set power 0"]
    check(ev, "lb1's BMC saw no power off")
    check(tv >= ev[0], "lb2 took the VIP %.2f s before lb1's BMC powered it off" % (ev[0] - tv))
    check(ev[0] - t0 >= PRIO_DELAY, "lb1 fenced %.1f s after the failure: priority_delay_vip "
          "was not applied to the VIP holder" % (ev[0] - t0))
    said = [ln for ln in lb2.vipd.log_text().splitlines() if "fenced read lb1's power" in ln]
    check(said and "power: on" in said[-1],
          "lb2's vipd did not ask fenced for lb1's power, or it was not on: %r" % said)
    print("  lb1 powered off by lb2 %.1f s after the failure, VIP on lb2 after %.1f s"
          % (ev[0] - t0, tv - t0), flush=True)


def adverts_from(pcap_text, src):
    return [float(ln.split()[0]) for ln in pcap_text.splitlines()
            if ("IP %s >" % src) in ln and "VRRP" in ln]


def scenario_takeback(cl, lab):
    lb1, lb2 = cl.nodes
    step("3. lb1 boots and takes the VIP back; its adverts come every second from the start")
    cap = subprocess.Popen(["ip", "netns", "exec", lb2.host.ns, "tcpdump", "-i", "eth0", "-n",
                            "-tt", "-l", "proto", "112"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
    try:
        boot(cl, lab, lb1)
        util.wait_until(lambda: holds(lb1) and not holds(lb2), 40, 0.2,
                        "lb1 to take the VIP back")
        time.sleep(4)
    finally:
        cap.terminate()
        out = cap.communicate(timeout=10)[0]
    ts = adverts_from(out, lb1.host.v4)
    check(len(ts) >= 4, "lb2 saw %d adverts from lb1 in 4 s after its takeover" % len(ts))
    gaps = [b - a for a, b in zip(ts, ts[1:])]
    check(max(gaps) < 1.5, "lb1's adverts after its takeover: gaps %s s (advert_int 1)"
          % ["%.2f" % g for g in gaps])
    print("  lb1's first %d adverts as master: largest gap %.2f s" % (len(ts), max(gaps)),
          flush=True)


def scenario_power_seen(cl, lab):
    lb1, lb2 = cl.nodes
    step("5. lb1 loses power and its BMC says so: lb2 takes the VIP on fenced's power read")
    subprocess.run(["ip", "netns", "exec", lb2.host.ns, "nft", "delete", "table", "inet", "cut"],
                   capture_output=True, timeout=10)
    boot(cl, lab, lb2)
    util.wait_until(lambda: holds(lb1) and not holds(lb2), 40, 0.2, "lb1 to hold the VIP")
    # lb2's vipd must have heard lb1 as a backup (it is FAULT until
    # quorum): a silence it can notice needs a master it heard
    util.wait_until(lambda: [ln for ln in lb2.vipd.log_text().splitlines() if " -> " in ln]
                    [-1:] and "-> BACKUP" in [ln for ln in lb2.vipd.log_text().splitlines()
                                              if " -> " in ln][-1],
                    30, 0.2, "lb2's vipd to be a backup")
    time.sleep(2.5)  # two of lb1's adverts
    util.wait_until(lambda: vip_holder_known(lb2, "lb1"), 20, 0.3,
                    "lb2's fenced to know lb1 holds the VIP")
    before = len(lb2.history("lb1", "fenced"))
    t0 = time.time()
    cl.bmc_power(lb1, False)
    power_loss(cl, lab, lb1)
    tv = util.wait_until(lambda: holds(lb2) and time.time(), 30, 0.05, "lb2 to take the VIP")
    s = lb2.show()
    check(s is not None, "fenced show json on lb2 failed")
    n1 = [n for n in s["nodes"] if n["name"] == "lb1"][0]
    check(n1.get("power") == "off", "lb2 holds the VIP, lb1's power per fenced: %r"
          % n1.get("power"))
    reads = [t for t, e in cl.bmc_events(lb1, t0) if e == "get power 0"]
    check(reads and reads[0] <= tv, "no power read of lb1 said off before lb2 took the VIP")
    said = [ln for ln in lb2.vipd.log_text().splitlines() if "fenced read lb1's power" in ln]
    check(said and "power: off" in said[-1], "lb2's vipd did not hear lb1 is off: %r" % said)
    # a fence still follows, once corosync notices, and without the 8 s
    # priority_delay_vip (a host that is off races nobody)
    util.wait_until(lambda: len(lb2.history("lb1", "fenced")) == before + 1, 40, 0.3,
                    "lb2's fenced to fence lb1 after corosync noticed")
    victim = lb2.history("lb1", "victim")[-1]
    tf = time.time()
    check(tf - t0 < PRIO_DELAY, "lb1 fenced %.1f s after the loss: priority_delay_vip %d s "
          "still applied (victim entry %r)" % (tf - t0, PRIO_DELAY, victim))
    check(not holds(lb1), "lb1 holds the VIP while off")
    print("  lb1's BMC read off %.1f s after the loss, VIP on lb2 after %.1f s; fenced "
          "afterwards" % (reads[0] - t0, tv - t0), flush=True)


def scenario_split(cl, lab):
    lb1, lb2 = cl.nodes
    step("4. lb1 and lb2 cut apart, both alive: lb1 (the holder) fences lb2; never two "
         "holders")
    util.wait_until(lambda: vip_holder_known(lb2, "lb1"), 20, 0.3,
                    "lb2's fenced to know lb1 holds the VIP")
    before = len(lb1.history("lb2", "fenced"))
    t0 = time.time()
    rules = ("table inet cut {\n chain in {\n  type filter hook input priority 0;\n"
             "  ip saddr %s drop\n }\n chain out {\n  type filter hook output priority 0;\n"
             "  ip daddr %s drop\n }\n}\n" % (lb1.host.v4, lb1.host.v4))
    r = subprocess.run(["ip", "netns", "exec", lb2.host.ns, "nft", "-f", "-"], input=rules,
                       capture_output=True, text=True, timeout=10)
    check(r.returncode == 0, "nft: %s" % r.stderr)
    both = []
    lb1_lost = []
    end = time.time() + 20
    while time.time() < end:
        h1, h2 = holds(lb1), holds(lb2)
        if h1 and h2:
            both.append(time.time() - t0)
        if not h1:
            lb1_lost.append(time.time() - t0)
        time.sleep(0.1)
    check(not both, "two VIP holders at %s s after the cut" % ["%.1f" % t for t in both[:5]])
    check(not lb1_lost, "lb1 (the holder) lost the VIP at %.1f s" % (lb1_lost[:1] or [0])[0])
    held = [ln for ln in lb2.vipd.log_text().splitlines() if "waiting for fenced" in ln]
    check(held, "lb2's vipd never waited for fenced: the check proved nothing")
    fenced = lb1.history("lb2", "fenced")
    check(len(fenced) == before + 1 and fenced[-1]["by"] == "lb1",
          "lb1 did not fence lb2: %r" % fenced)
    check(not lb2.pids(), "lb2 survived the race")
    check(lb1.up(), "lb1, the VIP holder, did not survive")
    check(not [e for t, e in cl.bmc_events(lb1, t0) if e == "set power 0"],
          "lb1 was powered off too")
    off = [t for t, e in cl.bmc_events(lb2, t0) if e == "set power 0"]
    check(off, "lb2's BMC saw no power off")
    print("  lb2 powered off by lb1 %.1f s after the cut; lb1 kept the VIP throughout"
          % (off[0] - t0), flush=True)


def run(lab):
    cl = fenced_vip.cluster(lab, [vipd_conf(150), vipd_conf(100)])
    try:
        step("1. two LB hosts: corosync (two_node), fenced, vipd with track_fenced")
        cl.start()
        for n in cl.nodes:
            start_vipd(n)
        lb1, lb2 = cl.nodes
        util.wait_until(lambda: holds(lb1) and not holds(lb2), 30, 0.2, "lb1 to hold the VIP")
        util.wait_until(lambda: vip_holder_known(lb2, "lb1"), 20, 0.3,
                        "lb2's fenced to know lb1 holds the VIP")
        scenario_holder_dies(cl, lab)
        scenario_takeback(cl, lab)
        scenario_split(cl, lab)
        scenario_power_seen(cl, lab)
    finally:
        cl.close()


def main():
    fenced_vip.require(tools=("tcpdump",))
    return cphatest.main("fenced-vip", run, dump_lines=60)


if __name__ == "__main__":
    sys.exit(main())
