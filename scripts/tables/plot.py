#!/usr/bin/python3
"""Turn depthsort-bench's CSV into PNG plots (Debian's python3-matplotlib; run with /usr/bin/python3).

    /usr/bin/python3 scripts/tables/plot.py results.csv [OUTDIR] [--title TEXT]

Writes, for every distribution D in the CSV (OUTDIR defaults to the CSV's folder):
  time_D.png        median sort time against n, one line per sorter (log-log), min..p90 shaded
  throughput_D.png  G pairs/s against n, one line per sorter (log-log)
  steps_D.png       per size, one bar per sorter stacked by its steps' median ms (sorters that
                    report a single step are one bar, "total")

The CSV is the one `depthsort-bench --csv FILE` writes (columns documented in its --help):
  sorter, options, baseline, backend, dist, n, reps, median_ms, min_ms, p90_ms, gpairs_per_s,
  vs_cub, check, steps ("name=ms;name=ms"), device
Rows with reps == 0 (skipped: out of memory, errors) are left out of the plots.

Each PNG is written to a temporary file in OUTDIR and renamed into place, so a plot is complete or
absent; a file that cannot be read or written exits 1 with its name and the system's reason.
"""

import argparse
import collections
import csv
import errno
import math
import os
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib import ticker  # noqa: E402


def number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return math.nan
    return value


def size_label(n):
    for shift, suffix in ((30, "G"), (20, "M"), (10, "K")):
        unit = 1 << shift
        if n >= unit and n % unit == 0:
            return f"{n // unit}{suffix}"
    return str(n)


def parse_steps(text):
    steps = []
    for item in (text or "").split(";"):
        if not item:
            continue
        name, _, ms = item.rpartition("=")
        steps.append((name, number(ms)))
    return steps


def option_labels(records):
    """(sorter, options) -> the options that tell the sorter's rows apart, or "" when it has one set.

    A sorter's full option list (every default spelled out) would not fit in a legend."""
    sets = {}
    for record in records:
        sets.setdefault(record["sorter"], {})[record.get("options") or ""] = None
    labels = {}
    for sorter, option_sets in sets.items():
        parsed = {text: dict(item.split("=", 1) for item in text.split(",") if "=" in item) for text in option_sets}
        names = {name for options in parsed.values() for name in options}
        varying = sorted(name for name in names if len({options.get(name) for options in parsed.values()}) > 1)
        for text, options in parsed.items():
            labels[(sorter, text)] = ",".join(f"{name}={options.get(name, '-')}" for name in varying)
    return labels


class OutputFailure(Exception):
    """A PNG or the output folder could not be written; the message names the file and reason."""


def follow_links(path):
    """Where writing path lands, as open() resolves it: path, or through a chain of symbolic links
    the last one's target, each relative target read against its own link's folder. The target
    need not exist. A loop raises OSError(ELOOP)."""
    current = path
    for _ in range(41):  # Linux follows at most 40 links in one lookup
        if not os.path.islink(current):
            return current
        current = os.path.join(os.path.dirname(current), os.readlink(current))
    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)


def save_atomically(fig, path):
    """Saves fig as a PNG at path: all of it or nothing (a temporary file, fsync, os.replace).
    A symbolic link at path is kept: the file it points to is created or replaced, in its folder."""
    real = follow_links(path)
    folder = os.path.dirname(real) or "."
    if real != path and not os.path.isdir(folder):
        raise OutputFailure(f"cannot write {path!r}: it is a symbolic link to {real!r}, "
                            f"whose folder {folder!r} does not exist")
    fd, temporary = tempfile.mkstemp(prefix="." + os.path.basename(real) + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as file:
            fig.savefig(file, format="png", dpi=120)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, 0o666 & ~current_umask())
        os.replace(temporary, real)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def save_png(fig, path):
    """save_atomically, its failure as OutputFailure naming the file; the figure closed either way."""
    try:
        save_atomically(fig, path)
    except OSError as error:
        raise OutputFailure(f"cannot write {path!r}: {describe(error)}") from error
    finally:
        plt.close(fig)
    return path


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def describe(error):
    return error.strerror or str(error) if isinstance(error, OSError) else str(error)


def read_rows(path):
    with open(path, newline="") as file:
        records = [record for record in csv.DictReader(line for line in file if not line.startswith("#"))
                   if int(record.get("reps") or 0) > 0]
    distinguishing = option_labels(records)
    rows = []
    for record in records:
        label = record["sorter"]
        options = distinguishing[(record["sorter"], record.get("options") or "")]
        if options:
            label += f" [{options}]"
        if record.get("baseline") == "1":
            label += " *"
        rows.append({
            "label": label,
            "baseline": record.get("baseline") == "1",
            "dist": record["dist"],
            "n": int(record["n"]),
            "median": number(record["median_ms"]),
            "min": number(record["min_ms"]),
            "p90": number(record["p90_ms"]),
            "gpairs": number(record["gpairs_per_s"]),
            "steps": parse_steps(record.get("steps")),
            "device": record.get("device", ""),
        })
    return rows


def series_by_label(rows):
    """label -> rows sorted by n, labels in the CSV's order with the baseline first."""
    series = collections.OrderedDict()
    for row in sorted(rows, key=lambda r: not r["baseline"]):
        series.setdefault(row["label"], []).append(row)
    for points in series.values():
        points.sort(key=lambda r: r["n"])
    return series


def style(label, index):
    marker = "os^vD<>ph*"[index % 10]
    if label.endswith(" *"):
        return {"color": "black", "linestyle": "--", "marker": marker, "linewidth": 2}
    return {"color": f"C{index % 10}", "marker": marker}


