#!/usr/bin/env python3
"""vipd, fenced and BFD on two load-balancer hosts: the backup notices a
dead VIP holder through BFD in about 150 ms, asks fenced for its power at
once, and takes the VIP as soon as the power reads off; a BFD session that
drops while the holder is alive moves nothing.

The bed of test_fenced_vip.py, cphatest.fenced_vip (lb1, lb2: corosync two_node, fenced with
fence_ipmilan against ipmi_sim BMCs on a third host, vipd with
`track_fenced`), with what `cpha render` writes for vipd: unicast peers and
a bfd_instance to the other host (50 ms x 3, no track_bfd).

  1. lb1 (priority 150) holds the VIP; both BFD sessions are Up.
  2. lb2 drops lb1's BFD packets (nftables, UDP 3784 only; the adverts
     still come): lb2's session goes Down, its vipd asks fenced for lb1's
     power at once; the BMC says on, or lb1's next advert ends the read
     first, and nothing moves: lb1 keeps the VIP, lb2 never holds it.
  3. lb1 loses power and its BMC says so: lb2's session goes Down about
     150 ms later, fenced reads lb1's power off, and lb2 takes the VIP with
     no Skew_Time (lb1 was its only peer), long before the 1.5 advert
     intervals of silence the power read waited for without BFD. The VIP
     serves again within BOUND of the loss; the power read came first.
Exit 0 pass, 77 skip, 1 fail.
    sudo python3 tests/integration/test_fenced_vip_bfd.py
"""

import subprocess
import sys
import time

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import fenced_vip as fv  # noqa: E402  the same bed and helpers
from cphatest import step, util  # noqa: E402

# loss -> VIP on lb2: BFD 0.15 s + a power read (~0.1 s in this bed) +
# polls, with room for a loaded machine; without BFD the read alone waited
# 1.5 s of silence
BOUND = 1.2


def vipd_conf(prio, self_ip, peer_ip):
    return """global_defs {
    router_id cpha
}
bfd_instance peer {
    neighbor_ip %(peer)s
    source_ip %(self)s
    min_rx 50
    min_tx 50
    idle_tx 1000
    multiplier 3
}
vrrp_instance VI_1 {
    state BACKUP
    interface eth0
    virtual_router_id 51
    priority %(prio)d
    advert_int 1
    unicast_src_ip %(self)s
    unicast_peer {
        %(peer)s
    }
    virtual_ipaddress {
        %(vip)s/24
    }
    track_fenced
}
""" % {"prio": prio, "self": self_ip, "peer": peer_ip, "vip": fv.VIP}


def bfd_state(node):
    """The vipd's BFD session state, from its log (the admin socket is the
    default one, shared by both hosts' vipd: the log is theirs alone)."""
    lines = [ln for ln in node.vipd.log_text().splitlines()
             if "bfd peer: " in ln and " -> " in ln]
    return lines[-1].split("-> ")[-1].split()[0] if lines else None


