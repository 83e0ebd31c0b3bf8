#!/usr/bin/env python3
"""Turns Nsight Compute raw CSV exports (ncu --csv --page raw --print-units base) into the per-step
table scripts/profile.sh prints: each step's kernels, DRAM bytes read and written per pair, and the
achieved bandwidth as a fraction of a plain device-to-device copy kernel profiled in the same run.

  profile_table.py --title TEXT --pairs N --whole ALL.csv --copy COPY.csv \
                   [--step LABEL=STEP.csv ...] [--copy-note TEXT]

ALL.csv holds every profiled kernel of the sort (or frame); each STEP.csv the kernels its NVTX
range selected (the same IDs); COPY.csv the reference copy's kernels. Kernels of ALL.csv that no
step claims are listed as "(outside the steps)". Standard library only.
"""
import argparse
import csv
import sys

READ, WRITE, TIME = "dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum"


class TableError(Exception):
    pass


def number(text, column, where):
    cleaned = (text or "").replace(",", "").strip()
    try:
        return float(cleaned)
    except ValueError:
        raise TableError(f"{where}: column {column} is not a number: {text!r}") from None


def read_kernels(path):
    """{ID: (kernel name, bytes read, bytes written, duration ns)} of an ncu raw CSV; {} if it has no rows."""
    try:
        with open(path, newline="") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise TableError(f"cannot read {path}: {e.strerror}") from None
    # ncu prints its own notes (==PROF==, ==WARNING==) before the table when they share a stream.
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        if any(line.strip() and not line.startswith("==") for line in lines):
            raise TableError(f"{path}: no ncu raw CSV header (a line starting \"ID\") found")
        return {}
    rows = list(csv.reader(lines[start:]))
    header = rows[0]
    for needed in ("ID", "Kernel Name", READ, WRITE, TIME):
        if needed not in header:
            raise TableError(f"{path}: no column {needed!r} (profile with --metrics {READ},{WRITE},{TIME})")
    at = {name: header.index(name) for name in ("ID", "Kernel Name", READ, WRITE, TIME)}
    kernels = {}
    for line_number, row in enumerate(rows[1:], start=start + 2):
        if len(row) < len(header):
            continue
        if row[at["ID"]].strip() == "":  # the units row under the header
            unit_read, unit_time = row[at[READ]], row[at[TIME]]
            if unit_read not in ("", "byte") or unit_time not in ("", "nsecond", "ns"):
                raise TableError(f"{path}: units {unit_read!r} and {unit_time!r}; export with --print-units base")
            continue
        where = f"{path} line {line_number}"
        kernels[row[at["ID"]]] = (row[at["Kernel Name"]], number(row[at[READ]], READ, where),
                                  number(row[at[WRITE]], WRITE, where), number(row[at[TIME]], TIME, where))
    return kernels


def short_name(name):
    """cub::DeviceRadixSortOnesweepKernel<...>(...) -> DeviceRadixSortOnesweepKernel"""
    name = name.replace("(anonymous namespace)::", "")
    cut = len(name)
    for stop in "<(":
        if stop in name:
            cut = min(cut, name.index(stop))
    base = name[:cut].strip()
    if base.startswith("void "):
        base = base[5:]
    return base.rsplit("::", 1)[-1] or name


def kernels_text(kernels):
    counts = {}
    for name, *_ in kernels:
        key = short_name(name)
        counts[key] = counts.get(key, 0) + 1
    return ", ".join(f"{k} x{c}" if c > 1 else k for k, c in counts.items())


def totals(kernels):
    return (sum(k[1] for k in kernels), sum(k[2] for k in kernels), sum(k[3] for k in kernels))


def gbps(read, write, ns):
    return (read + write) / ns if ns > 0 else float("nan")  # bytes per ns = GB/s


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--title", required=True)
    parser.add_argument("--pairs", type=int, required=True, help="n: the bytes are divided by it")
    parser.add_argument("--whole", required=True)
    parser.add_argument("--copy", required=True)
    parser.add_argument("--copy-note", default="")
    parser.add_argument("--step", action="append", default=[], metavar="LABEL=CSV")
    args = parser.parse_args(argv)
    if args.pairs <= 0:
        raise TableError(f"--pairs must be positive, got {args.pairs}")

    whole = read_kernels(args.whole)
    if not whole:
        raise TableError(f"{args.whole}: no kernels were profiled (did the NVTX filter select nothing?)")
    copy = read_kernels(args.copy)
    if not copy:
        raise TableError(f"{args.copy}: the reference copy was not profiled")
    copy_read, copy_write, copy_ns = totals(copy.values())
    copy_bw = gbps(copy_read, copy_write, copy_ns)

    rows, claimed = [], set()
    for spec in args.step:
        label, sep, path = spec.partition("=")
        if not sep:
            raise TableError(f"--step {spec!r}: expected LABEL=CSV")
        kernels = read_kernels(path)
        unknown = set(kernels) - set(whole)
        if unknown:
            raise TableError(f"{path}: kernel IDs {sorted(unknown)[:5]} of step {label!r} are not in {args.whole}")
        twice = claimed & set(kernels)
        if twice:
            raise TableError(f"kernel IDs {sorted(twice, key=int)[:5]} were selected for step {label!r} and an earlier "
                             "step too: the steps' NVTX filters did not separate them")
        claimed |= set(kernels)
        rows.append((label, [whole[i] for i in sorted(kernels, key=int)]))
    outside = [whole[i] for i in sorted(set(whole) - claimed, key=int)]
    if outside:
        rows.append(("(outside the steps)", outside))
    n = args.pairs
    label_width = max([len("step")] + [len(label) for label, _ in rows] + [len("reference copy")])
    print(args.title)
    print(f"  {len(whole)} kernels profiled; n = {n} pairs; B/pair = DRAM bytes / n; GB/s and 'of copy' from "
          "profiler kernel times")
    print(f"  profiler times: kernels serialised, each replayed alone with caches flushed, clocks as the card set them "
          f"(--clock-control none); the benchmark's CUDA-event times are the reference for speed")
    head = (f"  {'step':<{label_width}}  {'read B/pair':>11}  {'write B/pair':>12}  {'profiler us':>11}"
            f"  {'GB/s':>7}  {'of copy':>7}  kernels")
    print(head)
    print("  " + "-" * (len(head) - 2))

    def line(label, kernels):
        read, write, ns = totals(kernels)
        bw = gbps(read, write, ns)
        share = bw / copy_bw if copy_bw > 0 else float("nan")
        print(f"  {label:<{label_width}}  {read / n:>11.2f}  {write / n:>12.2f}  {ns / 1000:>11.1f}  {bw:>7.0f}  "
              f"{share:>7.2f}  {kernels_text(kernels) if kernels else '(no kernels)'}")

    for label, kernels in rows:
        line(label, kernels)
    print("  " + "-" * (len(head) - 2))
    line("all kernels", list(whole.values()))
    line("reference copy", list(copy.values()))
    if args.copy_note:
        print(f"  ({args.copy_note})")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except TableError as e:
        print(f"profile_table.py: {e}", file=sys.stderr)
        sys.exit(1)
