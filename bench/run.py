"""Benchmark: depgraph on one tree (cold, warm, re-analysis, a ``--drop`` change, one file
changed, ``verify --before`` after ``apply``), next to ``ruff analyze graph`` and ``vulture``
on the same tree, with issue 26's targets.

    python bench/run.py /tmp/sglang --roots deepseek_v2 --drop-feature nsa --stages \
        --runs 5 --fast-runs 10 --tool-runs 3

Every measurement is a fresh subprocess: wall time (``time.perf_counter``) and peak resident
memory (``ru_maxrss`` from ``os.wait4`` on the child; it covers the child itself, and the
largest of its worker processes it waited for, not their sum), with which process that was
(``bench/proc_peaks.py``: every descendant's own high-water mark, polled; the table's note
names the largest). Scenarios:

- cold: an empty cache folder each run (extraction in ``--jobs`` workers, analysis, outputs);
- warm: nothing changed since a priming run (the whole-scan result cache answers);
- reanalysis: facts cache warm, analysis redone (``--no-result-cache``: what a profile edit
  costs);
- --drop change: the cache as a scan of the tree left it (facts and that scan's result), then
  a scan with one more ``--drop FEATURE`` (``--drop-feature``): the result cache misses, the
  facts cache answers;
- one-file: a copy of the tree, one Python file edited before each run (a comment appended);
  its "parse" is the in-process time to extract just that file; then the same with a line of
  code appended (a new module-level name: what the early cut-off of a comment edit, which
  changes nothing the analysis reads, does not answer);
- verify --before: the tree scanned into a manifest, a copy of the tree, ``apply MANIFEST
  --root COPY --write`` with the cache the scan left (its gate's edits; timed once), then
  ``verify COPY --before MANIFEST`` with the same roots and that cache.

The --drop and verify runs each start from the cache exactly as the priming scan left it (a
hard-linked snapshot, restored before every run: depgraph replaces cache files atomically and
never writes into one). With ``--stages``, every scan runs with ``--timings`` and a table of
median seconds per stage and scenario follows. Nothing here is asserted; it prints a Markdown
table and the targets met or not.
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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from proc_peaks import ProcessPeaks  # noqa: E402

MB = 1000 * 1000
RSS_LIMIT_MB = 800  # issue 26: peak RSS <= 800 MB (10^6 bytes)
EXIT_PROBLEMS = 8  # depgraph verify: the pruned tree has problems

# issues 26 and 50: (scenario, reference tool, largest ratio scenario / tool, label); issue
# 50 set the cold scan's target at 1.0 x vulture (issue 26's 0.5 x stays the aim)
TARGETS = (
    ("depgraph cold", "vulture", 1.0, "cold scan (0.5 x stays the aim)"),
    ("depgraph --drop change", "ruff analyze graph", 4.0, "re-analysis after a --drop change"),
    ("depgraph one file changed", "ruff analyze graph", 4.0,
     "one Python file changed (a comment appended)"),
    ("depgraph one file changed, code", "ruff analyze graph", 4.0,
     "one Python file changed (a line of code appended)"),
    ("depgraph verify --before", "vulture", 0.3, "verify --before after apply --write"),
    ("depgraph apply --write", "vulture", 0.25, "apply --write"),
)
# issue 50: (scenario, largest seconds, label): targets in seconds, not ratios
SECONDS_TARGETS = (
    ("depgraph apply --stat", 2.0, "apply --stat (a preview)"),
)
GROWTH_LIMIT = 2.2  # per doubling of the tree, every stage: bench/scale.py measures it


@dataclass
class Series:
    name: str
    command: str
    seconds: list[float] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)
    stages: list[dict[str, float]] = field(default_factory=list)  # scan --timings, per run
    note: str = ""
    # per run: the process of the highest high-water mark polled, and that mark (MiB)
    largest: list[str] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds) if self.seconds else float("nan")

    def row(self) -> str:
        if not self.seconds:
            return f"| {self.name} | 0 | - | - | - | {self.note or 'skipped'} |"
        peak = max(range(len(self.rss_kib)), key=lambda i: self.rss_kib[i])
        where = self.largest[peak] if peak < len(self.largest) else ""
        note = "; ".join(n for n in (self.note, f"largest: {where}" if where else "") if n)
        return (f"| {self.name} | {len(self.seconds)} | {self.median:.2f} | "
                f"{min(self.seconds):.2f}-{max(self.seconds):.2f} | "
                f"{max(self.rss_kib) / 1024:.0f} | {note} |")

    def stage_medians(self) -> dict[str, float]:
        """Median seconds of each stage over the runs that printed it."""
        names = list(dict.fromkeys(k for run in self.stages for k in run))
        return {k: statistics.median(run[k] for run in self.stages if k in run) for k in names}


@dataclass
class Run:
    seconds: float
    rss_kib: int
    code: int
    stdout: str
    stderr: str
    largest: str = ""  # the process of the highest high-water mark polled ("" none seen)


def run_proc(cmd: list[str], ok: tuple[int, ...] = (0,), keep_stdout: bool = False) -> Run:
    """One subprocess: wall seconds, peak RSS, exit code, stderr (and stdout when asked).
    Both streams go to temporary files (a pipe could fill up while we wait); stderr is shown
    when the exit code is not an ``ok`` one."""
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                stdout=out if keep_stdout else subprocess.DEVNULL, stderr=err)
        peaks = ProcessPeaks(proc.pid).start()
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        peaks.stop()
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
        out.seek(0)
        stdout = out.read().decode(errors="replace")
    if code not in ok:
        print(f"  ! {shlex.join(cmd)} exited {code}: {stderr[-400:]}", file=sys.stderr)
    top = peaks.largest()
    return Run(elapsed, usage.ru_maxrss, code, stdout, stderr,
               f"{top.name}, {top.hwm_kib / 1024:.0f} MiB" if top is not None else "")


def run_once(cmd: list[str], ok: tuple[int, ...] = (0,)) -> tuple[float, int, int]:
    """(wall seconds, peak RSS KiB, exit code) of one subprocess (see :func:`run_proc`)."""
    got = run_proc(cmd, ok)
    return got.seconds, got.rss_kib, got.code


def parse_timings(stderr: str) -> dict[str, float]:
    """Seconds per stage from ``scan --timings`` output: the last line of ``stderr`` that
    starts with ``timings:``, as ``name 1.23s`` items separated by commas (a name may hold
    spaces: ``result cache``). Items that do not read so are skipped; a stage named twice is
    summed. Empty when there is no such line."""
    lines = [ln for ln in stderr.splitlines() if ln.startswith("timings:")]
    if not lines:
        return {}
    stages: dict[str, float] = {}
    for item in lines[-1][len("timings:"):].split(","):
        name, _, value = item.strip().rpartition(" ")
        if not name or not value.endswith("s"):
            continue
        try:
            seconds = float(value[:-1])
        except ValueError:
            continue
        stages[name] = stages.get(name, 0.0) + seconds
    return stages


def depgraph_command(given: str | None, bytecode: Path | None = None) -> list[str]:
    """The checkout's depgraph (the code next to this script), unless ``--depgraph`` says.
    ``bytecode``: a folder for the checkout's compiled modules, written even where the
    environment says not to (``PYTHONDONTWRITEBYTECODE``), as an installed package has them
    (pip compiles at install): without it every run would compile depgraph's ~130 modules
    first (about a second), a cost no user's installed tool pays and vulture's does not."""
    if given:
        return shlex.split(given)
    compiled = ("sys.dont_write_bytecode = False; "
                f"sys.pycache_prefix = {str(bytecode)!r}; ") if bytecode is not None else ""
    return [sys.executable, "-c",
            f"import sys; {compiled}sys.path.insert(0, {str(REPO)!r}); "
            "from analyzer.cli.main import main; main()"]


def compile_checkout(given: str | None, bytecode: Path) -> None:
    """Import every module of the checkout once (untimed) as :func:`depgraph_command`'s runs
    do, so their bytecode -- and that of the packages they import, which the prefix holds
    too -- is in ``bytecode`` before the first timed run (``--version`` alone would import
    only the CLI). Nothing when ``--depgraph`` names another depgraph."""
    if given:
        return
    run_proc([sys.executable, "-c",
              "import importlib, pkgutil, sys; sys.dont_write_bytecode = False; "
              f"sys.pycache_prefix = {str(bytecode)!r}; sys.path.insert(0, {str(REPO)!r}); "
              "import analyzer; [importlib.import_module(m.name) for m in "
              "pkgutil.walk_packages(analyzer.__path__, 'analyzer.')]"])


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


def measure(series: Series, cmd: list[str], runs: int,
            before: Callable[[int], None] | None = None, ok: tuple[int, ...] = (0,),
            after: Callable[[Run], None] | None = None) -> Series:
    """``runs`` runs of ``cmd`` into ``series`` (``before(i)`` untimed before run i,
    ``after(run)`` untimed after it); a ``timings:`` line on stderr is kept per run."""
    for i in range(runs):
        if before is not None:
            before(i)
        got = run_proc(cmd, ok, keep_stdout=after is not None)
        series.seconds.append(got.seconds)
        series.rss_kib.append(got.rss_kib)
        series.largest.append(got.largest)
        if stages := parse_timings(got.stderr):
            series.stages.append(stages)
        if after is not None:
            after(got)
    return series


def link_copy(src: Path, dst: Path) -> None:
    """``dst`` (removed first) as a copy of the folder ``src`` whose files are hard links:
    instant, and safe for depgraph's caches, whose files are only ever replaced
    (``os.replace``), never written into."""
    shutil.rmtree(dst, ignore_errors=True)
    if src.is_dir():
        shutil.copytree(src, dst, copy_function=os.link)
    else:
        dst.mkdir(parents=True)


def bench(args: argparse.Namespace) -> dict[str, Any]:
    tree = args.tree.resolve()
    roots = [x for r in args.roots for x in ("--roots", r)]
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    timings = ["--timings"] if args.stages else []
    work = Path(tempfile.mkdtemp(prefix="depgraph-bench-"))
    out = work / "out"
    dg = depgraph_command(args.depgraph, work / "bytecode")
    compile_checkout(args.depgraph, work / "bytecode")

    def scan(target: Path, cache: Path, *extra: str, out_dir: Path = out) -> list[str]:
        return [*dg, "scan", str(target), *roots, *jobs, "--out", str(out_dir), "--cache-dir",
                str(cache), "--quiet", *timings, *extra]

    results: list[Series] = []
    parse = float("nan")
    rel = ""
    try:
        cold_cache = work / "cold"
        cold = measure(Series("depgraph cold", shlex.join(scan(tree, Path("<empty dir>")))),
                       scan(tree, cold_cache), args.runs,
                       before=lambda _i: shutil.rmtree(cold_cache, ignore_errors=True))
        shutil.rmtree(cold_cache, ignore_errors=True)
        results.append(cold)

        # priming: the scan whose cache the other scenarios start from, and whose manifest
        # verify --before compares with
        warm_cache = work / "warm"
        base = work / "base"
        primed = run_proc(scan(tree, warm_cache, out_dir=base))
        pristine = work / "warm-pristine"
        link_copy(warm_cache, pristine)

        def restore(cache: Path) -> Callable[[int], None]:
            return lambda _i: link_copy(pristine, cache)

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

        drop = Series("depgraph --drop change", "")
        if args.drop_feature:
            drop_cache = work / "drop"
            cmd = scan(tree, drop_cache, "--drop", args.drop_feature)
            drop.command = shlex.join(cmd) + "  (cache: as the priming scan left it)"
            before_results = _names(pristine / "store" / "results")
            hits: list[bool] = []
            measure(drop, cmd, args.runs, before=restore(drop_cache),
                    after=lambda _r: hits.append(not _names(drop_cache / "store" / "results")
                                                 - before_results))
            drop.note = f"--drop {args.drop_feature}"
            if any(hits):
                drop.note += (f"; the result cache answered in {sum(hits)} of {len(hits)} "
                              "runs: the feature changed nothing a scan's key sees?")
        else:
            drop.note = "skipped: no --drop-feature given"
        results.append(drop)

        copy = work / "tree"
        shutil.copytree(tree, copy, symlinks=True)
        rel = args.changed_file or pick_changed_file(copy)
        one_cache = work / "one"
        link_copy(pristine, one_cache)  # facts are keyed by content: only the copy's own
        run_proc(scan(copy, one_cache))  # per-tree caches are primed here

        # a comment appended changes nothing the analysis reads (the early cut-off holds);
        # a line of code appended is a new module-level name, a new fact (every plan runs
        # from nothing)
        for name, appended, what in (
                ("depgraph one file changed", "\n# bench edit {i}\n", "a comment appended"),
                ("depgraph one file changed, code", "\n_depgraph_bench_edit_{i} = {i}\n",
                 "a line of code appended")):
            def edit(i: int, appended: str = appended) -> None:
                with open(copy / rel, "a", encoding="utf-8") as fh:
                    fh.write(appended.format(i=i))

            one = measure(Series(name, shlex.join(scan(copy, one_cache))
                                 + f"  (after editing {rel})"),
                          scan(copy, one_cache), args.runs, before=edit)
            one.note = f"{rel}: {what}"
            results.append(one)
        parse = parse_seconds(copy, rel, args.runs)
        results[-2].note = f"{rel}: parse {parse * 1000:.1f} ms; a comment appended"
        shutil.rmtree(copy, ignore_errors=True)

        results += verify_before(args, dg, tree, work, base / "manifest.json", primed,
                                 restore(work / "verify"), work / "verify")

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


def _names(folder: Path) -> set[str]:
    """The entries under ``folder`` (the store's results: ``<version>/<shard>/<entry>``)."""
    try:
        return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}
    except OSError:
        return set()


