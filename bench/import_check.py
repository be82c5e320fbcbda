"""Import every module of a tree with all third-party packages stubbed; compare two trees.

    python bench/import_check.py TREE [--against ORIGINAL] [--json OUT] [--timeout SECONDS]

The tree's Python source roots and module names come from depgraph's own discovery
(``analyzer.discover.walk``). The imports run in a subprocess (``bench/import_worker.py``: isolated
interpreter, the tree's source roots in front of ``sys.path``, a temp folder as working folder,
output silenced, a per-module ``signal`` timeout, ``BaseException`` caught), modules in sorted
order in one interpreter; a worker that dies (segfault, ``os._exit``) is restarted after the
module that killed it. This process never imports scanned code.

With ``--against ORIGINAL`` both trees run; a *regression* is a module present in both that
imports in ORIGINAL and fails in TREE, confirmed by importing it alone in a fresh interpreter in
both trees (a single interpreter has order effects). Modules missing from TREE are counted as
deleted, never as regressions. Exit 1 when a regression is confirmed, else 0; 2 on bad input.
"""

from __future__ import annotations

import argparse
import atexit
import collections
import concurrent.futures
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKER = HERE / "import_worker.py"
sys.path.insert(0, str(HERE.parent))  # the depgraph of this checkout (for analyzer.discover.walk)


@dataclass
class Tree:
    root: Path
    roots: list[str]  # absolute source roots, deepest first (the order of sys.path)
    modules: dict[str, str]  # dotted name -> relative path (first file for a duplicated name)
    duplicates: list[str] = field(default_factory=list)  # files whose module name is taken
    unnamed: int = 0  # .py files with no importable name
    top_names: set[str] = field(default_factory=set)


def load_tree(path: Path) -> Tree:
    from analyzer.discover.walk import discover, module_name

    found = discover(path)
    root = found.root
    modules: dict[str, str] = {}
    duplicates: list[str] = []
    unnamed = 0
    for f in found.files:
        if f.language != "python":
            continue
        name = module_name(f.path, found.python_roots)
        if name is None:
            unnamed += 1
        elif name in modules:
            duplicates.append(f.path)
        else:
            modules[name] = f.path
    ordered = sorted(found.python_roots, key=lambda r: (-r.count("/") - bool(r), r))
    roots = [str(root / r) if r else str(root) for r in ordered]
    tops = {m.partition(".")[0] for m in modules}
    for r in roots:
        try:
            entries = os.listdir(r)
        except OSError:
            continue
        for entry in entries:
            stem = entry[:-3] if entry.endswith(".py") else entry
            is_module = entry.endswith(".py") or os.path.isdir(os.path.join(r, entry))
            if stem.isidentifier() and is_module:
                tops.add(stem)
    return Tree(root, roots, modules, duplicates, unnamed, tops)


_INSTALL = re.compile(r"install\s*\(\s*TARGETS\s+([^)]*?)\s+(?:LIBRARY\s+)?DESTINATION\s+"
                      r"\"?([\w./${}-]+)\"?", re.IGNORECASE | re.DOTALL)


def installed_extensions(root: Path) -> set[str]:
    """Python extension modules the tree's CMake installs (``install(TARGETS t ... DESTINATION
    pkg)`` -> ``pkg.t``), read as text from every CMakeLists.txt and .cmake file, comments
    dropped. A development oracle: what the build makes, without depgraph's evaluator."""
    out: set[str] = set()
    for path in [*root.rglob("CMakeLists.txt"), *root.rglob("*.cmake")]:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        text = re.sub(r"#[^\n]*", "", text)
        for targets, dest in _INSTALL.findall(text):
            if "$" in dest:
                continue
            package = dest.strip("/").replace("/", ".")
            for t in targets.split():
                if t.upper() in ("LIBRARY", "RUNTIME", "ARCHIVE") or "$" in t:
                    break
                out.add(f"{package}.{t}")
    return out


def prefixes(names: object) -> set[str]:
    out: set[str] = set()
    for name in names:  # type: ignore[attr-defined]
        parts = name.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return out


def namespaces(tree: Tree) -> dict[str, list[str]]:
    """Top-level folders of the tree that are namespace packages (no ``__init__.py``, no module
    of that name in any source root). The worker answers them itself, so a regular package of
    the same name further down ``sys.path`` (the standard library's ``test``) cannot shadow
    them: the tree is in front of ``sys.path``."""
    out: dict[str, list[str]] = {}
    for name in sorted(tree.top_names):
        dirs = [os.path.join(r, name) for r in tree.roots if os.path.isdir(os.path.join(r, name))]
        regular = any(os.path.isfile(os.path.join(d, "__init__.py")) for d in dirs) or any(
            os.path.isfile(os.path.join(r, name + ".py")) for r in tree.roots)
        if dirs and not regular:
            out[name] = dirs
    return out


@dataclass
class Run:
    records: dict[str, dict]
    stubbed_missing: set[str]
    restarts: int
    seconds: float

    @property
    def ok(self) -> set[str]:
        return {m for m, r in self.records.items() if r.get("ok")}


