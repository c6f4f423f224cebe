"""vipd (and the real keepalived) in the test bed: configuration files in
keepalived's language, start / crash / graceful stop, vipd's admin socket,
who holds a VIP (the addresses on each host's eth0), a client's neighbour
cache and pings, packets on the wire (tcpdump into a pcap file, decoded
here), address and neighbour events with their times (`ip -ts monitor`),
and hand-made VRRP advertisements sent from a host.

    from cphatest import vipd
    vipd.require()                                    # SKIP (77) when it cannot run
    with cphatest.Lab("vipd-x") as lab:
        r1, r2, c = vipd.hosts(lab, 2)                # routers .11, .12; client .50
        a = vipd.Vipd(lab, r1, vipd.instance(priority=200))
        b = vipd.Vipd(lab, r2, vipd.instance(priority=100))
        a.start(); b.start()
        vipd.wait_holders([r1, r2], VIP, ["r1"], timeout=3)
        a.crash()                                     # SIGKILL, by PID

The parts live in modules of their own, one per concern, and this module
re-exports them all so that `from cphatest import vipd` and `vipd.X` keep
working: vipd_setup (addresses, binaries, hosts, VRRP timing), vipd_conf
(configuration text), vipd_daemons (Vipd, Keepalived, metrics), vipd_net
(addresses and links), ipmonitor (`ip -ts monitor`), vrrp_pcap (capture
and decoding), vrrp_advert (hand-made advertisements) and vipd_bed (Bed,
Interop).

Everything here talks to lab hosts only (198.18.0.0/15, 2001:db8::/32 and
the hosts' own IPv6 link-local addresses) and stops only the processes it
started (through the Lab, by PID).
"""

# Re-exports: the names of the modules above, as vipd.X.
from .vipd_setup import (CLIENT_IP, CLIENT_IP6, KEEPALIVED, KEEPALIVED_BAD, MCAST4,
    MCAST6, OTHER_IP, ROUTER_IP6S, ROUTER_IPS, VIP, VIP6, VRRP_PROTO, binary, hosts,
    keepalived_skip_reason, keepalived_version, master_down, require, skew, unittest_main)
from .vipd_conf import (config, flag_script, instance, script)
from .vipd_daemons import (Keepalived, Vipd, metric, metrics)
from .vipd_net import (addresses, bridge_port_state, echo_requests, has_addr, holders,
    link_local, mac, neigh, ping, steady_holders, wait_holders, wait_link_local)
from .ipmonitor import (Event, Watch)
from .vrrp_pcap import (Capture, Packet, decode, read_pcap)
from .vrrp_advert import (advert, send_adverts)
from .vipd_bed import (Bed, Interop, run_interop)
from .util import wait_log
