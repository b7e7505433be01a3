#!/usr/bin/python3
"""niccompare-plot: the paper's figures from niccompare's JSON, as PNG.

Usage: niccompare-plot RESULTS.json DIR

Writes into DIR:
  fig7a.png  bus traffic by category per response, normalised to no cache
             (stacked bars, one group per testbed)
  fig7b.png  HTTP content throughput, Mb/s (grouped bars)
  fig7c.png  request rate, requests/s (grouped bars)
  fig3.png   share of content served from NIC memory against cache size,
             nicsim and live (lines)
  fig4.png   bus utilisation by category without a cache (stacked bars)
Needs matplotlib (Debian: python3-matplotlib).
"""

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


def save(fig, ax, out, name, title):
    # a long title goes on two lines at its parenthesis, so that it fits
    ax.set_title(title.replace(" (", "\n("), fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, name + ".png"))


def main():
    if len(sys.argv) != 3:
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
    with open(sys.argv[1]) as f:
        runs = json.load(f)
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    testbeds = list(dict.fromkeys(r["testbed"] for r in runs))
    sizes = sorted(set(r["cache_bytes"] for r in runs))
    by = {(r["testbed"], r["cache_bytes"]): r for r in runs}

    # Figure 7a: stacked, normalised to each testbed's no-cache total
    fig, ax = plt.subplots(figsize=(min(16, max(6, 0.8 * len(runs))), 5))
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
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel("bus traffic / no cache")
    save(fig, ax, out, "fig7a", "Figure 7a: bus traffic by category "
         "(modelled)")
    plt.close(fig)

    # Figures 7b and 7c: grouped bars, one bar per cache size
    for name, key, unit in (("fig7b", "content_mbps", "Mb/s"),
                            ("fig7c", "requests_per_s", "requests/s")):
        fig, ax = plt.subplots(figsize=(6, 4))
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
            ax.bar([i + j * width for i in range(len(testbeds))], vals,
                   width, label="cache " + size_label(s),
                   yerr=err if any(map(any, err)) else None, capsize=3)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(testbeds))])
        ax.set_xticklabels(testbeds)
        ax.set_ylabel(unit)
        save(fig, ax, out, name, "Figure %s: %s (measured, paced by the "
             "models)" % (name[3:], "HTTP content throughput"
                          if key == "content_mbps" else "request rate"))
        plt.close(fig)

    # Figure 3: share against cache size, simulated and live
    fig, ax = plt.subplots(figsize=(6, 4))
    for k, tb in enumerate(testbeds):
        xs = [s for s in sizes if (tb, s) in by]
        ax.plot([size_label(s) for s in xs],
                [by[(tb, s)]["sim_share"] for s in xs], "o-",
                color="C%d" % k, label="nicsim (%s)" % tb)
        ax.plot([size_label(s) for s in xs],
                [by[(tb, s)]["live_share"] for s in xs], "s--",
                color="C%d" % k, label="live (%s)" % tb)
    ax.set_xlabel("cache size per NIC")
    ax.set_ylabel("share of content not crossing the bus")
    ax.set_ylim(0, 1)
    save(fig, ax, out, "fig3", "Figure 3: content served from NIC memory")
    plt.close(fig)

    # Figure 4: utilisation by category without a cache
    fig, ax = plt.subplots(figsize=(6, 4))
    for x, tb in enumerate(testbeds):
        r = by.get((tb, 0))
        if r is None:
            continue
        total = sum(r["bus_bytes"].values()) or 1
        stacked(ax, x, {c: r["bus_utilisation"] * r["bus_bytes"][c] / total
                        for c in CATEGORIES})
    ax.set_xticks(range(len(testbeds)))
    ax.set_xticklabels(testbeds)
    ax.set_ylabel("bus utilisation")
    ax.set_ylim(0, 1)
    save(fig, ax, out, "fig4", "Figure 4: bus utilisation without a cache "
         "(modelled)")
    plt.close(fig)
    return 0


if __name__ == "__main__":
    sys.exit(main())
