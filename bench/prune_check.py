"""The full check of one pruned tree: scan, apply, apply again, verify, import, lint.

    python bench/prune_check.py TREE --work DIR [-- scan options...]

Copies TREE to DIR/pruned (DIR is removed first), then runs, each in its own process and timed:

1. ``depgraph scan DIR/pruned <scan options> --out DIR/out``
2. ``depgraph apply DIR/out/manifest.json --write``
3. the same again: it must say "already applied" and change no byte (sha256 of every file of
   DIR/pruned before and after; no file may appear or disappear)
4. ``depgraph verify DIR/pruned <scan options> --before DIR/out/manifest.json``
5. ``bench/import_check.py DIR/pruned --against TREE``
6. ``bench/undefined_names.py TREE DIR/pruned --manifest DIR/out/manifest.json``

and prints a Markdown table (step, exit code, seconds, key figure). Exit 1 when a step fails.
depgraph is the one of this checkout, run as
``python -c "from analyzer.cli.main import main; main()"``.
TREE itself is only read.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
DEPGRAPH = [sys.executable, "-c", "from analyzer.cli.main import main; main()"]

# scan options verify does not take: flags, and options with a value
SCAN_ONLY_FLAGS = {"-q", "--quiet", "--fail-on-removable", "--no-result-cache", "--timings",
                   "--strict"}
SCAN_ONLY_VALUES = {"--out", "--format"}


@dataclass
class Step:
    name: str
    code: int
    seconds: float
    figure: str
    ok: bool
    log: str = ""


def verify_options(scan_options: list[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for opt in scan_options:
        if skip:
            skip = False
            continue
        name = opt.split("=", 1)[0]
        if name in SCAN_ONLY_FLAGS:
            continue
        if name in SCAN_ONLY_VALUES:
            skip = "=" not in opt
            continue
        out.append(opt)
    return out


def run(cmd: list[str], log: Path) -> tuple[int, float, str]:
    """Run ``cmd`` from the checkout; (exit code, wall seconds, stdout and stderr). Both
    streams are saved to ``log``."""
    started = time.perf_counter()
    env = dict(os.environ, PYTHONPATH=str(CHECKOUT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=CHECKOUT, env=env,
                          stdin=subprocess.DEVNULL)
    seconds = time.perf_counter() - started
    log.write_text(f"$ {shlex.join(cmd)}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
                   f"\n--- exit {proc.returncode}\n", encoding="utf-8")
    return proc.returncode, seconds, proc.stdout + "\n" + proc.stderr


def snapshot(root: Path) -> dict[str, str]:
    """sha256 of every file (symlinks: their target text) under ``root``."""
    out: dict[str, str] = {}
    for folder, dirs, files in os.walk(root):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            if os.path.islink(path):
                out[rel] = "link:" + os.readlink(path)
            else:
                with open(path, "rb") as fh:
                    out[rel] = hashlib.file_digest(fh, "sha256").hexdigest()
    return out


def apply_summary(stdout: str) -> str:
    for line in stdout.splitlines():
        if re.match(r"(deleted [\d,]+ files?|already applied|nothing to apply)", line):
            return line
    lines = [line for line in stdout.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    scan_options: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, scan_options = argv[:cut], argv[cut + 1:]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     usage="%(prog)s TREE --work DIR [-- scan options...]")
    parser.add_argument("tree", type=Path)
    parser.add_argument("--work", type=Path, required=True, help="work folder (removed first)")
    parser.add_argument("--timeout", type=float, default=20.0,
                        help="per-module import timeout for import_check (default 20)")
    args = parser.parse_args(argv)
    tree = args.tree.resolve()
    if not tree.is_dir():
        print(f"prune_check: not a directory: {args.tree}", file=sys.stderr)
        return 2
    work = args.work.resolve()
    if work == tree or tree in work.parents or work in tree.parents:
        print("prune_check: --work must be outside TREE (and not contain it)", file=sys.stderr)
        return 2
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    pruned, out, logs = work / "pruned", work / "out", work / "logs"
    logs.mkdir()
    started = time.perf_counter()
    shutil.copytree(tree, pruned, symlinks=True)
    print(f"copied {tree} -> {pruned} ({time.perf_counter() - started:.1f}s); logs in {logs}")
    manifest = out / "manifest.json"
    steps: list[Step] = []

    # 1. scan
    code, secs, _ = run([*DEPGRAPH, "scan", str(pruned), *scan_options, "--out", str(out)],
                        logs / "1-scan.txt")
    figure = ""
    if code == 0 and manifest.is_file():
        totals = json.loads(manifest.read_text(encoding="utf-8")).get("totals", {})
        figure = (f"{totals.get('files_removable')} files, {totals.get('lines_removable')} lines "
                  f"removable; {totals.get('deletions')} deletions")
    steps.append(Step("scan", code, secs, figure, code == 0 and manifest.is_file()))

    if steps[-1].ok:
        # 2. apply --write
        code, secs, stdout = run([*DEPGRAPH, "apply", str(manifest), "--write"],
                                 logs / "2-apply.txt")
        steps.append(Step("apply --write", code, secs, apply_summary(stdout), code == 0))
        # 3. apply --write again: idempotent
        before = snapshot(pruned)
        code, secs, stdout = run([*DEPGRAPH, "apply", str(manifest), "--write"],
                                 logs / "3-apply-again.txt")
        after = snapshot(pruned)
        changed = sorted(p for p in before.keys() & after.keys() if before[p] != after[p])
        appeared = sorted(after.keys() - before.keys())
        vanished = sorted(before.keys() - after.keys())
        says = "already applied" in stdout
        figure = apply_summary(stdout)
        if changed or appeared or vanished:
            figure += (f"; CHANGED {len(changed)}, new {len(appeared)}, gone {len(vanished)}: "
                       + ", ".join((changed + appeared + vanished)[:5]))
        else:
            figure += "; no byte changed"
        steps.append(Step("apply --write again", code, secs, figure,
                          code == 0 and says and not (changed or appeared or vanished)))
        # 4. verify
        code, secs, stdout = run([*DEPGRAPH, "verify", str(pruned),
                                  *verify_options(scan_options), "--before", str(manifest)],
                                 logs / "4-verify.txt")
        problems = [line for line in stdout.splitlines()
                    if re.match(r"\S+:\d+: ", line) and not line.startswith("warning:")]
        figure = "OK" if code == 0 else f"{len(problems)} problems"
        steps.append(Step("verify", code, secs, figure, code == 0))
        # 5. import check
        report = work / "import_check.json"
        code, secs, stdout = run([sys.executable, str(HERE / "import_check.py"), str(pruned),
                                  "--against", str(tree), "--json", str(report),
                                  "--timeout", str(args.timeout)], logs / "5-import.txt")
        figure = next((line for line in stdout.splitlines()
                       if line.startswith("import check:")), "no summary")
        figure = figure.removeprefix("import check: ")
        steps.append(Step("import check", code, secs, figure, code == 0))
        # 6. undefined names
        code, secs, stdout = run([sys.executable, str(HERE / "undefined_names.py"), str(tree),
                                  str(pruned), "--manifest", str(manifest)],
                                 logs / "6-undefined.txt")
        figure = next((line for line in stdout.splitlines()
                       if line.startswith("undefined names:")), "no summary")
        steps.append(Step("undefined names", code, secs,
                          figure.removeprefix("undefined names: "), code == 0))

    print()
    print("| step | exit | seconds | key figure |")
    print("|---|---:|---:|---|")
    for s, log in zip(steps, sorted(logs.glob("*.txt")), strict=False):
        s.log = str(log)
    for s in steps:
        mark = "" if s.ok else " **FAILED**"
        print(f"| {s.name} | {s.code} | {s.seconds:.1f} | {s.figure}{mark} |")
    failed = [s.name for s in steps if not s.ok]
    print()
    print(f"prune check: {'FAILED: ' + ', '.join(failed) if failed else 'all steps passed'}"
          f" ({time.perf_counter() - started:.1f}s)")
    for s in steps:
        if not s.ok:
            print(f"  {s.name}: see {s.log}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
