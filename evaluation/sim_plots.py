#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""sim_plots.py SIM_JSON OUTDIR [--md SIM_MD]

The simulator's plots, drawn with matplotlib from its JSON
(cpuidle-sim run --json), into OUTDIR:

  sim-regret.png   energy regret vs the oracle, per trace class and governor
  sim-rates.png    too deep and too shallow entries per 100 idle periods,
                   per class and governor; the classes with a latency
                   limit (QoS-limited) in panels of their own
  sim-heldout.png  the held-out traces against the issue's targets: energy
                   regret <= 0.5 x teo's, too deep <= teo's, too shallow
                   <= menu's (per entry and per period), IRQ exit latency
                   <= teo's

A bar is the class over all tables; its whisker runs from the lowest to
the highest of the tables (per_table_class), the spread the data has.  On
sim-heldout.png the dots are the tables.  With --md, the images are linked
at the end of SIM_MD (cpuidle-sim run --md).

Run with Debian's /usr/bin/python3 (python3-matplotlib).
"""

import argparse
import json
import math
import os
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("sim_plots.py: matplotlib is missing for %s (Debian: apt-get install python3-matplotlib)"
             % sys.executable)

GOVS = ["rteo", "rteo-parity", "teo", "menu"]
COLORS = {"rteo": "tab:blue", "rteo-parity": "tab:cyan", "teo": "tab:orange",
          "menu": "tab:green", "oracle": "tab:gray"}


def finite(x):
    return isinstance(x, (int, float)) and math.isfinite(x)


def aggregate(rows):
    """One score from per_table_class rows, from their counts."""
    periods = sum(r["periods"] for r in rows)
    entries = sum(r["entries"] for r in rows)
    above = sum(r["too_deep_per_entry"] * r["entries"] for r in rows if finite(r["too_deep_per_entry"]))
    below = sum(r["too_shallow_per_entry"] * r["entries"] for r in rows
                if finite(r["too_shallow_per_entry"]))
    energy = sum(r["energy_mj"] for r in rows)
    oracle = sum(r["oracle_energy_mj"] for r in rows)
    wakes = sum(r["irq_wakes"] for r in rows)
    lat = sum(r["irq_exit_latency_us"] * r["irq_wakes"] for r in rows if finite(r["irq_exit_latency_us"]))
    nan = float("nan")
    return {
        "energy_regret": energy / oracle - 1 if oracle else nan,
        "too_deep_per_entry": above / entries if entries else nan,
        "too_shallow_per_entry": below / entries if entries else nan,
        "too_deep_per_period": above / periods if periods else nan,
        "too_shallow_per_period": below / periods if periods else nan,
        "irq_exit_latency_us": lat / wakes if wakes else nan,
    }


def spread(sim, cls, gov, key):
    """(lowest, highest) of `key` over the tables, or None."""
    vals = [r[key] for r in sim["per_table_class"]
            if r["class"] == cls and r["governor"] == gov and finite(r.get(key))]
    return (min(vals), max(vals)) if vals else None


def label(sim, cls):
    flags = next((r for r in sim["per_class"] if r["class"] == cls), {})
    tags = (["held out"] if flags.get("heldout") else []) + (["QoS"] if flags.get("qos_limited") else [])
    return cls + ("\n(" + ", ".join(tags) + ")" if tags else "")


def bars(ax, sim, classes, govs, key, scale=1.0):
    """Grouped bars of per_class[key] * scale, whiskers over the tables."""
    per = {(r["class"], r["governor"]): r for r in sim["per_class"]}
    width = 0.8 / len(govs)
    for k, g in enumerate(govs):
        xs, ys, lo, hi = [], [], [], []
        for i, c in enumerate(classes):
            r = per.get((c, g))
            if r is None or not finite(r.get(key)):
                continue
            v = r[key] * scale
            s = spread(sim, c, g, key) or (r[key], r[key])
            xs.append(i - 0.4 + width * (k + 0.5))
            ys.append(v)
            lo.append(max(0.0, v - s[0] * scale))
            hi.append(max(0.0, s[1] * scale - v))
        ax.bar(xs, ys, width, label=g, color=COLORS.get(g), yerr=[lo, hi],
               error_kw={"elinewidth": 0.7, "capsize": 1.5, "ecolor": "black"})
    ax.set_xticks(range(len(classes)), [label(sim, c) for c in classes], rotation=35,
                  ha="right", fontsize="small")
    for i, c in enumerate(classes):
        if any(r["class"] == c and r.get("heldout") for r in sim["per_class"]):
            ax.axvspan(i - 0.5, i + 0.5, color="0.92", zorder=0)
    ax.grid(axis="y", alpha=0.3)


def classes_of(sim, qos):
    seen = []
    for r in sim["per_class"]:
        if r["class"] not in seen and bool(r.get("qos_limited")) == qos:
            seen.append(r["class"])
    return seen


def plot_regret(sim, out):
    classes = classes_of(sim, False) + classes_of(sim, True)
    fig, ax = plt.subplots(figsize=(max(8, 0.9 * len(classes) + 3), 4.8))
    bars(ax, sim, classes, GOVS, "energy_regret")
    ax.set_ylabel("energy / oracle energy - 1")
    ax.set_title("Energy regret vs the oracle (bars: all tables; whiskers: lowest to highest table;"
                 " shaded: held out)", fontsize="medium")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "sim-regret.png"), dpi=120)
    plt.close(fig)


def plot_rates(sim, out):
    plain, qos = classes_of(sim, False), classes_of(sim, True)
    govs = GOVS + ["oracle"]
    cols = [c for c in (plain, qos) if c]
    fig, axes = plt.subplots(2, len(cols), squeeze=False,
                             figsize=(max(9, 0.9 * (len(plain) + len(qos)) + 4), 8),
                             gridspec_kw={"width_ratios": [len(c) for c in cols]})
    for j, cl in enumerate(cols):
        for i, (key, what) in enumerate((("too_deep_pct", "too deep"), ("too_shallow_pct", "too shallow"))):
            ax = axes[i][j]
            bars(ax, sim, cl, govs, key)
            ax.set_title("QoS-limited: %s" % what if cl is qos else "%s per 100 idle periods" % what,
                         fontsize="medium")
            if j == 0:
                ax.set_ylabel("entries per 100 periods")
    axes[0][0].legend(fontsize="small")
    fig.suptitle("The kernel's above/below counters (bars: all tables; whiskers: lowest to highest"
                 " table; shaded: held out)", fontsize="medium")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "sim-rates.png"), dpi=120)
    plt.close(fig)


def plot_heldout(sim, out):
    h = sim.get("heldout")
    if not h:
        return False
    names = sim.get("corpus", {}).get("heldout", [])
    rows = [r for r in sim["per_table_class"] if r.get("heldout")]
    tables = sorted({r["table"] for r in rows})
    govs = [g for g in ("rteo", "teo", "menu", "oracle") if g in h]
    panels = [
        ("energy_regret", "energy regret", lambda: ("0.5 x teo", 0.5 * h["teo"]["energy_regret"])),
        ("too_deep_per_entry", "too deep per entry", lambda: ("teo", h["teo"]["too_deep_per_entry"])),
        ("too_deep_per_period", "too deep per period", lambda: ("teo", h["teo"]["too_deep_per_period"])),
        ("too_shallow_per_entry", "too shallow per entry",
         lambda: ("menu", h["menu"]["too_shallow_per_entry"])),
        ("too_shallow_per_period", "too shallow per period",
         lambda: ("menu", h["menu"]["too_shallow_per_period"])),
        ("irq_exit_latency_us", "IRQ exit latency (us)", lambda: ("teo", h["teo"]["irq_exit_latency_us"])),
    ]
    panels = [p for p in panels if all(p[0] in h[g] for g in govs)]
    fig, axes = plt.subplots(1, len(panels), figsize=(3 * len(panels), 4.2))
    for ax, (key, what, target) in zip(axes, panels):
        xs = range(len(govs))
        ax.bar(xs, [h[g][key] if finite(h[g][key]) else 0 for g in govs],
               color=[COLORS[g] for g in govs])
        for k, g in enumerate(govs):
            pts = []
            for t in tables:
                rs = [r for r in rows if r["table"] == t and r["governor"] == g]
                v = aggregate(rs)[key] if rs else None
                if finite(v):
                    pts.append(v)
            ax.plot([k] * len(pts), pts, "k.", markersize=4)
        who, v = target()
        if finite(v):
            ax.axhline(v, color="red", linestyle="--", linewidth=1)
            ax.annotate("target: <= " + who, (len(govs) - 0.5, v), color="red", fontsize="x-small",
                        ha="right", va="bottom")
        ax.set_xticks(list(xs), govs, fontsize="small")
        ax.set_title(what, fontsize="medium")
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("Held-out traces (%s), all tables; dots: each table" % ", ".join(names),
                 fontsize="medium")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "sim-heldout.png"), dpi=120)
    plt.close(fig)
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", help="the simulator's JSON (cpuidle-sim run --json)")
    ap.add_argument("outdir")
    ap.add_argument("--md", help="the simulator's report (cpuidle-sim run --md): link the plots at its end")
    args = ap.parse_args(argv)
    with open(args.json) as f:
        sim = json.load(f)
    os.makedirs(args.outdir, exist_ok=True)
    plot_regret(sim, args.outdir)
    plot_rates(sim, args.outdir)
    names = ["sim-regret.png", "sim-rates.png"]
    if plot_heldout(sim, args.outdir):
        names.append("sim-heldout.png")
    if args.md:
        with open(args.md, "a") as f:
            f.write("### Plots\n\n" + "".join("![%s](%s)\n\n" % (n[:-4], n) for n in names))
    print("sim-plots: %s in %s" % (", ".join(names), args.outdir))


if __name__ == "__main__":
    main()