def run_modules(tree: Tree, modules: list[str], *, timeout: float, tree_names: set[str],
                no_stub: set[str], verbose: bool = False, stub_missing: bool = True) -> Run:
    """Import ``modules`` in order in worker subprocesses; one record per module."""
    records: dict[str, dict] = {}
    stubbed: set[str] = set()
    remaining = list(modules)
    restarts = 0
    started_at = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="import-check-") as tmp:
        attempt = 0
        while remaining:
            attempt += 1
            results = Path(tmp, f"results-{attempt}.jsonl")
            cwd = Path(tmp, f"cwd-{attempt}")
            cwd.mkdir()
            spec = {
                "roots": tree.roots, "tree_names": sorted(tree_names), "no_stub": sorted(no_stub),
                "namespaces": namespaces(tree), "modules": remaining, "timeout": timeout,
                "results": str(results), "cwd": str(cwd), "verbose": verbose,
                "stub_missing": stub_missing,
            }
            spec_path = Path(tmp, f"spec-{attempt}.json")
            spec_path.write_text(json.dumps(spec), encoding="utf-8")
            errors = Path(tmp, f"stderr-{attempt}.txt")
            with open(errors, "wb") as err:
                proc = subprocess.Popen(
                    [sys.executable, "-I", "-S", "-X", f"pycache_prefix={_pycache()}",
                     str(WORKER), str(spec_path)],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                    stderr=None if verbose else err, cwd=cwd, start_new_session=True)
                killed = _watch(proc, results, timeout)
            lines = _read_lines(results)
            done = any("done" in obj for obj in lines)
            last_start = None
            for obj in lines:
                if "start" in obj:
                    last_start = obj["start"]
                elif "mod" in obj:
                    records[obj["mod"]] = obj
                    last_start = None
                elif "done" in obj:
                    stubbed.update(obj.get("stubbed_missing", ()))
            if done:
                break
            if last_start is None:
                detail = errors.read_text(errors="replace").strip()[-2000:]
                raise RuntimeError(f"import worker died before importing anything "
                                   f"(exit {proc.returncode}): {detail}")
            code = proc.returncode
            records[last_start] = {
                "mod": last_start, "ok": False,
                "error": "Timeout" if killed else "WorkerDied",
                "message": ("no progress: killed" if killed else
                            f"killed by signal {-code}" if code < 0 else f"exit code {code}"),
                "where": "",
            }
            restarts += 1
            remaining = remaining[remaining.index(last_start) + 1:]
    return Run(records, stubbed, restarts, time.perf_counter() - started_at)


_PYCACHE: list[str] = []


def _pycache() -> str:
    """One bytecode cache for this run, outside the trees (``-X pycache_prefix``): re-checks
    in fresh interpreters do not compile the same sources again, and nothing is written into
    a scanned tree. Removed at exit."""
    if not _PYCACHE:
        folder = tempfile.mkdtemp(prefix="import-check-pycache-")
        atexit.register(shutil.rmtree, folder, True)
        _PYCACHE.append(folder)
    return _PYCACHE[0]


def _watch(proc: subprocess.Popen, results: Path, timeout: float) -> bool:
    """Wait for the worker; kill its process group when the results file stops growing for
    well past the per-module timeout (code that ignores the alarm). True when killed."""
    size, last = -1, time.monotonic()
    while True:
        try:
            proc.wait(timeout=0.1)
            break
        except subprocess.TimeoutExpired:
            pass
        now_size = results.stat().st_size if results.exists() else 0
        if now_size != size:
            size, last = now_size, time.monotonic()
        elif time.monotonic() - last > timeout + max(5.0, timeout / 2):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 9)
            proc.wait()
            return True
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, 9)  # whatever the imported code left running in the group
    return False


def _read_lines(path: Path) -> list[dict]:
    out = []
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        with contextlib.suppress(json.JSONDecodeError):  # a line cut by a crash
            out.append(json.loads(line))
    return out


def describe(record: dict) -> str:
    return f"{record.get('error')}: {record.get('message', '')}".rstrip(": ")


def top_reasons(run: Run, count: int) -> list[tuple[int, str]]:
    reasons = collections.Counter(describe(r) for r in run.records.values() if not r.get("ok"))
    return [(n, text) for text, n in reasons.most_common(count)]


