"""Analysis stage: turn ``--roots`` names into graph nodes.

A root may be a module's short name (``deepseek_v2``), a dotted module
(``pkg.models.deepseek_v2``), a file path (``python/pkg/models/deepseek_v2.py``), or
``module:Symbol``. Unknown and ambiguous names raise ``RootError`` with the closest candidates.
"""

from __future__ import annotations

import contextlib
import fnmatch
from pathlib import Path
from typing import Any

from analyzer.errors import RootError, suggest
from analyzer.graph.native import NativeIndex
from analyzer.nodes import Graph, file_node, module_node, op_node, symbol_node, target_node


def resolve_roots(names: list[str], graph: Graph, scan_root: Path) -> list[str]:
    """The nodes of ``--roots`` names. A root module's public top-level functions and
    classes are roots too: an entry module's API is what its users call (as knip treats an
    entry file's exports)."""
    modules = {d["module"]: d for _, d in graph.nodes(data=True) if d.get("kind") == "module"}
    by_path = {d["path"]: m for m, d in modules.items()}
    nodes: list[str] = []
    for raw in names:
        nodes.append(_resolve_one(raw.strip(), modules, by_path, graph, scan_root))
    public = [n for n, d in graph.nodes(data=True) if d.get("kind") == "symbol"
              and module_node(d["module"]) in nodes and not d.get("nested")
              and not str(d["name"]).startswith("_")]
    return list(dict.fromkeys([*nodes, *sorted(public)]))


def _resolve_one(raw: str, modules: dict[str, dict[str, Any]], by_path: dict[str, str],
                 graph: Graph, scan_root: Path) -> str:
    if ":" in raw and not raw.endswith(".py"):
        mod_part, sym = raw.split(":", 1)
        module = _module_of(mod_part, modules, by_path, scan_root)
        node = symbol_node(module, sym)
        if node not in graph:
            symbols = [d["name"] for _, d in graph.nodes(data=True)
                       if d.get("kind") == "symbol" and d.get("module") == module]
            raise RootError(f"unknown root {raw!r}: {module} defines no function or class "
                            f"{sym!r}{suggest(sym, symbols, several=True)}")
        return node
    return module_node(_module_of(raw, modules, by_path, scan_root))


def _module_of(raw: str, modules: dict[str, dict[str, Any]], by_path: dict[str, str],
               scan_root: Path) -> str:
    if raw.endswith(".py") or "/" in raw:
        path = Path(raw)
        candidates = [path] if not path.is_absolute() else []
        with contextlib.suppress(ValueError):
            candidates.append(path.resolve().relative_to(scan_root))
        for cand in candidates:
            if cand.as_posix() in by_path:
                return by_path[cand.as_posix()]
        raise RootError(f"unknown root {raw!r}: no Python module at that path"
                        f"{suggest(raw, list(by_path), several=True)}")
    if raw in modules:
        return raw
    short = [m for m in modules if m.rsplit(".", 1)[-1] == raw]
    if not short:
        short = [m for m in modules if m.endswith("." + raw)]
    if len(short) == 1:
        return short[0]
    if len(short) > 1:
        listed = ", ".join(sorted(short)[:8])
        raise RootError(f"ambiguous root {raw!r}: matches {len(short)} modules: {listed}; "
                        "give the dotted name")
    pool = sorted({m.rsplit(".", 1)[-1] for m in modules} | set(modules))
    raise RootError(f"unknown root {raw!r}{suggest(raw, pool, several=True)}")


def resolve_targets(names: tuple[str, ...] | list[str], graph: Graph,
                    native: NativeIndex) -> list[str]:
    """``--keep-target`` names (fnmatch globs allowed) -> target nodes, plus every source
    of each kept target and every op they register: a kept target is kept whole."""
    all_targets = sorted(t.name for t in native.project.targets)
    nodes: list[str] = []
    for raw in names:
        hits = [t for t in all_targets if fnmatch.fnmatchcase(t, raw)]
        if not hits:
            raise RootError(f"unknown target {raw!r}{suggest(raw, all_targets, several=True)}")
        for name in hits:
            nodes.append(target_node(name))
            # every definition of the name the build makes (the CUDA `_C`, not the CPU one
            # under a false if())
            defs = [t for t in native.project.targets if t.name == name]
            built = [t for t in defs if not t.off] or defs
            for t in built:
                for s in t.sources:
                    if not s.path or file_node(s.path) not in graph or (s.off and not t.off):
                        continue  # listed under an if() the forced options turn off
                    nodes.append(file_node(s.path))
                    nodes.extend(op_node(op.namespace, op.op_name)
                                 for op in native.facts[s.path].ops)
    return nodes
