#!/usr/bin/python3
"""niccompare-plot: the paper's figures from niccompare's JSON, as PNG.

Usage: niccompare-plot RESULTS.json DIR [--trace NAME] [--date DATE] [--check]

Every figure names the trace, the NICs, the policy and the date (below
it); legends stand outside the data.  --check: exit 1 naming any two text
elements of a figure that overlap (matplotlib's bounding boxes), which
the tests use.

Writes into DIR:
  fig7a.png  bus traffic by category per response, normalised to no cache
             (stacked bars, one group per testbed)
  fig7b.png  HTTP content throughput, Mb/s (grouped bars)
  fig7c.png  request rate, requests/s (grouped bars)
  fig3.png   share of content served from NIC memory against cache size,
             nicsim (lines) and live (markers on them)
  fig4.png   bus utilisation by category without a cache (stacked bars)
Needs matplotlib (Debian: python3-matplotlib).
"""

import datetime
import json
import os
import sys

CATEGORIES = ["content", "http_header", "net_header", "overhead", "other"]


def size_label(b):
    if b == 0:
        return "none"
    if b % (1 << 20) == 0:
        return "%dm" % (b >> 20)
    return "%dk" % (b >> 10)


def per_response(run, cat=None):
    if not run["responses"]:
        return 0.0
    if cat is None:
        return sum(run["bus_bytes"].values()) / run["responses"]
    return run["bus_bytes"][cat] / run["responses"]


def stacked(ax, x, heights):
    """One bar of the categories' heights, stacked; labelled once."""
    bottom = 0.0
    for i, cat in enumerate(CATEGORIES):
        ax.bar(x, heights[cat], bottom=bottom, color="C%d" % i,
               label=cat if x == 0 else None)
        bottom += heights[cat]


class Figures:
    """what every figure says below it, and the overlap check"""

    def __init__(self, out, footer, check):
        self.out, self.footer, self.check = out, footer, check
        self.problems = []

    def save(self, fig, ax, name, title, legend=True):
        # a long title goes on two lines at its parenthesis, so that it fits
        ax.set_title(title.replace(" (", "\n("), fontsize=10)
        if legend and ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1),
                      borderaxespad=0)
        fig.text(0.01, 0.005, self.footer, fontsize=7, color="0.35",
                 ha="left", va="bottom")
        fig.tight_layout(rect=(0, 0.04, 1, 1))
        if self.check:
            self.problems += ["%s: %s" % (name, p) for p in overlaps(fig)]
        fig.savefig(os.path.join(self.out, name + ".png"),
                    bbox_inches="tight")


def texts(fig):
    """every visible text of fig with something to say"""
    found = [t for t in fig.texts]
    for ax in fig.axes:
        found += [ax.title, ax.xaxis.label, ax.yaxis.label]
        found += ax.get_xticklabels() + ax.get_yticklabels()
        found += [c for c in ax.texts]
        if ax.get_legend() is not None:
            found += ax.get_legend().get_texts()
    return [t for t in found if t.get_visible() and t.get_text().strip()]


def overlaps(fig):
    """pairs of text elements whose boxes overlap by more than a pixel"""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    boxes = [(t, t.get_window_extent(r)) for t in texts(fig)]
    said = []
    for i, (a, ba) in enumerate(boxes):
        for b, bb in boxes[i + 1:]:
            w = min(ba.x1, bb.x1) - max(ba.x0, bb.x0)
            h = min(ba.y1, bb.y1) - max(ba.y0, bb.y0)
            if w > 1 and h > 1:
                said.append("%r overlaps %r" % (a.get_text(), b.get_text()))
    return said


