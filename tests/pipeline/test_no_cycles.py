"""A scan keeps Python's cyclic collector paused (``analyzer.util.gc_pause``): reference
counting alone frees what it drops, so a reference cycle made by analyzer code is never freed
while it runs. The cycle analyzer code made most easily is a recursive nested function (its
closure holds itself, and with it whatever else it closes over: a live tree's rows, a module
index) or a class made inside a function. None may be made: checked on the source, and on
what a whole scan of a sample leaves behind.

sample_repos/mini_sglang (rooted at deepseek_v2) exercises the code that had such closures:
the plan's simulated edits (statements removed, ``if`` clauses folded), the open-ended
classes of the method graph and the manifest's live tree."""

from __future__ import annotations

import ast
import gc
import types
from pathlib import Path

from analyzer.outputs.manifest import manifest_dict
from analyzer.pipeline.scan import run_scan
from analyzer.verify.baseline import verify_baseline
from tests.helpers import SAMPLES

ANALYZER = Path(__file__).resolve().parents[2] / "analyzer"


def _cyclic_nested(tree: ast.AST) -> list[str]:
    """The nested functions of ``tree`` that reach their own name through the functions
    nested beside them (a closure holding itself), and the classes made inside a function."""
    found: list[str] = []
    for outer in ast.walk(tree):
        if not isinstance(outer, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        nested = {s.name: s for s in ast.walk(outer)
                  if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s is not outer}
        uses = {name: {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)} & set(nested)
                for name, fn in nested.items()}
        for name in nested:
            reached, todo = set(), [name]
            while todo:
                for other in uses[todo.pop()] - reached:
                    reached.add(other)
                    todo.append(other)
            if name in reached:
                found.append(f"{outer.name}.<locals>.{name}")
        found.extend(f"{outer.name}.<locals>.class {s.name}" for s in ast.walk(outer)
                     if isinstance(s, ast.ClassDef))
    return found


def test_the_check_finds_a_recursive_closure_and_a_class_made_in_a_function() -> None:
    source = ("def walk(tree):\n"
              "    def visit(node):\n"
              "        return [visit(c) for c in node]\n"
              "    def ping(n):\n"
              "        return pong(n)\n"
              "    def pong(n):\n"
              "        return ping(n)\n"
              "    def leaf(n):\n"
              "        return n\n"
              "    class Fold:\n"
              "        pass\n"
              "    return visit(tree)\n")
    assert sorted(_cyclic_nested(ast.parse(source))) == [
        "walk.<locals>.class Fold", "walk.<locals>.ping", "walk.<locals>.pong",
        "walk.<locals>.visit"]


def test_no_analyzer_function_makes_a_cycle_of_itself() -> None:
    found = {str(path.relative_to(ANALYZER.parent)): names
             for path in sorted(ANALYZER.rglob("*.py"))
             if (names := _cyclic_nested(ast.parse(path.read_text(encoding="utf-8"))))}
    assert found == {}


def test_a_scan_and_its_manifest_leave_no_cycle_of_analyzer_code() -> None:
    was = gc.isenabled()
    gc.collect()
    gc.disable()  # (as the command line runs a scan: nothing collected on the way)
    try:
        result = run_scan(SAMPLES / "mini_sglang", ["deepseek_v2"])
        manifest = manifest_dict(result, verify_baseline(result))
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        leaked = sorted({f"{o.__module__}.{o.__qualname__}" for o in gc.garbage
                         if isinstance(o, types.FunctionType | type)
                         and o.__module__.startswith("analyzer.")})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was:
            gc.enable()
    # (the paths that had such cycles ran: the plan edits code, the manifest has its tree)
    assert any(d.kind != "delete_file" for d in result.plan.deletions)
    assert manifest["why"]["rows"]
    assert leaked == []
