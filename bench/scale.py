"""Benchmark: how depgraph's cost grows with the size of the tree, on synthetic monorepos from
``bench/synth.py`` at several scales (default x1, x2, x4).

    python bench/scale.py --scales 1 2 4 --runs 3

For each scale: generate the tree into a temporary folder, run depgraph cold (empty cache,
``scan --timings``), warm (nothing changed) and with one Python file changed, ``--runs`` times
each. Two tables follow:

- totals: the medians, the peak memory and the cold cost per 1,000 lines relative to the
  first scale (1.00 = exactly linear growth; above 1 grows faster);
- stages: the median cold seconds of each stage ``scan --timings`` prints, per scale, and the
  growth factor per doubling between consecutive scales, ``(t_b / t_a) ** (1 / log2(b / a))``
  (issue 26: at most 2.2 for every stage). ``--timings`` prints hundredths of a second, so a
  factor is judged only when both times are at least ``--min-seconds``; the others are shown
  in parentheses. The stages over the limit are named at the end.

``--cold-only`` skips the warm and one-file runs; ``--with-tools`` adds ``ruff analyze graph``
and ``vulture`` on the same trees. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import math
import shlex
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run as bench_run
import synth

ROOT = "model0_0"
GROWTH_LIMIT = bench_run.GROWTH_LIMIT


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


def cold_runs(cmd: list[str], runs: int, cache: Path) -> bench_run.Series:
    """``runs`` cold scans (``cmd`` carries ``--timings``), each from an empty ``cache``."""
    series = bench_run.Series("cold", shlex.join(cmd))
    bench_run.measure(series, cmd, runs,
                      before=lambda _i: shutil.rmtree(cache, ignore_errors=True))
    return series


def per_doubling(t_a: float, t_b: float, k_a: int, k_b: int) -> float | None:
    """Growth factor per doubling of the scale from ``k_a`` to ``k_b``; None when it cannot
    be computed (a zero time, or the same scale twice)."""
    if t_a <= 0 or t_b <= 0 or k_b <= k_a:
        return None
    return float((t_b / t_a) ** (1 / math.log2(k_b / k_a)))


def stage_table(rows: list[dict[str, Any]], min_seconds: float, limit: float) -> list[str]:
    """Markdown: stage x scale (median cold seconds) and the growth per doubling between
    consecutive scales; then which stages exceed ``limit`` (judged factors only)."""
    scales = [r["scale"] for r in rows]
    names = list(dict.fromkeys(k for r in rows for k in r["stages"]))
    steps = list(zip(range(len(rows)), range(1, len(rows)), strict=False))
    head = ("| stage | " + " | ".join(f"x{k} s" for k in scales) + " | "
            + " | ".join(f"x{scales[a]}->x{scales[b]}" for a, b in steps)
            + (" | " if steps else "") + "worst judged |")
    lines = [head, "|---|" + "---|" * (len(scales) + len(steps) + 1)]
    # the size itself, for reference: synth trees share a fixed part, so x2 is not 2.0x lines
    size = [r["lines"] for r in rows]
    size_f = [per_doubling(size[a], size[b], scales[a], scales[b]) for a, b in steps]
    lines.append("| (tree lines) | " + " | ".join(str(n) for n in size) + " | "
                 + " | ".join(f"{f:.2f}" if f else "-" for f in size_f)
                 + (" | " if steps else "") + "- |")
    over: list[str] = []
    unjudged: list[str] = []
    for name in names:
        times = [r["stages"].get(name) for r in rows]
        cells, judged = [], []
        for a, b in steps:
            ta, tb = times[a], times[b]
            f = per_doubling(ta, tb, scales[a], scales[b]) if ta is not None and tb is not None \
                else None
            if f is None:
                cells.append("-")
            elif ta is not None and tb is not None and min(ta, tb) >= min_seconds:
                judged.append((f, f"x{scales[a]}->x{scales[b]}"))
                cells.append(f"**{f:.2f}**" if f > limit else f"{f:.2f}")
            else:
                cells.append(f"({f:.2f})")
        worst = max(judged, default=None)
        if worst is None:
            unjudged.append(name)
        elif worst[0] > limit:
            over.append(f"{name} ({worst[0]:.2f} at {worst[1]})")
        lines.append(f"| {name} | " + " | ".join("-" if t is None else f"{t:.2f}" for t in times)
                     + " | " + " | ".join(cells) + (" | " if steps else "")
                     + (f"{worst[0]:.2f}" if worst else "-") + " |")
    lines.append("")
    if len(rows) < 2:
        lines.append("growth: one scale only, nothing to compare")
    elif over:
        lines.append(f"over {limit:g}x per doubling: " + ", ".join(over))
    else:
        lines.append(f"over {limit:g}x per doubling: none (every judged stage at most "
                     f"{limit:g}x)")
    if unjudged and len(rows) >= 2:
        lines.append(f"not judged (under {min_seconds:g} s at some scale): "
                     + ", ".join(unjudged))
    return lines


def _num(seconds: float) -> str:
    return "-" if math.isnan(seconds) else f"{seconds:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--cold-only", action="store_true",
                        help="only the cold runs (no warm, no one file changed)")
    parser.add_argument("--min-seconds", type=float, default=0.05,
                        help="judge a stage's growth only when both times are at least this")
    parser.add_argument("--limit", type=float, default=GROWTH_LIMIT,
                        help="largest growth factor per doubling (issue 26: 2.2)")
    parser.add_argument("--with-tools", action="store_true")
    parser.add_argument("--depgraph", default=None, help="command that runs depgraph")
    args = parser.parse_args(argv)
    scales = sorted(set(args.scales))
    if scales[0] < 1:
        parser.error("--scales must be at least 1")
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    work = Path(tempfile.mkdtemp(prefix="depgraph-scale-"))
    dg = bench_run.depgraph_command(args.depgraph, work / "bytecode")
    bench_run.compile_checkout(args.depgraph, work / "bytecode")
    rows: list[dict[str, Any]] = []
    try:
        for k in scales:
            tree = work / f"x{k}"
            counts = synth.write(tree, k)
            py_files, py_lines = counts["python"]
            lines = sum(n for _, n in counts.values())
            cache = work / f"cache-x{k}"

            def scan(tree: Path = tree, cache: Path = cache, *extra: str) -> list[str]:
                return [*dg, "scan", str(tree), "--roots", ROOT, *jobs, "--out",
                        str(work / "out"), "--cache-dir", str(cache), "--quiet", *extra]

            cold = cold_runs(scan(tree, cache, "--timings"), args.runs, cache)
            row = {"scale": k, "py_files": py_files, "py_lines": py_lines, "lines": lines,
                   "cold": cold.median, "rss": max(cold.rss_kib),
                   "stages": cold.stage_medians(), "warm": math.nan, "one": math.nan}
            if not cold.stages:
                print(f"  ! x{k}: no `timings:` line on stderr of {cold.command}",
                      file=sys.stderr)
            if not args.cold_only:
                bench_run.run_once(scan())  # prime
                warm, warm_rss = median_of(scan(), args.runs)
                changed = tree / bench_run.pick_changed_file(tree)
                one: list[float] = []
                for i in range(args.runs):  # one Python file edited, then scanned again
                    with open(changed, "a", encoding="utf-8") as fh:
                        fh.write(f"\n# scale edit {i}\n")
                    one.append(bench_run.run_once(scan())[0])
                row.update(warm=warm, one=statistics.median(one),
                           rss=max(row["rss"], warm_rss))
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
    print(f"depgraph: {shlex.join(dg)} scan <tree> --roots {ROOT} --cache-dir <dir> --quiet "
          f"(cold: --timings, empty cache); {args.runs} runs each, medians\n")
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
        extra = (f" {_num(r.get('ruff', math.nan))} | {_num(r.get('vulture', math.nan))} |"
                 if args.with_tools else "")
        print(f"| x{r['scale']} | {r['py_files']} | {r['lines']} | {r['cold']:.2f} | "
              f"{_num(r['warm'])} | {_num(r['one'])} | {r['rss'] / 1024:.0f} | {per_k:.4f} | "
              f"{per_k / base:.2f} | "
              f"{marginal} |" + extra)
        prev = r
    print(f"\ncold stages (median s of `scan --timings`) and growth per doubling "
          f"(limit {args.limit:g}; judged when both times >= {args.min_seconds:g} s, "
          "else in parentheses; **over the limit**):\n")
    print("\n".join(stage_table(rows, args.min_seconds, args.limit)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
