#!/usr/bin/env python3
"""Tables of scripts/study/satish-radix.sh: per-phase sums of the steps, from the CSVs in OUT_DIR.
Usage: satish-radix-tables.py OUT_DIR"""
import csv, sys
out = sys.argv[1]
def rows(name):
    try:
        return list(csv.DictReader(open(f"{out}/{name}")))
    except FileNotFoundError:
        print("missing", name); return []
def phases(r):
    agg = {}
    for item in filter(None, r["steps"].split(";")):
        k, v = item.rsplit("=", 1)
        ph = k.split(" ", 2)[2] if k.startswith("pass ") else k
        agg[ph] = agg.get(ph, 0.0) + float(v)
    return " ".join(f"{k}={v:.3f}" for k, v in agg.items())
def size(n):
    n = int(n); return f"{n >> 20}M" if n >= 1 << 20 else f"{n >> 10}K"
print("== time and rate against n (uniform)")
for r in rows("satish-radix-n.csv"):
    opt = "cub-radix" if r["sorter"] == "cub-radix" else r["options"]
    print(f"{size(r['n']):>4} {opt[:44]:44s} {float(r['median_ms']):8.3f} ms {float(r['gpairs_per_s']):6.2f} G/s"
          f" x{float(r['vs_cub'] or 1):.2f}")
print("== 16M uniform, every b / tile / arrangement (per-phase sums of the per-pass medians)")
best = None
for r in rows("satish-radix-b.csv"):
    if r["sorter"] != "satish-radix":
        print(f"cub-radix {float(r['median_ms']):.3f} ms"); continue
    ms = float(r["median_ms"])
    best = min(best or (ms, r["options"]), (ms, r["options"]))
    print(f"{r['options'][:50]:50s} {ms:7.3f} ms x{float(r['vs_cub']):.2f}  {phases(r)}")
if best: print(f"best at 16M: {best[1]} {best[0]:.3f} ms")
print("== 4M, every distribution, default options, checked")
for r in rows("satish-radix-dists.csv"):
    if r["sorter"] == "satish-radix":
        print(f"{r['dist']:14s} {float(r['median_ms']):7.3f} ms x{float(r['vs_cub']):.2f} {r['check'][:30]}")
