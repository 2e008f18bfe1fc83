# SPDX-License-Identifier: MIT
# The table of README.md from run.sh's JSON: python3 summary.py DIR
import json, statistics, sys
out = sys.argv[1]
def load(b, name, n, r):
    d = json.load(open(f"{out}/{b}-{name}-n{n}-r{r}.json"))
    res = d["results"][0] if isinstance(d, dict) and "results" in d else d[0]
    ph = res.get("phases_ms", {})
    h = ph.get("histogram", {}).get("median")
    return res["gpu_ms"]["median"], h
rows = []
print("Median over 3 rounds of each sort's median GPU ms (5 sorts, uniform keys); ratios: the median of the rounds' ratios [smallest-largest].")
print()
print("| kind | n | 0ac75e4 (today) | head single pass | A: check hoisted | B: two passes per read | B / today | B / head | histogram ms head / A / B | histogram B / head |")
print("|---|---|---|---|---|---|---|---|---|---|")
for name in ["keys-u32", "pairs-u32", "keys-u64"]:
    for n in ["2e20", "2e22"]:
        t = {b: [] for b in ["today", "head", "A", "B"]}
        h = {b: [] for b in ["head", "A", "B"]}
        rb_today, rb_head, rh = [], [], []
        for r in [1, 2, 3]:
            v = {}
            for b in t:
                ms, hist = load(b, name, n, r)
                t[b].append(ms); v[b] = ms
                if b in h: h[b].append(hist)
            rb_today.append(v["B"] / v["today"]); rb_head.append(v["B"] / v["head"])
            rh.append(h["B"][-1] / h["head"][-1])
        med = {b: statistics.median(x) for b, x in t.items()}
        mh = {b: statistics.median(x) for b, x in h.items()}
        print(f"| {name} | 2^{n[2:]} | {med['today']:.2f} | {med['head']:.2f} | {med['A']:.2f} | {med['B']:.2f} | "
              f"{statistics.median(rb_today):.2f} [{min(rb_today):.2f}-{max(rb_today):.2f}] | "
              f"{statistics.median(rb_head):.2f} [{min(rb_head):.2f}-{max(rb_head):.2f}] | {mh['head']:.1f} / {mh['A']:.1f} / {mh['B']:.1f} | "
              f"{statistics.median(rh):.2f} [{min(rh):.2f}-{max(rh):.2f}] |")
