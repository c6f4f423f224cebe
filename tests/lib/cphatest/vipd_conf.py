"""Configuration files in keepalived's language (which vipd reads too):
vrrp_instance and vrrp_script blocks, and the whole file."""


from .vipd_setup import VIP


def instance(name="VI_1", vrid=51, priority=100, vips=(VIP + "/24",), advert=0.2,
             interface="eth0", state="BACKUP", version=None, nopreempt=False,
             preempt_delay=None, unicast_src=None, peers=(), auth_pass=None,
             track_script=(), track_interface=(), extra=()):
    """One vrrp_instance block. track_script entries are names or
    (name, weight) pairs; extra: more lines, as written."""
    lines = ["vrrp_instance %s {" % name,
             "    state %s" % state,
             "    interface %s" % interface,
             "    virtual_router_id %d" % vrid,
             "    priority %d" % priority,
             "    advert_int %g" % advert]
    if version is not None:
        lines.append("    version %d" % version)
    if nopreempt:
        lines.append("    nopreempt")
    if preempt_delay is not None:
        lines.append("    preempt_delay %g" % preempt_delay)
    if unicast_src:
        lines.append("    unicast_src_ip %s" % unicast_src)
    if peers:
        lines += ["    unicast_peer {"] + ["        %s" % p for p in peers] + ["    }"]
    if auth_pass is not None:
        lines += ["    authentication {", "        auth_type PASS",
                  "        auth_pass %s" % auth_pass, "    }"]
    lines += ["    virtual_ipaddress {"] + ["        %s" % v for v in vips] + ["    }"]
    if track_script:
        lines.append("    track_script {")
        for t in track_script:
            if isinstance(t, (tuple, list)):
                lines.append("        %s weight %d" % tuple(t))
            else:
                lines.append("        %s" % t)
        lines.append("    }")
    if track_interface:
        lines += ["    track_interface {"] + ["        %s" % t for t in track_interface] \
            + ["    }"]
    lines += ["    %s" % x for x in extra]
    lines.append("}")
    return "\n".join(lines) + "\n"


def script(name, command, interval=1, weight=None, fall=1, rise=1, timeout=None):
    """One vrrp_script block (interval and timeout in whole seconds, as
    keepalived reads them)."""
    lines = ["vrrp_script %s {" % name,
             "    script \"%s\"" % command,
             "    interval %d" % interval,
             "    fall %d" % fall,
             "    rise %d" % rise]
    if weight is not None:
        lines.append("    weight %d" % weight)
    if timeout is not None:
        lines.append("    timeout %d" % timeout)
    lines.append("}")
    return "\n".join(lines) + "\n"


def flag_script(lab, name):
    """A command line that succeeds while lab file `name` does not exist,
    and that file's path: the test fails the check by creating it."""
    flag = lab.path("flags", name)
    return "/usr/bin/test ! -e %s" % flag, flag


def config(body, version=3, router_id="cpha", global_extra=()):
    """global_defs (VRRP version, router_id, more lines) + body."""
    lines = ["global_defs {",
             "    router_id %s" % router_id,
             "    vrrp_version %d" % version]
    lines += ["    %s" % x for x in global_extra]
    lines.append("}")
    return "\n".join(lines) + "\n\n" + body
