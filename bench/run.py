"""Benchmark: depgraph on one tree, cold / warm / re-analysis / one file changed, next to
``ruff analyze graph`` and ``vulture`` on the same tree, with the issue's targets.

    python bench/run.py /tmp/sglang --roots deepseek_v2 --runs 5 --tool-runs 3

Every measurement is a fresh subprocess: wall time (``time.perf_counter``) and peak resident
memory (``ru_maxrss`` from ``os.wait4`` on the child; it covers the child itself, and the
largest of its worker processes it waited for, not their sum). Scenarios:

- cold: an empty cache folder each run (extraction in ``--jobs`` workers, analysis, outputs);
- warm: nothing changed since a priming run (the whole-scan result cache answers);
- reanalysis: facts cache warm, analysis redone (``--no-result-cache``: what a profile edit
  costs);
- one-file: a copy of the tree, one Python file edited before each run (a comment appended);
  its "parse" is the in-process time to extract just that file.

Nothing here is asserted; it prints a Markdown table and the targets met or not.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
GIB = 1024 * 1024  # ru_maxrss is in KiB on Linux


@dataclass
class Series:
    name: str
    command: str
    seconds: list[float] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)
    note: str = ""

    @property
    def median(self) -> float:
        return statistics.median(self.seconds) if self.seconds else float("nan")

    def row(self) -> str:
        if not self.seconds:
            return f"| {self.name} | 0 | - | - | - | {self.note or 'skipped'} |"
        return (f"| {self.name} | {len(self.seconds)} | {self.median:.2f} | "
                f"{min(self.seconds):.2f}-{max(self.seconds):.2f} | "
                f"{max(self.rss_kib) / 1024:.0f} | {self.note} |")


def run_once(cmd: list[str], ok: tuple[int, ...] = (0,)) -> tuple[float, int, int]:
    """(wall seconds, peak RSS KiB, exit code) of one subprocess; stderr is kept in a file
    (a pipe could fill up while we wait) and shown when the exit code is not an ``ok`` one."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        if code not in ok:
            err.seek(0)
            tail = err.read().decode(errors="replace")[-400:]
            print(f"  ! {' '.join(cmd)} exited {code}: {tail}", file=sys.stderr)
    return elapsed, usage.ru_maxrss, code


def depgraph_command(given: str | None) -> list[str]:
    """The checkout's depgraph (the code next to this script), unless ``--depgraph`` says."""
    if given:
        return shlex.split(given)
    return [sys.executable, "-c",
            f"import sys; sys.path.insert(0, {str(REPO)!r}); "
            "from analyzer.cli.main import main; main()"]


def tool_command(name: str) -> list[str] | None:
    local = Path(sys.executable).with_name(name)
    if local.exists():
        return [str(local)]
    found = shutil.which(name)
    return [found] if found else None


SKIP_DIRS = {"test", "tests", "examples", "example", "benchmark", "benchmarks", "docs", ".git"}


