#!/usr/bin/python3
"""Plots of the hybrid sort's study (scripts/study/hybrid.sh): the L curve and the distributions.

    /usr/bin/python3 scripts/tables/hybrid-plots.py docs/results/hybrid

Reads hybrid-L.csv and hybrid-dists.csv from the folder (depthsort-bench --csv) and writes
L_curve.png (median time against L at each n, cub-radix as a dashed line) and dists.png (median
time at 16M for every distribution, hybrid and cub-radix side by side).
"""
import collections
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(path):
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if r["reps"] != "0"]


def option(r, name):
    for item in r["options"].split(","):
        if item.startswith(name + "="):
            return int(item.split("=")[1])
    return None


def main(folder):
    L = rows(os.path.join(folder, "hybrid-L.csv"))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for n in sorted({int(r["n"]) for r in L}):
        pts = sorted((option(r, "buckets"), float(r["median_ms"])) for r in L
                     if int(r["n"]) == n and r["sorter"] == "hybrid" and option(r, "buckets"))
        line, = ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"hybrid, n = {n >> 20}M")
        auto = [float(r["median_ms"]) for r in L
                if int(r["n"]) == n and r["sorter"] == "hybrid" and option(r, "buckets") == 0]
        if auto:
            ax.axhline(auto[0], color=line.get_color(), linestyle=":", label=f"auto L = n/2816, {n >> 20}M")
        cub = [float(r["median_ms"]) for r in L if int(r["n"]) == n and r["sorter"] == "cub-radix"]
        if cub:
            ax.axhline(cub[0], color=line.get_color(), linestyle="--", alpha=0.6, label=f"cub-radix, {n >> 20}M")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("L (buckets)")
    ax.set_ylabel("median ms")
    ax.set_title("hybrid: total time against L (H200, uniform pairs)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(folder, "L_curve.png"), dpi=110)

    D = rows(os.path.join(folder, "hybrid-dists.csv"))
    by = collections.defaultdict(dict)
    for r in D:
        by[r["dist"]][r["sorter"]] = float(r["median_ms"])
    dists = list(by)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.4
    for k, sorter in enumerate(["hybrid", "cub-radix"]):
        ax.bar([i + (k - 0.5) * width for i in range(len(dists))], [by[d].get(sorter, 0) for d in dists], width,
               label=sorter)
    ax.set_xticks(range(len(dists)))
    ax.set_xticklabels(dists, rotation=30, ha="right")
    ax.set_ylabel("median ms at 16M pairs")
    ax.set_title("hybrid on every distribution of the suite (H200, 16M pairs)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(folder, "dists.png"), dpi=110)
    print("wrote", os.path.join(folder, "L_curve.png"), os.path.join(folder, "dists.png"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/results/hybrid")
