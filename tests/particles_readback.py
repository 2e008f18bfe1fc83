# SPDX-License-Identifier: MIT
"""The particle app's trajectories read back by other people's tools (issue 19): GSD with HOOMD-blue's
reader (python3-gsd), extended XYZ with ASE (python3-ase): frames, species, box, periodicity,
velocities, periodic images; and --init from each file reproduces that file's last frame.

Usage: particles_readback.py PARTICLES_BINARY. Exits 77 (skipped) when gsd or ase is not installed."""
import os
import tempfile

from particles_script_support import ase, check, finish, gsd, np, run

with tempfile.TemporaryDirectory() as d:
    box = np.array([5.0, 5.0, 6.0])
    # Two species of masses 1 and 2 (Rayleigh-Taylor), walls in z; 60 steps at dt 0.04 so some particles wrap.
    run(d, "--scenario", "rayleigh-taylor", "--n", "400", "--box", "5,5,6", "--steps", "60", "--every", "20",
        "--dump-every", "5", "--species", "Ar,Kr", "--gsd", "t.gsd", "--xyz", "t.xyz")
    traj = gsd.hoomd.open(os.path.join(d, "t.gsd"), "rb")
    frames = ase.io.read(os.path.join(d, "t.xyz"), ":")
    check(len(traj) == 13 and len(frames) == 13, f"13 frames each (GSD {len(traj)}, XYZ {len(frames)})")
    check([int(f.configuration.step) for f in traj] == list(range(0, 61, 5)), "GSD steps 0, 5, ..., 60")
    unwrapped_before = None
    for f, a in zip(traj, frames):
        p = f.particles
        check(p.N == 400 and len(a) == 400, "400 particles")
        check(np.allclose(f.configuration.box, [5, 5, 6, 0, 0, 0]), f"GSD box {f.configuration.box}")
        check(list(p.types) == ["Ar", "Kr"], f"GSD types {p.types}")
        check(set(np.unique(p.typeid)) <= {0, 1} and 0 < p.typeid.sum() < 400, "GSD typeids: both species")
        check(np.array_equal(p.mass, np.where(p.typeid == 1, 2.0, 1.0)), "GSD masses 1 and 2 by type")
        check(np.all(np.abs(p.position) <= box / 2 + 1e-6), "GSD positions in HOOMD's centred box")
        # ASE: the same particles, species as element symbols, the box, periodic x y, walls in z.
        symbols = np.array(a.get_chemical_symbols())
        check(np.array_equal(symbols, np.where(p.typeid == 1, "Kr", "Ar")), "ASE species match the GSD types")
        check(np.allclose(a.cell.lengths(), box) and np.allclose(a.cell.angles(), 90), f"ASE cell {a.cell}")
        check(list(a.pbc) == [True, True, False], f"ASE pbc {a.pbc}")
        v = a.get_velocities()
        check(v is not None and np.array_equal(v.astype(np.float32), p.velocity), "ASE velocities equal GSD's")
        check(np.allclose(a.positions, p.position + box / 2, atol=1e-5), "ASE positions equal GSD's shifted by L/2")
        # Unwrapped positions move well under 1 in 5 steps; a wrap without its image would jump by L = 5.
        unwrapped = p.position + p.image * box
        if unwrapped_before is not None:
            jump = np.abs(unwrapped - unwrapped_before).max()
            check(jump < 2.0, f"unwrapped positions continuous between frames (largest move {jump})")
        unwrapped_before = unwrapped
    check(np.abs(traj[-1].particles.image).sum() > 0, "some particle crossed a periodic face")

    # --init from each file, 0 steps, written back out in the other format: the same last frame.
    run(d, "--scenario", "rayleigh-taylor", "--init", "t.gsd", "--steps", "0", "--species", "Ar,Kr", "--xyz", "g2x.xyz")
    run(d, "--scenario", "rayleigh-taylor", "--init", "t.xyz", "--steps", "0", "--species", "Ar,Kr", "--gsd", "x2g.gsd")
    last = traj[-1].particles
    back = ase.io.read(os.path.join(d, "g2x.xyz"))
    check(np.array_equal(back.get_velocities().astype(np.float32), last.velocity), "--init GSD: velocities kept")
    check(np.allclose(back.positions, last.position + box / 2, atol=1e-5), "--init GSD: positions kept")
    check(np.array_equal(np.array(back.get_chemical_symbols()), np.where(last.typeid == 1, "Kr", "Ar")), "--init GSD: species kept")
    again = gsd.hoomd.open(os.path.join(d, "x2g.gsd"), "rb")[-1].particles
    check(np.array_equal(again.velocity, last.velocity), "--init XYZ: velocities kept")
    check(np.allclose(again.position, last.position, atol=1e-5), "--init XYZ: positions kept")
    check(np.array_equal(again.typeid, last.typeid), "--init XYZ: types kept")

    # A file from HOOMD's own writer (gsd.hoomd): two frames, the second without typeid (readers take
    # frame 0's) and with velocities; --init takes the last frame.
    rng = np.random.default_rng(7)
    frames_w = []
    for step in (0, 100):
        f = gsd.hoomd.Frame() if hasattr(gsd.hoomd, "Frame") else gsd.hoomd.Snapshot()
        f.configuration.step = step
        f.configuration.box = [6, 6, 6, 0, 0, 0]
        f.particles.N = 300
        f.particles.types = ["Ne", "Ar"]
        f.particles.position = rng.uniform(-3, 3, (300, 3)).astype(np.float32)
        f.particles.velocity = rng.normal(0, 1, (300, 3)).astype(np.float32)
        if step == 0:
            f.particles.typeid = (np.arange(300) % 2).astype(np.uint32)
        frames_w.append(f)
    with gsd.hoomd.open(os.path.join(d, "hoomd.gsd"), "wb") as w:
        for f in frames_w:
            w.append(f)
    run(d, "--scenario", "equilibrium", "--init", "hoomd.gsd", "--steps", "0", "--xyz", "h.xyz")
    h = ase.io.read(os.path.join(d, "h.xyz"))
    check(np.allclose(h.cell.lengths(), 6) and list(h.pbc) == [True, True, True], "HOOMD file: box, periodic")
    check(np.allclose(h.positions, frames_w[1].particles.position + 3, atol=1e-5), "HOOMD file: last frame's positions")
    check(np.array_equal(h.get_velocities().astype(np.float32), frames_w[1].particles.velocity), "HOOMD file: velocities")
    check(np.array_equal(np.array(h.get_chemical_symbols()), np.where(np.arange(300) % 2 == 1, "Ar", "Ne")),
          "HOOMD file: frame 0's typeid for the frame that lacks it")

finish("readback")
