"""Benchmark: how depgraph's cost grows with the size of the tree, on synthetic monorepos from
``bench/synth.py`` at several scales (default x1, x10, x30).

    python bench/scale.py --scales 1 10 30 --runs 3

For each scale: generate the tree into a temporary folder, run depgraph cold (empty cache),
warm (nothing changed) and with one Python file changed, ``--runs`` times each, and print the
medians, the peak memory and the cold cost per 1,000 lines relative to x1 (1.00 = exactly
linear growth; above 1 grows faster). ``--with-tools`` adds ``ruff analyze graph`` and
``vulture`` on the same trees.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run as bench_run
import synth

ROOT = "model0_0"


def median_of(cmd: list[str], runs: int, ok: tuple[int, ...] = (0,),
              fresh_cache: Path | None = None) -> tuple[float, int]:
    seconds, peak = [], 0
    for _ in range(runs):
        if fresh_cache is not None:
            shutil.rmtree(fresh_cache, ignore_errors=True)
        s, rss, _ = bench_run.run_once(cmd, ok)
        seconds.append(s)
        peak = max(peak, rss)
    return statistics.median(seconds), peak


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 10, 30])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--with-tools", action="store_true")
    parser.add_argument("--depgraph", default=None, help="command that runs depgraph")
    args = parser.parse_args(argv)
    dg = bench_run.depgraph_command(args.depgraph)
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    work = Path(tempfile.mkdtemp(prefix="depgraph-scale-"))
    rows = []
    try:
        for k in args.scales:
            tree = work / f"x{k}"
            counts = synth.write(tree, k)
            py_files, py_lines = counts["python"]
            lines = sum(n for _, n in counts.values())
            cache = work / f"cache-x{k}"

            def scan(tree: Path = tree, cache: Path = cache) -> list[str]:
                return [*dg, "scan", str(tree), "--roots", ROOT, *jobs, "--out",
                        str(work / "out"), "--cache-dir", str(cache), "--quiet"]

            cold, cold_rss = median_of(scan(), args.runs, fresh_cache=cache)
            bench_run.run_once(scan())  # prime
            warm, warm_rss = median_of(scan(), args.runs)
            changed = tree / bench_run.pick_changed_file(tree)
            one: list[float] = []
            for i in range(args.runs):  # one Python file edited, then scanned again
                with open(changed, "a", encoding="utf-8") as fh:
                    fh.write(f"\n# scale edit {i}\n")
                one.append(bench_run.run_once(scan())[0])
            row = {"scale": k, "py_files": py_files, "py_lines": py_lines, "lines": lines,
                   "cold": cold, "warm": warm, "one": statistics.median(one),
                   "rss": max(cold_rss, warm_rss)}
            if args.with_tools:
                ruff, vulture = bench_run.tool_command("ruff"), bench_run.tool_command("vulture")
                if ruff:
                    row["ruff"] = median_of([*ruff, "analyze", "graph", str(tree)], args.runs)[0]
                if vulture:
                    row["vulture"] = median_of([*vulture, str(tree)], args.runs, ok=(0, 1, 3))[0]
            rows.append(row)
            shutil.rmtree(tree, ignore_errors=True)
            shutil.rmtree(cache, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"depgraph: {shlex.join(dg)} scan <tree> --roots {ROOT} --cache-dir <dir> --quiet; "
          f"{args.runs} runs each, medians\n")
    tools = " ruff s | vulture s |" if args.with_tools else ""
    print(f"| scale | Python files | lines (all) | cold s | warm s | one file changed s | "
          f"peak RSS MiB | "
          f"cold s per 1k lines | vs x{rows[0]['scale']} | marginal cold s per 1k lines |"
          f"{tools}")
    print("|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if args.with_tools else ""))
    base = rows[0]["cold"] / rows[0]["lines"] * 1000
    prev = None
    for r in rows:
        per_k = r["cold"] / r["lines"] * 1000
        # cost of the lines added since the previous scale: flat or falling = linear growth
        marginal = ("-" if prev is None else
                    f"{(r['cold'] - prev['cold']) / (r['lines'] - prev['lines']) * 1000:.4f}")
        extra = (f" {r.get('ruff', float('nan')):.2f} | {r.get('vulture', float('nan')):.2f} |"
                 if args.with_tools else "")
        print(f"| x{r['scale']} | {r['py_files']} | {r['lines']} | {r['cold']:.2f} | "
              f"{r['warm']:.2f} | {r['one']:.2f} | {r['rss'] / 1024:.0f} | {per_k:.4f} | "
              f"{per_k / base:.2f} | "
              f"{marginal} |" + extra)
        prev = r
    return 0


if __name__ == "__main__":
    sys.exit(main())
