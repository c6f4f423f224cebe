"""BMC simulators: one OpenIPMI `ipmi_sim` per host, on a UDP port of its
own, whose chassis_control script reports and switches the host's power.

The power state is a file, as a real BMC keeps it. "get power" prints
power:1|0 from it; "set power 0|1" writes it and runs the caller's
off or on command. Both are logged with the time ("get power 0": a
fencer read that the host is off), and bmc_events() reads the log back.
fence_ipmilan reaches it with lanplus and cipher 3, which ipmi_sim answers
at once. The lab and the fenced tests write their BMCs with this module.
"""

import os
import shlex

LAN_CONF = """name "%(name)s"
set_working_mc 0x20
  startlan 1
    addr %(addr)s %(port)d
    priv_limit admin
    allowed_auths_callback none md2 md5 straight
    allowed_auths_user none md2 md5 straight
    allowed_auths_operator none md2 md5 straight
    allowed_auths_admin none md2 md5 straight
    guid a123456789abcdefa123456789abcd%(idx)02x
  endlan
  chassis_control "%(script)s 0x20"
  user 2 true "admin" "%(password)s" admin 10 none md2 md5 straight
"""

BMC_CMDS = "mc_setbmc 0x20\nmc_add 0x20 0 no-device-sdrs 0x23 9 8 0x9f 0x1291 0xf02 " \
           "persist_sdr\nmc_enable 0x20\n"

# ipmi_sim's chassis_control: "MC get power" prints power:1|0, "MC set
# power 0|1" acts (a host with no state file yet is on)
CHASSIS = """#!/bin/sh
shift
op=$1
shift
if [ "$op" = get ]; then
    for p in "$@"; do
        if [ "$p" = power ]; then
            v=$(cat %(state)s 2>/dev/null || echo 1)
            echo "$(date +%%s.%%N) get power $v" >>%(log)s
            echo "power:$v"
        fi
    done
    exit 0
fi
while [ $# -ge 2 ]; do
    echo "$(date +%%s.%%N) set $1 $2" >>%(log)s
    if [ "$1" = power ]; then
        echo "$2" >%(state)s
        if [ "$2" = 0 ]; then %(off)s; else %(on)s; fi
    fi
    shift 2
done
exit 0
"""


def write(d, name, addr, port, password, log, off, on=":", idx=0xef, power=None):
    """The files of BMC name (lan.conf, cmds, its chassis script and its
    state directory) in directory d, answering on addr:port for user admin
    with password; off and on are the shell commands its power switch runs,
    log the file it logs to (created). power: the file that holds the power
    state, when another device switches the same host (a second fence
    level: both report what the host is); default d's own. Returns
    ipmi_sim's argv."""
    os.makedirs(os.path.join(d, "state"), exist_ok=True)
    script = os.path.join(d, "chassis")
    with open(script, "w") as f:
        f.write(CHASSIS % {"state": shlex.quote(power or power_file(d)), "log": shlex.quote(log),
                           "off": off, "on": on})
    os.chmod(script, 0o755)
    with open(os.path.join(d, "lan.conf"), "w") as f:
        f.write(LAN_CONF % {"name": name, "addr": addr, "port": port, "script": script,
                            "password": password, "idx": idx})
    with open(os.path.join(d, "cmds"), "w") as f:
        f.write(BMC_CMDS)
    open(log, "a").close()
    return ["ipmi_sim", "-c", os.path.join(d, "lan.conf"), "-f", os.path.join(d, "cmds"),
            "-s", os.path.join(d, "state"), "-n"]


def power_file(d):
    """The file that holds the power state of the BMC in directory d."""
    return os.path.join(d, "power")


def set_power(d, on):
    """What the BMC in directory d reports from now on."""
    with open(power_file(d), "w") as f:
        f.write("1\n" if on else "0\n")


def events(log, since=0.0):
    """[(time, "get power 0" | "set power 1" ...)] from a BMC's log, from
    wall time since on ([] while there is no log)."""
    out = []
    try:
        with open(log) as f:
            for line in f:
                w = line.split()
                if len(w) >= 4 and float(w[0]) >= since:
                    out.append((float(w[0]), " ".join(w[1:])))
    except OSError:
        pass
    return out
