#!/usr/bin/python3
"""nicsim-plot PNG [TRACE]: draw nicsim's results (its --csv, on standard
input) as miss-ratio curves: byte miss ratio and request miss ratio against
the cache size on a log axis, one line per policy and cache count.  nicsim
--plot PNG runs it."""

import csv
import os
import sys


def main():
    if len(sys.argv) not in (2, 3):
        sys.stderr.write("usage: nicsim-plot PNG [TRACE] < nicsim.csv\n")
        return 2
    png = sys.argv[1]
    trace = os.path.basename(sys.argv[2]) if len(sys.argv) == 3 else ""
    rows = list(csv.DictReader(sys.stdin))
    if not rows:
        sys.stderr.write("nicsim-plot: no results on standard input\n")
        return 1
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curves = {}
    for r in rows:
        key = (r["policy"], r["caches"])
        curves.setdefault(key, []).append(r)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharex=True)
    for (policy, caches), rs in sorted(curves.items()):
        rs.sort(key=lambda r: int(r["cache_bytes"]))
        x = [int(r["cache_bytes"]) / 1024 for r in rs]
        label = policy if caches == "1" else "%s, %s caches" % (policy, caches)
        axes[0].plot(x, [float(r["byte_miss_ratio"]) for r in rs],
                     marker="." if len(rs) < 40 else None, label=label)
        if all(r["miss_ratio"] != "" for r in rs):
            axes[1].plot(x, [float(r["miss_ratio"]) for r in rs],
                         marker="." if len(rs) < 40 else None, label=label)
    def size(v, _pos=None):
        for unit, n in (("g", 1 << 20), ("m", 1 << 10)):
            if v >= n:
                return "%g%s" % (v / n, unit)
        return "%gk" % v

    from matplotlib.ticker import FuncFormatter
    for ax, what in zip(axes, ("byte miss ratio", "request miss ratio")):
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(size))
        ax.set_xlabel("cache size")
        ax.set_ylabel(what)
        ax.set_ylim(0, 1.02)
        ax.grid(True, which="both", alpha=0.3)
    axes[1].legend(loc="upper left", bbox_to_anchor=(1.02, 1), fontsize=8)
    block = rows[0]["block"]
    fig.suptitle("Miss-ratio curves%s, %s-byte blocks"
                 % (" of " + trace if trace else "", block), fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=100, bbox_inches="tight")
    return 0


if __name__ == "__main__":
    sys.exit(main())
