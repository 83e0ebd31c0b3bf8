#!/usr/bin/env python3
"""Summary of scripts/study/hybrid.sh: one line per hybrid / cub-radix row of every CSV, with the
steps. Usage: hybrid-summary.py CSV..."""
import csv, re, sys
# Options at their defaults, left out of the lines.
DEFAULTS = (r"(atomic_count=0|buckets=0|global_merge=0|histogram_bins=1024|merge_outputs=0|refinements=1|shuffle=0"
            r"|word_merge=1)$")
for path in sys.argv[1:]:
    print("==", path.rsplit("/", 1)[-1])
    for r in csv.DictReader(open(path)):
        if r["sorter"] not in ("hybrid", "cub-radix") or not r["median_ms"]:
            continue
        steps = " ".join(f"{k}={float(v):.3f}" for k, v in (s.split("=") for s in r["steps"].split(";") if s))
        opts = ",".join(o for o in r["options"].split(",") if o and not re.match(DEFAULTS, o))
        print(f"{r['sorter'][:6]:6s} {opts[:40]:14s} {r['dist'][:9]:9s} {int(r['n']) >> 20:2d}M "
              f"{float(r['median_ms']):6.3f} x{float(r['vs_cub'] or 1):.2f} {r['check'][:4]:4s} "
              f"{steps if r['sorter'] == 'hybrid' else ''}")
