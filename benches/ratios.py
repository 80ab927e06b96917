#!/usr/bin/env python3
"""Prints, as a Markdown table, each of our benchmarks over its peers in the
same group and input, from the estimates of the last `cargo bench` run.

Usage (from the workspace root): python3 benches/ratios.py [target/criterion]
A ratio below 1 means ours is faster. Medians are used: on a shared machine
they are less swayed by the slow samples another process causes.
"""

import json
import sys
from collections import defaultdict
from pathlib import Path


def medians(root):
    """{(group, input): {function: median ns}} from criterion's `new` estimates."""
    found = defaultdict(dict)
    for meta in sorted(Path(root).glob("**/new/benchmark.json")):
        bench = json.loads(meta.read_text())
        estimates = json.loads((meta.parent / "estimates.json").read_text())
        key = (bench["group_id"], bench["value_str"])
        found[key][bench["function_id"]] = estimates["median"]["point_estimate"]
    return found


def duration(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"
    rows = []
    for (group, value), functions in sorted(medians(root).items()):
        ours = {name: ns for name, ns in functions.items() if name.startswith("ours")}
        peers = {name: ns for name, ns in functions.items() if name not in ours}
        for our_name, our_ns in sorted(ours.items()):
            for peer_name, peer_ns in sorted(peers.items()):
                rows.append(
                    f"| {group} | {value} | {our_name} {duration(our_ns)} "
                    f"| {peer_name} {duration(peer_ns)} | {our_ns / peer_ns:.2f} |"
                )
    if not rows:
        sys.exit(f"no criterion estimates under {root}: run `cargo bench -p hosted-mcp-benches` first")
    print("| group | input | ours (median) | peer (median) | ours / peer |")
    print("| --- | --- | --- | --- | --- |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