def summary_json(tree: Tree, run: Run) -> dict:
    return {
        "tree": str(tree.root), "roots": tree.roots, "modules": len(tree.modules),
        "import_ok": len(run.ok), "duplicates": tree.duplicates, "unnamed_files": tree.unnamed,
        "worker_restarts": run.restarts, "seconds": round(run.seconds, 2),
        "stubbed_missing": sorted(run.stubbed_missing),
        "results": {m: run.records.get(m, {}) | {"path": tree.modules[m]}
                    for m in sorted(tree.modules)},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--against", type=Path, metavar="ORIGINAL",
                        help="the tree before pruning: report regressions")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write every record here")
    parser.add_argument("--timeout", type=float, default=20.0, metavar="SECONDS",
                        help="per-module import timeout (default 20)")
    parser.add_argument("--reasons", type=int, default=15, metavar="N",
                        help="failure reasons to list for a single tree (default 15)")
    parser.add_argument("--list-failures", action="store_true",
                        help="print every failing module, not only the summary")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                        help="regressions re-checked alone in parallel (default: all cores)")
    parser.add_argument("--no-stub-missing", action="store_true",
                        help="do not stub in-tree modules that have no source (compiled "
                        "extensions, generated files): they fail to import")
    parser.add_argument("--verbose", action="store_true",
                        help="let imported code print (debugging the stubs)")
    args = parser.parse_args(argv)

    from analyzer.discover.walk import DiscoveryError

    try:
        tree = load_tree(args.tree)
        original = load_tree(args.against) if args.against else None
    except DiscoveryError as exc:
        print(f"import_check: {exc}", file=sys.stderr)
        return 2
    if not tree.modules or (original is not None and not original.modules):
        print("import_check: no importable Python module found", file=sys.stderr)
        return 2
    options = {"timeout": args.timeout, "verbose": args.verbose,
               "stub_missing": not args.no_stub_missing}

    if original is None:
        names = set(tree.modules)
        run = run_modules(tree, sorted(names), tree_names=tree.top_names,
                          no_stub=prefixes(names), **options)
        print(f"import check: {len(tree.modules)} modules in {tree.root} ({len(run.ok)} import); "
              f"{run.seconds:.1f}s, {run.restarts} worker restarts")
        if tree.duplicates:
            print(f"  {len(tree.duplicates)} files share a module name with another file "
                  "(imported once)")
        if run.stubbed_missing:
            print(f"  {len(run.stubbed_missing)} in-tree modules without source were stubbed: "
                  + ", ".join(sorted(run.stubbed_missing)[:10])
                  + (" ..." if len(run.stubbed_missing) > 10 else ""))
        for n, text in top_reasons(run, args.reasons):
            print(f"  {n:5d}  {text[:160]}")
        if args.list_failures:
            for m in sorted(tree.modules):
                record = run.records.get(m, {})
                if not record.get("ok"):
                    print(f"{m}: {describe(record)}  [{record.get('where', '')}]")
        if args.json:
            args.json.write_text(json.dumps(summary_json(tree, run), indent=1), encoding="utf-8")
        return 0

    tree_names = tree.top_names | original.top_names
    no_stub = prefixes(set(original.modules) | set(tree.modules))
    # an extension module the original's CMake installs and the pruned one no longer does is
    # no longer built: in the pruned tree its import fails (it is not stubbed)
    unbuilt = installed_extensions(original.root) - installed_extensions(tree.root)
    if unbuilt:
        print(f"  {len(unbuilt)} extension modules the pruned build no longer makes: "
              + ", ".join(sorted(unbuilt)))
    before = run_modules(original, sorted(original.modules), tree_names=tree_names,
                         no_stub=no_stub, **options)
    after = run_modules(tree, sorted(tree.modules), tree_names=tree_names,
                        no_stub=no_stub | unbuilt, **options)
    common = set(original.modules) & set(tree.modules)
    deleted = sorted(set(original.modules) - set(tree.modules))
    added = sorted(set(tree.modules) - set(original.modules))
    candidates = sorted(m for m in common if m in before.ok and m not in after.ok)
    confirmed: list[dict] = []
    unconfirmed: list[str] = []

    def alone(m: str) -> dict | None:
        """The pruned tree's record when ``m`` fails alone there and imports alone in the
        original; else None."""
        after_alone = run_modules(tree, [m], tree_names=tree_names, no_stub=no_stub | unbuilt,
                                  **options)
        if m in after_alone.ok:
            return None
        before_alone = run_modules(original, [m], tree_names=tree_names, no_stub=no_stub,
                                   **options)
        return after_alone.records[m] if m in before_alone.ok else None

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for m, record in zip(candidates, pool.map(alone, candidates), strict=True):
            if record is None:
                unconfirmed.append(m)
            else:
                confirmed.append(record | {"path": tree.modules[m]})
    print(f"import check: {len(original.modules)} modules in original ({len(before.ok)} import), "
          f"{len(tree.modules)} in pruned ({len(after.ok)} import); "
          f"regressions: {len(confirmed)}; deleted: {len(deleted)}")
    if unconfirmed:
        print(f"  {len(unconfirmed)} failures of the full run are no regression when imported "
              f"alone in both trees (order effects): {', '.join(unconfirmed[:10])}")
    if added:
        print(f"  {len(added)} modules only in the pruned tree: {', '.join(added[:10])}")
    for record in confirmed:
        print(f"{record['mod']}: {describe(record)}")
    if args.json:
        args.json.write_text(json.dumps({
            "original": summary_json(original, before), "pruned": summary_json(tree, after),
            "regressions": confirmed, "unconfirmed": unconfirmed, "deleted": deleted,
            "added": added,
        }, indent=1), encoding="utf-8")
    return 1 if confirmed else 0


if __name__ == "__main__":
    sys.exit(main())
