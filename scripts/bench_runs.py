# SPDX-License-Identifier: MIT
"""What the summaries of a benchmark run folder share: the folder from the command line, and the
`vksort bench --format json` files in it, by label."""
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


def bench_files(run, prefix):
    """(label, parsed JSON) of every PREFIX-LABEL.json in `run`, by file name, and the device's name
    (None without files)."""
    files, device = [], None
    for path in sorted(glob.glob(os.path.join(run, f"{prefix}-*.json"))):
        label = os.path.basename(path)[len(prefix) + 1:-len(".json")]
        with open(path) as f:
            data = json.load(f)
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