def verify_before(args: argparse.Namespace, dg: list[str], tree: Path, work: Path,
                  manifest: Path, primed: Run, restore: Callable[[int], None],
                  cache: Path) -> list[Series]:
    """apply MANIFEST --root COPY --write (once), then verify COPY --before MANIFEST
    (``--runs`` times, each from the priming scan's cache)."""
    roots = [x for r in args.roots for x in ("--roots", r)]
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    applied = work / "applied"
    # (the edits the scan's gate computed are in its cache, as a user's scan leaves them in
    # the default one: without --cache-dir apply would read the user's own, whatever it holds)
    apply_cmd = [*dg, "apply", str(manifest), "--root", str(applied), "--write",
                 "--patch-out", str(work / "apply.patch"), "--cache-dir", str(cache)]
    verify_cmd = [*dg, "verify", str(applied), "--before", str(manifest), *roots, *jobs,
                  "--cache-dir", str(cache)]
    stat_cmd = [*dg, "apply", str(manifest), "--root", str(applied), "--stat",
                "--cache-dir", str(cache)]
    stat_s = Series("depgraph apply --stat", shlex.join(stat_cmd)
                    + "  (cache: as the priming scan left it)")
    apply_s = Series("depgraph apply --write", shlex.join(apply_cmd)
                     + "  (cache: as the priming scan left it)")
    verify_s = Series("depgraph verify --before", shlex.join(verify_cmd)
                      + "  (cache: as the priming scan left it)")
    if primed.code != 0 or not manifest.is_file():
        stat_s.note = apply_s.note = verify_s.note = (f"skipped: the priming scan exited "
                                                      f"{primed.code}")
        return [stat_s, apply_s, verify_s]
    shutil.copytree(tree, applied, symlinks=True)
    # the preview first, on the copy as the scan saw it (it changes nothing)
    measure(stat_s, stat_cmd, args.runs, before=restore)
    stat_s.note = "on a copy of the tree, before the write"
    applied_codes: list[int] = []
    measure(apply_s, apply_cmd, 1, before=restore,
            after=lambda got: applied_codes.append(got.code))
    apply_s.note = "once, on a copy of the tree: what verify then checks"
    if applied_codes != [0]:
        apply_s.note = f"exit {applied_codes[0]}: the copy is not pruned"
        verify_s.note = "skipped: apply failed"
        shutil.rmtree(applied, ignore_errors=True)
        return [stat_s, apply_s, verify_s]
    codes: list[int] = []
    first_problem: list[str] = []

    def seen(got: Run) -> None:
        codes.append(got.code)
        if got.code == EXIT_PROBLEMS and not first_problem:
            lines = [ln for ln in got.stdout.splitlines() if ln.strip()]
            first_problem.append(lines[0] if lines else "")

    measure(verify_s, verify_cmd, args.runs, before=restore, ok=(0, EXIT_PROBLEMS), after=seen)
    shutil.rmtree(applied, ignore_errors=True)
    if all(c == 0 for c in codes):
        verify_s.note = "exit 0: verify OK"
    else:
        verify_s.note = "exit " + "/".join(str(c) for c in sorted(set(codes)))
        if first_problem:
            verify_s.note += f" (problems; first: {first_problem[0][:120]})"
    return [stat_s, apply_s, verify_s]


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


