#!/usr/bin/env python3
"""Table of scripts/demo-views-gpu.sh: sort steps from scratch vs coherent, from the JSON runs in
OUT_DIR, as Markdown on stdout. Usage: demo-views-sort.py OUT_DIR"""
import glob, json, os, statistics, sys
d = sys.argv[1]
runs = {}
for path in glob.glob(os.path.join(d, "sort-*.json")):
    try:
        j = json.load(open(path))
    except Exception:
        continue
    m = j["meta"]
    times = [f.get("frame/sort") for f in j["frames"] if f.get("frame/sort") is not None]
    cut_times = [f["frame/sort"] for f in j["frames"] if f["frame"] > 0 and f["frame"] % 30 == 0]
    runs[(m["camera_path"], m["sorter"], "coherent" if m["coherent"] else "scratch")] = (j, times, cut_times)
def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))] if v else float("nan")
print("| path | sorter | mode | sort median ms | p90 | slowest | x cub-radix (scratch) | depth median ms "
      "| order checks |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for (path, sorter, mode), (j, times, cut_times) in sorted(runs.items()):
    base = runs.get((path, "cub-radix", "scratch"))
    med = statistics.median(times) if times else float("nan")
    ratio = med / statistics.median(base[1]) if base and base[1] else float("nan")
    m = j["meta"]
    print(f"| {path} | {sorter} | {mode} | {med:.3f} | {q(times, 0.9):.3f} | {max(times or [float('nan')]):.3f} | "
          f"{ratio:.2f}x | {j['median_ms'].get('frame/depth', float('nan')):.3f} | "
          f"{m['order_checks'] - m['order_check_failures']}/{m['order_checks']} |")
hyb = runs.get(("cuts", "hybrid", "scratch"))
if hyb and hyb[2]:
    ref = statistics.median(hyb[2])
    print()
    print(f"Cut frames (cuts path, every 30th frame): hybrid from scratch median {ref:.3f} ms on them.")
    print()
    print("| sorter | mode | cut frames median ms | slowest cut frame | median / hybrid's "
          "| slowest / hybrid's median |")
    print("| --- | --- | --- | --- | --- | --- |")
    for (path, sorter, mode), (j, times, cut_times) in sorted(runs.items()):
        if path == "cuts" and cut_times:
            med = statistics.median(cut_times)
            slowest = max(cut_times)
            print(f"| {sorter} | {mode} | {med:.3f} | {slowest:.3f} | {med / ref:.2f}x | {slowest / ref:.2f}x |")