def scenario_bfd_only(cl):
    lb1, lb2 = cl.nodes
    step("2. lb2 drops lb1's BFD packets (the adverts still come): nothing moves")
    rules = ("table inet nobfd {\n chain in {\n  type filter hook input priority 0;\n"
             "  ip saddr %s udp dport 3784 drop\n }\n}\n" % lb1.host.v4)
    r = subprocess.run(["ip", "netns", "exec", lb2.host.ns, "nft", "-f", "-"], input=rules,
                       capture_output=True, text=True, timeout=10)
    fv.check(r.returncode == 0, "nft: %s" % r.stderr)
    util.wait_until(lambda: bfd_state(lb2) == "Down", 5, 0.02, "lb2's BFD session Down")
    asked = util.wait_until(
        lambda: [ln for ln in lb2.vipd.log_text().splitlines()
                 if "BFD session peer to the master went down" in ln], 5, 0.02,
        "lb2's vipd to ask fenced on the BFD drop")
    fv.check("fenced reads lb1's power" in asked[-1], "fenced did not take the ask: %r" % asked)
    # the read ends with fenced's answer (on) or with lb1's next advert
    # (a master heard is alive: the read is dropped), whichever comes first
    said = util.wait_until(
        lambda: [ln for ln in lb2.vipd.log_text().splitlines()
                 if "fenced read lb1's power" in ln or "the master speaks again" in ln],
        10, 0.05, "lb2's vipd to hear fenced's answer or lb1's advert")
    fv.check("power: off" not in said[-1], "lb1 alive, but: %r" % said)
    end = time.time() + 4
    while time.time() < end:
        fv.check(fv.holds(lb1) and not fv.holds(lb2), "the VIP moved on a BFD drop alone")
        time.sleep(0.1)
    subprocess.run(["ip", "netns", "exec", lb2.host.ns, "nft", "delete", "table", "inet",
                    "nobfd"], capture_output=True, timeout=10)
    util.wait_until(lambda: bfd_state(lb2) == "Up", 10, 0.05, "lb2's BFD session Up again")
    print("  BFD down, fenced asked, %r; the VIP stayed on lb1" % said[-1].split(": ", 2)[-1],
          flush=True)


def scenario_power_loss(cl, lab):
    lb1, lb2 = cl.nodes
    step("3. lb1 loses power and its BMC says so: lb2 takes the VIP within %.1f s" % BOUND)
    util.wait_until(lambda: fv.vip_holder_known(lb2, "lb1"), 20, 0.3,
                    "lb2's fenced to know lb1 holds the VIP")
    t0 = time.time()
    cl.bmc_power(lb1, False)
    fv.power_loss(cl, lab, lb1)
    tv = util.wait_until(lambda: fv.holds(lb2) and time.time(), 30, 0.01, "lb2 to take the VIP")
    reads = [t for t, e in cl.bmc_events(lb1, t0) if e == "get power 0"]
    fv.check(reads and reads[0] <= tv, "no power read of lb1 said off before lb2 took the VIP")
    log = lb2.vipd.log_text().splitlines()
    fv.check([ln for ln in log if "BFD session peer to the master went down" in ln],
             "lb2's vipd did not ask fenced on the BFD drop")
    fv.check([ln for ln in log if "was our only peer: taking over now" in ln],
             "lb2's vipd waited Skew_Time with no other backup to wait for")
    print("  lb1's BMC read off %.2f s after the loss, VIP on lb2 after %.2f s"
          % (reads[0] - t0, tv - t0), flush=True)
    fv.check(tv - t0 < BOUND, "VIP on lb2 %.2f s after the loss (bound %.1f s)"
             % (tv - t0, BOUND))


def run(lab):
    cl = fv.cluster(lab, [vipd_conf(prio, fv.IPS[i], fv.IPS[1 - i])
                          for i, prio in enumerate((150, 100))])
    try:
        step("1. two LB hosts: corosync, fenced, vipd with track_fenced and BFD")
        cl.start()
        for n in cl.nodes:
            fv.start_vipd(n)
        lb1, lb2 = cl.nodes
        util.wait_until(lambda: fv.holds(lb1) and not fv.holds(lb2), 30, 0.2,
                        "lb1 to hold the VIP")
        util.wait_until(lambda: bfd_state(lb2) == "Up" and bfd_state(lb1) == "Up", 20,
                        0.1, "both BFD sessions Up")
        # fenced reads only the power of a node it knows holds the VIP
        util.wait_until(lambda: fv.vip_holder_known(lb2, "lb1"), 20, 0.3,
                        "lb2's fenced to know lb1 holds the VIP")
        scenario_bfd_only(cl)
        scenario_power_loss(cl, lab)
    finally:
        cl.close()


def main():
    fv.require()
    return cphatest.main("fenced-vip-bfd", run, dump_lines=60)


if __name__ == "__main__":
    sys.exit(main())
