"""Verify, Python half: the baseline of an edited file and what a pruned copy of it breaks."""

from __future__ import annotations

import shutil
from pathlib import Path

from analyzer.pipeline.scan import run_scan
from analyzer.verify.problem import VerifyProblem
from analyzer.verify.python import check_python, python_baseline
from tests.helpers import stored, write_tree

ORIGINAL = {
    "app/__init__.py": "",
    "app/__main__.py": "from app.m import f\n\nf(1)\n",
    "app/m.py": "import os\n\n\ndef f(x):\n    if x:\n        from os import sep as s\n"
                "    else:\n        s = '/'\n    return os.getcwd() + s\n",
}


def test_problem_prints_as_path_line_what() -> None:
    assert str(VerifyProblem("a.py", 3, "undefined name 'x'")) == "a.py:3: undefined name 'x'"


def test_baseline_then_a_removed_import_and_a_lost_binding(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "orig", ORIGINAL)
    base = python_baseline({p: (tree / p).read_bytes() for p in ORIGINAL}, {"app/m.py"})
    assert base["app/m.py"]["names"] == ["f", "os"]
    assert base["app/m.py"]["bindings"] == {"f": {"s": 2}}  # s bound twice in f, read after
    pruned = tmp_path / "pruned"
    shutil.copytree(tree, pruned)
    # the pruning removed `import os` (still read) and the `from os import sep as s` branch
    (pruned / "app/m.py").write_text("\n\ndef f(x):\n    if x:\n        pass\n    else:\n"
                                     "        s = '/'\n    return os.getcwd() + s\n")
    result = run_scan(pruned, [], use_profile=False)
    problems = [str(p) for p in check_python(result, {"verify_baseline_python": base})]
    assert problems == ["app/m.py:8: undefined name 'os' (new after pruning)",
                        "app/m.py:3: f: 's' may be unbound (bound 2 times before, 1 now)"]


def test_overloads_are_counted_together() -> None:
    """vLLM's `InputProcessingContext.get_hf_config`: two `@overload` stubs read
    `PretrainedConfig` in annotations, the implementation binds it by a local import; pruning
    another method of the file must not make the stubs look unbound."""
    import ast

    from analyzer.plan.check.lint import lint_tree, unbound_reads

    source = ("from typing import overload\n\n\nclass C:\n    @overload\n"
              "    def get(self) -> 'Config': ...\n\n    @overload\n"
              "    def get(self, t: int) -> 'Config': ...\n\n    def get(self, t=None):\n"
              "        from cfg import Config\n        return Config\n")
    before = lint_tree(ast.parse(source), "m.py")
    assert before.bindings == {"C.get": {"Config": 1}}
    assert unbound_reads(before, before) == []
    # the implementation's import gone: then the name is unbound
    broken = lint_tree(ast.parse(source.replace("        from cfg import Config\n", "")), "m.py")
    assert unbound_reads(before, broken) == [("C.get", "Config", 1, 0)]


def test_baseline_facts_come_from_the_cache_keyed_by_bytes_and_folds(tmp_path: Path,
                                                                     monkeypatch) -> None:
    from analyzer.verify import python as verify_python

    sources = {p: v.encode() for p, v in ORIGINAL.items()}
    cache = tmp_path / "cache"
    first = stored(cache, python_baseline, sources, {"app/m.py"})
    assert first["app/m.py"]["bindings"] == {"f": {"s": 2}}
    calls: list[str] = []
    real = verify_python._file_facts

    def counted(source, path, dead, undefined):
        calls.append(path)
        return real(source, path, dead, undefined)

    monkeypatch.setattr(verify_python, "_file_facts", counted)
    # same bytes, same folds: read back, not parsed again
    assert stored(cache, python_baseline, sources, {"app/m.py"}) == first
    assert calls == []
    # the `from os import sep as s` branch folded: another key, computed afresh (one live s)
    folded = stored(cache, python_baseline, sources, {"app/m.py"}, {"app/m.py": [(5, 6)]})
    assert calls == ["app/m.py"]
    assert folded["app/m.py"]["bindings"] == {"f": {"s": 1}}
    # changed bytes: computed afresh too
    changed = {**sources, "app/m.py": sources["app/m.py"] + b"\nX = 1\n"}
    assert stored(cache, python_baseline, changed, {"app/m.py"})["app/m.py"]["names"] == \
        ["X", "f", "os"]
    assert calls == ["app/m.py", "app/m.py"]


def test_baseline_facts_computed_in_workers_are_those_of_one_process() -> None:
    # twelve edited files (one that does not parse): two worker processes, same baseline
    sources = {f"app/m{i}.py": (
        f"import os\n\n\ndef f{i}(x):\n    s = os.sep\n    if x:\n        s = 1\n"
        f"    return s + undefined_{i}\n").encode() for i in range(11)}
    sources["app/broken.py"] = b"def (:\n"
    alone = python_baseline(sources, set(sources))
    pooled = python_baseline(sources, set(sources), jobs=2)
    assert pooled == alone
    assert list(pooled) == sorted(f"app/m{i}.py" for i in range(11))  # broken: no facts
    assert pooled["app/m4.py"]["undefined"] == {"undefined_4": 1}
    assert pooled["app/m4.py"]["bindings"] == {"f4": {"s": 2}}
