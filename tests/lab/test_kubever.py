#!/usr/bin/env python3
"""Unit tests of the lab's Kubernetes versions (cphalab/kubever.py): which
minor an upgrade goes to, the release directories whose programs play a
version, and the description that names it. No root, no namespaces: the
releases' programs run with --version, which stops them at once."""

import os
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True

from cphalab import kubever  # noqa: E402
from cphalab import lab as labmod  # noqa: E402
from cphalab.hosts import LabError  # noqa: E402

SIMULATORS = os.path.join(os.path.dirname(os.path.abspath(labmod.__file__)), "..",
                          "simulators")


class FakeLab:
    """What kubever reads of a lab: its info and a directory of its own."""

    def __init__(self, d, info=None):
        self.d, self.info = d, info or {}

    def path(self, *parts):
        return os.path.join(self.d, *parts)


class PlanTest(unittest.TestCase):

    def test_next_minor(self):
        self.assertEqual(kubever.plan_upgrade([33, 34, 35, 36, 37], 36), (None, 37))
        self.assertEqual(kubever.plan_upgrade([33, 34, 35, 36, 37], 33), (None, 34))

    def test_newest_goes_back_first(self):
        # the newest has nowhere to go: back one, then up again
        self.assertEqual(kubever.plan_upgrade([33, 34, 35, 36, 37], 37), (36, 37))

    def test_alone_in_the_table(self):
        with self.assertRaises(LabError) as e:
            kubever.plan_upgrade([36], 36)
        self.assertIn("no minor next to it (it has 1.36)", str(e.exception))
        with self.assertRaises(LabError):
            kubever.plan_upgrade([33, 34], 36)

    def test_minor_of(self):
        self.assertEqual(kubever.minor_of("v1.37.1"), 37)
        self.assertEqual(kubever.minor_of("1.36"), 36)


class TableTest(unittest.TestCase):

    def setUp(self):
        self.table = kubever.Table(os.path.realpath(SIMULATORS))

    def test_versions(self):
        t = self.table
        self.assertIn(t.t["default"], t.minors)
        self.assertEqual(t.minors, sorted(t.minors))
        default = t.version()
        self.assertRegex(default, r"^v1\.%d\.\d+$" % t.t["default"])
        self.assertEqual(t.version("1.%d" % t.t["default"]), default)
        self.assertEqual(t.of_minor(t.t["default"]), default)
        # a patch named is kept
        self.assertEqual(t.version("v1.%d.99" % t.minors[0]), "v1.%d.99" % t.minors[0])
        with self.assertRaises(ValueError):
            t.version("1.%d" % (t.minors[-1] + 5))

    def test_no_simulators(self):
        with self.assertRaises(LabError):
            kubever.Table(None)

    def test_current(self):
        t = self.table
        with tempfile.TemporaryDirectory() as d:
            lab = FakeLab(d)
            self.assertEqual(kubever.current(lab, t), t.version())
            lab.info["source"] = {"kubernetes": {"version": "1.%d" % t.minors[0]}}
            self.assertEqual(kubever.current(lab, t), t.of_minor(t.minors[0]))
            # an upgrade's version wins over the description as first written
            lab.info["k8s_version"] = "1.%d" % t.minors[-1]
            self.assertEqual(kubever.current(lab, t), t.of_minor(t.minors[-1]))
            self.assertEqual(kubever.lower_version(lab, t), t.version())
            lab.info["k8s_lower"] = t.of_minor(t.minors[0])
            self.assertEqual(kubever.lower_version(lab, t), t.of_minor(t.minors[0]))

    def test_release_plays_its_version(self):
        t = self.table
        with tempfile.TemporaryDirectory() as d:
            lab = FakeLab(d)
            for minor in (t.minors[0], t.minors[-1]):
                version = t.of_minor(minor)
                rel = kubever.release_dir(lab, t, version)
                self.assertEqual(rel, os.path.join(d, "kubernetes-" + version))
                self.assertEqual(kubever.release_dir(lab, t, version), rel)  # made once
                for prog in kubever.PROGRAMS:
                    p = os.path.join(rel, prog)
                    self.assertTrue(os.access(p, os.X_OK), p)
                    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
                    env.pop("KUBE_FIXTURE_VERSION", None)
                    r = subprocess.run([p, "--version"], capture_output=True, text=True,
                                       timeout=30, env=env, stdin=subprocess.DEVNULL)
                    self.assertEqual(r.returncode, 0, r.stderr)
                    self.assertEqual(r.stdout.strip(), "Kubernetes " + version)
                    # and refuses a flag its version lacks, as the real one does
                    if prog == "kube-controller-manager":
                        r = subprocess.run([p, "--concurrent-service-syncs=1", "--version"],
                                           capture_output=True, text=True, timeout=30,
                                           env=env, stdin=subprocess.DEVNULL)
                        known = t.kf.known_flags(prog, [], minor)
                        self.assertEqual(r.returncode == 0,
                                         "concurrent-service-syncs" in known, r.stderr)


