"""The speed-up plot next to bench/freetensor.md: per workload, teml (as
written, auto-scheduled and scheduled by hand) against PyTorch under each malloc setting, the same
turns as the table (PyTorch / teml, median over turns).

    /usr/bin/python3 bench/freetensor/plot.py [bench/freetensor.json]   # redraws bench/freetensor.png"""
import pathlib
import statistics
import sys

import matplotlib

matplotlib.use("Agg")  # no display here
import matplotlib.pyplot as plt  # noqa: E402

BARS = [("as written", "installed", "teml as written / PyTorch"),
        ("as written", "huge pages", "teml as written / PyTorch, huge pages"),
        ("auto", "installed", "teml auto / PyTorch"),
        ("auto", "huge pages", "teml auto / PyTorch, huge pages"),
        ("scheduled", "installed", "teml scheduled / PyTorch"),
        ("scheduled", "huge pages", "teml scheduled / PyTorch, huge pages")]


def speedups(record, png):
    names = list(record["workloads"])
    fig, ax = plt.subplots(figsize=(8, 4.5))
    width = 0.8 / len(BARS)
    for k, (variant, label, legend) in enumerate(BARS):
        values = []
        for name in names:
            r = record["workloads"][name]["results"][label]
            values.append(statistics.median(a / b for (a, _), (b, _) in zip(r["torch"], r[variant])))
        xs = [i + (k - (len(BARS) - 1) / 2) * width for i in range(len(names))]
        bars = ax.bar(xs, values, width, label=legend)
        ax.bar_label(bars, fmt="%.1f", fontsize=7)
    ax.axhline(3, color="gray", linestyle="--", linewidth=1)
    ax.text(len(names) - 0.5, 3, " 3x", va="center", fontsize=8, color="gray")
    ax.axhline(1, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("speed-up over PyTorch (log)")
    m = record["machine"]
    ax.set_title(f"Free-form workloads, 2 threads: {m['cpu']}, {m['date']}", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    import json
    path = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1] / "freetensor.json")
    speedups(json.loads(path.read_text()), path.with_suffix(".png"))
