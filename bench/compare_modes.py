"""Development check: scan a tree with on-demand extraction and with ``--parse-all`` and
compare the manifests (volatile fields stripped). Prints what differs; exit 1 if anything.

    python bench/compare_modes.py TREE [scan options...] --roots deepseek_v2
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from analyzer.outputs.manifest import manifest_dict
from analyzer.pipeline.scan import run_scan

VOLATILE = {"generated_at", "timings", "tool", "depgraph_version", "seconds", "created",
            "options"}


def strip(x: object) -> object:
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in VOLATILE}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def main(argv: list[str]) -> int:
    tree = Path(argv[0])
    roots = [argv[i + 1] for i, a in enumerate(argv) if a == "--roots"]
    drop = tuple(argv[i + 1] for i, a in enumerate(argv) if a == "--drop")
    out = {}
    for mode in ("demand", "parse_all"):
        t0 = time.perf_counter()
        result = run_scan(tree, roots, jobs=2, parse_all=mode == "parse_all", drop=drop)
        print(f"{mode}: {time.perf_counter() - t0:.1f} s, {len(result.counted)} files counted "
              f"({sum(result.files[p].lines for p in result.counted):,} lines)")
        out[mode] = strip(json.loads(json.dumps(manifest_dict(result), default=str)))
    a, b = out["demand"], out["parse_all"]
    if a == b:
        print("IDENTICAL")
        return 0
    print("DIFFERENT")
    assert isinstance(a, dict) and isinstance(b, dict)
    for key in sorted(set(a) | set(b)):
        va, vb = a.get(key), b.get(key)
        if va == vb:
            continue
        print(" key", key)
        if isinstance(va, list) and isinstance(vb, list):
            sa = {json.dumps(v, sort_keys=True) for v in va}
            sb = {json.dumps(v, sort_keys=True) for v in vb}
            for v in sorted(sa - sb)[:8]:
                print("   demand only:", v[:300])
            for v in sorted(sb - sa)[:8]:
                print("   parse-all only:", v[:300])
        else:
            print("   demand:", json.dumps(va)[:600])
            print("   parse-all:", json.dumps(vb)[:600])
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
