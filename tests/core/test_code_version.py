"""Query core, the fingerprint rule (``analyzer/core/code_version.py``): a query's version is
a hash of the code it runs -- the static import closure of its modules -- on a small package
laid out here (the rule reads depgraph's sources as text; it never imports them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import analyzer.core.code_version as cv
from tests.helpers import write_tree

# a package named like depgraph's, so that its imports read as depgraph's own
PACKAGE = {
    "analyzer/__init__.py": "",
    "analyzer/model.py": "X = 1\n",
    "analyzer/extract/__init__.py": "",
    "analyzer/extract/run.py": "from analyzer.model import X\n",
    "analyzer/extract/later.py": "def f():\n    from . import run\n    return run\n",
    "analyzer/plan/__init__.py": "",
    "analyzer/plan/check.py": "import analyzer.extract.run\nfrom ..model import X\n",
    "analyzer/plan/rules/profile.toml": "a = 1\n",
    "analyzer/plan/rules/__init__.py": "",
    "analyzer/plan/data/table.json": "{}\n",
    "analyzer/unused.py": "import os\n",
}


def _clear() -> None:
    for fn in (cv._module_files, cv._package_data, cv._imports, cv.code_version):
        fn.cache_clear()


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = write_tree(tmp_path / "src", PACKAGE) / "analyzer"
    monkeypatch.setattr(cv, "_PACKAGE", root)
    _clear()
    yield root
    _clear()


def test_the_closure_follows_imports_and_parent_packages(package: Path) -> None:
    assert cv.import_closure(["analyzer.extract.run"]) == {
        "analyzer", "analyzer.extract", "analyzer.extract.run", "analyzer.model"}
    # relative imports, imports inside functions, a package standing for its modules
    assert cv.import_closure(["analyzer.plan"]) == {
        "analyzer", "analyzer.plan", "analyzer.plan.check", "analyzer.plan.rules",
        "analyzer.extract", "analyzer.extract.run", "analyzer.model"}
    assert "analyzer.extract.run" in cv.import_closure(["analyzer.extract.later"])


def test_an_unknown_module_is_an_error(package: Path) -> None:
    with pytest.raises(KeyError):
        cv.import_closure(["analyzer.nowhere"])


def _edit(package: Path, rel: str) -> None:
    path = package.parent / rel
    path.write_text(path.read_text() + "# edited\n")
    _clear()


def test_a_version_changes_with_its_closure_only(package: Path) -> None:
    extract = cv.code_version(("analyzer.extract",))
    plan = cv.code_version(("analyzer.plan",))
    assert extract != plan
    _edit(package, "analyzer/plan/check.py")  # outside the extraction's closure
    assert cv.code_version(("analyzer.extract",)) == extract
    assert cv.code_version(("analyzer.plan",)) != plan
    _edit(package, "analyzer/model.py")  # inside both
    assert cv.code_version(("analyzer.extract",)) != extract


def test_data_files_of_a_package_in_the_closure_count(package: Path) -> None:
    plan = cv.code_version(("analyzer.plan",))
    extract = cv.code_version(("analyzer.extract",))
    _edit(package, "analyzer/plan/rules/profile.toml")  # a package's own data
    assert cv.code_version(("analyzer.plan",)) != plan
    plan = cv.code_version(("analyzer.plan",))
    _edit(package, "analyzer/plan/data/table.json")  # a folder of the package, no package
    assert cv.code_version(("analyzer.plan",)) != plan
    assert cv.code_version(("analyzer.extract",)) == extract


def test_a_distribution_that_is_not_installed_is_a_version_too(package: Path) -> None:
    bare = cv.code_version(("analyzer.model",))
    assert cv.code_version(("analyzer.model",), dists=("no-such-dist-xyz",)) != bare


def test_depgraphs_own_queries_have_their_versions() -> None:
    # (the real package) the extraction runs no plan or pipeline code
    closure = cv.import_closure(["analyzer.extract"])
    assert "analyzer.model" in closure
    assert not any(m.startswith(("analyzer.plan", "analyzer.pipeline", "analyzer.outputs",
                                 "analyzer.cli")) for m in closure)


def _ast_imports(module: str) -> frozenset[str]:
    """What ``ast`` finds ``module`` importing (the rule's own search must find it all)."""
    import ast

    modules = cv._module_files()
    path = modules[module]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = cv._absolute(module, path.name == "__init__.py", node.module, node.level)
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return frozenset(p for name in found for i in range(1, name.count(".") + 2)
                     if (p := ".".join(name.split(".")[:i])) in modules) - {module}


def test_the_search_finds_every_import_of_depgraphs_modules() -> None:
    # (the real package) a missed import would leave a query's answers valid after an edit
    # of code it runs: the text search may find more than ``ast``, never less
    for module in cv._module_files():
        assert cv._imports(module) >= _ast_imports(module), module


def test_the_search_reads_every_form_of_import(package: Path) -> None:
    forms = ("import analyzer.model as m, analyzer.extract\n"
             "from analyzer.plan import (  # a comment (with a parenthesis)\n"
             "    check,\n    rules)\n"
             "from analyzer.extract import run, \\\n    later\n"
             "if True:\n    from .. import unused\n")
    (package / "plan" / "forms.py").write_text(forms)
    _clear()
    assert cv._imports("analyzer.plan.forms") == {
        "analyzer", "analyzer.model", "analyzer.extract", "analyzer.plan",
        "analyzer.plan.check", "analyzer.plan.rules", "analyzer.extract.run",
        "analyzer.extract.later", "analyzer.unused"}
