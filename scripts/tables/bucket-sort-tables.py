#!/usr/bin/env python3
"""Tables of scripts/study/bucket-sort.sh from the CSVs in OUT_DIR. Usage: bucket-sort-tables.py OUT_DIR"""
import csv, os, sys
out = sys.argv[1]
def rows(*names):
    got = []
    for name in names:
        path = os.path.join(out, name)
        if os.path.exists(path):
            got += list(csv.DictReader(open(path)))
    return got
def short(o):
    keep = [x for x in o.split(",") if x and x not in (
        "chunk=0", "cub_sample_sort=1", "inline_sampling=1", "radix_block_sort=1", "sublist=0", "faithful=0",
        "onchip=1", "sample_key_sort=1", "s=0", "radix_bits=5", "bucket_key_bits=1")]
    return ",".join(keep) or "default"
def ms(r): return float(r["median_ms"]) if r["median_ms"] else float("nan")
def key_of(r): return r["sorter"] + (" " + short(r["options"]) if r["sorter"] == "bucket-sort" else "")
print("== Fig. 3: time (ms) against s, uniform")
for r in rows("fig3-s.csv"):
    if r["sorter"] == "bucket-sort":
        print(f"  {int(r['n']) >> 20:3d}M  {short(r['options']):22s} {ms(r):8.3f}")
print("== Fig. 8: every distribution at 16M (ms)")
by = {}
for r in rows("fig8-dists.csv"):
    by.setdefault(key_of(r), {})[r["dist"]] = ms(r)
for key, d in by.items():
    lo, hi = min(d, key=d.get), max(d, key=d.get)
    print(f"  {key:28s} fastest {lo} {d[lo]:.3f}  slowest {hi} {d[hi]:.3f}  spread {d[hi] / d[lo]:.2f}x")
print("== Fig. 4/6: time (ms) against n, uniform; Fig. 5: steps")
table = {}
for r in rows("fig46-n.csv", "fig46-big.csv"):
    table.setdefault(key_of(r), {})[int(r["n"])] = (ms(r), r["steps"], r["check"])
sizes = sorted({n for d in table.values() for n in d})
print("  " + " " * 28 + "".join(f"{n >> 20:>9d}M" for n in sizes))
for key, d in table.items():
    print(f"  {key:28s}" + "".join(f"{d[n][0]:10.3f}" if n in d else "         -" for n in sizes))
merge = table.get("cub-merge", {})
radix = table.get("cub-radix", {})
for key, d in table.items():
    if key.startswith("bucket-sort") and 1 << 24 in d and 1 << 24 in merge:
        radix_16m = radix.get(1 << 24, (float("nan"),))[0]
        print(f"  {key}: cub-merge / bucket-sort at 16M = {merge[1 << 24][0] / d[1 << 24][0]:.2f}x"
              f" (goal >= 1.5x), cub-radix / bucket-sort = {radix_16m / d[1 << 24][0]:.2f}x")
        print("    steps at 16M: " + d[1 << 24][1].replace(";", "  "))
    if key.startswith("bucket-sort") and d:
        print(f"  {key}: largest n measured {max(d) >> 20}M")
# Device bytes per pair of the default (docs/algorithms/bucket-sort.md, "Memory per pair"): the
# caller's 16 plus the workspace, from the configuration rule of bucket_sort_sorter.cu.
print("  default device bytes per pair (caller's 16 + workspace):")
for n in sizes:
    L, tile = 8192, 16384
    m = -(-n // L)
    s = 16
    while s < -(-2 * m * L // tile): s *= 2
    s = min(s, 4096, L)
    gather = 2 * m * L // s <= tile
    work = 8 * n + (0 if gather else 8 * n) + m * s * (8 * 2 + 12)
    print(f"    {n >> 20:5d}M  s={s:5d} {'gather' if gather else 'reloc '}  {16 + work / n:6.1f}")
print("== deviations one at a time, 16M uniform (ms; steps)")
for r in rows("knobs.csv"):
    if r["sorter"] == "bucket-sort":
        print(f"  {short(r['options']):40s} {ms(r):7.3f}  " + r["steps"].replace(";", " "))
print("== checks (16M)")
for r in rows("check.csv"):
    print(f"  {r['sorter']:12s} {short(r['options']):22s} {r['dist']:10s} {r['check']}")