def decorate_log_n(ax, sizes):
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes)
    ax.set_xticklabels([size_label(n) for n in sizes])
    ax.minorticks_off()
    ax.set_xlabel("n (pairs)")
    ax.grid(True, which="major", alpha=0.3)


def plot_lines(rows, dist, title, out_dir, what):
    series = series_by_label(rows)
    sizes = sorted({r["n"] for r in rows})
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for index, (label, points) in enumerate(series.items()):
        ns = [p["n"] for p in points]
        if what == "time":
            ax.plot(ns, [p["median"] for p in points], label=label, **style(label, index))
            ax.fill_between(ns, [p["min"] for p in points], [p["p90"] for p in points],
                            color=style(label, index)["color"], alpha=0.15, linewidth=0)
        else:
            ax.plot(ns, [p["gpairs"] for p in points], label=label, **style(label, index))
    decorate_log_n(ax, sizes)
    ax.set_yscale("log")
    # Readable labels at 1, 2, 5 x 10^k instead of bare powers of ten.
    ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())
    if what == "time":
        ax.set_ylabel("median sort time (ms), shaded: min..p90")
        ax.set_title(f"{title}\nsort time, {dist} keys")
    else:
        ax.set_ylabel("throughput (G pairs/s, n / median)")
        ax.set_title(f"{title}\nthroughput, {dist} keys")
    ax.legend(fontsize="small", title="* = cub-radix baseline" if any(r["baseline"] for r in rows) else None,
              title_fontsize="small")
    fig.tight_layout()
    path = os.path.join(out_dir, f"{what}_{dist}.png")
    return save_png(fig, path)


def plot_steps(rows, dist, title, out_dir):
    series = series_by_label(rows)
    labels = list(series)
    sizes = sorted({r["n"] for r in rows})
    # One color per step name across the figure, in order of first appearance.
    step_names = []
    for row in rows:
        for name, _ in row["steps"] or [("total", row["median"])]:
            if name not in step_names:
                step_names.append(name)
    colors = {name: f"C{i % 10}" for i, name in enumerate(step_names)}
    if "total" in colors:
        colors["total"] = "0.6"

    legend_width = 2.6  # inches kept free at the right for the step legend
    width = max(3.5, 1.0 + 0.55 * len(labels)) * len(sizes) + legend_width
    fig, axes = plt.subplots(1, len(sizes), figsize=(width, 6), squeeze=False)
    for ax, n in zip(axes[0], sizes):
        at_n = {r["label"]: r for r in rows if r["n"] == n}
        for x, label in enumerate(labels):
            row = at_n.get(label)
            if row is None:
                ax.text(x, 0, "n/a", ha="center", va="bottom", fontsize="small", color="0.4")
                continue
            bottom = 0.0
            for name, ms in row["steps"] or [("total", row["median"])]:
                if math.isnan(ms):
                    continue
                ax.bar(x, ms, bottom=bottom, color=colors[name], edgecolor="white", linewidth=0.5)
                bottom += ms
            if row["steps"] and not math.isnan(row["median"]):
                # The event-timed total, for comparison with the sum of the steps.
                ax.plot([x - 0.4, x + 0.4], [row["median"]] * 2, color="black", linewidth=1)
        ax.set_xlim(-0.6, len(labels) - 0.4)
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=45, ha="right", fontsize="small")
        ax.set_title(f"n = {size_label(n)}")
        ax.set_ylabel("median ms")
        ax.grid(True, axis="y", alpha=0.3)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colors[name]) for name in step_names]
    handles.append(plt.Line2D([0], [0], color="black", linewidth=1))
    fig.legend(handles, step_names + ["sort total (events)"], loc="center right", fontsize="small")
    fig.suptitle(f"{title}\nper-step medians, {dist} keys")
    fig.tight_layout(rect=(0, 0, 1 - legend_width / width, 1))
    path = os.path.join(out_dir, f"steps_{dist}.png")
    return save_png(fig, path)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", help="CSV written by depthsort-bench --csv")
    parser.add_argument("out_dir", nargs="?", help="folder for the PNGs (default: the CSV's folder)")
    parser.add_argument("--title", help="title line (default: the device from the CSV)")
    args = parser.parse_args(argv)

    try:
        return plot_all(args)
    except OutputFailure as error:
        print(f"plot.py: {error}", file=sys.stderr)
        return 1


def plot_all(args):
    try:
        rows = read_rows(args.csv)
    except OSError as error:
        raise OutputFailure(f"cannot read {args.csv!r}: {describe(error)}") from error
    if not rows:
        print(f"plot.py: no measured rows in {args.csv}", file=sys.stderr)
        return 1
    out_dir = args.out_dir or os.path.dirname(os.path.abspath(args.csv))
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as error:
        raise OutputFailure(f"cannot create the folder {out_dir!r}: {describe(error)}") from error
    device = rows[0]["device"] or "unknown device"
    if device.startswith("none"):
        device = "the CPU only (no CUDA device)"
    title = args.title or f"depthsort-bench on {device}"
    if len(title) > 90:
        title = title[:87] + "..."

    written = []
    for dist in dict.fromkeys(r["dist"] for r in rows):
        at_dist = [r for r in rows if r["dist"] == dist]
        written.append(plot_lines(at_dist, dist, title, out_dir, "time"))
        written.append(plot_lines(at_dist, dist, title, out_dir, "throughput"))
        written.append(plot_steps(at_dist, dist, title, out_dir))
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
