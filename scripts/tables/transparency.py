#!/usr/bin/env python3
"""Tables of scripts/study/transparency.sh: each transparency mode's draw phases, frame and memory,
and the difference views' counts, from the runs' JSON in DIR/runs. Usage: transparency.py DIR"""
import glob, json, os, sys

d = sys.argv[1]
modes = ["sorted", "unsorted", "wboit", "reference"]


def count(n):  # binary, as the demo's counts: 5M = 5 x 2^20 (the knot builds a few more)
    return f"{n / 2**20:.1f}M" if n >= 2**20 else f"{n / 1024:.0f}K" if n >= 1024 else str(n)


phases = ["draw", "wboit accumulate", "wboit composite", "a-buffer build", "a-buffer resolve", "difference"]
timed, differences = [], []
for path in sorted(glob.glob(os.path.join(d, "runs", "*.json"))):
    name = os.path.basename(path)[:-5]
    try:
        j = json.load(open(path))
    except Exception as e:
        timed.append(((0, 0, 0), f"{name}: unreadable: {e}"))
        continue
    m, med = j.get("meta", {}), j.get("median_ms", {})
    triangles, particles = m.get("triangles", 0), m.get("particles", 0)
    scene = "intersect" if "intersect" in m.get("scene", "") else f"{count(triangles)} tri + {count(particles)} part"
    order = (triangles, m.get("width", 0), modes.index(m["transparency"]) if m.get("transparency") in modes else 9)
    size = f'{m.get("width")}x{m.get("height")}'
    mode = m.get("transparency", "?")
    if name.startswith("difference"):
        diff = m.get("difference", {})
        differences.append((order, f'| {scene} | {size} | {mode} | {diff.get("pixels", "?")} | '
                           f'{100 * diff.get("share", 0):.3f} % | {diff.get("largest", "?")}/255 | '
                           f'{diff.get("not_compared", "?")} |'))
        continue
    parts = [(p, med[f"frame/{p}"]) for p in phases if f"frame/{p}" in med]
    draw = sum(v for _, v in parts)
    compute = med.get("frame/compute", 0.0)
    memory = m.get("transparency_memory_bytes", {}).get(mode, 0)
    ab = m.get("abuffer")
    abuffer = (f'{count(ab["fragments"])} of {count(ab["budget_fragments"])}, deepest {ab["deepest_pixel"]}, '
               f'{ab["frames_over_budget"]}/{ab["frames_read"]} frames over' if ab else "")
    timed.append((order, f'| {scene} | {size} | {mode} | {draw:.2f} | '
                        f'{"; ".join(f"{p} {v:.2f}" for p, v in parts)} | {compute:.2f} | {draw + compute:.2f} | '
                        f'{memory / 2**20:.1f} | {abuffer} |'))

print("Each mode, medians over the frames (ms); memory: the mode's own storage (MiB; sorted: the sorter's")
print("workspace, the key/id pairs and the draw order); a-buffer: fragments of the last frame, its budget.\n")
print("| scene | size | mode | draw | draw phases | compute | draw + compute | memory MiB | a-buffer |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for _, row in sorted(timed):
    print(row if row.startswith("|") else f"| {row} |")
if differences:
    print("\nDifference view against the per-pixel reference (last frame; beyond 2/255 in a channel):\n")
    print("| scene | size | mode | pixels | share | largest | not compared |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    print("\n".join(row for _, row in sorted(differences)))
