#!/usr/bin/env python3
"""The last `--bench pairs` run as a table: ns per pair (criterion's median
of one iteration of 1024 pairs, divided by 1024) for bevy_collide2d and
parry2d, and parry2d / bevy_collide2d, for `intersects` and `contact`.

    python3 benches/pairs_table.py [CRITERION_DIR...]

CRITERION_DIR defaults to `$CARGO_TARGET_DIR/criterion`, else
`target/criterion` at the repository root. Given several (copies of the
criterion directory after each of several runs), each function's time is
the lowest of its medians: on a shared machine, other load only ever slows
a run down, and criterion measures the two libraries one after the other,
so a slow stretch during one of them skews that run's ratio.
"""

import json
import os
import re
import sys
from pathlib import Path

PAIRS = 1024
ORDER = [
    "circle-circle", "circle-rect", "rect-rect",
    "capsule-capsule", "capsule-circle", "capsule-rect", "capsule-segment", "capsule-polygon",
    "segment-segment", "segment-circle", "segment-rect", "segment-polygon",
    "polygon-polygon", "polygon-circle", "polygon-rect",
]


def criterion_dirs():
    if len(sys.argv) > 1:
        return [Path(d) for d in sys.argv[1:]]
    target = os.environ.get("CARGO_TARGET_DIR")
    if target:
        return [Path(target) / "criterion"]
    return [Path(__file__).resolve().parent.parent / "target" / "criterion"]


def main():
    dirs = criterion_dirs()
    times = {}  # (pair, overlap) -> {function: ns per pair}
    newest = {}  # pair -> (modification time, overlap) of its latest run
    benches = [bench for root in dirs for bench in root.glob("*/*/new/benchmark.json")]
    for bench in benches:
        meta = json.loads(bench.read_text())
        match = re.fullmatch(r"(\S+) \((\d+)/(\d+) overlap\)", meta["group_id"])
        if not match:
            continue
        estimates = json.loads((bench.parent / "estimates.json").read_text())
        ns = estimates["median"]["point_estimate"] / PAIRS
        key = (match.group(1), f"{match.group(2)}/{match.group(3)}")
        functions = times.setdefault(key, {})
        functions[meta["function_id"]] = min(ns, functions.get(meta["function_id"], ns))
        stamp = (bench.stat().st_mtime, key[1])
        newest[key[0]] = max(newest.get(key[0], stamp), stamp)
    # Earlier runs of a pair with another overlap count (other shapes) are left out.
    times = {k: v for k, v in times.items() if newest[k[0]][1] == k[1]}

    if len(dirs) > 1:
        print(f"lowest median of {len(dirs)} runs")
    print("| pair | overlap | intersects | parry2d `intersection_test` | parry / ours "
          "| contact | parry2d `contact` | parry / ours |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    rank = {name: i for i, name in enumerate(ORDER)}
    for (pair, overlap), f in sorted(times.items(), key=lambda kv: rank.get(kv[0][0], 99)):
        def cell(name):
            return f"{f[name]:.1f}" if name in f else "-"

        def ratio(theirs, ours):
            return f"{f[theirs] / f[ours]:.1f}x" if theirs in f and ours in f else "-"

        print(f"| {pair} | {overlap} | {cell('bevy_collide2d intersects')} "
              f"| {cell('parry2d intersection_test')} "
              f"| {ratio('parry2d intersection_test', 'bevy_collide2d intersects')} "
              f"| {cell('bevy_collide2d contact')} | {cell('parry2d contact')} "
              f"| {ratio('parry2d contact', 'bevy_collide2d contact')} |")


if __name__ == "__main__":
    main()
