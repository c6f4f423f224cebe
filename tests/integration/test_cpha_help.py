#!/usr/bin/env python3
"""`--help` and `-h` on every cpha command, and the options they advertise.

- Every command of `cpha --help` (plan, pki and its verbs, render, check,
  status, token, etcd, restart, logs, drain, undrain, lab and its
  verbs) prints its usage on standard
  output with `--help` and with `-h`, exits 0 and prints nothing on
  standard error; it reads no description and writes no file. The list
  of commands and lab verbs is read from the help itself and must be the
  one this test walks, so a new command cannot go untested.
- Every option a C-parsed command's help advertises is accepted by its
  parser: `cpha CMD OPTION [VALUE] --help` exits 0 (getopt reads left to
  right, so an unknown option is a usage error, exit 64, before --help is
  seen; a control with an option that does not exist checks that).
- The lab's verbs are parsed by the lab program (argparse): every option
  its summary (`cpha lab --help`) and `cpha --help` name for a verb is in
  that verb's own generated usage.
- Every option in cpha(1)'s SYNOPSIS is one the command's help advertises,
  and every option of its lab synopsis is in the lab's usage.

No root needed. Exit 0 pass, 77 skip (cpha not built), 1 fail.
    python3 tests/integration/test_cpha_help.py [-v]
"""

import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True

from cphatest import util  # noqa: E402

CPHA = util.built("control-plane", "cpha")
MAN = os.path.join(util.repo_root(), "docs", "man", "cpha.1")

# The commands, as `cpha --help` lists them; the lab's verbs, as the lab
# program's parser and cpha (probe, report) take them.
COMMANDS = {"plan", "pki", "render", "install", "check", "status", "token", "etcd",
            "restart", "logs", "drain", "undrain", "lab"}
PKI_VERBS = {"check", "renew", "add-san", "remove-san"}
LAB_C_VERBS = {"probe", "report", "check-history"}
LAB_PY_VERBS = {"up", "down", "status", "x", "run", "power", "boot", "stack", "soak",
                "workload"}

# Options parsed by getopt in cpha itself (an unknown one is an error).
C_PARSED = [["plan"], ["pki"], ["pki", "check"], ["pki", "renew"], ["pki", "add-san"],
            ["pki", "remove-san"],
            ["render"], ["install"], ["check"], ["status"], ["token"], ["token", "create"],
            ["etcd"], ["restart"], ["logs"], ["drain"], ["undrain"], ["lab", "probe"],
            ["lab", "report"]]

# An option and its metavar in help text: "--out DIR", "[--watch [N]]", "-f".
OPT_RE = re.compile(r"(?<![\w-])(--?[a-z][a-z-]*)(?:[ =](\[?[A-Z][A-Za-z0-9.]*\]?))?")


