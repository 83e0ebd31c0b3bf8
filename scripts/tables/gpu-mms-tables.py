#!/usr/bin/env python3
"""Tables of scripts/study/gpu-mms.sh from the CSVs in OUT_DIR. Usage: gpu-mms-tables.py OUT_DIR"""
import csv, sys, os
out = sys.argv[1]
def rows(name):
    path = os.path.join(out, name)
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []
print("== time against n (median ms, G pairs/s, ratio to cub-merge, check)")
for r in rows("n.csv") + rows("n256.csv"):
    print(f"{r['sorter']:10} {int(r['n']):>10} {float(r['median_ms']):9.3f} {float(r['gpairs_per_s']):6.2f}"
          f"  {r['check']}")
by = {}
for r in rows("n.csv") + rows("n256.csv"):
    by.setdefault(int(r['n']), {})[r['sorter']] = float(r['median_ms'])
for n, d in sorted(by.items()):
    if 'gpu-mms' in d and 'cub-merge' in d:
        print(f"   n={n:>10}: cub-merge / gpu-mms = {d['cub-merge'] / d['gpu-mms']:.2f}x")
for name in ("k.csv", "share.csv"):
    print(f"== {name}")
    for r in rows(name):
        if r['sorter'] == 'gpu-mms':
            print(f"{r['options']:70} {int(r['n']):>9} {float(r['median_ms']):9.3f}")
print("== per-round steps (median ms), default options")
for r in rows("n.csv"):
    if r['sorter'] == 'gpu-mms' and int(r['n']) in (1 << 20, 1 << 24):
        print(r['n'], r['steps'].replace(';', '  '))
