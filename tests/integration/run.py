#!/usr/bin/env python3
"""Integration test runner: imports every tests/integration/test_*.py and
runs its test_* functions in file order.  Ends with one line
"integration: N passed, N failed" (and ", N skipped" for known failures
and for tests that cannot run here, such as h2spec without Go).

Usage: NICD=build/nicd python3 tests/integration/run.py [NAME_SUBSTRING...]
"""

import importlib.util
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from nicd import Skip  # noqa: E402


def main():
    want = sys.argv[1:]
    files = sorted(f for f in os.listdir(HERE)
                   if f.startswith("test_") and f.endswith(".py"))
    passed = failed = skipped = 0
    for fname in files:
        spec = importlib.util.spec_from_file_location(fname[:-3],
                                                      os.path.join(HERE, fname))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        tests = [(n, f) for n, f in vars(mod).items()
                 if n.startswith("test_") and callable(f)]
        tests.sort(key=lambda t: t[1].__code__.co_firstlineno)
        for name, fn in tests:
            full = "%s::%s" % (fname, name)
            if want and not any(w in full for w in want):
                continue
            t0 = time.monotonic()
            known = getattr(fn, "known_failure", None)
            try:
                fn()
            except Skip as why:
                skipped += 1
                print("skip  %s: %s" % (full, why))
                continue
            except Exception:
                dt = time.monotonic() - t0
                if known:
                    skipped += 1
                    print("xfail %s (%.1fs): %s" % (full, dt, known))
                    continue
                failed += 1
                print("FAIL  %s (%.1fs)" % (full, dt))
                traceback.print_exc(file=sys.stdout)
                continue
            dt = time.monotonic() - t0
            if known:
                failed += 1
                print("FAIL  %s (%.1fs): marked as a known failure (%s) "
                      "but passed; remove the mark" % (full, dt, known))
            else:
                passed += 1
                print("ok    %s (%.1fs)" % (full, dt))
            sys.stdout.flush()
    line = "integration: %d passed, %d failed" % (passed, failed)
    if skipped:
        line += ", %d skipped" % skipped
    print(line)
    return 1 if failed or (passed == 0) else 0


if __name__ == "__main__":
    sys.exit(main())
