#!/usr/bin/env python3
"""cluster.yaml(5) documents every key cpha reads, and no key cpha refuses.

The keys are taken from the tables control-plane/desc*.c walk ("{ "key",
fn }" rows of every `static const struct key X[]`); each must appear in
docs/man/cluster.yaml.5 as a bold word. And the example in the page must
load: it is written to a file and read with `cpha plan` when the build is
given (argv[1]).
Exit 0 pass, 1 fail.
"""

import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def keys_read():
    # desc.c and the sections read in files of their own (desc_monitoring.c)
    src = ""
    for name in sorted(os.listdir(os.path.join(ROOT, "control-plane"))):
        if re.match(r"desc(_\w+)?\.c$", name):
            with open(os.path.join(ROOT, "control-plane", name)) as f:
                src += f.read() + "\n"
    keys = {}
    for m in re.finditer(r"static const struct key (\w+)\[\] = \{(.*?)\n\};", src, re.S):
        keys[m.group(1)] = re.findall(r'\{ "([a-z_]+)", ', m.group(2))
    return keys


def page():
    with open(os.path.join(ROOT, "docs", "man", "cluster.yaml.5")) as f:
        return f.read()


def main():
    text = page()
    bold = set()
    for line in text.splitlines():
        if line.startswith((".B ", ".BR ", ".BI ", ".TP", ".SS ")):
            bold.update(re.findall(r"[a-z_]+", line))
    tables = keys_read()
    missing = []
    if len(tables) < 9:
        missing.append("desc.c: only %d key tables found" % len(tables))
    for table, keys in sorted(tables.items()):
        for k in keys:
            if k not in bold:
                missing.append("%s: key '%s' is not in cluster.yaml(5)" % (table, k))
    for line in missing:
        print(line)
    if len(sys.argv) > 1:
        ex = text.split(".SH EXAMPLE", 1)[1].split(".nf\n", 1)[1].split("\n.ft\n", 1)[0]
        ex = ex.replace(".ft CW\n", "")
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write(ex.replace("\\-", "-"))
        try:
            r = subprocess.run([os.path.join(sys.argv[1], "control-plane", "cpha"), "-f",
                                f.name, "plan"], capture_output=True, text=True)
        finally:
            os.unlink(f.name)
        if r.returncode != 0:
            missing.append("the page's example: cpha plan exit %d" % r.returncode)
            print("the page's example does not plan (exit %d):\n%s" % (r.returncode,
                                                                      r.stderr))
    if missing:
        return 1
    print("cluster.yaml(5) names all %d keys of %d tables; its example plans"
          % (sum(len(v) for v in tables.values()), len(tables)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
