"""Shared test helpers: sample locations and throwaway trees built from dicts."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

_R = TypeVar("_R")

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_repos"
MINI_SGLANG = SAMPLES / "mini_sglang"
PY = "python/minisgl/srt"


def write_tree(base: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return base


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (``.git`` aside) by relative POSIX path."""
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file() and ".git" not in p.parts}


def run_apply(*args: str | Path) -> tuple[int, str, str]:
    """``depgraph apply ARGS``: (exit code, stdout, stderr)."""
    from click.testing import CliRunner

    from analyzer.cli.main import main

    res = CliRunner().invoke(main, ["apply", *map(str, args)])
    return res.exit_code, res.stdout, res.stderr


def module_index(base: Path, files: dict[str, str]):
    """Write ``files`` under ``base``, extract every ``.py`` file and index it as a module of
    the tree (``pkg/a.py`` -> ``pkg.a``, ``pkg/__init__.py`` -> ``pkg``): a ModuleIndex."""
    from analyzer.extract.python import extract
    from analyzer.resolve.python import ModuleIndex, PyModule

    write_tree(base, files)
    modules = []
    for path in sorted(p.relative_to(base).as_posix() for p in base.rglob("*.py")):
        name = path[:-3].replace("/", ".")
        is_package = name.endswith(".__init__")
        name = name[: -len(".__init__")] if is_package else name
        modules.append(PyModule(name, path, is_package, extract(path, (base / path).read_bytes())))
    return ModuleIndex(modules)


def prune_copy(sample: Path, tmp: Path, roots: list[str] | None = None
               ) -> tuple[Path, dict[str, object]]:
    """A copy of ``sample`` under ``tmp``, scanned, its manifest (with the verify baseline)
    written and applied with ``--write``; returns (the pruned tree, the manifest). The apply
    must change something and skip nothing."""
    import json
    import shutil

    from analyzer.codemod.apply import run_apply as apply_manifest
    from analyzer.outputs.manifest import write_manifest
    from analyzer.pipeline.scan import run_scan

    tree = tmp / "tree"
    shutil.copytree(sample, tree)
    before = run_scan(tree, roots or [])
    manifest = tmp / "manifest.json"
    write_manifest(before, manifest)
    applied = apply_manifest(manifest, write=True, patch_out=tmp / "undo.patch")
    assert applied.changes and not applied.skipped
    return tree, json.loads(manifest.read_text())


def same_python_graph(a, b) -> None:
    """Two :class:`analyzer.graph.python.PythonGraph` are the same: nodes, edges, unresolved
    names, re-exports and decisions."""
    assert dict(a.graph.nodes(data=True)) == dict(b.graph.nodes(data=True))
    assert sorted(a.graph.edges(data=True), key=repr) == sorted(b.graph.edges(data=True),
                                                                 key=repr)
    assert sorted(map(repr, a.unresolved)) == sorted(map(repr, b.unresolved))
    assert a.reexported == b.reexported
    assert a.reexported_by == b.reexported_by
    assert a.graph.graph["decisions"] == b.graph.graph["decisions"]


def apply_and_verify(tmp_path: Path, tree: Path, result, feature: str | None = None,
                     tampered: bool = False):
    """Write ``result``'s manifest, apply it to ``tree`` (``feature``: that feature only) and
    run ``depgraph verify --before`` on it: the click result (``tampered``: the test changed
    the plan after the scan: :func:`tampered_manifest`)."""
    import json

    from click.testing import CliRunner

    from analyzer.cli.verify import verify_command
    from analyzer.codemod.apply import run_apply as apply_manifest
    from analyzer.pipeline.verify import manifest_of

    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(tampered_manifest(result) if tampered
                                   else manifest_of(result)))
    apply_manifest(manifest, write=True, feature=feature, patch_out=tmp_path / "undo.patch")
    return CliRunner().invoke(verify_command, [str(tree), "--before", str(manifest)])


def tampered_manifest(result) -> dict[str, object]:
    """The manifest of ``result`` after a test changed its plan (a wrong deletion planted, an
    attribution stripped): what a planner without the gate would write, with a baseline made
    for the changed plan. ``manifest_of`` refuses nothing here only because the gate verified
    the plan as it was; a tampered plan needs its own baseline."""
    from analyzer.outputs.manifest import manifest_dict
    from analyzer.verify.baseline import verify_baseline

    return manifest_dict(result, verify_baseline(result))


def store_entries(cache: Path, query: str) -> list[Path]:
    """The files of one query's entries in the store under the cache folder ``cache``
    (``<cache>/store/<query>/<version>/<shard>/<entry>``), in name order."""
    return sorted(p for p in (cache / "store" / query).glob("*/*/*") if p.is_file())


def stored(cache: Path, fn: Callable[..., _R], /, *args: Any, **kwargs: Any) -> _R:
    """``fn(*args, **kwargs)`` in a session of its own storing under the cache folder
    ``cache`` (what one scan's stage reads and writes of the store)."""
    from analyzer.core.session import session

    with session(cache):
        return fn(*args, **kwargs)


def scanned_copy(sample: Path, tmp: Path) -> tuple[Path, Path, Any]:
    """A copy of ``sample`` in ``tmp``, scanned once into a cache there: (copy, cache, the
    scan's result)."""
    import shutil

    from analyzer.pipeline.scan import run_scan

    tree = tmp / "tree"
    shutil.copytree(sample, tree)
    cache = tmp / "cache"
    return tree, cache, run_scan(tree, [], cache_dir=cache)
