"""`cpha lab` under a test's own lab name, and what a lab leaves behind."""

import subprocess
import sys

from . import cphacmd


class LabCmd:
    """cpha lab --name NAME ...: NAME is 1-6 letters or digits."""

    def __init__(self, name):
        self.name = name

    def __call__(self, *args, timeout=900, check_rc=True, quiet=False):
        r = subprocess.run([cphacmd.binary(), "lab", "--name", self.name] + list(args),
                           capture_output=True, text=True, timeout=timeout)
        if not quiet:
            sys.stdout.write(r.stdout)
        if check_rc and r.returncode != 0:
            raise AssertionError("cpha lab %s: exit %d\n%s" % (" ".join(args), r.returncode,
                                                              r.stderr))
        return r

    def leftovers(self):
        """The lab's namespaces and links still there (none after down)."""
        r = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
        ns = [l.split()[0] for l in r.stdout.splitlines()
              if l.startswith("cl%s-" % self.name)]
        r = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True)
        return ns + [l.split(": ")[1] for l in r.stdout.splitlines()
                     if ": cl%s" % self.name in l]
