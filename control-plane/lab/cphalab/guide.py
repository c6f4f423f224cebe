"""docs/deploy.md, followed by the lab.

The guide's shell blocks that the lab runs say where in their info string:

    ```sh lab=WHERE[,WHERE...]

WHERE is one of WHERES. A block that applies only to some clusters says
so with `if=WHAT` after it (WHAT one of CONDS: `qdevice`, a description
with a quorum device; `vipd` or `keepalived`, what holds the VIP;
`lbs-fenced`, LB hosts that run corosync and fenced, as they do unless
`fencing.load_balancers` is none); the lab skips it in the others. The lab runs them
in the order of the guide, each
on every host it names (in the order of the description), with the
variables the guide defines at its start in the environment.

Blocks that say `each=master`, one after another, are a round done for
each master in turn (the next master's round starts once the last block
of this one is done): $MASTER is that master's name, and `lab=master`
(allowed only there) is that master itself. A drain on the LB hosts, the
work on the master, then the undrain, for example. `each=lb` is the same
for each LB host, those that hold no VIP first, and `lab=lb` that host. Every line
of a block runs with `sh -eu`, except `systemctl` lines, which the lab
carries out itself from the unit files (units.py): a lab host has no
systemd of its own. A block that fails stops `cpha lab up` with the
guide's file and line: if the guide breaks, the lab breaks.

`lab=added` and `lab=removed` are the masters a runbook's scenario adds
or removes, named by its variables $ADDED and $REMOVED (master-add,
master-remove).

parse() and segments() are pure (tests/lab/test_cphalab.py).
"""

import os
import re
import subprocess

from . import units
from .hosts import LabError

WHERES = ("admin", "hosts", "masters", "lbs", "first-master", "first-lb", "client", "qnetd",
          "master", "lb", "added", "removed")
EACH = ("master", "lb")
CONDS = ("qdevice", "vipd", "keepalived", "lbs-fenced")
FENCE = re.compile(r"^(\s*)(`{3,})\s*(\S*)(.*)$")


class Block:
    def __init__(self, where, text, line, cond=None, run=None, each=None):
        self.where, self.text, self.line, self.cond = where, text, line, cond
        self.run, self.each = run, each

    def __repr__(self):
        return "Block(%r, line %d)" % (self.where, self.line)


def parse(text, path="docs/deploy.md"):
    """The blocks marked lab=WHERE, in order; an unknown WHERE or an
    unclosed block is an error naming the line."""
    out = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, fence, lang, rest = i + 1, m.group(2), m.group(3), m.group(4).split()
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i])
            i += 1
        if i >= len(lines):
            raise LabError("%s:%d: code block never closed" % (path, start))
        i += 1
        where = [w[4:] for w in rest if w.startswith("lab=")]
        if not where:
            continue
        cond = [w[3:] for w in rest if w.startswith("if=")]
        run = [w[4:] for w in rest if w.startswith("run=")]
        if run and not re.match(r"^[a-z0-9-]+$", run[0]):
            raise LabError("%s:%d: run=%s: a lab scenario's name" % (path, start, run[0]))
        each = [w[5:] for w in rest if w.startswith("each=")]
        if each and each[0] not in EACH:
            raise LabError("%s:%d: each=%s: the lab knows each=%s" % (path, start, each[0],
                                                                      "|".join(EACH)))
        if cond and cond[0] not in CONDS:
            raise LabError("%s:%d: if=%s: the lab knows if=%s" % (path, start, cond[0],
                                                                  "|".join(CONDS)))
        for w in where[0].split(","):
            if lang != "sh" or w not in WHERES:
                raise LabError("%s:%d: a lab block is ```sh lab=WHERE[,WHERE...], WHERE one "
                               "of %s" % (path, start, ", ".join(WHERES)))
            if w in EACH and (not each or each[0] != w):
                raise LabError("%s:%d: lab=%s is the %s of an each=%s round; this block "
                               "has no each=%s" % (path, start, w, "master" if w == "master"
                                                   else "LB host", w, w))
            out.append(Block(w, "\n".join(body) + "\n", start + 1, cond[0] if cond else None,
                             run[0] if run else None, each[0] if each else None))
    return out


def segments(text):
    """[("sh", text) | ("systemctl", verb, [units])] of a block, lines
    joined at a trailing backslash, consecutive shell lines kept together
    (each segment runs in a shell of its own)."""
    logical = []
    pending = ""
    for raw in text.splitlines():
        line = pending + raw
        if line.rstrip().endswith("\\"):
            pending = line.rstrip()[:-1] + " "
            continue
        pending = ""
        logical.append(line)
    out = []
    for line in logical:
        code = line.split("#", 1)[0].strip() if line.lstrip().startswith("systemctl") else ""
        sc = units.systemctl_line(code) if code else None
        if sc:
            out.append(("systemctl",) + sc)
        elif out and out[-1][0] == "sh":
            out[-1] = ("sh", out[-1][1] + line + "\n")
        elif line.strip():
            out.append(("sh", line + "\n"))
    return out