def main():
    args = sys.argv[1:]
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    opts = {}
    while len(args) > 2 and args[-2] in ("--trace", "--date"):
        opts[args[-2]] = args[-1]
        args = args[:-2]
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("niccompare-plot: matplotlib is not installed "
                         "(apt-get install python3-matplotlib)\n")
        return 1
    with open(args[0]) as f:
        runs = json.load(f)
    out = args[1]
    os.makedirs(out, exist_ok=True)
    first = runs[0] if runs else {}
    footer = "trace %s, %s NIC%s, policy %s, %s, %s" % (
        opts.get("--trace", "?"), first.get("nics", "?"),
        "" if first.get("nics") == 1 else "s", first.get("policy", "?"),
        "%d round%s" % (first.get("runs", 1),
                        "" if first.get("runs", 1) == 1 else "s"),
        opts.get("--date", datetime.date.today().isoformat()))
    figs = Figures(out, footer, check)
    testbeds = list(dict.fromkeys(r["testbed"] for r in runs))
    sizes = sorted(set(r["cache_bytes"] for r in runs))
    by = {(r["testbed"], r["cache_bytes"]): r for r in runs}

    # Figure 7a: stacked, normalised to each testbed's no-cache total
    fig, ax = plt.subplots(figsize=(min(18, max(7, 0.9 * len(runs))), 5))
    labels, x = [], 0
    for tb in testbeds:
        base = by.get((tb, 0))
        norm = per_response(base) if base else 0
        for s in sizes:
            r = by.get((tb, s))
            if r is None:
                continue
            stacked(ax, x, {c: per_response(r, c) / norm if norm else 0
                            for c in CATEGORIES})
            labels.append("%s\n%s" % (tb, size_label(s)))
            x += 1
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_xlabel("testbed and cache size per NIC")
    ax.set_ylabel("bus traffic / no cache")
    figs.save(fig, ax, "fig7a", "Figure 7a: bus traffic by category "
              "(modelled)")
    plt.close(fig)

    # Figures 7b and 7c: grouped bars, one bar per cache size
    for name, key, unit in (("fig7b", "content_mbps", "Mb/s"),
                            ("fig7c", "requests_per_s", "requests/s")):
        fig, ax = plt.subplots(figsize=(7, 4))
        width = 0.8 / max(1, len(sizes))
        for j, s in enumerate(sizes):
            vals = [by[(tb, s)][key] if (tb, s) in by else 0
                    for tb in testbeds]
            # the median's interval over the rounds, when there were several
            lo = [by[(tb, s)].get(key + "_ci_low", v) if (tb, s) in by
                  else 0 for tb, v in zip(testbeds, vals)]
            hi = [by[(tb, s)].get(key + "_ci_high", v) if (tb, s) in by
                  else 0 for tb, v in zip(testbeds, vals)]
            err = [[max(0, v - l) for v, l in zip(vals, lo)],
                   [max(0, h - v) for v, h in zip(vals, hi)]]
            bars = ax.bar([i + j * width for i in range(len(testbeds))],
                          vals, width, label="cache " + size_label(s),
                          yerr=err if any(map(any, err)) else None,
                          capsize=3)
            # the gain over no cache, on each bar with a cache
            gkey = ("throughput_gain" if key == "content_mbps"
                    else "request_rate_gain")
            for i, tb in enumerate(testbeds):
                r = by.get((tb, s))
                if r is None or s == 0:
                    continue
                text = "%+.0f%%" % r[gkey]
                if r.get("bound") is False:
                    # no model limits it: the measured change is the
                    # emulation's own cost, hatched and said so (never 0)
                    text = "%+.0f%%\nemulation" % r["measured_" + gkey]
                    bars[i].set_hatch("//")
                    bars[i].set_edgecolor("0.3")
                elif r.get("measurable_" + gkey) is False:
                    text = "%+.0f%%?" % r[gkey]  # no measurable change
                ax.annotate(text, (i + j * width, hi[i]),
                            textcoords="offset points", xytext=(0, 2),
                            ha="center", fontsize=8)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(testbeds))])
        ax.set_xticklabels(testbeds)
        ax.set_xlabel("testbed")
        ax.set_ylabel(unit)
        ax.margins(y=0.12)
        figs.save(fig, ax, name, "Figure %s: %s (measured, paced by the "
                  "models)" % (name[3:], "HTTP content throughput"
                               if key == "content_mbps" else "request rate"))
        plt.close(fig)

    # Figure 3: share against cache size (a numeric, log axis: no-cache
    # runs have no share to show): nicsim's line and the live runs as
    # markers on it, one colour a testbed; the difference in points is in
    # the report's table (a panel of its own magnified tenths of a point)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    cached = [s for s in sizes if s > 0]
    for k, tb in enumerate(testbeds):
        xs = [s for s in cached if (tb, s) in by]
        # the testbeds' shares are alike: each one's markers a little
        # apart on the log axis, so that none hides another
        dodge = 2 ** (0.06 * (k - (len(testbeds) - 1) / 2))
        ax.plot(xs, [by[(tb, s)]["sim_share"] for s in xs], "-",
                color="C%d" % k, linewidth=1.5, label="nicsim, %s" % tb)
        ax.plot([x * dodge for x in xs],
                [by[(tb, s)]["live_share"] for s in xs], "o",
                color="C%d" % k, markerfacecolor="none", markersize=8,
                label="live, %s" % tb)
    if cached:
        ax.set_xscale("log", base=2)
        ax.set_xticks(cached)
        ax.set_xticklabels([size_label(s) for s in cached])
    ax.set_xlabel("cache size per NIC")
    ax.set_ylabel("share not crossing the bus")
    ax.set_ylim(0, 1)
    figs.save(fig, ax, "fig3", "Figure 3: content served from NIC memory, "
              "nicsim as lines, live as markers")
    plt.close(fig)

    # Figure 4: utilisation by category without a cache
    fig, ax = plt.subplots(figsize=(7, 4))
    for x, tb in enumerate(testbeds):
        r = by.get((tb, 0))
        if r is None:
            continue
        total = sum(r["bus_bytes"].values()) or 1
        stacked(ax, x, {c: r["bus_utilisation"] * r["bus_bytes"][c] / total
                        for c in CATEGORIES})
    ax.set_xticks(range(len(testbeds)))
    ax.set_xticklabels(testbeds)
    ax.set_xlabel("testbed")
    ax.axhline(0.95, color="0.2", linestyle=":", linewidth=1,
               label="limit (0.95)")
    ax.set_ylabel("bus utilisation")
    ax.set_ylim(0, 1.05)
    figs.save(fig, ax, "fig4", "Figure 4: bus utilisation without a cache "
              "(modelled)")
    plt.close(fig)
    if figs.problems:
        sys.stderr.write("niccompare-plot: overlapping text:\n  %s\n"
                         % "\n  ".join(figs.problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
