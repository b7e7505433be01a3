#!/usr/bin/env python3
"""Where one CPU's busy time went during a `perf record -a -e cpu-clock`
run, per request: by process (COMM, the load generator or the server, and
the others) and by user code or kernel, and the kernel functions that
took the most.

Usage: perf_split.py PERF_DATA CPU BUSY_US_PER_REQUEST COMM [TOP]

BUSY_US_PER_REQUEST is the CPU's busy time over the run divided by the
requests answered (from /proc/stat, as bench/peers.sh takes it); perf's
shares of that CPU's busy samples split it.  Samples of the idle task
halting (in a VM cpu-clock samples the halt too) are not busy; what the
idle task does otherwise (interrupts and softirqs that arrive while the
CPU idles) is.  Prints one line for the split and one for the kernel's
top functions among the busy samples (TOP, default 6).
"""
import collections
import subprocess
import sys

# where the idle task waits: not work
IDLE = {"pv_native_safe_halt", "native_safe_halt", "default_idle",
        "acpi_idle_do_entry", "mwait_idle_with_hints", "intel_idle",
        "cpuidle_enter_state", "default_idle_call", "do_idle"}


def main():
    data, cpu, busy, comm_of_interest = sys.argv[1:5]
    top = int(sys.argv[5]) if len(sys.argv) > 5 else 6
    busy = float(busy)
    out = subprocess.run(
        ["perf", "report", "-i", data, "--stdio", "--cpu", cpu, "-g", "none",
         "--field-separator", "\t", "--sort", "comm,dso,sym",
         "-F", "overhead,comm,dso,sym"],
        capture_output=True, text=True, check=True).stdout
    split = collections.Counter()
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
        split[(who, "kernel" if kernel else "user")] += share
        if kernel:
            funcs[sym] += share
    total = sum(split.values()) or 1.0
    parts = ["%s %s %.2f" % (who, where, busy * share / total)
             for (who, where), share in split.most_common()
             if share / total >= 0.005]
    print("busy %.2f us/request: %s" % (busy, ", ".join(parts)))
    print("      kernel's top (%% of busy): %s" % ", ".join(
        "%s %.1f" % (name, 100 * share / total)
        for name, share in funcs.most_common(top)))


if __name__ == "__main__":
    main()
