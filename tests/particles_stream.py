# SPDX-License-Identifier: MIT
"""Trajectories stream to disk as the run goes (issue 19): the GSD and extended XYZ files can be read
while the app runs, and after it is killed (SIGKILL) they still hold whole frames, the ones written so
far; so does the --observables series as JSON. A run with more frames than the GSD index's first room
(16 frames) reads back in full, and the JSON series holds the CSV's numbers. A write that fails (the
file size limit, as a full disk) cuts the file back to its last whole frame or row, and leaves the files
written whole (VTK, PNG, MSD) as they were.

Usage: particles_stream.py PARTICLES_BINARY. Exits 77 (skipped) when gsd or ase is not installed."""
import csv
import json
import os
import resource
import signal
import subprocess
import tempfile
import time

from particles_script_support import app_env, ase, check, finish, gsd, np, particles, run


def gsd_steps(path):
    with gsd.hoomd.open(path, "rb") as t:
        steps = [int(f.configuration.step) for f in t]
        whole = all(f.particles.N == 300 and f.particles.position.shape == (300, 3) and
                    np.all(np.isfinite(f.particles.position)) for f in t)
    return steps, whole


def run_limited(folder, limit, *args):
    """The app with every file it writes limited to `limit` bytes (RLIMIT_FSIZE) and SIGXFSZ at its default,
    as a shell's `ulimit -f` leaves it (the signal kills): the app ignores it itself, so a write past the
    limit fails with EFBIG, as one on a full disk fails with ENOSPC. Returns the exit code and stderr."""
    def limit_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    r = subprocess.run([particles, *args], cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, env=app_env(), preexec_fn=limit_files)
    return r.returncode, r.stderr


def check_failed_write(code, err, name):
    check(code == 1 and name in err and "File too large" in err,
          f"{name}: a failed write exits 1 naming the file (got {code}: {err.strip()})")


