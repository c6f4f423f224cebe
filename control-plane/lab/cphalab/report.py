"""report.json, as `cpha lab report` writes it and its readers read it.

The format is defined once, in report.schema.json beside this file (JSON
Schema, draft 2020-12). The writer (control-plane/lab/lab_render_json.c) is
tested against it on reports it makes, and every reader loads a report
through load(), which checks it first: a report of another shape is
refused with the place and the rule it breaks, not read as if it fitted.
"""

import json
import os

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "report.schema.json")


class ReportError(ValueError):
    """A report that cannot be read, or not of the format."""


def schema():
    with open(SCHEMA) as f:
        return json.load(f)


def problems(doc):
    """Where doc breaks the format: a list of "PLACE: RULE" strings, in
    document order; empty when it fits."""
    try:
        import jsonschema
    except ImportError as e:  # pragma: no cover - setup installs it
        raise ReportError("reading a lab report needs python3-jsonschema: %s" % e) from e
    v = jsonschema.Draft202012Validator(schema())
    errs = sorted(v.iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
    return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(top)", e.message)
            for e in errs]


def check(doc, name="report"):
    """Raise ReportError naming the first places where doc breaks the format."""
    bad = problems(doc)
    if bad:
        more = " (and %d more)" % (len(bad) - 3) if len(bad) > 3 else ""
        raise ReportError("%s is no lab report of this version: %s%s"
                          % (name, "; ".join(bad[:3]), more))
    return doc


def load(path):
    """The report at path (report.json, or a directory holding one), checked."""
    if os.path.isdir(path):
        path = os.path.join(path, "report.json")
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise ReportError("%s: %s" % (path, e.strerror or e)) from e
    except ValueError as e:
        raise ReportError("%s: not JSON: %s" % (path, e)) from e
    return check(doc, path)
