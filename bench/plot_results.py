#!/usr/bin/python3
"""The plot next to bench/results.md, from bench/results.json (the kernel
benchmark's last run; this script does not run it): per TeML kernel, the
speed-ups of the Table-2 schedule, teml's best hand schedule, the naive
program with --auto and hand-written C over the naive nest, with each
kernel's floor; and the iterator-language variants over their baselines.

    /usr/bin/python3 bench/plot_results.py      # writes bench/results.png"""
import json
import pathlib

import matplotlib

matplotlib.use("Agg")  # no display here
import matplotlib.pyplot as plt  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent


def main():
    rows = json.loads((HERE / "results.json").read_text())
    kernels = [r for r in rows if "best_speedup" in r]
    til = [r for r in rows if r["kernel"].startswith("til_")]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.5), gridspec_kw={"width_ratios": [3, 2]})
    xs = range(len(kernels))
    columns = (("table2_speedup", "Table 2 schedule"), ("best_speedup", "teml's best hand schedule"),
               ("auto_speedup", "naive program, --auto"), ("hand_written", "hand-written C (issue 3)"))
    width = 0.8 / len(columns)
    for k, (key, label) in enumerate(columns):
        offset = (k - (len(columns) - 1) / 2) * width
        bars = left.bar([x + offset for x in xs], [r.get(key, 0) for r in kernels], width, label=label)
        left.bar_label(bars, fmt="%.1f", fontsize=5)
    left.scatter(xs, [r["floor"] for r in kernels], marker="_", s=400, color="red", label="floor (issue 3)", zorder=3)
    left.set_xticks(list(xs), [r["kernel"] for r in kernels])
    left.set_yscale("log")
    left.set_ylabel("speed-up over the naive nest (log)")
    left.set_title("TeML kernels, 2 threads (naive: 1)", fontsize=10)
    left.legend(fontsize=8)
    labels = [f"{r['kernel'][4:]} N={r['N']}" for r in til]
    bars = right.bar(range(len(til)), [r["speedup"] for r in til], color="tab:green")
    right.bar_label(bars, fmt="%.1f", fontsize=7)
    right.set_xticks(range(len(til)), labels, rotation=45, ha="right", fontsize=8)
    right.set_yscale("log")
    right.set_title("2017 iterator language: over the naive interpolation (E)\n"
                    "and the sequential Helmholtz (L)", fontsize=10)
    fig.tight_layout()
    fig.savefig(HERE / "results.png", dpi=110)


if __name__ == "__main__":
    main()
