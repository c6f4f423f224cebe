"""Address and neighbour events with their times, from `ip -ts monitor`
run in a host."""

import datetime
import os
import re
import time

from . import util
from .vipd_net import _norm


_TS = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{6})\] ?(.*)$")


class Event:
    """One `ip -ts monitor` event: its time (epoch seconds, from ip's
    clock as it read the message), deleted or not, its first line."""

    def __init__(self, ts, deleted, text):
        self.ts, self.deleted, self.text = ts, deleted, text

    def __repr__(self):
        return "<Event %.6f %s%s>" % (self.ts, "Deleted " if self.deleted else "",
                                      self.text)


class Watch:
    """`ip -ts monitor OBJECTS` in a host: address or neighbour changes,
    each with the time it happened."""

    def __init__(self, host, objects=("address",), name="ipmon"):
        self.host = host
        self.proc = host.spawn(["ip", "-ts", "monitor"] + list(objects), name=name)
        # ready when `ip netns exec` has exec'd ip monitor and it holds its
        # netlink socket
        util.wait_until(self._ready, 5, 0.01, "ip monitor in %s" % host.name)
        time.sleep(0.02)

    def _ready(self):
        if not self.proc.running():
            raise AssertionError("ip monitor exited: %s" % self.proc.log_text())
        try:
            with open("/proc/%d/cmdline" % self.proc.pid, "rb") as f:
                argv = f.read().split(b"\0")
            if b"netns" in argv:
                return False
            return any(os.readlink("/proc/%d/fd/%s" % (self.proc.pid, fd)).startswith(
                "socket:") for fd in os.listdir("/proc/%d/fd" % self.proc.pid))
        except OSError:
            return False

    def events(self):
        out = []
        for line in self.proc.log_text().splitlines():
            m = _TS.match(line)
            if not m:
                continue
            dt = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S")
            ts = time.mktime(dt.timetuple()) + int(m.group(2)) / 1e6
            text = m.group(3)
            deleted = text.startswith("Deleted ")
            out.append(Event(ts, deleted, text[8:] if deleted else text))
        return out

    def addr_events(self, ip):
        """[(time, "add" | "del")] for ip on any interface of the host."""
        want = _norm(ip)
        out = []
        for e in self.events():
            m = re.search(r"\binet6? (\S+)/\d+", e.text)
            if m and _norm(m.group(1)) == want:
                out.append((e.ts, "del" if e.deleted else "add"))
        return out

    def first(self, ip, what="add", after=0.0, timeout=2.0):
        """Time of the first `what` ("add" or "del") of ip at or after
        `after`; waits up to `timeout` for ip monitor to write it (it may
        lag behind a poll that already saw the change)."""
        def find():
            for ts, w in self.addr_events(ip):
                if w == what and ts >= after:
                    return ts
            return None
        return util.wait_until(find, timeout, 0.02, "%s: %s of %s in ip monitor"
                               % (self.host.name, what, ip))

    def first_add(self, ip, after=0.0, timeout=2.0):
        return self.first(ip, "add", after, timeout)

    def first_del(self, ip, after=0.0, timeout=2.0):
        return self.first(ip, "del", after, timeout)

    def first_neigh(self, ip, lladdr, after=0.0, timeout=2.0):
        """Time the host's entry for ip first pointed at lladdr (waits for
        ip monitor to write it)."""
        def find():
            for ts, ll, _state, deleted in self.neigh_events(ip):
                if ll == lladdr and not deleted and ts >= after:
                    return ts
            return None
        return util.wait_until(find, timeout, 0.02, "%s: neighbour %s -> %s in ip monitor"
                               % (self.host.name, ip, lladdr))

    def neigh_events(self, ip):
        """[(time, lladdr or None, state, deleted)] for ip."""
        want = _norm(ip)
        out = []
        for e in self.events():
            parts = e.text.split()
            if not parts:
                continue
            try:
                if _norm(parts[0]) != want:
                    continue
            except ValueError:
                continue
            ll = None
            if "lladdr" in parts:
                ll = parts[parts.index("lladdr") + 1].lower()
            out.append((e.ts, ll, parts[-1], e.deleted))
        return out
