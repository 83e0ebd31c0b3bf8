#!/usr/bin/env python3
"""Tables of scripts/study/satish-merge.sh from its CSVs. Usage: satish-merge-tables.py CSV..."""
import csv, sys
def sz(n):
    n = int(n)
    return f"{n >> 20}M" if n >= 1 << 20 else f"{n >> 10}K"
for path in sys.argv[1:]:
    rows = list(csv.DictReader(open(path)))
    if "dists" in path:
        continue
    print("==", path.rsplit("/", 1)[-1])
    merge = {(r["dist"], r["n"]): float(r["median_ms"]) for r in rows if r["sorter"] == "cub-merge" and r["median_ms"]}
    for r in rows:
        if r["sorter"] not in ("satish-merge", "cub-merge") or not r["median_ms"]:
            continue
        ms = float(r["median_ms"])
        steps = [s.split("=") for s in r["steps"].split(";") if s]
        parts = {"tile": 0.0, "split": 0.0, "tiles": 0.0}
        for name, v in steps:
            key = "tile" if name == "tile sort" else "split" if name.endswith("splitters") else "tiles"
            parts[key] += float(v)
        ratio = ms / merge[(r["dist"], r["n"])] if (r["dist"], r["n"]) in merge else float("nan")
        detail = (f"tile sort {parts['tile']:.3f} splitters {parts['split']:.3f} merge tiles {parts['tiles']:.3f}"
                  if steps else "")
        print(f"{r['sorter']:12s} {r['options'][:20]:20s} {sz(r['n']):>4s} {ms:8.3f} ms "
              f"{float(r['gpairs_per_s']):6.2f} G/s x{ratio:.2f} merge  {detail}")
