#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""vksort.sort against numpy.sort on the same arrays, in one run.

Each repeat times, in turn (the order rotating between repeats, so load on a shared machine falls on
all alike): vksort.sort (the whole call: copy, upload, GPU sort, download), numpy.sort (its default,
introsort) and numpy.sort(kind="stable"). Every vksort result is checked byte for byte against
numpy.sort(kind="stable"); a difference stops the run with exit code 1. The first call of each
(dtype, n) is a warm-up and not counted. Prints a table; --out writes JSON with the device, the
versions and the command line (checked before the run, written whole or not at all). Bad options, an
--out that cannot be written and a device that does not exist exit 2 with a one-line message.

    PYTHONPATH=build/python /usr/bin/python3 scripts/python-bench.py --n 2^16,2^20 --repeat 5 --out r.json
"""
import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time

import numpy as np

import vksort


MAX_N = 2**31 - 1  # the library's limit


def sizes(text):
    """--n: comma-separated sizes, each a whole number or 2^k, from 1 to 2^31 - 1."""
    out = []
    for t in text.split(","):
        digits = t[2:] if t.startswith("2^") else t
        if not digits.isdecimal() or not digits.isascii() or len(digits) > 10:
            raise argparse.ArgumentTypeError(f"{t!r} is not a size (a whole number or 2^k)")
        # 2^k only for k < 32: 2 ** 9999999999 would take minutes and gigabytes before the range check.
        n = (2 ** int(digits) if int(digits) < 32 else MAX_N + 1) if t.startswith("2^") else int(digits)
        if not 1 <= n <= MAX_N:
            raise argparse.ArgumentTypeError(f"{t} is outside 1 to 2^31 - 1")
        out.append(n)
    return out


def dtypes(text):
    """--dtype: comma-separated dtypes vksort sorts."""
    names = text.split(",")
    for name in names:
        if name not in vksort.SUPPORTED_DTYPES:
            raise argparse.ArgumentTypeError(f"{name!r} is not one of {', '.join(vksort.SUPPORTED_DTYPES)}")
    return names


def positive(text):
    """--repeat: a whole number >= 1."""
    if not text.isdecimal() or not text.isascii() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number >= 1")
    return int(text)


def check_destination(parser, path):
    """Refuses (exit 2) an --out that cannot take a file, before the benchmark rather than after it."""
    folder = os.path.dirname(path) or "."
    if os.path.isdir(path):
        parser.error(f"--out {path}: is a folder")
    if not os.path.isdir(folder):
        parser.error(f"--out {path}: no folder {folder}")
    try:
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as e:
        parser.error(f"--out {path}: cannot write a file in {folder} ({e.strerror or e})")


def write_atomically(path, text):
    """The whole text in `path`, or (on an error) the file as it was: a temporary file beside it, renamed."""
    fd, temp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)  # as open() would make it, not mkstemp's 0600
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def timed(call):
    start = time.perf_counter()
    result = call()
    return result, (time.perf_counter() - start) * 1e3


def summary(ms):
    return {"median": statistics.median(ms), "min": min(ms), "max": max(ms)}


def bench(device, dtype, n, repeat, rng):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        a = rng.standard_normal(n).astype(dtype)
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    contenders = {
        "vksort": lambda: device.sort(a),
        "numpy": lambda: np.sort(a),
        "numpy_stable": lambda: np.sort(a, kind="stable"),
    }
    names = list(contenders)
    times = {name: [] for name in names}
    gpu_ms = []
    want = np.sort(a, kind="stable")
    for run in range(repeat + 1):  # run 0: warm-up
        for name in names[run % len(names):] + names[:run % len(names)]:
            result, ms = timed(contenders[name])
            if name == "vksort":
                if result.tobytes() != want.tobytes():
                    sys.exit(f"python-bench: vksort.sort gave a wrong result for {dtype.name} n={n}")
                stats = device.last_stats
            if run:
                times[name].append(ms)
                if name == "vksort" and stats.gpu_ms is not None:
                    gpu_ms.append(stats.gpu_ms)
    row = {"dtype": dtype.name, "n": n, "repeat": repeat}
    for name in names:
        row[f"{name}_ms"] = summary(times[name])
    row["vksort_gpu_ms"] = summary(gpu_ms) if gpu_ms else None
    row["speedup_vs_numpy"] = row["numpy_ms"]["median"] / row["vksort_ms"]["median"]
    row["speedup_vs_numpy_stable"] = row["numpy_stable_ms"]["median"] / row["vksort_ms"]["median"]
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", type=dtypes, default="uint32,float32,uint64,float64",
                        help="comma-separated dtypes: " + ", ".join(vksort.SUPPORTED_DTYPES))
    parser.add_argument("--n", type=sizes, default="2^16,2^18,2^20,2^22",
                        help="comma-separated sizes, 1 to 2^31 - 1 (2^k allowed)")
    parser.add_argument("--repeat", type=positive, default=5, help="timed runs after one warm-up (median of these)")
    parser.add_argument("--device", default=None, help="index or name part of the device (default: vksort's)")
    parser.add_argument("--out", help="write the results as JSON")
    args = parser.parse_args()
    if args.out:
        check_destination(parser, args.out)
    try:
        device = vksort.Device(args.device)  # None: VKSORT_DEVICE or the best; "1": index 1; else a name part
    except vksort.Error as e:
        parser.error(f"--device: {e}" if args.device is not None else str(e))
    rng = np.random.default_rng(12345)
    rows = []
    print(f"device: {device.name} ({device.info['driver']}); numpy {np.__version__}; "
          f"median of {args.repeat} runs, ms")
    print("   dtype         n    vksort     (gpu)     numpy    stable  vs numpy vs stable")
    for dtype in args.dtype:
        for n in args.n:
            r = bench(device, dtype, n, args.repeat, rng)
            rows.append(r)
            gpu = r["vksort_gpu_ms"]["median"] if r["vksort_gpu_ms"] else float("nan")
            print(f"{r['dtype']:>8} {n:>9} {r['vksort_ms']['median']:9.2f} {gpu:9.2f} "
                  f"{r['numpy_ms']['median']:9.2f} {r['numpy_stable_ms']['median']:9.2f} "
                  f"{r['speedup_vs_numpy']:9.2f} {r['speedup_vs_numpy_stable']:9.2f}", flush=True)
    if args.out:
        report = {
            "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
            "device": device.info,
            "vksort_version": vksort.__version__,
            "numpy_version": np.__version__,
            "python": platform.python_version(),
            "machine": {"cpus": os.cpu_count(), "load_average": os.getloadavg()},
            "timing": "wall-clock ms of the whole call (vksort: copy, upload, sort, download); "
                      "vksort_gpu_ms: GPU timestamps",
            "results": rows,
        }
        try:
            write_atomically(args.out, json.dumps(report, indent=1))
        except OSError as e:
            sys.exit(f"python-bench: --out {args.out}: {e.strerror or e}")


if __name__ == "__main__":
    main()
