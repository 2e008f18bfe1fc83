# SPDX-License-Identifier: MIT
"""What the summaries of a benchmark run folder and plot_bench.py share: the folder from the command line, the
`vksort bench --format json` files in it, by label, and the check that a file is one."""
import glob
import json
import os
import sys


def run_dir(usage):
    """The one argument, a folder; None (after printing `usage`) otherwise."""
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print(f"usage: {usage}", file=sys.stderr)
        return None
    return sys.argv[1]


def _number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _times(x):
    """A {median, min, max} of numbers, as vksort bench writes gpu_ms."""
    return isinstance(x, dict) and all(_number(x.get(k)) for k in ("median", "min", "max"))


def foreign(c):
    """Why a result is not one vksort bench writes (what the charts read of it), or None."""
    if not isinstance(c, dict):
        return "a result that is no JSON object"
    if "algorithm" not in c or "gpu_ms" not in c:
        return "a result without 'algorithm' or 'gpu_ms' (bench-buckets and bench-splat files are not read here)"
    for field in ("algorithm", "key", "distribution"):
        if not isinstance(c.get(field), str):
            return f"a result whose '{field}' is no string"
    if not isinstance(c.get("n"), int) or isinstance(c["n"], bool) or c["n"] < 1:
        return "a result whose 'n' is no positive whole number"
    if c["gpu_ms"] and not _times(c["gpu_ms"]):
        return "a result whose 'gpu_ms' is no {median, min, max}"
    for field in ("mkeys_per_s", "roofline_fraction", "value_bytes"):
        if c.get(field) is not None and not _number(c[field]):
            return f"a result whose '{field}' is no number"
    phases = c.get("phases_ms")
    if phases and not (isinstance(phases, dict) and
                       all(not v or (isinstance(v, dict) and _number(v.get("median", 0.0))) for v in phases.values())):
        return "a result whose 'phases_ms' is no {phase: {median}}"
    facts = c.get("facts")
    if facts and not (isinstance(facts, dict) and (not facts.get("samples") or _number(facts["samples"]))):
        return "a result whose 'facts' are no {name: number}"
    return None


class BenchFileError(Exception):
    """A file that is unreadable or no vksort bench JSON: the message names the file and says why."""


def read_bench(path):
    """The parsed `vksort bench` JSON file at `path`, its structure checked (what the charts and the
    summaries read of it), or BenchFileError: a malformed or foreign file gets one clear line, not a
    traceback from deep inside a summary."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BenchFileError(f"{path}: {e}") from None
    if not isinstance(doc, dict) or "results" not in doc or "device" not in doc:
        raise BenchFileError(f"{path}: not a vksort bench JSON file (no 'results' and 'device')")
    if not isinstance(doc["device"], dict) or not isinstance(doc["device"].get("name", "?"), str):
        raise BenchFileError(f"{path}: not a vksort bench JSON file ('device' is no object with a 'name')")
    if not isinstance(doc["results"], list):
        raise BenchFileError(f"{path}: not a vksort bench JSON file ('results' is no list)")
    for c in doc["results"]:
        why = foreign(c)
        if why:
            raise BenchFileError(f"{path}: not a vksort bench JSON file ({why})")
    return doc


def bench_files(run, prefix):
    """(label, parsed JSON) of every PREFIX-LABEL.json in `run`, by file name, and the device's name
    (None without files)."""
    files, device = [], None
    for path in sorted(glob.glob(os.path.join(run, f"{prefix}-*.json"))):
        label = os.path.basename(path)[len(prefix) + 1:-len(".json")]
        try:
            data = read_bench(path)
        except BenchFileError as e:  # exit 2 with the reason, as plot_bench.py does
            print(f"{os.path.basename(sys.argv[0])}: {e}", file=sys.stderr)
            sys.exit(2)
        device = device or data["device"].get("name")
        files.append((label, data))
    return files, device


def print_list_file(run, name, heading):
    """A bulleted list of the lines of `run`/`name` under `heading`, if the file exists."""
    path = os.path.join(run, name)
    if os.path.exists(path):
        print(f"\n{heading}\n")
        with open(path) as f:
            for line in f:
                print(f"- {line.strip()}")
