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

The CSV is read once, whole and bounded (a regular file or a pipe; a device, or a pipe with no
writer for 10 s, is refused) and checked before anything is drawn: a missing column, a value
that is not a number where one is needed (n a whole number from 1, reps one from 0) or bytes that
are not UTF-8 exit 1 naming the file, the line and the column. Every plot is drawn in memory
first, then each is written to a temporary file in OUTDIR and renamed into place, so a plot is
complete or absent and a drawing error writes none; a plot whose name (links followed) is the
CSV itself is refused before anything is written. Text from the CSV and --title is drawn as it
is written ("$" is not mathematics).
"""

import argparse
import collections
import csv
import errno
import io
import math
import os
import select
import stat
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib import ticker  # noqa: E402


# The largest CSV read: far above any benchmark's (a row is about 300 bytes).
MAX_CSV_BYTES = 256 << 20
# A pipe that delivers nothing for this long is refused rather than waited on forever.
PIPE_TIMEOUT_SECONDS = 10
REQUIRED_COLUMNS = ("sorter", "dist", "n", "reps", "median_ms", "min_ms", "p90_ms", "gpairs_per_s")


class InputFailure(Exception):
    """The CSV cannot be read or is not depthsort-bench's; the message names the file (and line)."""


def number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return math.nan
    return value


def plain_text(text):
    """Text drawn as written: matplotlib reads a pair of '$' as mathematics (and fails on one)."""
    return str(text).replace("$", r"\$")


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


def save_atomically(data, path):
    """Writes the bytes data at path: all of them or nothing (a temporary file, fsync, os.replace).
    A symbolic link at path is kept: the file it points to is created or replaced, in its folder."""
    real = follow_links(path)
    folder = os.path.dirname(real) or "."
    if real != path and not os.path.isdir(folder):
        raise OutputFailure(f"cannot write {path!r}: it is a symbolic link to {real!r}, "
                            f"whose folder {folder!r} does not exist")
    # The temporary name within the folder's longest name, however long the plot's own.
    longest = os.pathconf(folder, "PC_NAME_MAX") if os.path.isdir(folder) else 255
    prefix = ("." + os.path.basename(real))[:max(1, longest - 16)] + "."
    fd, temporary = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
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


def render_png(fig):
    """The figure as PNG bytes, drawn in memory; the figure closed either way."""
    try:
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=120)
        return buffer.getvalue()
    finally:
        plt.close(fig)


def save_png(data, path):
    """save_atomically, its failure as OutputFailure naming the file."""
    try:
        save_atomically(data, path)
    except OSError as error:
        raise OutputFailure(f"cannot write {path!r}: {describe(error)}") from error
    return path


def final_name(path):
    """The file writing path would replace: links followed to the end, the folder made canonical."""
    real = follow_links(path)
    return os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(real))), os.path.basename(real))


def same_file(a, b):
    try:
        if os.path.exists(a) and os.path.exists(b):
            return os.path.samefile(a, b)
        return final_name(a) == final_name(b)
    except OSError:
        return False


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def describe(error):
    return error.strerror or str(error) if isinstance(error, OSError) else str(error)


