"""The plots of eval/RESULTS.md, drawn with matplotlib from .cache/eval/results.json (run.mjs).

    python3 eval/plot.py .cache/eval/results.json eval/

    python3 eval/plot.py --summaries .cache/eval/summaries.json eval/

Writes recall.svg (evidence recall against budget, one panel per dataset, one line per strategy)
and position.svg (where kept evidence lands in the prompt at a 10 % budget); with --summaries,
summaries.svg from eval/summaries.mjs (evidence recall against predicted cost relative to cutting
only, one panel per dataset, one marker per strategy, filled at 10 % and open at 20 %). The SVGs
are byte-stable for the same figures: fixed hash salt, no date, text kept as text.
"""

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams.update({"svg.hashsalt": "ctxpack-eval", "svg.fonttype": "none", "font.size": 9})
METADATA = {"Date": None, "Creator": "eval/plot.py (matplotlib)"}
MARKERS = "os^vD<>pPX*h"


def style(i, name):
    """fitMessages' defaults stand out; baselines dashed; the fragment strategies thin."""
    if name.startswith("fitMessages"):
        return {"color": "black", "linewidth": 2.4, "marker": "o", "zorder": 5}
    dashed = not name.startswith("selectFragments")
    return {"color": plt.cm.tab10(i % 10), "linewidth": 1.2, "marker": MARKERS[i % len(MARKERS)],
            "linestyle": "--" if dashed else "-", "markersize": 4}


def save_with_legend(fig, axes, out, ncol, bottom):
    """The first panel's legend below the panels, then the SVG (byte-stable: METADATA)."""
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=ncol, frameon=False)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    fig.savefig(out, metadata=METADATA)
    plt.close(fig)


def recall_plot(data, out):
    budgets = data["budgets"]
    datasets = [d for d, _ in data["datasets"]]
    fig, axes = plt.subplots(1, len(datasets), figsize=(4.2 * len(datasets), 4.2), sharey=True)
    for ax, d in zip(axes, datasets):
        for i, s in enumerate(data["strategies"]):
            cells = [data["results"][s][d][str(b)] for b in budgets]
            ys = [100 * c["kept"] / c["evidence"] if c["evidence"] else 0 for c in cells]
            ax.plot([100 * b for b in budgets], ys, label=s, **style(i, s))
        ax.set_title(d)
        ax.set_xscale("log")
        ax.set_xticks([100 * b for b in budgets], [f"{100 * b:g} %" for b in budgets])
        ax.minorticks_off()
        ax.set_xlabel("budget (share of the history)")
        ax.set_ylim(-3, 103)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("evidence turns kept (%)")
    save_with_legend(fig, axes, out, ncol=4, bottom=0.16)


def position_plot(data, out):
    names = data["strategies"]
    positions = data["positions"]
    counts = {p: [] for p in positions}
    for s in names:
        for p in positions:
            counts[p].append(sum(data["results"][s][d]["0.1"][p] for d, _ in data["datasets"]))
    fig, ax = plt.subplots(figsize=(8, 4.6))
    left = [0] * len(names)
    colours = {"start": "#4c72b0", "middle": "#c44e52", "end": "#55a868"}
    for p in positions:
        ax.barh(names, counts[p], left=left, label=p, color=colours.get(p))
        left = [a + b for a, b in zip(left, counts[p])]
    ax.invert_yaxis()
    ax.set_xlabel("kept evidence turns at a 10 % budget, by where they land in the prompt")
    ax.legend(title="third of the prompt", frameon=False, loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, metadata=METADATA)
    plt.close(fig)


def summaries_plot(data, out):
    datasets = data["datasets"]
    fig, axes = plt.subplots(1, len(datasets), figsize=(4.2 * len(datasets), 4.4), sharey=True)
    for ax, (d, title) in zip(axes, datasets):
        for i, s in enumerate(data["strategies"]):
            colour = plt.cm.tab10(i % 10)
            for b in data["budgets"]:
                p = data["points"][d][s][str(b)]
                filled = b == data["budgets"][0]
                ax.plot([p["cost"]], [100 * p["recall"]], MARKERS[i % len(MARKERS)], color=colour, markersize=7,
                        markerfacecolor=colour if filled else "none",
                        label=f"{s}" if filled else None)
        ax.set_title(d)
        ax.set_xlabel("predicted cost (cutting only = 1)")
        ax.set_ylim(-3, 103)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("evidence recall (%): filled 10 %, open 20 % budget")
    save_with_legend(fig, axes, out, ncol=3, bottom=0.14)


def main():
    if sys.argv[1] == "--summaries":
        out = Path(sys.argv[3]) / "summaries.svg"
        summaries_plot(json.loads(Path(sys.argv[2]).read_text()), out)
        print(f"wrote {out}")
        return
    data = json.loads(Path(sys.argv[1]).read_text())
    out = Path(sys.argv[2])
    recall_plot(data, out / "recall.svg")
    position_plot(data, out / "position.svg")
    print(f"wrote {out / 'recall.svg'} and {out / 'position.svg'}")


if __name__ == "__main__":
    main()
