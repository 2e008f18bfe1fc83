# SPDX-License-Identifier: MIT
"""scripts/plot_bench.py's charts read right: a configuration keeps its colour and marker in every
panel (even where panels show different sets of configurations), no two configurations or phases look
alike, and no legend lies over a panel.

    python3 tests/plot_styles_test.py scripts/plot_bench.py
"""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("plot_bench", sys.argv[1])
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)
from matplotlib.colors import to_hex  # after the script chose its backend

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def case(label, dist, n, phases=None):
    ms = 1.0 + n / 1000
    return {"label": label, "distribution": dist, "n": n, "gpu_ms": {"median": ms, "min": ms * 0.9, "max": ms * 1.1},
            "mkeys_per_s": n / ms / 1e3, "phases_ms": phases or {}}


# 23 configurations (more than 20 colours), each panel showing a different subset of them: a colour
# cycle per panel would give one configuration different colours in different panels.
labels = [f"algo{i:02d} u32" for i in range(23)]
cases = []
for d, dist in enumerate(["sorted", "uniform", "zipf"]):
    for i, label in enumerate(labels):
        if (i + d) % 3 != 0:
            cases += [case(label, dist, n) for n in (1000, 4000)]

for errors in (False, True):
    fig = plot.panels_figure(cases, lambda c: c["gpu_ms"]["median"], "ms", "test", errors=errors)
    fig.canvas.draw()
    styles = {}
    for ax in fig.axes:
        # A plain line carries its label; an error bar's container does, and its first line is the data.
        drawn = [(c.get_label(), c.lines[0]) for c in ax.containers] if errors else [(l.get_label(), l) for l in ax.get_lines()]
        for label, line in drawn:
            style = (to_hex(line.get_color()), line.get_marker())
            check(styles.setdefault(label, style) == style, f"{label}: {styles[label]} in one panel, {style} in another")
    check(len(styles) == len(labels), f"{len(styles)} configurations drawn, {len(labels)} given")
    check(len(set(styles.values())) == len(styles), "two configurations share a colour and marker")
    renderer = fig.canvas.get_renderer()
    legends = fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    check(len(legends) == 1, f"{len(legends)} legends, expected one for the figure")
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for ax in fig.axes:
            if ax.get_visible():
                check(not box.overlaps(ax.get_window_extent(renderer)), f"the legend covers the panel {ax.get_title()}")

# Phases: more than ten phases (matplotlib's default cycle has ten colours).
names = [f"phase{i}" for i in range(13)]
phase_cases = [case("radix u32", "uniform", 4096, {p: {"median": 0.1 + i} for i, p in enumerate(names)}),
               case("brick u32", "uniform", 4096, {p: {"median": 0.2} for p in names[:5]})]
fig = plot.phases_figure(phase_cases, "test")
fig.canvas.draw()
ax = fig.axes[0]
looks = {}
for container in ax.containers:
    patch = container.patches[0]
    looks[container.get_label()] = (to_hex(patch.get_facecolor()), patch.get_hatch() or "")
check(sorted(looks) == sorted(names), f"phases drawn: {sorted(looks)}")
check(len(set(looks.values())) == len(looks), "two phases share a colour: " + str(looks))
renderer = fig.canvas.get_renderer()
for legend in fig.legends + ([ax.get_legend()] if ax.get_legend() else []):
    check(not legend.get_window_extent(renderer).overlaps(ax.get_window_extent(renderer)), "the phases legend covers the bars")

if failures:
    print("plot_styles_test: " + "\n  ".join(["FAILED"] + failures), file=sys.stderr)
    sys.exit(1)
print("plot_styles_test: colours, markers and legends as intended")
