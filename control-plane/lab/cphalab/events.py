"""The prober's events (JSON Lines, see cpha(1)) read as they grow: what
the lab needs to know of the client's view before and after a scenario.
The report reads the same files on its own (cpha lab report)."""

import json

REQUESTS = ("readyz", "lease_get", "lease_put")


def read_lines(path, start=None, end=None):
    """The objects of a JSON Lines file whose "t" is within [start, end]
    (either None: unbounded), in order; lines that are not a JSON object
    with a time (one cut short, say) are skipped. [] when there is no
    file."""
    out = []
    try:
        with open(path) as f:
            for line in f:
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(e, dict):
                    continue
                t = e.get("t", 0)
                if (start is None or t >= start) and (end is None or t <= end):
                    out.append(e)
    except OSError:
        pass
    return out


class EventLog:
    """A prober's events file, read incrementally. A last line cut short
    (the prober writing it) waits for the next poll."""

    def __init__(self, path):
        self.path = path
        self.offset = 0
        self.partial = b""
        self.requests = []  # (t, ok, n)
        self.failures = []  # (t, ms, n, tls, not_sent) of each failed request line
        self.watch_events = []  # (t, "open" | "break", w)
        self.watches = 0  # from the last start line
        self.starts = []  # times of start lines

    def poll(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return self
        self.offset += len(data)
        data = self.partial + data
        lines = data.split(b"\n")
        self.partial = lines.pop()
        for line in lines:
            try:
                e = json.loads(line)
                if isinstance(e, dict) and isinstance(e.get("t"), (int, float)):
                    self.add(e)
            except (ValueError, TypeError):
                continue
        return self

    def add(self, e):
        k, t = e.get("k"), e.get("t", 0)
        if k in REQUESTS:
            n = e.get("n", 1)
            if isinstance(n, int):  # else not a request line the report would take
                self.requests.append((t, bool(e.get("ok")), n))
                if not e.get("ok"):
                    ms = e.get("ms")
                    self.failures.append((t, ms if isinstance(ms, (int, float)) else 0, n,
                                          e.get("tls") if isinstance(e.get("tls"), bool)
                                          else None, bool(e.get("not_sent"))))
        elif k in ("watch_open", "watch_break"):
            self.watch_events.append((t, "open" if k == "watch_open" else "break",
                                      e.get("w")))
        elif k == "start":
            self.watches = int(e.get("watches", 0))
            self.starts.append(t)

    def since_start(self, now):
        """Seconds of history of the prober running now."""
        return now - self.starts[-1] if self.starts else 0.0

    def open_at(self, t):
        """Indices of the watches open at time t (of the prober running
        then: a new start line closes every watch)."""
        start = max([s for s in self.starts if s <= t], default=None)
        state = {}
        for et, what, w in self.watch_events:
            if et > t:
                break
            if start is not None and et < start:
                continue
            state[w] = what == "open"
        return {w for w, up in state.items() if up}

    def broken_between(self, t0, t1):
        """Indices of the watches that broke in [t0, t1]."""
        return {w for t, what, w in self.watch_events if what == "break" and t0 <= t <= t1}

    def failures_between(self, t0, t1):
        """The failed request lines written in [t0, t1], for
        judge.dead_server_split."""
        return [f for f in self.failures if t0 <= f[0] <= t1]

    def window(self, t0, t1):
        """(requests, failed) in [t0, t1]."""
        n = bad = 0
        for t, ok, k in self.requests:
            if t0 <= t <= t1:
                n += k
                bad += 0 if ok else k
        return n, bad
