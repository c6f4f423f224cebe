#!/usr/bin/env python3
"""`cpha lab check-history` on the fixtures in tests/fixtures/history:
exit 0 for a linearizable history, 1 with the window of events for a lost
update and a stale read, 2 naming FILE:LINE for bad input, 3 when the
search gives up; standard input and --json. No lab, no root: the build's
cpha only."""

import json
import os
import subprocess
import sys
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "fixtures", "history")

from cphatest import cphacmd  # noqa: E402


def run(*args, stdin=None):
    return subprocess.run([cphacmd.binary(), "lab", "check-history", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def fixture(name):
    return os.path.join(FIX, name)


class CheckHistory(unittest.TestCase):
    def test_good(self):
        p = run(fixture("good.jsonl"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(),
                         "linearizable: 7 operations on 2 keys (1 unknown outcome)")

    def test_lost_update(self):
        p = run(fixture("lost-update.jsonl"))
        self.assertEqual(p.returncode, 1, p.stderr)
        out = p.stdout.splitlines()
        self.assertEqual(out[0], 'not linearizable: key "k"')
        # the two cas, invokes and completions, and nothing before them
        self.assertEqual([int(ln.split()[0]) for ln in out[1:-1]], [7, 8, 9, 10])
        self.assertIn('"value": [0, 2]', out[-2])
        self.assertRegex(out[-1], r'^cas of key "k" from 0 to 2 acknowledged at line 10: '
                                  r'no order of the 2 operations between lines 7 and 10')

    def test_stale_read(self):
        p = run("--json", fixture("stale-read.jsonl"))
        self.assertEqual(p.returncode, 1, p.stderr)
        v = json.loads(p.stdout)
        self.assertFalse(v["linearizable"])
        self.assertEqual((v["operations"], v["keys"], v["unknown"]), (3, 1, 0))
        self.assertEqual(v["violation"]["key"], 1)
        self.assertEqual(v["violation"]["op_line"], 6)
        self.assertEqual(v["violation"]["lines"], [3, 4, 5, 6])
        self.assertIn('returned "a"', v["violation"]["explanation"])

    def test_bad_json(self):
        path = fixture("bad-json.jsonl")
        p = run(path)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stdout, "")
        self.assertTrue(p.stderr.startswith("cpha lab check-history: %s:4: not JSON" % path),
                        p.stderr)

    def test_stdin_and_errors(self):
        with open(fixture("good.jsonl")) as f:
            good = f.read()
        p = run("-", stdin=good)
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run("-", stdin=good + '{"process": 5, "type": "ok", "f": "read", "value": 1}\n')
        self.assertEqual(p.returncode, 2)
        self.assertIn("stdin:17: process 5 completes (ok) with no outstanding invoke", p.stderr)
        p = run("-", stdin='{"process": 0, "type": "invoke", "f": "cas", "value": 3}\n')
        self.assertEqual(p.returncode, 2)
        self.assertIn("stdin:1: a cas's \"value\" must be [old, new]", p.stderr)
        for args in ([], ["a", "b"], ["--max-states", "0", "x"], ["--bogus", "x"]):
            p = run(*args)
            self.assertEqual(p.returncode, 2, args)
            self.assertTrue(p.stderr.startswith("cpha lab check-history: "), p.stderr)
        p = run(fixture("no-such-file.jsonl"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("No such file", p.stderr)

    def test_gave_up(self):
        p = run("--max-states", "1", fixture("good.jsonl"))
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r'^unknown: search gave up after 2 states on key "[xy]"')
        p = run("--json", "--max-states", "1", fixture("good.jsonl"))
        self.assertEqual(p.returncode, 3)
        self.assertIsNone(json.loads(p.stdout)["linearizable"])


if __name__ == "__main__":
    unittest.main()
