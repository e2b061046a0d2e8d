#!/usr/bin/python3
"""results.json -> results.png: baseline time / teml time per operation, one
bar per thread count, log scale, a line at 1.0 (above it teml is faster).
Failed or refused operations are marked where their bar would be.

    /usr/bin/python3 bench/ops/plot.py [bench/ops/results.json]"""
import json
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def draw(record, path):
    runs = record["runs"]
    names = [r["name"] for r in runs[0]["ops"]]
    for run in runs[1:]:
        names += [r["name"] for r in run["ops"] if r["name"] not in names]
    width = 0.8 / max(len(runs), 1)
    fig, ax = plt.subplots(figsize=(max(8, 0.7 * len(names) + 2), 5))
    ratios = [r["ratio"] for run in runs for r in run["ops"] if "ratio" in r]
    low = min(ratios + [0.5]) / 1.5
    for k, run in enumerate(runs):
        by_name = {r["name"]: r for r in run["ops"]}
        xs, ys = [], []
        for i, n in enumerate(names):
            r = by_name.get(n)
            x = i + (k - (len(runs) - 1) / 2) * width
            if r is None:
                continue
            if "ratio" in r:
                xs.append(x)
                ys.append(r["ratio"])
                ax.text(x, r["ratio"] * 1.05, f"{r['ratio']:.2f}", ha="center", va="bottom", fontsize=6, rotation=90)
            else:
                ax.text(x, low * 1.1, "failed", ha="center", va="bottom", fontsize=7, rotation=90, color="red")
        ax.bar(xs, ys, width, bottom=0, label=f"{run['threads']} thread(s)")
    ax.axhline(1.0, color="black", linewidth=1)
    ax.set_yscale("log")
    ax.set_ylim(bottom=low)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=45, ha="right")
    ax.set_ylabel("fastest baseline time / teml time  (>1: teml faster)")
    m = record["machine"]
    ax.set_title(f"teml (automatic schedule) vs NumPy/SciPy/PyTorch — {m['cpu']}, {m['cores']} cores"
                 + (" (quick sizes)" if record.get("quick") else ""), fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    src = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).with_name("results.json"))
    draw(json.loads(src.read_text()), src.with_suffix(".png"))