def read_input(path):
    """The bytes of path, read once: a regular file up to MAX_CSV_BYTES, or a pipe until its end
    (refused past MAX_CSV_BYTES or after PIPE_TIMEOUT_SECONDS without data); anything else (a
    device such as /dev/zero, a folder, a socket) is refused before reading."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as error:
        raise InputFailure(f"cannot read {path!r}: {describe(error)}") from error
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InputFailure(f"cannot read {path!r}: it is a folder, not a CSV file")
        pipe = stat.S_ISFIFO(mode)
        if not stat.S_ISREG(mode) and not pipe:
            raise InputFailure(f"cannot read {path!r}: it is not a regular file or a pipe (a device?); "
                               "only files and pipes are read")
        if stat.S_ISREG(mode) and os.fstat(fd).st_size > MAX_CSV_BYTES:
            raise InputFailure(f"cannot read {path!r}: it is larger than {MAX_CSV_BYTES >> 20} MiB, the limit")
        chunks, total = [], 0
        while True:
            if pipe:
                ready, _, _ = select.select([fd], [], [], PIPE_TIMEOUT_SECONDS)
                if not ready:
                    raise InputFailure(f"cannot read {path!r}: no data from the pipe for {PIPE_TIMEOUT_SECONDS} s "
                                       "(is anything writing to it?); refused rather than waiting forever")
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                break
            total += len(chunk)
            if total > MAX_CSV_BYTES:
                raise InputFailure(f"cannot read {path!r}: more than {MAX_CSV_BYTES >> 20} MiB of input, the limit")
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as error:
        raise InputFailure(f"cannot read {path!r}: {describe(error)}") from error
    finally:
        os.close(fd)


def read_records(path):
    """The CSV's rows as dicts, each with its line number ("_line"), every value checked."""
    data = read_input(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise InputFailure(f"{path}:{line}: not UTF-8 text (byte 0x{data[error.start]:02x}); "
                           "is it depthsort-bench's CSV?") from error
    lines = text.splitlines(keepends=True)
    numbers = [i + 1 for i, line in enumerate(lines) if not line.startswith("#")]
    reader = csv.DictReader(line for line in lines if not line.startswith("#"))
    try:
        header = reader.fieldnames or []
        missing = [column for column in REQUIRED_COLUMNS if column not in header]
        if missing:
            raise InputFailure(f"{path}: no column {', '.join(repr(c) for c in missing)} (columns: "
                               f"{', '.join(repr(c) for c in header) or 'none'}); is it depthsort-bench's CSV?")
        records = []
        for record in reader:
            line = numbers[min(reader.line_num, len(numbers)) - 1]

            def fail(column, wanted):
                raise InputFailure(f"{path}:{line}: column {column!r} is {record.get(column)!r}, not {wanted}")

            if None in record or any(record.get(column) is None for column in REQUIRED_COLUMNS):
                raise InputFailure(f"{path}:{line}: {len(header)} columns expected, the row has another count")
            if not record["n"].isdigit() or int(record["n"]) < 1:
                fail("n", "a whole number from 1")
            if not record["reps"].isdigit():
                fail("reps", "a whole number from 0")
            for column in ("median_ms", "min_ms", "p90_ms", "gpairs_per_s"):
                if record[column] != "" and record[column].lower() != "nan" and math.isnan(number(record[column])):
                    fail(column, "a number")
            record["_line"] = line
            records.append(record)
        return records
    except csv.Error as error:
        raise InputFailure(f"{path}:{numbers[min(reader.line_num, len(numbers)) - 1] if numbers else 1}: "
                           f"{error}") from error


def read_rows(path):
    records = [record for record in read_records(path) if int(record["reps"]) > 0]
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
            "label": plain_text(label),
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
        ax.set_title(f"{title}\nsort time, {plain_text(dist)} keys")
    else:
        ax.set_ylabel("throughput (G pairs/s, n / median)")
        ax.set_title(f"{title}\nthroughput, {plain_text(dist)} keys")
    ax.legend(fontsize="small", title="* = cub-radix baseline" if any(r["baseline"] for r in rows) else None,
              title_fontsize="small")
    fig.tight_layout()
    return os.path.join(out_dir, f"{what}_{dist}.png"), render_png(fig)


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
    shown_steps = [plain_text(name) for name in step_names]
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
    fig.legend(handles, shown_steps + ["sort total (events)"], loc="center right", fontsize="small")
    fig.suptitle(f"{title}\nper-step medians, {plain_text(dist)} keys")
    fig.tight_layout(rect=(0, 0, 1 - legend_width / width, 1))
    return os.path.join(out_dir, f"steps_{dist}.png"), render_png(fig)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", help="CSV written by depthsort-bench --csv")
    parser.add_argument("out_dir", nargs="?", help="folder for the PNGs (default: the CSV's folder)")
    parser.add_argument("--title", help="title line (default: the device from the CSV)")
    args = parser.parse_args(argv)

    try:
        return plot_all(args)
    except (OutputFailure, InputFailure) as error:
        print(f"plot.py: {error}", file=sys.stderr)
        return 1


def plot_all(args):
    rows = read_rows(args.csv)
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
    title = plain_text(title)

    # Every plot drawn before any is written: one that cannot be drawn costs none of the files.
    plots = []
    for dist in dict.fromkeys(r["dist"] for r in rows):
        at_dist = [r for r in rows if r["dist"] == dist]
        plots.append(plot_lines(at_dist, dist, title, out_dir, "time"))
        plots.append(plot_lines(at_dist, dist, title, out_dir, "throughput"))
        plots.append(plot_steps(at_dist, dist, title, out_dir))
    for path, _ in plots:
        if same_file(path, args.csv):
            raise OutputFailure(f"cannot write {path!r}: it is the input CSV {args.csv!r}; "
                                "give the plots another folder")
    for path, data in plots:
        save_png(data, path)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
