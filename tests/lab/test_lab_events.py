#!/usr/bin/env python3
"""Unit tests of the lab's incremental reader of the prober's events
(cphalab.events.EventLog): lines as the prober writes them, cut short,
rotated, and the failures it reads out. No root, no namespaces, no lab."""

import json
import os
import shutil
import tempfile
import unittest

from cphalab.events import EventLog


def line(**e):
    return json.dumps(e) + "\n"


class Events(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="cphalab-judge-")
        self.path = os.path.join(self.dir, "events.jsonl")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write(self, text, mode="a"):
        with open(self.path, mode + "b") as f:
            f.write(text.encode() if isinstance(text, str) else text)

    def test_incremental(self):
        ev = EventLog(self.path)
        # no file yet: nothing, and no history
        self.assertIs(ev.poll(), ev)
        self.assertEqual((ev.requests, ev.watch_events, ev.starts, ev.watches),
                         ([], [], [], 0))
        self.assertEqual(ev.since_start(100.0), 0.0)
        self.assertEqual(ev.open_at(100.0), set())

        # the first prober: three watches; a last line cut short
        cut = line(k="lease_get", t=101.5, ok=True)
        self.write(line(k="start", t=100.0, watches=3)
                   + line(k="watch_open", t=100.5, w=0)
                   + line(k="watch_open", t=100.6, w=1)
                   + line(k="watch_open", t=100.7, w=2)
                   + line(k="readyz", t=101.0, ok=True)
                   + cut[:17])
        ev.poll()
        self.assertEqual(ev.watches, 3)
        self.assertEqual(ev.starts, [100.0])
        self.assertEqual(ev.requests, [(101.0, True, 1)])
        self.assertEqual(ev.window(100.0, 110.0), (1, 0))
        self.assertEqual(ev.since_start(105.0), 5.0)
        self.assertEqual(ev.open_at(99.0), set())
        self.assertEqual(ev.open_at(100.55), {0})
        self.assertEqual(ev.open_at(100.6), {0, 1})  # an event at t counts at t
        self.assertEqual(ev.open_at(100.8), {0, 1, 2})

        # nothing new: nothing changes
        ev.poll()
        self.assertEqual(len(ev.requests), 1)

        # the cut line completes; counted requests; a watch breaks
        self.write(cut[17:-1])
        ev.poll()
        self.assertEqual(len(ev.requests), 1)  # still no newline
        self.write("\n"
                   + line(k="lease_put", t=102.0, ok=False, n=3)
                   + line(k="readyz", t=103.0, ok=True, n=4)
                   + line(k="watch_break", t=103.5, w=1)
                   + line(k="lost_write", t=103.6)
                   + line(k="watch_open", t=104.0, w=1))
        ev.poll()
        self.assertEqual(ev.requests, [(101.0, True, 1), (101.5, True, 1),
                                       (102.0, False, 3), (103.0, True, 4)])
        self.assertEqual(ev.window(101.0, 103.0), (9, 3))  # both ends in
        self.assertEqual(ev.window(101.2, 102.5), (4, 3))
        self.assertEqual(ev.window(103.1, 200.0), (0, 0))
        self.assertEqual(ev.open_at(103.4), {0, 1, 2})
        self.assertEqual(ev.open_at(103.5), {0, 2})
        self.assertEqual(ev.open_at(103.9), {0, 2})
        self.assertEqual(ev.open_at(104.0), {0, 1, 2})
        self.assertEqual(ev.broken_between(103.0, 104.0), {1})
        self.assertEqual(ev.broken_between(103.5, 103.5), {1})
        self.assertEqual(ev.broken_between(100.0, 103.4), set())

        # a second prober (the stack switched back): its start line closes
        # every watch of the one before
        self.write(line(k="start", t=110.0, watches=2)
                   + line(k="watch_open", t=110.5, w=0)
                   + line(k="readyz", t=110.6, ok=False))
        ev.poll()
        self.assertEqual(ev.watches, 2)
        self.assertEqual(ev.starts, [100.0, 110.0])
        self.assertEqual(ev.since_start(112.0), 2.0)
        self.assertEqual(ev.open_at(109.0), {0, 1, 2})  # the first prober then
        self.assertEqual(ev.open_at(110.0), set())
        self.assertEqual(ev.open_at(110.2), set())
        self.assertEqual(ev.open_at(110.6), {0})
        self.assertEqual(ev.window(110.0, 115.0), (1, 1))
        self.assertEqual(ev.broken_between(100.0, 120.0), {1})

        self.write(line(k="watch_break", t=111.0, w=0)
                   + line(k="watch_open", t=111.5, w=0)
                   + line(k="watch_open", t=111.6, w=1))
        ev.poll()
        self.assertEqual(ev.open_at(111.2), set())
        self.assertEqual(ev.open_at(111.7), {0, 1})
        self.assertEqual(ev.broken_between(100.0, 120.0), {0, 1})
        self.assertEqual(ev.broken_between(110.0, 120.0), {0})

        # a fresh reader of the whole file sees the same
        again = EventLog(self.path).poll()
        self.assertEqual((again.requests, again.watch_events, again.starts, again.watches),
                         (ev.requests, ev.watch_events, ev.starts, ev.watches))

    def test_cut_in_a_multibyte_character(self):
        ev = EventLog(self.path)
        text = json.dumps({"k": "readyz", "t": 1.0, "ok": False,
                           "err": "d\u00e9lai"}, ensure_ascii=False).encode() + b"\n"
        i = text.index("\u00e9".encode()) + 1  # between the two bytes of é
        self.write(text[:i])
        ev.poll()
        self.assertEqual(ev.requests, [])
        self.write(text[i:])
        ev.poll()
        self.assertEqual(ev.requests, [(1.0, False, 1)])

    def test_bad_lines_skipped(self):
        self.write(line(k="start", t=1.0, watches=1)
                   + "this is not JSON\n"
                   + '{"k": "readyz", "t": 2.0,\n'
                   + "\n"
                   + line(k="readyz", t=3.0, ok=True))
        self.write(b"\x80\xff{}\n")
        self.write(line(k="readyz", t=4.0, ok=True, n="many")  # n not a number
                   + line(k="watch_open", t=5.0, w=0)
                   + line(k="readyz", t=6.0))  # no ok: failed
        ev = EventLog(self.path).poll()
        self.assertEqual(ev.requests, [(3.0, True, 1), (6.0, False, 1)])
        self.assertEqual(ev.open_at(5.0), {0})
        self.assertEqual(ev.window(0, 10), (2, 1))
        self.assertEqual(ev.since_start(4.0), 3.0)

    def test_json_line_not_an_object_skipped(self):
        # valid JSON that is not an object is skipped, and the lines after
        # it in the same read are still read
        self.write("[1, 2]\n" + line(k="readyz", t=3.0, ok=True))
        ev = EventLog(self.path)
        ev.poll()
        self.assertEqual(ev.requests, [(3.0, True, 1)])


class EventFailures(unittest.TestCase):
    def test_failures_read(self):
        d = tempfile.mkdtemp(prefix="cphalab-judge-")
        try:
            path = os.path.join(d, "events.jsonl")
            with open(path, "w") as f:
                for e in ({"t": 1.0, "k": "readyz", "ok": True, "ms": 5},
                          {"t": 2.0, "k": "readyz", "ok": False, "ms": 1000, "tls": False},
                          {"t": 2.0, "k": "lease_get", "ok": False, "ms": 0, "tls": False,
                           "not_sent": True},
                          {"t": 3.0, "k": "lease_put", "ok": False, "n": 2},
                          {"t": 4.0, "k": "watch_break", "w": 1}):
                    f.write(json.dumps(e) + "\n")
            ev = EventLog(path).poll()
            self.assertEqual(ev.failures, [(2.0, 1000, 1, False, False),
                                           (2.0, 0, 1, False, True), (3.0, 0, 2, None, False)])
            self.assertEqual(ev.failures_between(2.5, 3.5), [(3.0, 0, 2, None, False)])
        finally:
            shutil.rmtree(d)


if __name__ == "__main__":
    unittest.main(verbosity=2)
