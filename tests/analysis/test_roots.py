"""Analysis stage, ``--roots`` names to graph nodes (``resolve_roots`` in
``analyzer/analysis/roots.py``): a module's short name, a dotted module, a file path or
``module:Symbol``, as the README lists them; an unknown or ambiguous name is a RootError that
names the closest candidates."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest

from analyzer.analysis.roots import resolve_roots
from analyzer.errors import RootError

SCAN_ROOT = Path("/repo")


def graph() -> nx.DiGraph:
    g = nx.DiGraph()
    for module, path in [("pkg.models.deepseek_v2", "python/pkg/models/deepseek_v2.py"),
                         ("pkg.models.llama", "python/pkg/models/llama.py"),
                         ("pkg.layers.norm", "python/pkg/layers/norm.py"),
                         ("pkg.models.norm", "python/pkg/models/norm.py"),
                         ("pkg.cli.main", "python/pkg/cli/main.py")]:
        g.add_node(f"py:{module}", kind="module", module=module, path=path)
    g.add_node("py:pkg.cli.main:main", kind="symbol", module="pkg.cli.main", name="main")
    g.add_node("py:pkg.cli.main:serve", kind="symbol", module="pkg.cli.main", name="serve")
    return g


@pytest.mark.parametrize(("name", "node"), [
    pytest.param("deepseek_v2", "py:pkg.models.deepseek_v2", id="short-name"),
    pytest.param("pkg.models.llama", "py:pkg.models.llama", id="dotted"),
    pytest.param("models.llama", "py:pkg.models.llama", id="dotted-tail"),
    pytest.param("python/pkg/models/llama.py", "py:pkg.models.llama", id="relative-path"),
    pytest.param("/repo/python/pkg/models/llama.py", "py:pkg.models.llama",
                 id="absolute-path-inside"),
    pytest.param("pkg.cli.main:main", "py:pkg.cli.main:main", id="module-symbol"),
    pytest.param("main:serve", "py:pkg.cli.main:serve", id="short-module-symbol"),
    pytest.param("  llama ", "py:pkg.models.llama", id="spaces-stripped"),
])
def test_root_names(name: str, node: str) -> None:
    assert resolve_roots([name], graph(), SCAN_ROOT) == [node]


def test_several_roots_keep_their_order() -> None:
    assert resolve_roots(["llama", "deepseek_v2"], graph(), SCAN_ROOT) == [
        "py:pkg.models.llama", "py:pkg.models.deepseek_v2"]


@pytest.mark.parametrize(("name", "message"), [
    pytest.param("norm", "ambiguous root 'norm': matches 2 modules: pkg.layers.norm, "
                 "pkg.models.norm; give the dotted name", id="ambiguous"),
    # candidates are short and dotted names; "pkg.models.deepseek_v2" is close enough too
    # (difflib ratio 2 * 10 / (11 + 22) > 0.6), after the closer short name
    pytest.param("deepseek_v3", "unknown root 'deepseek_v3'; did you mean: deepseek_v2, "
                 "pkg.models.deepseek_v2", id="unknown-with-suggestions"),
    pytest.param("zzzz", "unknown root 'zzzz'; no similar name found", id="unknown"),
    pytest.param("pkg.cli.main:mian", "unknown root 'pkg.cli.main:mian': pkg.cli.main defines "
                 "no function or class 'mian'; did you mean: main", id="unknown-symbol"),
])
def test_bad_root_names(name: str, message: str) -> None:
    with pytest.raises(RootError) as info:
        resolve_roots([name], graph(), SCAN_ROOT)
    assert str(info.value) == message
    assert info.value.exit_code == 4


def test_unknown_path_names_the_closest_path_first() -> None:
    with pytest.raises(RootError) as info:
        resolve_roots(["python/pkg/models/llam.py"], graph(), SCAN_ROOT)
    assert str(info.value).startswith(
        "unknown root 'python/pkg/models/llam.py': no Python module at that path; did you "
        "mean: python/pkg/models/llama.py")
