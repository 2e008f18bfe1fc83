#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turns `vksort bench --json` results into PNG charts.

    python3 scripts/plot_bench.py RESULTS.json [MORE.json ...] --out DIR [--prefix NAME]

Writes into DIR:
  time_vs_n.png     GPU ms (median, min..max as error bars) against n, one line per configuration
                    (algorithm, key type, values, order), one panel per input distribution;
  rate_vs_n.png     millions of keys per second against n, same layout;
  roofline.png      the sort's share of the device's copy bandwidth against n (vksort bench's copy%);
  phases.png        per-phase share of the GPU time of every configuration at its largest n, stacked,
                    with the total ms on top.
Several files may be given (e.g. two devices): their configurations are labelled with the device.
A configuration has one colour and marker in every panel and chart; legends sit beside the panels,
never on the data; every phase has a colour of its own.
Needs matplotlib (Debian: python3-matplotlib). Exits 2 with a message on unreadable or foreign input.
"""
import argparse
import contextlib
import os
import sys
import tempfile

try:
    import matplotlib

    matplotlib.use("Agg")  # headless: files only
    import matplotlib.pyplot as plt
except ImportError:  # pragma: no cover - depends on the machine
    sys.exit("plot_bench.py: matplotlib is missing (Debian/Ubuntu: apt-get install python3-matplotlib)")

# What a vksort bench JSON must hold is checked in one place, bench_runs.py beside this script, which the
# run-folder summaries (gpu_*_summary.py) share; the tests load this file by path, so name its folder.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_runs import BenchFileError, read_bench  # noqa: E402


def fail(message):
    print("plot_bench.py: " + message, file=sys.stderr)
    sys.exit(2)


def load(paths):
    """All cases of all files, each with the device name and a configuration label."""
    cases = []
    devices = set()
    for path in paths:
        try:
            doc = read_bench(path)
        except BenchFileError as e:
            fail(str(e))
        device = doc["device"].get("name", "?")
        devices.add(device)
        for c in doc["results"]:
            c = dict(c)
            c["device"] = device
            cases.append(c)
    if not cases:
        fail("no results in " + ", ".join(paths))
    # A device without timestamps writes gpu_ms null in every result: the charts would be empty axes.
    if not any(c.get("gpu_ms") for c in cases):
        fail("no GPU times in " + ", ".join(paths) + " (gpu_ms is null in every result: the device has no "
             "timestamps); nothing to chart")
    for c in cases:
        label = f"{c['algorithm']} {c['key']}{'+values' if c.get('values') else ''}"
        if (c.get("value_bytes") or 0) > 4:  # records (bench --value-bytes): their size tells the lines apart
            label = f"{c['algorithm']} {c['key']}+{c['value_bytes']}B"
        if c.get("order") == "descending":
            label += " desc"
        # Sample sort runs with different s (Dehne & Zaboli, Figure 8) are different lines.
        samples = (c.get("facts") or {}).get("samples")
        if c["algorithm"] == "sample" and samples:
            label += f" s={int(samples)}"
        if len(devices) > 1:
            label += f" [{c['device']}]"
        c["label"] = label
    return cases


# Distinct colours: matplotlib's tab20 in the order dark/light pairs come (0, 2, ..., 18, 1, 3, ...), so
# the first ten are tab10's; beyond 20, the colours repeat with another marker or hatch.
_TAB20 = [matplotlib.colormaps["tab20"](i) for i in list(range(0, 20, 2)) + list(range(1, 20, 2))]
_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
_HATCHES = ["", "//", "..", "xx", "\\\\", "oo"]


def series_styles(labels):
    """{label: (colour, marker)} for every label, the same in every panel and chart of a run."""
    return {label: (_TAB20[i % 20], _MARKERS[(i // 20) % len(_MARKERS)]) for i, label in enumerate(sorted(set(labels)))}


def phase_styles(names):
    """{phase: (colour, hatch)}: no two phases alike."""
    return {name: (_TAB20[i % 20], _HATCHES[(i // 20) % len(_HATCHES)]) for i, name in enumerate(names)}


def legend_beside(fig, handles, labels):
    """One legend for the whole figure, right of the panels, so it covers no data."""
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7, frameon=False)


def by(items, key):
    groups = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups


def panels_figure(cases, value, ylabel, title, logy=True, errors=False):
    styles = series_styles(c["label"] for c in cases)
    shown = {}  # label -> a handle for the figure's legend
    dists = by(cases, lambda c: c["distribution"])
    cols = min(3, len(dists))
    rows = (len(dists) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 3.8 * rows), squeeze=False)
    for ax, (dist, items) in zip(axes.flat, sorted(dists.items())):
        for label, series in sorted(by(items, lambda c: c["label"]).items()):
            # One point per n (a suite may measure the same configuration twice): the first.
            first = {}
            for c in series:
                if value(c) is not None and c["n"] not in first:
                    first[c["n"]] = c
            points = sorted(((n, value(c), c) for n, c in first.items()), key=lambda p: p[0])
            if not points:
                continue
            xs = [p[0] for p in points]
            ys = [p[1] for p in points]
            colour, marker = styles[label]
            if errors:
                lo = [p[1] - p[2]["gpu_ms"]["min"] for p in points]
                hi = [p[2]["gpu_ms"]["max"] - p[1] for p in points]
                handle = ax.errorbar(xs, ys, yerr=[lo, hi], color=colour, marker=marker, capsize=3, label=label)
            else:
                (handle,) = ax.plot(xs, ys, color=colour, marker=marker, label=label)
            shown.setdefault(label, handle)
        ax.set_xscale("log", base=2)
        if logy:
            ax.set_yscale("log")
        ax.set_title(dist)
        ax.set_xlabel("n (keys)")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
    for ax in list(axes.flat)[len(dists):]:
        ax.set_visible(False)
    fig.suptitle(title)
    fig.tight_layout()
    labels = sorted(shown)
    legend_beside(fig, [shown[label] for label in labels], labels)
    return fig


def phases_figure(cases, title):
    largest = {}
    for c in cases:
        if not c.get("phases_ms"):
            continue
        k = (c["label"], c["distribution"])
        if k not in largest or c["n"] > largest[k]["n"]:
            largest[k] = c
    if not largest:
        fig, ax = plt.subplots(figsize=(6, 2))
        ax.text(0.5, 0.5, "no per-phase times (device without timestamps)", ha="center")
        ax.axis("off")
        return fig
    rows = sorted(largest.values(), key=lambda c: (c["label"], c["distribution"]))
    names = []
    for c in rows:
        for p in c["phases_ms"]:
            if p not in names:
                names.append(p)
    # Shares of the total, so that fast and slow configurations read alike; the total is written on top.
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(rows) + 2), 4.5))
    totals = [sum((v or {}).get("median", 0.0) for v in c["phases_ms"].values()) or 1.0 for c in rows]
    bottoms = [0.0] * len(rows)
    styles = phase_styles(names)
    for p in names:
        heights = [100 * (c["phases_ms"].get(p) or {}).get("median", 0.0) / t for c, t in zip(rows, totals)]
        colour, hatch = styles[p]
        ax.bar(range(len(rows)), heights, bottom=bottoms, label=p, color=colour, hatch=hatch, edgecolor="white", linewidth=0.3)
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    for x, t in enumerate(totals):
        ax.text(x, 101, f"{t:.3g} ms", ha="center", va="bottom", fontsize=7)
    ax.set_ylim(0, 112)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([f"{c['label']}\n{c['distribution']} n={c['n']}" for c in rows], rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("% of the GPU time (median per phase)")
    ax.set_title(title)
    fig.tight_layout()
    handles, labels = ax.get_legend_handles_labels()
    legend_beside(fig, handles[::-1], labels[::-1])  # top to bottom, as the stack
    return fig


def median_ms(c):
    return c["gpu_ms"]["median"] if c.get("gpu_ms") else None


def main():
    parser = argparse.ArgumentParser(description="Charts from vksort bench JSON files")
    parser.add_argument("results", nargs="+", help="JSON files written by vksort bench --json / --out")
    parser.add_argument("--out", required=True, help="folder for the PNG files (created if missing)")
    parser.add_argument("--prefix", default="", help="prefix of the file names, e.g. 'lavapipe_'")
    args = parser.parse_args()
    cases = load(args.results)
    devices = sorted({c["device"] for c in cases})
    title = "vksort on " + ", ".join(devices)
    # The folder is checked before any chart is drawn: it exists (or is made) and takes a file.
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        fail(f"--out {args.out}: not a folder")
    try:
        os.makedirs(args.out, exist_ok=True)
        tempfile.TemporaryFile(dir=args.out).close()
    except OSError as e:
        fail(f"--out {args.out}: cannot write a file there ({e.strerror or e})")
    umask = os.umask(0)
    os.umask(umask)
    out = lambda name: os.path.join(args.out, args.prefix + name)
    charts = [
        ("time_vs_n.png", lambda: panels_figure(cases, median_ms, "GPU ms (median, min..max)", title + ": time", errors=True)),
        ("rate_vs_n.png", lambda: panels_figure(cases, lambda c: c.get("mkeys_per_s"), "Mkeys/s", title + ": throughput")),
        ("roofline.png", lambda: panels_figure(
            cases, lambda c: None if c.get("roofline_fraction") is None else 100 * c["roofline_fraction"],
            "% of copy bandwidth", title + ": share of a copy's speed")),
        ("phases.png", lambda: phases_figure(cases, title + ": phases at the largest n")),
    ]
    # Each chart goes to a hidden temporary file beside its destination; only when all four are drawn do
    # they replace the destinations, so a failure leaves the folder as it was (no mix of old and new).
    written = []
    try:
        for name, draw in charts:
            fd, temp = tempfile.mkstemp(dir=args.out, prefix=f".{args.prefix}{name}.", suffix=".tmp")
            os.close(fd)
            os.chmod(temp, 0o666 & ~umask)  # as open() would make it, not mkstemp's 0600
            written.append((temp, out(name)))
            fig = draw()
            try:
                fig.savefig(temp, format="png", dpi=110, bbox_inches="tight")
            finally:
                plt.close(fig)
        for temp, final in written:
            os.replace(temp, final)
    except OSError as e:
        for temp, _ in written:
            with contextlib.suppress(OSError):
                os.remove(temp)
        print(f"plot_bench.py: --out {args.out}: {e.strerror or e}", file=sys.stderr)
        sys.exit(1)
    for name, _ in charts:
        print(out(name))

if __name__ == "__main__":
    main()