def targets(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Issue 26's targets, judged on this run's medians: one dict per target (label, the
    figures, ``met``: True, False, or None when a side was not measured)."""
    by = {s.name: s for s in data["series"]}
    out: list[dict[str, Any]] = []
    for scenario, tool, limit, label in TARGETS:
        s, ref = by.get(scenario), by.get(tool)
        row: dict[str, Any] = {
            "label": label, "scenario": scenario, "reference": tool, "limit": limit,
            "seconds": None, "reference_seconds": None, "ratio": None, "met": None, "note": ""}
        if s is None or not s.seconds:
            row["note"] = f"not measured: {s.note if s else 'no such scenario'}"
        elif ref is None or not ref.seconds or not ref.median > 0:
            row["seconds"] = s.median
            row["note"] = (f"no {tool} timing"
                           + (f" ({ref.note})" if ref is not None and ref.note else ""))
        else:
            ratio = s.median / ref.median
            row.update(seconds=s.median, reference_seconds=ref.median, ratio=ratio,
                       met=ratio <= limit)
        out.append(row)
    for scenario, limit_s, label in SECONDS_TARGETS:
        s = by.get(scenario)
        row = {"label": label, "scenario": scenario, "reference": None, "limit": limit_s,
               "seconds": None, "reference_seconds": None, "ratio": None, "met": None,
               "note": ""}
        if s is None or not s.seconds:
            row["note"] = f"not measured: {s.note if s else 'no such scenario'}"
        else:
            row.update(seconds=s.median, met=s.median <= limit_s)
        out.append(row)
    peak = max((max(s.rss_kib) for s in data["series"]
                if s.rss_kib and s.name.startswith("depgraph")), default=0)
    peak_mb = peak * 1024 / MB
    out.append({"label": "peak RSS", "scenario": "every depgraph run", "reference": None,
                "limit": RSS_LIMIT_MB, "seconds": None, "reference_seconds": None,
                "ratio": None, "met": peak_mb <= RSS_LIMIT_MB if peak else None,
                "peak_mb": peak_mb, "note": "" if peak else "no depgraph run"})
    return out


def stage_table(series: list[Series]) -> list[str]:
    """Median seconds per stage (``scan --timings``) for each scenario that printed them."""
    timed = [s for s in series if s.stages]
    if not timed:
        return []
    medians = [s.stage_medians() for s in timed]
    names = list(dict.fromkeys(k for m in medians for k in m))
    lines = ["", "stages (median s of `scan --timings`; `total` is in-process, without the "
             "interpreter's start):", "",
             "| stage | " + " | ".join(f"{s.name.removeprefix('depgraph ')} ({len(s.stages)})"
                                    for s in timed) + " |",
             "|---|" + "---|" * len(timed)]
    for name in names:
        cells = [f"{m[name]:.2f}" if name in m else "-" for m in medians]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def report(data: dict[str, Any], args: argparse.Namespace) -> str:
    lines = [f"tree: {data['tree']} ({describe_tree(Path(data['tree']))})",
             f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
             f"{platform.platform()}; depgraph {_commit()}", "",
             "| scenario | runs | median s | min-max s | peak RSS MiB | note |",
             "|---|---|---|---|---|---|"]
    lines += [s.row() for s in data["series"]]
    lines += stage_table(data["series"])
    lines += ["", "targets (issues 26 and 50; ratios of this run's medians):"]
    for t in data["targets"]:
        verdict = {True: "met", False: "NOT met", None: "not judged"}[t["met"]]
        if t["label"] == "peak RSS":
            lines.append(f"- peak RSS: {t['peak_mb']:.0f} MB vs <= {t['limit']} MB "
                         f"(10^6 bytes; {t['peak_mb'] * MB / 1024 / 1024:.0f} MiB): {verdict}"
                         + (f" ({t['note']})" if t["note"] else ""))
        elif t["reference"] is None:  # (a target in seconds)
            got = _secs(t["seconds"]) if t["seconds"] is not None else t["note"]
            lines.append(f"- {t['label']}: {got} vs <= {t['limit']:g} s: {verdict}")
        elif t["ratio"] is not None:
            lines.append(f"- {t['label']}: {_secs(t['seconds'])} = {t['ratio']:.2f} x "
                         f"{t['reference']} {_secs(t['reference_seconds'])} vs <= "
                         f"{t['limit']:g} x: {verdict}")
        else:
            seconds = f"{t['seconds']:.2f} s; " if t["seconds"] is not None else ""
            lines.append(f"- {t['label']} (<= {t['limit']:g} x {t['reference']}): "
                         f"{seconds}{verdict}: {t['note']}")
    lines.append(f"- growth: every stage at most {GROWTH_LIMIT:g}x per doubling of the tree: "
                 "measured by `bench/scale.py --scales 1 2 4`, not here")
    lines += ["", "commands:"] + [f"- {s.name}: `{s.command}`" for s in data["series"]
                                  if s.command]
    return "\n".join(lines)


def _secs(seconds: float) -> str:
    """Seconds, with a third decimal below one second (ruff is often a few hundredths)."""
    return f"{seconds:.2f} s" if seconds >= 1 else f"{seconds:.3f} s"


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
                        help="runs of depgraph cold, re-analysis, --drop change, one file "
                             "changed and verify --before")
    parser.add_argument("--tool-runs", type=int, default=3, help="runs of vulture")
    parser.add_argument("--fast-runs", type=int, default=10,
                        help="runs of depgraph warm and ruff, alternating")
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--drop-feature", default=None, metavar="NAME",
                        help="feature the --drop change scenario adds with --drop (one the "
                             "tree's profile knows and does not drop already); without it, "
                             "that scenario is skipped")
    parser.add_argument("--stages", action="store_true",
                        help="scan with --timings and print median seconds per stage")
    parser.add_argument("--json", type=Path, default=None, help="write raw timings here")
    parser.add_argument("--skip-tools", action="store_true", help="no ruff / vulture")
    parser.add_argument("--changed-file", default=None, help="Python file to edit (relative)")
    parser.add_argument("--depgraph", default=None, help="command that runs depgraph")
    args = parser.parse_args(argv)
    if not args.tree.is_dir():
        parser.error(f"not a directory: {args.tree}")
    data = bench(args)
    data["targets"] = targets(data)
    print(report(data, args))
    if args.json:
        args.json.write_text(json.dumps({
            "tree": data["tree"], "changed_file": data["changed_file"],
            "parse_seconds": data["parse"], "targets": data["targets"],
            "series": [{"name": s.name, "command": s.command, "seconds": s.seconds,
                        "rss_kib": s.rss_kib, "stages": s.stages, "note": s.note}
                       for s in data["series"]]},
            indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
