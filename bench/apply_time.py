"""How long `depgraph apply` takes to plan a manifest (the dry run: no file is written).

    python bench/apply_time.py MANIFEST --root TREE [--runs 3]

Each run is a fresh process (`depgraph apply MANIFEST --root TREE --stat`, the diff left
out); prints the wall time of each run, the median and the run's summary line. The depgraph of
this checkout, as bench/prune_check.py runs it. Issue 13's target: the SGLang dry run in
<= 20 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
DEPGRAPH = [sys.executable, "-c", "from analyzer.cli.main import main; main()"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("manifest", type=Path)
    parser.add_argument("--root", type=Path, required=True, help="the tree the manifest is of")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=str(CHECKOUT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    times: list[float] = []
    summary = ""
    for i in range(args.runs):
        t0 = time.perf_counter()
        proc = subprocess.run([*DEPGRAPH, "apply", str(args.manifest), "--root", str(args.root),
                               "--stat"], capture_output=True, text=True, env=env, check=False)
        times.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return 1
        summary = proc.stderr.strip().splitlines()[-1]
        print(f"run {i + 1}: {times[-1]:.1f} s")
    print(f"median {statistics.median(times):.1f} s (min {min(times):.1f}, max {max(times):.1f})"
          f" on {os.cpu_count()} cores; {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