def find(name="deploy.md"):
    """The installed lab's copy (/usr/lib/cpha/lab/NAME), else docs/NAME
    of the source tree: deploy.md, or runbook.md."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for p in (os.path.join(here, name),
              os.path.join(here, "..", "..", "docs", name)):
        if os.path.exists(p):
            return os.path.realpath(p)
    raise LabError("docs/%s not found (the lab follows it)" % name)


def read(path):
    with open(path) as f:
        return f.read()


def for_master(extra):
    return " (for %s)" % extra["MASTER"] if extra and "MASTER" in extra else ""


def vip_holders_last(lbs, holds):
    """The LB hosts of an each=lb round: those holding no VIP first, so
    that the VIP moves once, to a host done already. holds(host) -> bool."""
    return sorted(lbs, key=lambda h: bool(holds(h)))


class Follower:
    """Runs the guide's blocks. hosts_of(where) -> [Host]; admin_env: the
    environment of admin blocks (PATH with this build's cpha)."""

    def __init__(self, lab, stage, variables, admin_env, unit_dirs, unit_env, progress,
                 conds=(), name="deploy.md"):
        self.lab, self.stage, self.vars = lab, stage, variables
        self.conds = set(conds)  # what the cluster has, of CONDS
        self.admin_env, self.unit_dirs, self.unit_env = admin_env, unit_dirs, unit_env
        self.progress = progress
        self.name = name
        self.path = find(name)

    def hosts_of(self, where):
        lab = self.lab
        masters, lbs = lab.by_role("master"), lab.by_role("lb")
        client = [lab.host("client")]
        if where in ("added", "removed"):
            return [lab.host(n) for n in self.vars.get(where.upper(), "").split()]
        return {"hosts": masters + lbs, "masters": masters, "lbs": lbs,
                "first-master": masters[:1], "first-lb": lbs[:1], "client": client,
                "qnetd": client}[where]

    def follow(self, only_hosts=None, skip=(), run=None):
        """The blocks of the guide, in order: those without run= (`cpha lab
        up`), or those of scenario run."""
        blocks = parse(read(self.path), self.path)
        if run and not any(b.run == run for b in blocks):
            raise LabError("docs/%s: no block marked run=%s" % (self.name, run))
        to_run = [b for b in blocks if b.where not in skip and b.run == run and
                (not b.cond or b.cond in self.conds)]
        i = 0
        while i < len(to_run):
            if to_run[i].each is None:
                self.block(to_run[i], only_hosts)
                i += 1
                continue
            j = i
            while j < len(to_run) and to_run[j].each == to_run[i].each:
                j += 1
            each = to_run[i].each
            if each == "master":
                members = self.lab.by_role("master")
            else:
                members = vip_holders_last(self.lab.by_role("lb"), self.holds_vip)
            for m in members:
                for b in to_run[i:j]:
                    self.block(b, only_hosts, m, each)
            i = j

    def holds_vip(self, h):
        return self.vars.get("VIP") in h.addresses()

    def block(self, b, only_hosts, member=None, each="master"):
        """b on each host it names; member: the master of an each=master
        round ($MASTER, and lab=master), or the LB host of an each=lb
        round (lab=lb)."""
        extra = {"MASTER": member.name} if member is not None and each == "master" else {}
        if b.where == "admin":
            self.admin(b, extra)
            return
        for h in [member] if b.where in EACH else self.hosts_of(b.where):
            if only_hosts is None or h.name in only_hosts:
                self.on_host(b, h, extra)

    def fail(self, b, where, what):
        raise LabError("docs/%s:%d (%s): %s" % (self.name, b.line, where, what))

    def admin(self, b, extra=None):
        env = dict(self.admin_env)
        env.update(self.vars)
        env.update(extra or {})
        for seg in segments(b.text):
            if seg[0] != "sh":
                self.fail(b, "admin", "systemctl on the admin workstation")
            r = subprocess.run(["sh", "-euc", seg[1]], cwd=self.stage, env=env,
                               capture_output=True, text=True, timeout=600)
            if r.returncode:
                self.fail(b, "admin", "exit %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
        self.progress("%s:%d done on the admin workstation%s" % (self.name, b.line,
                                                                 for_master(extra)))

    def on_host(self, b, h, extra=None):
        env = dict(self.vars)
        env.update(extra or {})
        env["HOST"] = h.name
        for seg in segments(b.text):
            if seg[0] == "sh":
                r = h.run(["sh", "-euc", seg[1]], check=False, timeout=600, env=env)
                if r.returncode:
                    self.fail(b, h.name, "exit %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
                continue
            verb, names = seg[1], seg[2]
            if verb in ("stop", "restart"):
                # systemd stops in the reverse of the After= order, whatever
                # the order the line names them in: fenced and pacemaker
                # before the corosync they run on
                loaded = {n: units.load(h, n, self.unit_dirs) for n in names}
                for n in reversed(units.order(loaded)):
                    h.stop(units.process_name(n, loaded[n]))
            if verb in ("start", "restart"):
                units.start(h, names, self.unit_dirs, self.unit_env, self.progress)
            elif verb == "reload":
                for n in names:
                    self.reload(b, h, n)
            # enable/disable/status/daemon-reload: nothing to do in the lab
        self.progress("%s:%d done on %s%s" % (self.name, b.line, h.name,
                                              for_master(extra) if b.where != "master" else ""))

    def reload(self, b, h, name):
        """systemctl reload NAME: the unit's ExecReload= lines in order, a
        `kill -SIG $MAINPID` as a signal to its daemon (by PID)."""
        u = units.load(h, name, self.unit_dirs)
        start, _ = units.command(u.get("Service", "ExecStart")[0], {})
        env = units.environment(h, u)
        if not u.get("Service", "ExecReload"):
            self.fail(b, h.name, "systemctl reload %s: the unit has no ExecReload=" % name)
        for line in u.get("Service", "ExecReload"):
            sig = units.reload_signal(line)
            if sig:
                h.signal(os.path.basename(start[0]), sig)
                continue
            argv, _ = units.command(line, env)
            argv[0] = units.local(h, argv[0])
            r = h.run(argv, check=False, timeout=120, env=env)
            if r.returncode:
                self.fail(b, h.name, "systemctl reload %s: %s: exit %d\n%s%s" % (
                    name, " ".join(argv), r.returncode, r.stdout, r.stderr))
