# SPDX-License-Identifier: MIT
# Summarises scripts/lammps-bench.sh's runs: particle-steps/s of the particle app and of LAMMPS per
# run, their medians and ratio, mean T and P over the equilibrated part (steps after a third of the
# run), and g(r) of both (the app's from its final XYZ frame, LAMMPS' from compute rdf at the end).
# Writes summary.json, rdf.csv and runs.csv into the output folder and prints the summary.
import json, math, os, re, statistics, sys

work, repeat, steps, out, command = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
box, n_bins, r_max = 22.013, 50, 1.0


def app_run(path):
    text = open(path).read()
    n = int(re.search(r"(\d+) particles", text).group(1))
    wall = float(re.search(r"wall ([0-9.]+) s\)", text).group(1))
    gpu = float(re.search(r"([0-9.e+]+) particle-steps/s on the GPU", text).group(1))
    mean = re.search(r"# mean over steps > \d+: T ([0-9.]+), P ([0-9.]+)", text)
    return {"particle_steps_per_s": n * steps / wall, "gpu_particle_steps_per_s": gpu, "wall_s": wall,
            "T": float(mean.group(1)), "P": float(mean.group(2))}


def lammps_run(path):
    text = open(path).read()
    loop = re.search(r"Loop time of ([0-9.e+-]+) on 1 procs for (\d+) steps with (\d+) atoms", text)
    t, nsteps, n = float(loop.group(1)), int(loop.group(2)), int(loop.group(3))
    rows = re.findall(r"^\s+(\d+)\s+([0-9.e+-]+)\s+([0-9.e+-]+)\s*$", text, re.M)
    late = [(float(a), float(b)) for s, a, b in rows if int(s) > steps // 3]
    return {"particle_steps_per_s": n * nsteps / t, "wall_s": t,
            "T": statistics.fmean(a for a, _ in late), "P": statistics.fmean(b for _, b in late)}


def app_rdf(path):
    lines = open(path).read().split("\n")
    n = int(lines[0])
    pos = [tuple(float(v) for v in line.split()[1:4]) for line in lines[2:2 + n]]
    cells = max(1, int(box // r_max))
    edge = box / cells
    grid = {}
    for i, (x, y, z) in enumerate(pos):
        grid.setdefault((int(x / edge) % cells, int(y / edge) % cells, int(z / edge) % cells), []).append(i)
    hist = [0] * n_bins
    for (cx, cy, cz), members in grid.items():
        others = []
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dz in (-1, 0, 1):
                    others += grid.get(((cx + dx) % cells, (cy + dy) % cells, (cz + dz) % cells), [])
        for i in members:
            xi, yi, zi = pos[i]
            for j in others:
                if j <= i:
                    continue
                d = [xi - pos[j][0], yi - pos[j][1], zi - pos[j][2]]
                d = [c - box * round(c / box) for c in d]
                r = math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
                if r < r_max:
                    hist[int(r / r_max * n_bins)] += 2
    rho = n / box ** 3
    g = []
    for k in range(n_bins):
        r0, r1 = k * r_max / n_bins, (k + 1) * r_max / n_bins
        g.append(hist[k] / (n * rho * 4.0 / 3.0 * math.pi * (r1 ** 3 - r0 ** 3)))
    return [(k + 0.5) * r_max / n_bins for k in range(n_bins)], g


def lammps_rdf(path):
    # Blocks of "<step> <rows>" then the rows; fix ave/time writes one at step 0 too: take the last.
    blocks = []
    for line in open(path):
        fields = line.split()
        if not fields or line.startswith("#"):
            continue
        if len(fields) == 2:
            blocks.append([])
        elif len(fields) == 4:
            blocks[-1].append(fields)
    rows = blocks[-1]
    return [float(r[1]) for r in rows], [float(r[2]) for r in rows]


apps = [app_run(os.path.join(work, f"app_{k}.txt")) for k in range(1, repeat + 1)]
lammps = [lammps_run(os.path.join(work, f"lammps_{k}.log")) for k in range(1, repeat + 1)]
ratios = [a["particle_steps_per_s"] / l["particle_steps_per_s"] for a, l in zip(apps, lammps)]
ra, ga = app_rdf(os.path.join(work, "app.xyz"))
rl, gl = lammps_rdf(os.path.join(work, "rdf.txt"))
peak = lambda r, g: (max(g), r[g.index(max(g))])


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


summary = {
    "command": command,
    "system": {"particles": 32000, "box": box, "density": 3, "a": 25, "gamma": 4.5, "kT": 1, "rc": 1, "dt": 0.04,
               "steps": steps, "T_P_over_steps_after": steps // 3},
    "runs": repeat,
    "app_particle_steps_per_s": spread([a["particle_steps_per_s"] for a in apps]),
    "app_gpu_particle_steps_per_s": spread([a["gpu_particle_steps_per_s"] for a in apps]),
    "lammps_particle_steps_per_s": spread([l["particle_steps_per_s"] for l in lammps]),
    "ratio_app_over_lammps": spread(ratios),
    "T": {"app": statistics.fmean(a["T"] for a in apps), "lammps": statistics.fmean(l["T"] for l in lammps)},
    "P": {"app": statistics.fmean(a["P"] for a in apps), "lammps": statistics.fmean(l["P"] for l in lammps)},
    "g_r_peak": {"app": dict(zip(("g", "r"), peak(ra, ga))), "lammps": dict(zip(("g", "r"), peak(rl, gl)))},
    "g_r_max_abs_difference": max(abs(a - b) for a, b in zip(ga, gl)),
}
with open(os.path.join(out, "summary.json"), "w") as f:
    json.dump(summary, f, indent=2)
    f.write("\n")
with open(os.path.join(out, "rdf.csv"), "w") as f:
    f.write("r,g_app,g_lammps\n")
    for r, a, b in zip(ra, ga, gl):
        f.write(f"{r:.3f},{a:.4f},{b:.4f}\n")
with open(os.path.join(out, "runs.csv"), "w") as f:
    f.write("run,app_particle_steps_per_s,app_wall_s,lammps_particle_steps_per_s,lammps_loop_s,ratio,app_T,app_P,lammps_T,lammps_P\n")
    for k, (a, l, q) in enumerate(zip(apps, lammps, ratios), 1):
        f.write(f"{k},{a['particle_steps_per_s']:.4g},{a['wall_s']:.3f},{l['particle_steps_per_s']:.4g},"
                f"{l['wall_s']:.3f},{q:.3f},{a['T']:.4f},{a['P']:.4f},{l['T']:.4f},{l['P']:.4f}\n")
print(json.dumps(summary, indent=2))
