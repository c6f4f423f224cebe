"""The vipd test bed's fixed parts: addresses (198.18.0.0/15 and
2001:db8::/32 only), the binaries (vipd from the build tree, the system's
keepalived), hosts r1..rN, c and x, and VRRP timing.

VRRP timing (RFC 9568 §6.1; VRRPv2: RFC 3768, Skew_Time counted in whole
seconds), what vipd and keepalived compute:
    Skew_Time            = (256 - Priority) * Master_Adver_Interval / 256
    Master_Down_Interval = 3 * Master_Adver_Interval + Skew_Time
"""

import os
import re
import subprocess
import sys

from . import util
from .vipd_net import wait_link_local


KEEPALIVED = "/usr/sbin/keepalived"
CLIENT_IP = "198.18.0.50"
CLIENT_IP6 = "2001:db8::50"
ROUTER_IPS = ("198.18.0.11", "198.18.0.12", "198.18.0.13", "198.18.0.14")
ROUTER_IP6S = ("2001:db8::11", "2001:db8::12", "2001:db8::13", "2001:db8::14")
OTHER_IP = "198.18.0.60"   # a third party (sends hand-made packets)
VIP = "198.18.0.100"
VIP6 = "2001:db8::100"
MCAST4 = "224.0.0.18"
MCAST6 = "ff02::12"
VRRP_PROTO = 112

# Lines keepalived 2.2.7 logs when it drops a VRRP packet (its vrrp.c);
# none may appear for a peer that speaks the protocol as keepalived does.
KEEPALIVED_BAD = re.compile(
    r"invalid TTL/HL|TTL/HL \d+ not in range|wrong version|received a \d+ auth|"
    r"invalid passwd|Invalid VRRPv[23] checksum|vrrp packet too|"
    r"advertisement interval mismatch|Invalid packet type|unexpected ip number count|"
    r"ip_tot_len mismatch|icast packet but received|expected \d+ VIPs but received|"
    r"not present in MASTER advert|not a unicast peer|discarding \S*icast packet|"
    r"Invalid auth type|bogus", re.I)


# ------------------------------------------------------------- set-up --

def binary():
    """build/vipd/vipd (under $CPHA_BUILD_DIR when set)."""
    return util.built("vipd", "vipd")


def require(tools=("tcpdump",)):
    """Exit 77 with "SKIP: reason" unless root, the test bed, the tools and
    vipd are there."""
    util.require_root(tools)
    if not os.access(binary(), os.X_OK):
        print("SKIP: %s not built (cmake --build build --target vipd; or set "
              "CPHA_BUILD_DIR)" % binary(), flush=True)
        sys.exit(util.SKIP)


def keepalived_skip_reason():
    """None when the real keepalived can run here, else why not."""
    if not os.access(KEEPALIVED, os.X_OK):
        return "%s not installed" % KEEPALIVED
    try:
        r = subprocess.run([KEEPALIVED, "--version"], capture_output=True, text=True,
                           timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "keepalived --version: %s" % e
    if "v2." not in r.stdout + r.stderr:
        return "unexpected keepalived version: %r" % (r.stdout + r.stderr)[:80]
    return None


def keepalived_version():
    r = subprocess.run([KEEPALIVED, "--version"], capture_output=True, text=True,
                       timeout=10, stdin=subprocess.DEVNULL)
    return (r.stdout + r.stderr).splitlines()[0].strip()


def unittest_main():
    """The main() of a unittest test of vipd with keepalived as a peer:
    skips (exits 77) where vipd cannot run, names the peer (or why its
    cases skip), runs the test cases; the exit status."""
    import unittest
    require()
    util.step("peer: %s" % (keepalived_skip_reason() or keepalived_version()))
    prog = unittest.main(module="__main__", exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


def hosts(lab, nrouters, client=True, v6=False, other=False):
    """Routers r1..rN (198.18.0.11-14, with v6 also 2001:db8::11-14), then
    the client c (198.18.0.50 / 2001:db8::50), then (other=True) a third
    party x (198.18.0.60). Returns the list in that order. With v6 every
    host's link-local address is ready (not tentative) on return."""
    out = [lab.add_host("r%d" % (i + 1), v4=ROUTER_IPS[i] + "/24",
                        v6=ROUTER_IP6S[i] + "/64" if v6 else None)
           for i in range(nrouters)]
    if client:
        out.append(lab.add_host("c", v4=CLIENT_IP + "/24",
                                v6=CLIENT_IP6 + "/64" if v6 else None))
    if other:
        out.append(lab.add_host("x", v4=OTHER_IP + "/24"))
    if v6:
        for h in out:
            wait_link_local(h)
    return out


# ------------------------------------------------------------- timing --

def skew(priority, advert, version=3):
    """Skew_Time in seconds: v3 counts it in Master_Adver_Interval, v2 in
    whole seconds."""
    base = advert if version == 3 else 1.0
    return (256 - priority) * base / 256.0


def master_down(priority, advert, version=3):
    """Master_Down_Interval in seconds."""
    return 3 * advert + skew(priority, advert, version)
