"""The full check of a pruned tree over a matrix of trees and configurations: one table.

    python bench/matrix.py --work DIR LABEL=TREE [LABEL=TREE ...] [--roots NAME ...]
        [--configs default,seed,features] [--only PATTERN ...] [--timeout SECONDS]

For each tree (``LABEL=PATH``, only read), these configurations, each on a fresh copy of the
tree (``DIR/LABEL/tree``, ``shutil.copytree(symlinks=True)``; removed when its configuration
is done):

- ``default``: ``depgraph scan COPY --roots R --out OUT``, then ``apply --write`` of the whole
  manifest (the built-in profile's default drops);
- ``seed`` (trees whose manifest's ``profile.name`` is ``sglang``): the same with
  ``--keep ascend`` (what the seed documents drop: fa3, fa4, flashmla);
- ``feature=F`` for every feature the default manifest's deletions name:
  ``depgraph apply DEFAULT_MANIFEST --root COPY --write --feature F`` (no re-scan).

Then, as ``bench/prune_check.py`` does for one tree: the same apply again (it must say
"already applied" and change no byte), ``depgraph verify COPY <scan options> --before
MANIFEST``, ``bench/import_check.py COPY --against TREE``, ``bench/undefined_names.py TREE COPY``
(``--manifest MANIFEST`` for a whole plan; a feature subset compares every changed file) and
``bench/unresolved_refs.py TREE COPY``. After a one-feature apply, verify's "manifest entry not
carried out" lines of entries outside that feature are expected: they are not counted, only
noted next to the count. Each step is a fresh process of this checkout's
depgraph (``prune_check.run``); the scans of one tree share ``DIR/LABEL/cache``.

A default row also checks each what-frees-it line of its manifest (issue 51): a scan of the
unpruned copy with those drops added grows the feature's files, lines and TUs by the stated
yield. A feature row checks issue 49's share: the manifest's share of F equals the default
plan less a scan with ``--keep F``.

Prints one Markdown table (a cell that should be zero and is not is **bold**), then ``matrix:
all zeros`` or ``matrix: N cells not zero``; exit 1 when any is. The last column, for the
whole-plan rows, is what verify's scan of the pruned tree still plans (how far one pass is
from the plan's fixpoint): a figure to watch, not a break, so never a non-zero cell.
``DIR/matrix.md`` holds the table, ``DIR/details.md`` the first lines of every non-zero cell,
``DIR/LABEL/CONFIG/logs/`` every step's output and ``DIR/LABEL/CONFIG/out/`` the manifest.
``--only`` keeps the configurations whose label (``sglang:default``, ``vllm:feature=rocm``,
``sglang:seed``) matches one of the patterns (fnmatch; a bare tree label keeps all of that
tree's).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from prune_check import CHECKOUT, DEPGRAPH, apply_summary, run, snapshot  # noqa: E402

PROBLEM = re.compile(r"\S+:\d+: ")
# verify --before of the whole manifest after a one-feature apply: the other entries
NOT_CARRIED = re.compile(r": manifest entry not carried out: .* not applied"
                         r"(?: \(feature ([^)]+)\))?$")
APPLIED = re.compile(r"deleted ([\d,]+) files?, edited ([\d,]+) files?, removed ([\d,]+) lines?")
DETAIL_LINES = 8  # lines of each non-zero cell kept in details.md


@dataclass
class Config:
    tree: str  # the tree's label
    original: Path
    kind: str  # default | seed | feature
    feature: str = ""

    @property
    def label(self) -> str:
        return f"{self.tree}:feature={self.feature}" if self.kind == "feature" else \
            f"{self.tree}:{self.kind}"

    @property
    def slug(self) -> str:
        return f"feature-{self.feature}" if self.kind == "feature" else self.kind


@dataclass
class Cell:
    text: str
    bad: bool = False  # should be zero and is not
    details: list[str] = field(default_factory=list)
    note: str = ""  # shown after the figure, never bold

    def show(self) -> str:
        return (f"**{self.text}**" if self.bad else self.text) + self.note


COLUMNS = ("removable files/lines", "apply / again", "verify problems", "import regressions",
           "new undefined names", "unresolved imports (runtime + typing-only)", "cmake refs",
           "re-scan plans (deletions / lines)", "share = all - keep F",
           "what frees it = re-scan with it")
# what makes a manifest entry the same edit in two plans: not what the attribution sets, nor
# the reason (it names what else the plan deletes)
ATTRIBUTION = ("feature", "features", "with_features", "after", "reason")
# verify --before: what a scan of the pruned tree still plans (the whole plan applied: how far
# one pass is from the plan's fixpoint; not a break, so never counted as a non-zero cell)
STILL = re.compile(r"still removable: (\d+) deletions, (\d+) lines")


@dataclass
class Row:
    config: Config
    options: str
    cells: dict[str, Cell] = field(default_factory=dict)
    seconds: float = 0.0

    def line(self) -> str:
        values = [self.cells.get(c, Cell("—")).show() for c in COLUMNS]
        return (f"| {self.config.tree} | {self.options} | " + " | ".join(values)
                + f" | {self.seconds:.0f} |")


def first_lines(stdout: str, pattern: re.Pattern[str] = PROBLEM) -> list[str]:
    return [line for line in stdout.splitlines()
            if pattern.match(line) and not line.startswith("warning:")][:DETAIL_LINES]


class Runner:
    def __init__(self, work: Path, roots: list[str], timeout: float) -> None:
        self.work = work
        self.roots = roots
        self.timeout = timeout

    def scan_options(self, config: Config) -> list[str]:
        options = [opt for r in self.roots for opt in ("--roots", r)]
        return options + (["--keep", "ascend"] if config.kind == "seed" else [])

    def folder(self, config: Config) -> Path:
        return self.work / config.tree / config.slug

    def cache(self, config: Config) -> list[str]:
        return ["--cache-dir", str(self.work / config.tree / "cache")]

    def fresh_copy(self, config: Config) -> Path:
        copy = self.work / config.tree / "tree"
        if copy.exists():
            shutil.rmtree(copy)
        shutil.copytree(config.original, copy, symlinks=True)
        return copy

    def scan(self, config: Config, copy: Path, logs: Path) -> tuple[Path | None, Cell]:
        """Scan ``copy`` into the configuration's ``out``; (manifest or None, removable cell)."""
        out = self.folder(config) / "out"
        manifest = out / "manifest.json"
        code, _, stdout = run([*DEPGRAPH, "scan", str(copy), *self.scan_options(config),
                               "--out", str(out), *self.cache(config)], logs / "1-scan.txt")
        if code != 0 or not manifest.is_file():
            return None, Cell(f"scan exit {code}", True, stdout.strip().splitlines()[-5:])
        totals = json.loads(manifest.read_text(encoding="utf-8")).get("totals", {})
        return manifest, Cell(f"{totals.get('files_removable')} / {totals.get('lines_removable')}")

    def prepare(self, config: Config) -> tuple[Path, Path]:
        folder = self.folder(config)
        if folder.exists():
            shutil.rmtree(folder)
        logs = folder / "logs"
        logs.mkdir(parents=True)
        return folder, logs

    def share_cell(self, config: Config, copy: Path, logs: Path, manifest: Path) -> Cell:
        """Issue 49's one definition: the feature's share in the manifest (the deletions whose
        ``features`` hold it) equals the plan of every default drop less the plan that keeps
        it (a scan of the unpruned copy with ``--keep F``)."""
        out = self.folder(config) / "keep"
        code, _, stdout = run([*DEPGRAPH, "scan", str(copy), *self.scan_options(config),
                               "--keep", config.feature, "--out", str(out), "--format",
                               "json", *self.cache(config)], logs / "0-scan-keep.txt")
        kept = out / "manifest.json"
        if code != 0 or not kept.is_file():
            return Cell(f"scan exit {code}", True, stdout.strip().splitlines()[-5:])
        data = json.loads(manifest.read_text(encoding="utf-8"))
        share = {json.dumps({k: v for k, v in d.items() if k not in ATTRIBUTION},
                            sort_keys=True)
                 for d in data.get("deletions", []) if config.feature in d.get("features", ())}
        diff = set(entries(manifest)) - set(entries(kept))
        if share == diff:
            return Cell(f"= ({len(share)})")
        details = [f"only in the share: {e}" for e in sorted(share - diff)[:4]] + \
            [f"only in all - keep: {e}" for e in sorted(diff - share)[:4]]
        return Cell(f"{len(share - diff)} / {len(diff - share)} differ", True, details)

    def frees_cell(self, config: Config, copy: Path, logs: Path, manifest: Path) -> Cell:
        """Issue 51's what-frees-it line, checked: for every feature whose manifest entry says
        ``what_frees_it``, a scan of the unpruned copy with those drops added must grow the
        feature's row (files, lines, TUs) by exactly the stated yield."""
        data = json.loads(manifest.read_text(encoding="utf-8"))
        rows = {f["name"]: f for f in (data.get("profile") or {}).get("features", [])}
        said = {name: f["what_frees_it"] for name, f in rows.items()
                if f.get("what_frees_it", {}).get("drop")}  # (no drop: "no further drop")
        if not said:
            return Cell("none")
        wrong: list[str] = []
        for name, frees in sorted(said.items()):
            out = self.folder(config) / f"frees-{name}"
            drops = [opt for d in frees["drop"] for opt in ("--drop", d)]
            code, _, stdout = run([*DEPGRAPH, "scan", str(copy), *self.scan_options(config),
                                   *drops, "--out", str(out), "--format", "json",
                                   *self.cache(config)], logs / f"0-scan-frees-{name}.txt")
            then_file = out / "manifest.json"
            if code != 0 or not then_file.is_file():
                tail = stdout.strip().splitlines()[-1:] or [""]
                wrong.append(f"{name}: scan with {frees['drop']} exit {code}: {tail[0]}")
                continue
            then_rows = {f["name"]: f for f in json.loads(then_file.read_text(
                encoding="utf-8"))["profile"]["features"]}
            now, then = rows[name], then_rows.get(name)
            if then is None:
                wrong.append(f"{name}: not a feature of the scan with {frees['drop']}")
                continue
            got = (then["files_removable"] - now["files_removable"],
                   then["lines_removable"] - now["lines_removable"],
                   then["translation_units_removable"] - now["translation_units_removable"])
            stated = (frees["files"], frees["lines"], frees["tus"])
            if got != stated:
                wrong.append(f"{name}: drop {frees['drop']} said (files, lines, TUs) "
                             f"{stated}, the scan gives {got}")
        if wrong:
            return Cell(f"{len(wrong)} of {len(said)} differ", True, wrong)
        return Cell(f"{len(said)} of {len(said)} match")

    def scan_only(self, config: Config) -> Path | None:
        """The default configuration's manifest, when that configuration itself is not run."""
        _, logs = self.prepare(config)
        copy = self.fresh_copy(config)
        try:
            manifest, _ = self.scan(config, copy, logs)
        finally:
            shutil.rmtree(copy, ignore_errors=True)
        return manifest

    def check(self, config: Config, default_manifest: Path | None) -> tuple[Row, Path | None]:
        """Run one configuration; (its row, its manifest)."""
        started = time.perf_counter()
        opts = " ".join(self.scan_options(config))
        options = {"default": f"default: `{opts}`", "seed": f"seed: `{opts}`"}.get(
            config.kind, f"feature {config.feature}: `apply --feature {config.feature}`")
        row = Row(config, options)
        folder, logs = self.prepare(config)
        copy = self.fresh_copy(config)
        try:
            manifest = self.steps(config, row, copy, logs, default_manifest)
        finally:
            shutil.rmtree(copy, ignore_errors=True)
            row.seconds = time.perf_counter() - started
        (folder / "row.json").write_text(json.dumps({
            "label": config.label, "options": row.options, "seconds": round(row.seconds, 1),
            "cells": {k: {"text": c.text, "bad": c.bad, "details": c.details}
                      for k, c in row.cells.items()}}, indent=1), encoding="utf-8")
        return row, manifest

    def steps(self, config: Config, row: Row, copy: Path, logs: Path,
              default_manifest: Path | None) -> Path | None:
        cells = row.cells
        folder = self.folder(config)
        if config.kind == "feature":
            manifest = default_manifest
            if manifest is None:
                cells[COLUMNS[0]] = Cell("no default manifest", True)
                return None
            apply = [*DEPGRAPH, "apply", str(manifest), "--root", str(copy), "--write",
                     "--feature", config.feature]
        else:
            manifest, cells[COLUMNS[0]] = self.scan(config, copy, logs)
            if manifest is None:
                return None
            apply = [*DEPGRAPH, "apply", str(manifest), "--root", str(copy), "--write"]

        if config.kind == "feature" and manifest is not None:
            cells[COLUMNS[8]] = self.share_cell(config, copy, logs, manifest)
        if config.kind == "default" and manifest is not None:
            cells[COLUMNS[9]] = self.frees_cell(config, copy, logs, manifest)

        # apply, then the same again: "already applied", no byte changed
        code, _, stdout = run(apply, logs / "2-apply.txt")
        first = apply_summary(stdout)
        if config.kind == "feature":
            m = APPLIED.search(stdout)
            cells[COLUMNS[0]] = Cell(f"{m.group(1)} / {m.group(3)}") if m else \
                Cell(first or f"apply exit {code}", code != 0)
        before = snapshot(copy)
        code2, _, stdout2 = run(apply, logs / "3-apply-again.txt")
        after = snapshot(copy)
        changed = sorted(p for p in before.keys() & after.keys() if before[p] != after[p])
        moved = sorted(after.keys() ^ before.keys())
        # the same again: "already applied" -- or, where the first changed nothing (a feature
        # whose share is empty), "nothing to apply" again; no byte changed either way
        again_ok = code2 == 0 and not changed and not moved and (
            "already applied" in stdout2
            or ("nothing to apply" in first and "nothing to apply" in stdout2))
        problems = []
        if code != 0:
            problems.append(f"apply exit {code}: {first}")
        if not again_ok:
            problems.append(f"again exit {code2}: {apply_summary(stdout2)}")
            problems += [f"changed {p}" for p in changed[:5]] + [f"new/gone {p}" for p in moved[:5]]
        if again_ok:
            again = "ok"
        elif changed or moved:
            again = f"{len(changed) + len(moved)} files changed"
        else:
            again = f"exit {code2}" if code2 else "not 'already applied'"
        cells[COLUMNS[1]] = Cell(f"{'ok' if code == 0 else f'exit {code}'} / {again}",
                                 bool(problems), problems)

        # verify
        code, _, stdout = run([*DEPGRAPH, "verify", str(copy), *self.scan_options(config),
                               "--before", str(manifest), *self.cache(config)],
                              logs / "4-verify.txt")
        found = [line for line in stdout.splitlines()
                 if PROBLEM.match(line) and not line.startswith("warning:")]
        outside = {line for line in found if config.kind == "feature"
                   and (m := NOT_CARRIED.search(line)) and m.group(1) != config.feature}
        found = [line for line in found if line not in outside]
        note = f" (+{len(outside)} entries outside the feature)" if outside else ""
        still = STILL.search(stdout)
        if still and config.kind != "feature":
            cells[COLUMNS[7]] = Cell(f"{still.group(1)} / {still.group(2)}")
        if code == 0:
            cells[COLUMNS[2]] = Cell("0")
        elif code == 8:
            cells[COLUMNS[2]] = Cell(str(len(found)), bool(found), found[:DETAIL_LINES], note)
        else:
            cells[COLUMNS[2]] = Cell(f"exit {code}", True, stdout.strip().splitlines()[-5:])

        # imports
        report = folder / "import_check.json"
        code, _, stdout = run([sys.executable, str(HERE / "import_check.py"), str(copy),
                               "--against", str(config.original), "--json", str(report),
                               "--timeout", str(self.timeout)], logs / "5-import.txt")
        m = re.search(r"regressions: (\d+)", stdout)
        if code in (0, 1) and m:
            n = int(m.group(1))
            details = []
            if n and report.is_file():
                data = json.loads(report.read_text(encoding="utf-8"))
                details = [f"{r.get('path')}: {r.get('error')}: {r.get('message', '')}"[:300]
                           for r in data.get("regressions", [])[:DETAIL_LINES]]
            cells[COLUMNS[3]] = Cell(str(n), n > 0, details)
        else:
            cells[COLUMNS[3]] = Cell(f"exit {code}", True, stdout.strip().splitlines()[-5:])

        # undefined names
        cmd = [sys.executable, str(HERE / "undefined_names.py"), str(config.original), str(copy),
               "--json", str(folder / "undefined_names.json")]
        if config.kind != "feature":
            cmd += ["--manifest", str(manifest)]
        code, _, stdout = run(cmd, logs / "6-undefined.txt")
        m = re.search(r"undefined names: \d+ files checked, (\d+) new", stdout)
        if code in (0, 1) and m:
            n = int(m.group(1))
            cells[COLUMNS[4]] = Cell(str(n), n > 0, first_lines(stdout))
        else:
            cells[COLUMNS[4]] = Cell(f"exit {code}", True, stdout.strip().splitlines()[-5:])

        # unresolved references
        code, _, stdout = run([sys.executable, str(HERE / "unresolved_refs.py"),
                               str(config.original), str(copy), "--json",
                               str(folder / "unresolved_refs.json")], logs / "7-unresolved.txt")
        m = re.search(r"unresolved refs: \d+ files checked, (\d+) runtime, (\d+) typing-only, "
                      r"(\d+) cmake", stdout)
        if code in (0, 1) and m:
            r, t, c = (int(g) for g in m.groups())
            lines = first_lines(stdout)
            cells[COLUMNS[5]] = Cell(f"{r} + {t}", r + t > 0,
                                     [x for x in lines if ": cmake: " not in x])
            cells[COLUMNS[6]] = Cell(str(c), c > 0,
                                     [x for x in stdout.splitlines() if ": cmake: " in x]
                                     [:DETAIL_LINES])
        else:
            cells[COLUMNS[5]] = Cell(f"exit {code}", True, stdout.strip().splitlines()[-5:])
            cells[COLUMNS[6]] = Cell(f"exit {code}", True)
        return manifest