def pick_changed_file(tree: Path) -> str:
    """A mid-sized module of a package (a folder with ``__init__.py``), outside tests,
    examples and benchmarks: the kind of file a user edits (deterministic)."""
    candidates = sorted(p for p in tree.rglob("*.py")
                        if not SKIP_DIRS & set(p.relative_to(tree).parts)
                        and (p.parent / "__init__.py").exists() and p.name != "__init__.py")
    if not candidates:
        candidates = sorted(tree.rglob("*.py"))
    if not candidates:
        raise SystemExit(f"bench: no Python file under {tree}")
    sized = sorted(candidates, key=lambda p: (p.stat().st_size, str(p)))
    return str(sized[len(sized) // 2].relative_to(tree))


def parse_seconds(tree: Path, rel: str, runs: int) -> float:
    """Median in-process time to extract one file (depgraph's own per-file extractor)."""
    sys.path.insert(0, str(REPO))
    from analyzer.extract.runner import extract_bytes

    data = (tree / rel).read_bytes()
    extract_bytes(rel, "python", data)  # warm the parser and the query
    times = []
    for _ in range(max(runs, 3)):
        t = time.perf_counter()
        extract_bytes(rel, "python", data)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def measure(series: Series, cmd: list[str], runs: int, before=None,
            ok: tuple[int, ...] = (0,)) -> Series:
    for i in range(runs):
        if before is not None:
            before(i)
        seconds, rss, _ = run_once(cmd, ok)
        series.seconds.append(seconds)
        series.rss_kib.append(rss)
    return series


def bench(args: argparse.Namespace) -> dict:
    tree = args.tree.resolve()
    dg = depgraph_command(args.depgraph)
    roots = [x for r in args.roots for x in ("--roots", r)]
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    work = Path(tempfile.mkdtemp(prefix="depgraph-bench-"))
    out = work / "out"

    def scan(target: Path, cache: Path, *extra: str) -> list[str]:
        return [*dg, "scan", str(target), *roots, *jobs, "--out", str(out), "--cache-dir",
                str(cache), "--quiet", *extra]

    results: list[Series] = []
    try:
        cold = Series("depgraph cold", shlex.join(scan(tree, Path("<empty dir>"))))
        for i in range(args.runs):
            cache = work / f"cold-{i}"
            seconds, rss, _ = run_once(scan(tree, cache))
            cold.seconds.append(seconds)
            cold.rss_kib.append(rss)
            shutil.rmtree(cache, ignore_errors=True)
        results.append(cold)

        warm_cache = work / "warm"
        run_once(scan(tree, warm_cache))  # priming
        # warm and ruff alternate, so both see the same machine (they are sub-second and
        # the comparison is a ratio)
        warm = Series("depgraph warm", shlex.join(scan(tree, warm_cache)))
        ruff = None if args.skip_tools else tool_command("ruff")
        ruff_s = Series("ruff analyze graph", f"ruff analyze graph {tree}",
                        note="" if ruff else "ruff not installed or --skip-tools")
        for _ in range(args.fast_runs):
            measure(warm, scan(tree, warm_cache), 1)
            if ruff:
                measure(ruff_s, [*ruff, "analyze", "graph", str(tree)], 1)
        results.append(warm)
        results.append(measure(
            Series("depgraph re-analysis", shlex.join(scan(tree, warm_cache,
                                                          "--no-result-cache"))),
            scan(tree, warm_cache, "--no-result-cache"), args.runs))

        copy = work / "tree"
        shutil.copytree(tree, copy, symlinks=True)
        rel = args.changed_file or pick_changed_file(copy)
        one_cache = work / "one"
        run_once(scan(copy, one_cache))  # priming

        def edit(i: int) -> None:
            with open(copy / rel, "a", encoding="utf-8") as fh:
                fh.write(f"\n# bench edit {i}\n")

        one = measure(Series("depgraph one file changed",
                             shlex.join(scan(copy, one_cache)) + f"  (after editing {rel})"),
                      scan(copy, one_cache), args.runs, before=edit)
        parse = parse_seconds(copy, rel, args.runs)
        one.note = f"{rel}: parse {parse * 1000:.1f} ms"
        results.append(one)

        results.append(ruff_s)
        if not args.skip_tools:
            vulture = tool_command("vulture")
            vul = Series("vulture", f"vulture {tree}")
            if vulture:
                # exit 3: dead code found, which is vulture's normal answer here
                measure(vul, [*vulture, str(tree)], args.tool_runs, ok=(0, 1, 3))
            else:
                vul.note = "vulture not installed"
            results.append(vul)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"tree": str(tree), "series": results, "parse": parse, "changed_file": rel}


def describe_tree(tree: Path) -> str:
    counts: dict[str, list[int]] = {}
    for p in tree.rglob("*"):
        if not p.is_file() or ".git" in p.parts:
            continue
        kind = {".py": "Python", ".cu": "CUDA/C++", ".cc": "CUDA/C++", ".cpp": "CUDA/C++",
                ".cuh": "CUDA/C++", ".h": "CUDA/C++", ".hpp": "CUDA/C++"}.get(p.suffix)
        if kind is None:
            continue
        try:
            lines = p.read_bytes().count(b"\n")
        except OSError:
            continue
        c = counts.setdefault(kind, [0, 0])
        c[0] += 1
        c[1] += lines
    return ", ".join(f"{k} {n} files / {lines} lines" for k, (n, lines) in sorted(counts.items()))


def report(data: dict, args: argparse.Namespace) -> str:
    by = {s.name: s for s in data["series"]}
    lines = [f"tree: {data['tree']} ({describe_tree(Path(data['tree']))})",
             f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
             f"{platform.platform()}; depgraph {_commit()}", "",
             "| scenario | runs | median s | min-max s | peak RSS MiB | note |",
             "|---|---|---|---|---|---|"]
    lines += [s.row() for s in data["series"]]
    lines += ["", "targets:"]

    def target(label: str, value: float, limit: float, how: str) -> None:
        ok = value == value and limit == limit and value <= limit  # NaN-safe
        lines.append(f"- {label}: {value:.2f} s vs <= {limit:.2f} s ({how}): "
                     f"{'met' if ok else 'NOT met'}")

    cold, warm = by["depgraph cold"], by["depgraph warm"]
    one, again = by["depgraph one file changed"], by["depgraph re-analysis"]
    if "vulture" in by and by["vulture"].seconds:
        v = by["vulture"].median
        target("cold", cold.median, 0.15 * v, f"0.15 x vulture {v:.2f} s; ratio "
               f"{cold.median / v:.2f}")
    if "ruff analyze graph" in by and by["ruff analyze graph"].seconds:
        r = by["ruff analyze graph"].median
        target("warm", warm.median, 0.7 * r, f"0.7 x ruff {r:.2f} s; ratio {warm.median / r:.2f}")
    target("re-analysis (a profile change)", again.median, 2.0, "issue 15")
    target("one file changed", one.median, 1.5, f"issue 15; its parse "
           f"{data['parse'] * 1000:.1f} ms")
    peak = max(max(s.rss_kib) for s in data["series"] if s.rss_kib and "depgraph" in s.name)
    lines.append(f"- peak RSS: {peak / 1024:.0f} MiB vs <= 1024 MiB: "
                 f"{'met' if peak <= GIB else 'NOT met'}")
    lines += ["", "commands:"] + [f"- {s.name}: `{s.command}`" for s in data["series"]]
    return "\n".join(lines)


def _commit() -> str:
    try:
        return subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "(no git)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--roots", nargs="*", default=[])
    parser.add_argument("--runs", type=int, default=5,
                        help="runs of depgraph cold, re-analysis and one file changed")
    parser.add_argument("--tool-runs", type=int, default=3, help="runs of vulture")
    parser.add_argument("--fast-runs", type=int, default=10,
                        help="runs of depgraph warm and ruff, alternating")
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--json", type=Path, default=None, help="write raw timings here")
    parser.add_argument("--skip-tools", action="store_true", help="no ruff / vulture")
    parser.add_argument("--changed-file", default=None, help="Python file to edit (relative)")
    parser.add_argument("--depgraph", default=None, help="command that runs depgraph")
    args = parser.parse_args(argv)
    if not args.tree.is_dir():
        parser.error(f"not a directory: {args.tree}")
    data = bench(args)
    print(report(data, args))
    if args.json:
        args.json.write_text(json.dumps({
            "tree": data["tree"], "changed_file": data["changed_file"],
            "parse_seconds": data["parse"],
            "series": [{"name": s.name, "command": s.command, "seconds": s.seconds,
                        "rss_kib": s.rss_kib, "note": s.note} for s in data["series"]]},
            indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