class Helps(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="cpha-help-")
        cls.cwd = os.path.join(cls.tmp.name, "cwd")
        os.mkdir(cls.cwd)
        cls.file = os.path.join(cls.tmp.name, "a-file")
        with open(cls.file, "w") as f:
            f.write("{}\n")
        cls.dir = os.path.join(cls.tmp.name, "a-dir")
        os.mkdir(cls.dir)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def cpha(self, args):
        # no description here: --help must not read one (nor write ./pki,
        # ./render)
        env = util.clean_env({"HOME": self.tmp.name})
        return subprocess.run([CPHA, "-f", os.path.join(self.tmp.name, "none.yaml")] + args,
                              capture_output=True, text=True, timeout=60, cwd=self.cwd,
                              env=env, stdin=subprocess.DEVNULL)

    def help_of(self, cmd, flag="--help"):
        r = self.cpha(cmd + [flag])
        what = "cpha %s %s" % (" ".join(cmd), flag)
        self.assertEqual(r.returncode, 0, "%s: exit %d\n%s%s" % (
            what, r.returncode, r.stdout, r.stderr))
        self.assertEqual(r.stderr, "", what)
        # "usage: cpha plan", "usage: cpha [-f FILE] install", "usage: cpha lab run"
        words = cmd[:1 if cmd[:1] == ["pki"] else 2]
        want = re.compile(r"usage: cpha( \[-f FILE\])?%s\b" % "".join(" " + w for w in words))
        self.assertTrue(any(want.match(line) for line in r.stdout.splitlines()),
                        "%s: no line starting %r on stdout:\n%s" % (what, want.pattern,
                                                                     r.stdout))
        self.assertEqual(os.listdir(self.cwd), [], "%s wrote files" % what)
        return r.stdout

    def value(self, metavar):
        """A value a parser takes for an option with this metavar."""
        m = metavar.strip("[]").rstrip(".")
        return {"FILE": self.file, "LAB.json": self.file, "DIR": self.dir,
                "N": "2", "K": "2", "SECONDS": "2", "D": "2s", "DURATION": "2s",
                "URL": "https://198.18.0.1:6443", "NS": "kube-system"}.get(m, "x")

    def options(self, text):
        """{option: metavar or None} of a help text."""
        out = {}
        for opt, meta in OPT_RE.findall(text):
            if opt in ("-h", "--help"):
                continue
            if meta or opt not in out:
                out[opt] = meta or None
        return out

    def lab_verbs(self):
        text = self.help_of(["lab"])
        m = re.search(r"\{([a-z,-]+)\}", text)
        self.assertIsNotNone(m, text)
        return set(m.group(1).split(",")), text

    def test_commands_are_the_walked_ones(self):
        text = self.help_of([])
        self.assertEqual(text, self.help_of([], "-h"))
        listed = {m.group(1) for m in re.finditer(r"^  ([a-z][a-z-]*)\b", text, re.M)}
        self.assertEqual(listed, COMMANDS, text)
        pki = self.help_of(["pki"])
        verbs = set(re.findall(r"^  ([a-z][a-z-]+) ", pki, re.M))
        self.assertEqual(verbs, PKI_VERBS, pki)
        py, _ = self.lab_verbs()
        self.assertEqual(py, LAB_PY_VERBS)
        line = re.search(r"^  lab .*$", text, re.M).group(0)
        self.assertEqual(set(re.search(r"([a-z-]+(?:\|[a-z-]+)+)", line).group(1).split("|")),
                         (LAB_PY_VERBS | LAB_C_VERBS) - {"power", "boot", "stack"}, line)

    def test_help_everywhere(self):
        cmds = [[]] + [c for c in C_PARSED] + [["lab"]] + [["lab", v] for v in LAB_PY_VERBS]
        for cmd in cmds:
            for flag in ("--help", "-h"):
                with self.subTest(cmd=" ".join(cmd), flag=flag):
                    self.help_of(cmd, flag)

    def test_unknown_option_is_seen_before_help(self):
        # the control for the next test: an option that does not exist fails
        for cmd in C_PARSED:
            with self.subTest(cmd=" ".join(cmd)):
                r = self.cpha(cmd + ["--no-such-option", "--help"])
                self.assertEqual(r.returncode, 64, r.stdout + r.stderr)
                self.assertIn("usage: cpha", r.stderr)

    def accepted(self, cmd, opt, meta):
        args = cmd + [opt]
        if meta and not meta.startswith("["):
            args.append(self.value(meta))
        r = self.cpha(args + ["--help"])
        self.assertEqual(r.returncode, 0, "cpha %s --help: exit %d\n%s%s" % (
            " ".join(args), r.returncode, r.stdout, r.stderr))
        self.assertIn("usage: cpha", r.stdout)

    def test_advertised_options_accepted(self):
        for cmd in C_PARSED:
            opts = self.options(self.help_of(cmd))
            self.assertTrue(cmd[-1] in PKI_VERBS or opts, cmd)
            for opt, meta in opts.items():
                with self.subTest(cmd=" ".join(cmd), opt=opt):
                    self.accepted(cmd, opt, meta)

    def test_top_level_lines_accepted(self):
        text = self.help_of([])
        for m in re.finditer(r"^  ([a-z][a-z-]*) (.*)$", text, re.M):
            cmd = m.group(1)
            if cmd == "lab":
                usage = self.help_of(["lab"]).split("\n\n")[0]
                for opt in self.options(m.group(2)):
                    self.assertIn(opt, usage, "cpha --help: lab %s" % opt)
                continue
            for opt, meta in self.options(m.group(2)).items():
                with self.subTest(cmd=cmd, opt=opt):
                    self.accepted([cmd], opt, meta)

    def test_lab_summary_options_exist(self):
        py, text = self.lab_verbs()
        top = text.split("\n\n")[0]
        lines = re.findall(r"^    cpha lab (.*(?:\n {17}\[.*)*)", text, re.M)
        self.assertTrue(lines, text)
        seen = set()
        for line in lines:
            words = re.sub(r"\[-f FILE\] |\[--name NAME\] ", "", line).split()
            verb = words[0]
            seen.add(verb)
            self.assertIn(verb, py | LAB_C_VERBS, line)
            if verb in LAB_C_VERBS:
                continue
            usage = self.help_of(["lab", verb]).split("\n\n")[0]
            for opt in self.options(" ".join(words[1:])):
                with self.subTest(verb=verb, opt=opt):
                    self.assertIn(opt, usage.replace("[", " ").replace("]", " ").split(),
                                  "cpha lab --help names %s %s; cpha lab %s --help:\n%s"
                                  % (verb, opt, verb, usage))
            for opt in re.findall(r"\[(-f|--name) [A-Z]+\]", line):
                self.assertIn("[%s " % opt, top, "cpha lab --help names %s" % opt)
        self.assertEqual(seen, (py | LAB_C_VERBS) - {"power", "boot", "stack"})

    def test_man_synopsis_options_advertised(self):
        with open(MAN) as f:
            man = f.read()
        syn = man.split(".SH SYNOPSIS\n", 1)[1].split("\n.SH ", 1)[0]
        blocks = [b for b in syn.split("\n.br\n") if b.strip()]
        self.assertGreaterEqual(len(blocks), 7, syn)
        for b in blocks:
            words = re.sub(r"^\.[A-Z]+ ?", "", b.replace("\\-", "-"), flags=re.M).split()
            words = [w.strip("[]|") for w in words]
            cmd = [w for w in words if w in COMMANDS][0]
            opts = {w for w in words if w.startswith("-") and w != "-f"} | (
                {"-f"} if words.count("-f") > 1 else set())
            helptext = self.help_of([cmd])
            for opt in opts:
                with self.subTest(cmd=cmd, opt=opt):
                    self.assertIn(opt, self.options(helptext),
                                  "cpha(1) SYNOPSIS: %s %s; cpha %s --help:\n%s"
                                  % (cmd, opt, cmd, helptext))

    def test_man_lab_synopsis_options_exist(self):
        with open(MAN) as f:
            man = f.read()
        syn = man.split("\n.SS lab\n", 1)[1].split("\n.br\n", 1)[0].replace("\\-", "-")
        py, top = self.lab_verbs()
        usages = top.split("\n\n")[0] + "".join(
            self.help_of(["lab", v]).split("\n\n")[0] for v in sorted(py))
        opts = self.options(re.sub(r"^\.[A-Z]+ ?", "", syn, flags=re.M).replace('"', " "))
        self.assertIn("--peer-preempt", opts, syn)
        for opt in opts:
            with self.subTest(opt=opt):
                self.assertIn("[%s" % opt, usages, "cpha(1) lab synopsis: %s" % opt)


if __name__ == "__main__":
    if not os.access(CPHA, os.X_OK):
        print("SKIP: %s not built (set CPHA_BUILD_DIR)" % CPHA, flush=True)
        sys.exit(util.SKIP)
    sys.exit(util.run_tests())
