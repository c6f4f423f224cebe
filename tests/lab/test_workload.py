#!/usr/bin/env python3
"""Unit tests of the soak's workload (cphalab/workload.py): which answer
becomes which outcome in the history, a process's new number after an
unknown outcome, the setup's values, and that every line it writes is an
event `cpha lab check-history` reads. The HTTP side is a scripted client:
the lab runs the real one against the apiservers."""

import json
import os
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True

from cphalab import workload as wl  # noqa: E402


class Scripted:
    """Answers calls from a list: (status, doc), or an Outcome to raise."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.calls = []

    def call(self, method, path, body=None):
        self.calls.append((method, path, body))
        a = self.answers.pop(0)
        if isinstance(a, Exception):
            raise a
        return a


def lease(value, rv):
    return {"metadata": {"resourceVersion": rv}, "spec": {"holderIdentity": str(value)}}


class TestOutcome(unittest.TestCase):
    def test_statuses(self):
        self.assertEqual(wl.outcome("read", 200), "ok")
        self.assertEqual(wl.outcome("read", 404), "ok")  # a missing register reads null
        self.assertEqual(wl.outcome("read", 503), "info")
        self.assertEqual(wl.outcome("read", 403), "fail")
        for f in ("write", "cas"):
            self.assertEqual(wl.outcome(f, 200), "ok")
            self.assertEqual(wl.outcome(f, 409), "fail")  # the compare failed
            self.assertEqual(wl.outcome(f, 404), "fail")
            # the apiserver may have written to etcd before it failed
            for st in (500, 503, 504):
                self.assertEqual(wl.outcome(f, st), "info", st)


class TestWriter(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "history.jsonl")
        self.history = wl.History(self.path)

    def tearDown(self):
        self.history.close()
        self.tmp.cleanup()

    def events(self):
        self.history.f.flush()
        with open(self.path) as f:
            return [json.loads(line) for line in f]

    def workload(self, answers):
        w = wl.Workload(Scripted(answers), self.history, own=1, shared=1)
        return w, w.writers[0]

    def test_read_modify_write(self):
        w, writer = self.workload([(200, lease(7, "41")), (200, {})])
        ok, v, rv = writer.read()
        self.assertEqual((ok, v, rv), (True, 7, "41"))
        self.assertEqual(writer.cas(v, writer.next_value(), rv), "ok")
        method, path, body = w.client.calls[1]
        self.assertEqual(method, "PUT")
        self.assertTrue(path.endswith("/leases/own-1"))
        self.assertEqual(body["metadata"]["resourceVersion"], "41")
        self.assertEqual(body["spec"]["holderIdentity"], str(1 * wl.MILLION + 1))
        ev = self.events()
        self.assertEqual([(e["process"], e["type"], e["f"]) for e in ev],
                         [(1, "invoke", "read"), (1, "ok", "read"), (1, "invoke", "cas"),
                          (1, "ok", "cas")])
        self.assertEqual(ev[1]["value"], 7)
        self.assertEqual(ev[3]["value"], [7, 1000001])
        self.assertTrue(all(e["key"] == "own-1" and e["time"] > 0 for e in ev))

    def test_unknown_outcome_takes_a_new_process(self):
        w, writer = self.workload([
            wl.Outcome("info", "read timed out"),  # sent, no answer
            (409, {}),                               # compare failed
            wl.Outcome("fail", "connect: refused"),  # nothing sent
            (200, {})])
        self.assertEqual(writer.write(11), "info")
        self.assertEqual(writer.cas(11, 12, "5"), "fail")
        self.assertEqual(writer.write(13), "fail")
        self.assertEqual(writer.write(14), "ok")
        ev = self.events()
        # process 1 ends with the unknown write; its writer goes on as 1 + 2
        self.assertEqual([(e["process"], e["type"]) for e in ev],
                         [(1, "invoke"), (1, "info"), (3, "invoke"), (3, "fail"),
                          (3, "invoke"), (3, "fail"), (3, "invoke"), (3, "ok")])

    def test_setup_values_name_each_attempt(self):
        w, _ = self.workload([
            wl.Outcome("info", "timed out"),  # own-1, attempt 1: unknown
            (409, {}), (200, {}),             # own-1, attempt 2: exists, updated
            (201, {})])                       # shared, attempt 3: created
        self.assertTrue(w.setup(deadline=float("inf")))
        ev = self.events()
        self.assertEqual([(e["process"], e["type"], e["key"], e["value"]) for e in ev], [
            (wl.SETUP_PROCESS + 1, "invoke", "own-1", -1),
            (wl.SETUP_PROCESS + 1, "info", "own-1", -1),
            (wl.SETUP_PROCESS + 2, "invoke", "own-1", -2),
            (wl.SETUP_PROCESS + 2, "ok", "own-1", -2),
            (wl.SETUP_PROCESS + 3, "invoke", "shared", -3),
            (wl.SETUP_PROCESS + 3, "ok", "shared", -3)])

    def test_values_are_unique(self):
        w, _ = self.workload([])
        seen = set()
        for writer in w.writers:
            for _ in range(1000):
                v = writer.next_value()
                self.assertNotIn(v, seen)
                seen.add(v)


if __name__ == "__main__":
    unittest.main()
