#!/usr/bin/env python3
"""bench/peers.sh PROFILE=1: where each core's busy time went during one
run under `perf record -a -e cpu-clock`, per request: by process (the
server on CPU 0, wrk on CPU 1, and the others) and by user code or
kernel, and the kernel functions that took the most.

Usage: perf_split.py PERF_DATA SERVER RUN_LINE

RUN_LINE is what peers.sh's run_wrk prints: wrk's JSON, then the clock
ticks CPU 0 spent in user, system, softirq and idle, and CPU 1's idle
ticks.  Each core's busy time over the run, divided by the requests,
is split by perf's shares of that core's busy samples.  Samples of the
idle task halting (in a VM cpu-clock samples the halt too) are not busy;
what the idle task does otherwise (interrupts and softirqs that arrive
while the core idles) is.
"""
import collections
import json
import os
import subprocess
import sys

# where the idle task waits: not work
IDLE = {"pv_native_safe_halt", "native_safe_halt", "default_idle",
        "acpi_idle_do_entry", "mwait_idle_with_hints", "intel_idle",
        "cpuidle_enter_state", "default_idle_call", "do_idle"}
TOP = 6


def split(data, cpu, busy, comm_of_interest):
    """the two lines for one core: the split and the kernel's top"""
    out = subprocess.run(
        ["perf", "report", "-i", data, "--stdio", "--cpu", str(cpu),
         "-g", "none", "--field-separator", "\t", "--sort", "comm,dso,sym",
         "-F", "overhead,comm,dso,sym"],
        capture_output=True, text=True, check=True).stdout
    parts = collections.Counter()
    funcs = collections.Counter()
    for line in out.splitlines():
        fields = line.split("\t")
        if line.startswith("#") or len(fields) < 4 or "%" not in fields[0]:
            continue
        share = float(fields[0].strip().rstrip("%"))
        comm, dso, sym = (f.strip() for f in fields[1:4])
        kernel = dso == "[kernel.kallsyms]"
        sym = sym.split("] ", 1)[-1]
        if comm == "swapper" and sym in IDLE:
            continue
        who = comm if comm == comm_of_interest else (
            "idle task" if comm == "swapper" else "others")
        parts[(who, "kernel" if kernel else "user")] += share
        if kernel:
            funcs[sym] += share
    total = sum(parts.values()) or 1.0
    return ("busy %.2f us/request: %s" % (busy, ", ".join(
                "%s %s %.2f" % (who, where, busy * share / total)
                for (who, where), share in parts.most_common()
                if share / total >= 0.005)),
            "kernel's top (%% of busy): %s" % ", ".join(
                "%s %.1f" % (name, 100 * share / total)
                for name, share in funcs.most_common(TOP)))


def main():
    data, server, line = sys.argv[1], sys.argv[2], sys.argv[3].split()
    run = json.loads(" ".join(line[:-5]))
    user, system, soft, _, idle1 = (int(t) for t in line[-5:])
    hz = os.sysconf("SC_CLK_TCK")
    n = max(run["requests"], 1)
    busy0 = (user + system + soft) / hz * 1e6 / n
    busy1 = (run["seconds"] - idle1 / hz) * 1e6 / n
    print(" %.0f req/s" % run["requests_per_s"])
    for cpu, busy, comm in ((1, busy1, "wrk"), (0, busy0, server)):
        what, top = split(data, cpu, busy, comm)
        print("    CPU %d %s\n      %s" % (cpu, what, top))


if __name__ == "__main__":
    main()
