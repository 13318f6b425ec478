#!/usr/bin/env python3
"""Prints criterion results under target/criterion as a markdown table.

Usage: python3 scripts/criterion-table.py [GROUP_PREFIX]
"""
import json
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent / "target" / "criterion"
prefix = sys.argv[1] if len(sys.argv) > 1 else ""
rows = []
for est in sorted(root.glob("**/new/estimates.json")):
    bench = json.loads((est.parent / "benchmark.json").read_text())
    name = bench["full_id"]
    if not name.startswith(prefix):
        continue
    mean = json.loads(est.read_text())["mean"]["point_estimate"]  # nanoseconds
    rows.append((bench["group_id"], bench.get("value_str") or "", mean))


def fmt(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def key(r):
    try:
        return (r[0], int(r[1]))
    except ValueError:
        return (r[0], 0)


print("| benchmark | size | mean time |")
print("|---|---:|---:|")
for group, size, mean in sorted(rows, key=key):
    print(f"| {group} | {size} | {fmt(mean)} |")