class LowerTest(unittest.TestCase):
    """The lab's own /usr/bin (build.prepare_dirs): the stand-ins, or the
    release of the version the description names."""

    def prepare(self, d, info):
        from cphalab import build
        lab = FakeLab(d, info)
        lab.bin_dir, lab.ocf_dir = os.path.join(d, "bin"), os.path.join(d, "ocf")
        lab.save = lambda: None
        build.prepare_dirs(lab, build.Programs())
        return lab

    def version_of(self, path):
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        env.pop("KUBE_FIXTURE_VERSION", None)
        r = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30,
                           env=env, stdin=subprocess.DEVNULL)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.strip()

    def test_default(self):
        t = kubever.Table(os.path.realpath(SIMULATORS))
        with tempfile.TemporaryDirectory() as d:
            lab = self.prepare(d, {"source": None})
            self.assertNotIn("k8s_lower", lab.info)
            for prog in kubever.PROGRAMS:
                p = os.path.join(lab.bin_dir, prog)
                self.assertEqual(os.path.realpath(p),
                                 os.path.realpath(os.path.join(SIMULATORS, prog)))
            self.assertEqual(self.version_of(os.path.join(lab.bin_dir, "kube-apiserver")),
                             "Kubernetes " + t.version())

    def test_named(self):
        t = kubever.Table(os.path.realpath(SIMULATORS))
        minor = next(m for m in t.minors if m != t.t["default"])
        with tempfile.TemporaryDirectory() as d:
            lab = self.prepare(d, {"source": {"kubernetes": {"version": "1.%d" % minor}}})
            self.assertEqual(lab.info["k8s_lower"], t.of_minor(minor))
            self.assertEqual(kubever.lower_version(lab, t), t.of_minor(minor))
            for prog in kubever.PROGRAMS:
                self.assertEqual(self.version_of(os.path.join(lab.bin_dir, prog)),
                                 "Kubernetes " + t.of_minor(minor))
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(LabError) as e:
                self.prepare(d, {"source": {"kubernetes": {"version": "1.%d" % (
                    t.minors[-1] + 9)}}})
            self.assertIn("kubernetes.version", str(e.exception))


class DescriptionTest(unittest.TestCase):

    def test_embedded(self):
        self.assertNotIn("version:", labmod.description().split("kubernetes:")[1]
                         .splitlines()[0])
        text = labmod.description(version="1.37")
        self.assertIn("kubernetes: {version: '1.37', service_cidr: 198.18.128.0/24", text)
        self.assertEqual(kubever.description_version({"source": None}), None)

    def test_source(self):
        try:
            import yaml
        except ImportError:
            self.skipTest("python3-yaml is not installed (scripts/setup.sh installs it)")
        src = {"cluster": {"name": "x"}, "kubernetes": {"version": "1.35"},
               "masters": [{"name": "m1", "address": "10.10.0.1"}],
               "load_balancers": [{"name": "l1", "address": "10.10.0.9"}]}
        self.assertEqual(kubever.description_version({"source": src}), "1.35")
        d = yaml.safe_load(labmod.description("cpha", src))
        self.assertEqual(d["kubernetes"]["version"], "1.35")
        d = yaml.safe_load(labmod.description("cpha", src, version="1.36"))
        self.assertEqual(d["kubernetes"]["version"], "1.36")
        self.assertEqual(src["kubernetes"]["version"], "1.35")  # the source is not changed


if __name__ == "__main__":
    unittest.main()