def features_of(manifest: Path) -> tuple[str | None, list[str]]:
    """(profile name, the features it dropped) of a manifest."""
    data = json.loads(manifest.read_text(encoding="utf-8"))
    profile = data.get("profile") or {}
    return profile.get("name"), list(profile.get("dropped") or [])


def entries(manifest: Path) -> list[str]:
    """The manifest's deletions as the same edit reads in any plan (without attribution)."""
    data = json.loads(manifest.read_text(encoding="utf-8"))
    return [json.dumps({k: v for k, v in d.items() if k not in ATTRIBUTION}, sort_keys=True)
            for d in data.get("deletions", [])]


def revision() -> str:
    def git(*args: str) -> str:
        proc = subprocess.run(["git", *args], cwd=CHECKOUT, capture_output=True, text=True,
                              check=False)
        return proc.stdout.strip()

    dirty = git("status", "--porcelain", "--", "analyzer")
    return git("rev-parse", "--short", "HEAD") + (" + uncommitted analyzer/ changes"
                                                  if dirty else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", metavar="LABEL=TREE")
    parser.add_argument("--work", type=Path, required=True,
                        help="work folder (logs, manifests, caches, the copies)")
    parser.add_argument("--roots", action="append", metavar="NAME",
                        help="scan roots (repeatable; default deepseek_v2)")
    parser.add_argument("--configs", default="default,seed,features",
                        help="configuration kinds, comma-separated (default: all three)")
    parser.add_argument("--only", nargs="+", default=[], metavar="PATTERN",
                        help="configuration labels to run (fnmatch): sglang:default, "
                             "vllm:feature=rocm, 'vllm:feature=*', or a tree label")
    parser.add_argument("--timeout", type=float, default=20.0,
                        help="per-module import timeout for import_check (default 20)")
    args = parser.parse_args(argv)
    kinds = {k.strip() for k in args.configs.split(",") if k.strip()}
    if not kinds <= {"default", "seed", "features"}:
        print(f"matrix: unknown --configs {sorted(kinds)}", file=sys.stderr)
        return 2
    trees: list[tuple[str, Path]] = []
    for spec in args.trees:
        label, sep, path = spec.partition("=")
        if not sep or not label or not re.fullmatch(r"[A-Za-z0-9_.-]+", label):
            print(f"matrix: expected LABEL=TREE, got {spec!r}", file=sys.stderr)
            return 2
        tree = Path(path).resolve()
        if not tree.is_dir():
            print(f"matrix: not a directory: {path}", file=sys.stderr)
            return 2
        trees.append((label, tree))
    work = args.work.resolve()
    for _, tree in trees:
        if work == tree or tree in work.parents or work in tree.parents:
            print("matrix: --work must be outside every tree", file=sys.stderr)
            return 2
    work.mkdir(parents=True, exist_ok=True)
    runner = Runner(work, args.roots or ["deepseek_v2"], args.timeout)

    def selected(label: str) -> bool:
        tree = label.partition(":")[0]
        return not args.only or any(fnmatch.fnmatchcase(label, p) or p == tree
                                    for p in args.only)

    def may_select_features(tree: str) -> bool:
        return not args.only or any(p == tree or p.startswith(f"{tree}:feature")
                                    or any(ch in p for ch in "*?[") for p in args.only)

    started = time.perf_counter()
    at_start = revision()
    rows: list[Row] = []

    def note(row: Row) -> None:
        rows.append(row)
        print(f"[{time.perf_counter() - started:5.0f}s] {row.config.label}: "
              + "; ".join(f"{k} {c.text}" for k, c in row.cells.items()), file=sys.stderr)

    for label, tree in trees:
        default = Config(label, tree, "default")
        manifest: Path | None = None
        need_manifest = (("seed" in kinds and selected(f"{label}:seed"))
                         or ("features" in kinds and may_select_features(label)))
        if "default" in kinds and selected(default.label):
            print(f"[{time.perf_counter() - started:5.0f}s] {default.label} ...", file=sys.stderr)
            row, manifest = runner.check(default, None)
            note(row)
        elif need_manifest:
            print(f"[{time.perf_counter() - started:5.0f}s] {label}: scanning for the default "
                  "manifest", file=sys.stderr)
            manifest = runner.scan_only(default)
        if manifest is None:
            if need_manifest:
                print(f"matrix: {label}: no default manifest, seed and features skipped",
                      file=sys.stderr)
            continue
        profile, features = features_of(manifest)
        configs = []
        if "seed" in kinds and profile == "sglang":
            configs.append(Config(label, tree, "seed"))
        if "features" in kinds:
            configs += [Config(label, tree, "feature", f) for f in features]
        for config in configs:
            if not selected(config.label):
                continue
            print(f"[{time.perf_counter() - started:5.0f}s] {config.label} ...", file=sys.stderr)
            note(runner.check(config, manifest)[0])
        shutil.rmtree(work / label / "tree", ignore_errors=True)

    header = ("| tree | options | " + " | ".join(COLUMNS) + " | seconds |\n"
              + "|---|---|" + "---:|" * (len(COLUMNS) + 1))
    table = "\n".join([header, *(r.line() for r in rows)])
    bad = [(r, name, c) for r in rows for name, c in r.cells.items() if c.bad]
    footer = f"matrix: {'all zeros' if not bad else f'{len(bad)} cells not zero'}"
    print(table)
    print()
    print(footer)
    at_end = revision()
    code = at_start if at_end == at_start else f"{at_start} at the start, {at_end} at the end"
    (work / "matrix.md").write_text(
        f"depgraph {code}; roots {', '.join(runner.roots)}; "
        f"{time.perf_counter() - started:.0f}s\n\n{table}\n\n{footer}\n", encoding="utf-8")
    details = [f"# Non-zero cells ({len(bad)})", ""]
    for r, name, c in bad:
        details += [f"## {r.config.label}: {name}: {c.text}",
                    f"logs: {runner.folder(r.config) / 'logs'}", "", "```",
                    *c.details, "```", ""]
    (work / "details.md").write_text("\n".join(details), encoding="utf-8")
    print(f"table: {work / 'matrix.md'}; non-zero cells: {work / 'details.md'}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
