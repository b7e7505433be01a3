#!/usr/bin/python3
"""nicsim-plot PNG [TRACE]: draw nicsim's results (its --csv, on standard
input) as miss-ratio curves: byte miss ratio and request miss ratio against
the cache size on a log axis, one line per policy and cache count.  nicsim
--plot PNG runs it.

Each curve keeps one colour and marker in both panels, and the legend
(the figure's, beside both panels) names every curve drawn, OPT included
although it has no request miss ratio (Belady's choice is by block, so
only the byte panel has it).  draw() returns the figure so that a test
can read the legend back (tests/integration/test_nicsim.py)."""

import csv
import os
import sys

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">"]


def curves_of(rows):
    """{(policy, caches): rows sorted by size}, in a stable order"""
    curves = {}
    for r in rows:
        curves.setdefault((r["policy"], r["caches"]), []).append(r)
    for rs in curves.values():
        rs.sort(key=lambda r: int(r["cache_bytes"]))
    return dict(sorted(curves.items(), key=lambda kv: (kv[0][0] != "opt",
                                                        kv[0])))


def label_of(policy, caches):
    return policy if caches == "1" else "%s, %s caches" % (policy, caches)


def draw(rows, trace=""):
    """the figure of rows (nicsim --csv's, as dicts)"""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    fig, axes = plt.subplots(1, 2, figsize=(10.5, 4.2), sharex=True)
    handles = []
    for i, ((policy, caches), rs) in enumerate(curves_of(rows).items()):
        style = dict(color=COLOURS[i % len(COLOURS)],
                     marker=MARKERS[i % len(MARKERS)] if len(rs) < 40
                     else None, markersize=4, label=label_of(policy, caches))
        x = [int(r["cache_bytes"]) / 1024 for r in rs]
        line, = axes[0].plot(x, [float(r["byte_miss_ratio"]) for r in rs],
                             **style)
        handles.append(line)
        if all(r["miss_ratio"] != "" for r in rs):
            axes[1].plot(x, [float(r["miss_ratio"]) for r in rs], **style)

    def size(v, _pos=None):
        for unit, n in (("g", 1 << 20), ("m", 1 << 10)):
            if v >= n:
                return "%g%s" % (v / n, unit)
        return "%gk" % v

    for ax, what in zip(axes, ("byte miss ratio", "request miss ratio")):
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(size))
        ax.set_xlabel("cache size")
        ax.set_ylabel(what)
        ax.set_ylim(0, 1.02)
        ax.grid(True, which="both", alpha=0.3)
    if any(r["policy"] == "opt" for r in rows):
        axes[1].set_title("(opt: by block only, so not here)", fontsize=8)
    fig.suptitle("Miss-ratio curves%s, %s-byte blocks"
                 % (" of " + trace if trace else "", rows[0]["block"]),
                 fontsize=10)
    fig.tight_layout(rect=(0, 0, 0.85, 1))
    fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.85, 0.9),
               fontsize=8)
    return fig


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
    draw(rows, trace).savefig(png, dpi=100, bbox_inches="tight")
    return 0


if __name__ == "__main__":
    sys.exit(main())