small = ["--scenario", "equilibrium", "--n", "300", "--box", "5,5,5"]
with tempfile.TemporaryDirectory() as d:
    # 40 frames: the index is moved to the end of the file twice (room for 16 frames, then 34, then 70).
    run(d, *small, "--steps", "39", "--every", "39", "--dump-every", "1", "--gsd", "long.gsd")

    # The observables as CSV and (.json, by the name) as JSON, from the same run twice: the same numbers.
    run(d, *small, "--steps", "40", "--every", "10", "--observables", "o.csv")
    run(d, *small, "--steps", "40", "--every", "10", "--observables", "o.JSON")
    with open(os.path.join(d, "o.csv")) as f:
        table = list(csv.DictReader(f))
    with open(os.path.join(d, "o.JSON")) as f:
        rows = json.load(f)
    check(len(table) == 5 and len(rows) == 5, f"5 rows each (CSV {len(table)}, JSON {len(rows)})")
    check(all(list(r.keys()) == list(t.keys()) for r, t in zip(rows, table)), "JSON keys are the CSV's columns")
    check(all(float(t[k]) == r[k] for r, t in zip(rows, table) for k in t), "JSON numbers equal the CSV's")
    check([r["step"] for r in rows] == [0, 10, 20, 30, 40] and isinstance(rows[0]["step"], int), "JSON steps")
    steps, whole = gsd_steps(os.path.join(d, "long.gsd"))
    check(steps == list(range(40)) and whole, f"40 whole frames, steps 0..39 (got {len(steps)})")

    # A long run read while it goes, then killed.
    app = subprocess.Popen([particles, *small, "--steps", "10000000", "--dump-every", "2",
                            "--gsd", "k.gsd", "--xyz", "k.xyz", "--every", "2",
                            "--observables", "k.json"], cwd=d, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=app_env())
    gsd_path, xyz_path = os.path.join(d, "k.gsd"), os.path.join(d, "k.xyz")
    seen, whole = [], False
    mid_run_races = []
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and app.poll() is None:
            if os.path.exists(gsd_path):
                try:
                    seen, whole = gsd_steps(gsd_path)
                except RuntimeError as e:
                    # gsd's reader takes the file's size before it reads the index, so an open that
                    # races the writer's next frame (chunks appended, then their entries) sees entries
                    # past the size it took and calls the file corrupt; the next open sees a consistent
                    # file. The file itself is checked whole after SIGKILL below.
                    mid_run_races.append(str(e))
                if len(seen) >= 4:
                    break
            time.sleep(0.05)
        running = app.poll() is None
    finally:
        # Whatever happened above, the app (10^7 steps) must not outlive the test.
        app.send_signal(signal.SIGKILL)
        app.wait()
    check(running, "the app was still running when the frames were read")
    check(len(mid_run_races) < 20, f"mid-run opens mostly succeed ({len(mid_run_races)} raced the writer)")
    check(len(seen) >= 4 and seen == list(range(0, 2 * len(seen), 2)) and whole,
          f"frames readable mid-run: steps 0, 2, 4, ... (saw {seen})")
    steps, whole = gsd_steps(gsd_path)
    check(len(steps) >= len(seen) and steps == list(range(0, 2 * len(steps), 2)) and whole,
          f"after SIGKILL the GSD file holds every frame written, whole ({len(steps)} frames)")
    # The XYZ frame of a step goes out just after its GSD frame: all but the GSD's last are in it whole.
    frames = ase.io.read(xyz_path, f":{len(steps) - 1}")
    check(len(frames) == len(steps) - 1 and all(len(a) == 300 for a in frames),
          f"after SIGKILL the XYZ file holds the frames written ({len(frames)} of at least {len(steps) - 1})")
    with open(os.path.join(d, "k.json")) as f:
        series = json.load(f)  # valid JSON after every row
    check(len(series) >= len(steps) - 1 and [r["step"] for r in series] == list(range(0, 2 * len(series), 2)),
          f"after SIGKILL the JSON series holds the rows written ({len(series)})")

    # A write that fails half-way: the half-written XYZ frame (about 40 kB each here) or observables row
    # was left at the end, so ASE refused the file ("Frame has 37 atoms, expected 300"), the JSON did not
    # parse and the CSV ended in half a row. The file is cut back to its last whole frame or row.
    code, err = run_limited(d, 100000, *small, "--steps", "10", "--every", "10", "--dump-every", "1",
                            "--xyz", "full.xyz")
    check_failed_write(code, err, "full.xyz")
    try:
        frames = ase.io.read(os.path.join(d, "full.xyz"), ":")
        check(len(frames) == 2 and all(len(a) == 300 for a in frames), f"full.xyz: 2 whole frames ({len(frames)})")
    except Exception as e:  # noqa: BLE001 (what ASE raises on a half frame varies)
        check(False, f"full.xyz: ASE reads the frames written whole ({e})")
    code, err = run_limited(d, 4000, *small, "--steps", "20", "--every", "1", "--observables", "full.json")
    check_failed_write(code, err, "full.json")
    try:
        with open(os.path.join(d, "full.json")) as f:
            series = json.load(f)
        check(len(series) >= 2 and [r["step"] for r in series] == list(range(len(series))),
              f"full.json: the rows written whole ({len(series)})")
    except ValueError as e:
        check(False, f"full.json: still valid JSON ({e})")
    code, err = run_limited(d, 3000, *small, "--steps", "20", "--every", "1", "--observables", "full.csv")
    check_failed_write(code, err, "full.csv")
    with open(os.path.join(d, "full.csv")) as f:
        text = f.read()
    table = list(csv.reader(text.splitlines()))
    check(text.endswith("\n") and len(table) >= 3 and all(len(row) == len(table[0]) for row in table) and
          [int(row[0]) for row in table[1:]] == list(range(len(table) - 1)),
          f"full.csv: whole rows only ({text[-80:]!r})")
    # Files written whole (a VTK frame of 23 kB, a PNG frame, the MSD at the end) go through a temporary:
    # one that fails leaves the old file, and nothing beside it.
    for limit, args, old in ((10000, ["--vtk", "v.vtk", "--dump-every", "1", "--msd", "m.csv"],
                              ["v_00000000.vtk", "m.csv"]),
                             (2000, ["--frames", "fr", "--msd", "m.csv"], [os.path.join("fr", "frame_00000000.png")])):
        os.makedirs(os.path.join(d, "fr"), exist_ok=True)
        for name in old:
            with open(os.path.join(d, name), "w") as f:
                f.write(f"the user's {name}\n")
        listing = sorted(os.listdir(d)), sorted(os.listdir(os.path.join(d, "fr")))
        code, err = run_limited(d, limit, *small, "--steps", "4", "--every", "2", *args)
        check(code == 1 and "File too large" in err, f"{args[0]}: a failed write exits 1 (got {code}: {err.strip()})")
        for name in old:
            with open(os.path.join(d, name)) as f:
                check(f.read() == f"the user's {name}\n", f"{args[0]}: {name} as it was after a failed write")
        check((sorted(os.listdir(d)), sorted(os.listdir(os.path.join(d, "fr")))) == listing,
              f"{args[0]}: no file or temporary left by a failed write")

    # A run that fails before its first frame or row leaves existing outputs as they were and no
    # temporary beside them: a bad second output path, and a device that does not exist (found only
    # after the outputs are set up).
    # (VKSORT_DEVICE picks the app's device as it picks vksort's.)
    for bad, env in ((["--gsd", "old.gsd", "--xyz", os.path.join("no-such-folder", "x.xyz")], {}),
                     (["--gsd", "old.gsd", "--xyz", "old.xyz", "--device", "no-such-device"], {}),
                     (["--gsd", "old.gsd", "--xyz", "old.xyz"], {"VKSORT_DEVICE": "no-such-device"})):
        before = {}
        for name in ("old.gsd", "old.xyz", "old.json"):
            with open(os.path.join(d, name), "w") as f:
                f.write(f"the user's {name}\n")
            before[name] = f"the user's {name}\n"
        listing = sorted(os.listdir(d))
        r = subprocess.run([particles, *small, "--steps", "4", "--dump-every", "1", "--observables", "old.json", *bad],
                           cwd=d, capture_output=True, text=True, env={**app_env(), **env})
        check(r.returncode == 2 and "no-such" in r.stderr, f"{bad[-1]} {env}: bad input exits 2 naming it (got {r.returncode}: {r.stderr.strip()})")
        for name, text in before.items():
            with open(os.path.join(d, name)) as f:
                check(f.read() == text, f"{bad[-1]}: {name} untouched by a run that failed before its first frame")
        check(sorted(os.listdir(d)) == listing, f"{bad[-1]}: nothing left beside the outputs ({sorted(os.listdir(d))})")

finish("stream")
