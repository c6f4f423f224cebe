#!/usr/bin/env python3
"""cpha lab -f: the project's sample description (tests/samples/cluster.yaml,
the sample cluster: kubem00..02, lb00, lb01, 10.10.x.x addresses) runs in
the lab unchanged, at lab addresses.

- a description the lab cannot run (manager systemd) is refused, naming
  the file and the reason, and leaves nothing behind;
- `cpha lab -f sample up` settles with the sample's host names; the
  rendered files keep its names and settings (cluster name, etcd token)
  and carry lab addresses only (no 10.10. anywhere in what is installed);
- `cpha status` on kubem00 says healthy, with the VIP on one LB host;
- `cpha lab down` leaves no namespace, link or process.
Exit 0 pass, 77 skip (not root), 1 fail.
    sudo python3 tests/integration/test_cpha_lab_sample.py
"""

import json
import os
import sys

sys.dont_write_bytecode = True

from cphatest import labcmd, step, util  # noqa: E402

NAME = "s%d" % (os.getpid() % 10000)
SAMPLE = os.path.join(util.repo_root(), "tests", "samples", "cluster.yaml")


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


lab = labcmd.LabCmd(NAME)
leftovers = lab.leftovers


def main():
    if os.geteuid() != 0:
        return util.skip("cpha lab needs root")
    tmp = "/var/tmp/cpha-lab-sample-" + NAME
    os.makedirs(tmp, exist_ok=True)
    try:
        step("a description the lab cannot run is refused, saying why")
        bad = os.path.join(tmp, "systemd.yaml")
        with open(SAMPLE) as f:
            text = f.read()
        with open(bad, "w") as f:
            f.write(text.replace("manager: pacemaker", "manager: systemd"))
        r = lab("-f", bad, "up", check_rc=False)
        check(r.returncode == 1 and bad in r.stderr and "components.manager is systemd"
              in r.stderr, "exit %d: %s" % (r.returncode, r.stderr))
        check(not leftovers(), "a refused up left %s" % leftovers())

        step("cpha lab -f %s up" % SAMPLE)
        lab("-f", SAMPLE, "up", timeout=400)
        r = lab("status")
        for h in ("kubem00", "kubem01", "kubem02", "lb00", "lb01"):
            check(("  %s " % h) in r.stdout, "%s in: %s" % (h, r.stdout))
        data = "/var/tmp/cpha-lab/%s" % NAME
        with open(os.path.join(data, "cluster-cpha.yaml")) as f:
            desc = f.read()
        check("name: kubernetes" in desc and "etcd-cluster-token" in desc, desc)
        check("10.10." not in desc, "a sample address is left:\n" + desc)
        bad_files = []
        for root, _, files in os.walk(os.path.join(data, "render-cpha")):
            for n in files:
                with open(os.path.join(root, n), errors="replace") as f:
                    if "10.10." in f.read():
                        bad_files.append(os.path.join(root, n))
        check(not bad_files, "sample addresses in rendered files: %s" % bad_files)

        step("cpha status on kubem00: healthy")

        def healthy():
            r = lab("x", "kubem00", "cpha", "status", "--json", check_rc=False, quiet=True)
            try:
                return r.returncode == 0 and json.loads(r.stdout)
            except ValueError:
                return False
        doc = util.wait_until(healthy, 60, interval=2, what="cpha status healthy")
        vip = [lb["host"] for lb in doc["details"]["load_balancers"] if lb["vip_present"]]
        check(len(vip) == 1 and vip[0] in ("lb00", "lb01"), "VIP on %s" % vip)
    finally:
        step("cpha lab down")
        r = lab("down", check_rc=False)
        left = leftovers()
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)
        if r.returncode != 0 or left:
            raise AssertionError("cpha lab down: exit %d, left %s" % (r.returncode, left))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as e:
        print("FAIL: %s" % e, flush=True)
        sys.exit(1)
