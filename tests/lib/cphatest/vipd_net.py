"""What a host's network shows: addresses on an interface (who holds a
VIP), MACs and link-local addresses, the neighbour cache, pings, ICMP echo
requests, and bridge ports."""

import ipaddress
import json
import subprocess
import time

from . import util


def _norm(ip):
    return str(ipaddress.ip_address(ip))


def addresses(host, ifname="eth0"):
    """{address: addr_info dict} on host's interface (ip -j addr)."""
    r = host.run(["ip", "-j", "addr", "show", "dev", ifname], check=False)
    out = {}
    if r.returncode != 0:
        return out
    for link in json.loads(r.stdout or "[]"):
        for a in link.get("addr_info", []):
            if "local" in a:  # filtered-out entries are empty objects
                out[_norm(a["local"])] = a
    return out


def has_addr(host, ip, ifname="eth0"):
    return _norm(ip) in addresses(host, ifname)


def holders(hs, ip):
    """Names of the hosts whose eth0 carries ip."""
    return [h.name for h in hs if has_addr(h, ip)]


def wait_holders(hs, ip, names, timeout, interval=0.02):
    """Poll until exactly `names` hold ip; the seconds it took."""
    t0 = time.monotonic()
    want = sorted(names)
    last = []

    def ok():
        last[:] = [holders(hs, ip)]
        return sorted(last[0]) == want
    try:
        util.wait_until(ok, timeout, interval, "%s held by %s" % (ip, want))
    except AssertionError as e:
        raise AssertionError("%s (last seen held by %s)" % (e, last[0] if last else "?"))
    return time.monotonic() - t0


def steady_holders(hs, ip, names, duration, interval=0.05):
    """Assert that exactly `names` hold ip for `duration` seconds."""
    want = sorted(names)
    end = time.monotonic() + duration
    n = 0
    while n < 10000:
        n += 1
        got = sorted(holders(hs, ip))
        if got != want:
            raise AssertionError("%s held by %s, expected %s" % (ip, got, want))
        if time.monotonic() >= end:
            return
        time.sleep(interval)


def mac(host, ifname="eth0"):
    r = host.run(["ip", "-j", "link", "show", "dev", ifname])
    return json.loads(r.stdout)[0]["address"].lower()


def link_local(host, ifname="eth0"):
    """The interface's fe80:: address once usable (not tentative), or None."""
    r = host.run(["ip", "-j", "-6", "addr", "show", "dev", ifname, "scope", "link"],
                 check=False)
    for link in json.loads(r.stdout or "[]"):
        for a in link.get("addr_info", []):
            if "local" not in a or a.get("tentative") or a.get("dadfailed"):
                continue
            return a["local"]
    return None


def wait_link_local(host, timeout=10):
    """Wait for the kernel's link-local address (it goes through DAD, about
    a second); VRRPv3 over IPv6 sends from it (RFC 9568 §5.1.2.1)."""
    return util.wait_until(lambda: link_local(host), timeout, 0.05,
                           "%s: IPv6 link-local address" % host.name)


def neigh(host, ip, ifname="eth0"):
    """(lladdr or None, [states]) of host's neighbour entry for ip."""
    r = host.run(["ip", "-j", "neigh", "show", "to", ip, "dev", ifname], check=False)
    for e in json.loads(r.stdout or "[]"):
        if _norm(e.get("dst", "::")) == _norm(ip):
            return (e.get("lladdr") or "").lower() or None, e.get("state", [])
    return None, []


def ping(host, ip, count=1, timeout=1.0):
    """True when ip answered an echo from host."""
    r = host.run(["ping", "-n", "-c", str(count), "-W", "%g" % timeout, "-i", "0.2", ip],
                 check=False, timeout=count * (timeout + 1) + 5)
    return r.returncode == 0


def echo_requests(host, v6=False):
    """ICMP (v6: ICMPv6) echo requests host's kernel received so far."""
    if v6:
        text = host.run(["cat", "/proc/net/snmp6"]).stdout
        for line in text.splitlines():
            k, _, v = line.partition(" ")
            if k == "Icmp6InEchos":
                return int(v.split()[0])
        raise AssertionError("no Icmp6InEchos in %s's /proc/net/snmp6" % host.name)
    lines = [x.split() for x in host.run(["cat", "/proc/net/snmp"]).stdout.splitlines()
             if x.startswith("Icmp:")]
    return int(lines[1][lines[0].index("InEchos")])


def bridge_port_state(lab, host, forwarding):
    """Stop (or restart) the bridge forwarding to and from host's port,
    without touching carrier: host's eth0 stays up and running, so its VRRP
    instance is not in FAULT (lab.link_down takes the carrier away). The
    lab deletes the port with the host, whatever its state."""
    subprocess.run(["bridge", "link", "set", "dev", host.veth, "state",
                    "3" if forwarding else "0"], check=True, capture_output=True,
                   timeout=10)
