"""The main() of an integration test that runs in one Lab."""

import sys
import time
import traceback

from .hosts import Lab, interrupted_status


def main(lab_name, run, *args, cleanup=None, dump_lines=0):
    """A test's whole run: run(lab, *args) in a new Lab named lab_name
    (on a failure, with dump_lines, the last dump_lines lines of every
    process's log printed first), then cleanup() (when given) whatever
    happens; PASS or FAIL (after the traceback) with the time taken.
    Returns the exit status: 0, 1, or an interrupt's (128 + the signal)."""
    t0 = time.monotonic()
    try:
        with Lab(lab_name) as lab:
            try:
                run(lab, *args)
            except BaseException:
                if dump_lines:
                    lab.dump_logs(dump_lines)
                raise
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return interrupted_status()
    except Exception:
        traceback.print_exc()
        print("FAIL (%.1fs)" % (time.monotonic() - t0), flush=True)
        return 1
    finally:
        if cleanup:
            cleanup()
    print("PASS (%.1fs)" % (time.monotonic() - t0), flush=True)
    return 0
