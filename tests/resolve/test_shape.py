"""The tree's shape and what changes between two shapes (``analyzer/resolve/shape.py``): which
names, packages' children and relative paths answer otherwise. Expected sets written from the
layouts below."""

from __future__ import annotations

from analyzer.resolve.shape import CHILDREN, ShapeDiff, shape_tables
from tests.helpers import module_index

LAYOUT = {
    "app": ("python/app/__init__.py", True),
    "app.main": ("python/app/main.py", False),
    "app.plugins": ("python/app/plugins/__init__.py", True),
    "app.plugins.fast": ("python/app/plugins/fast.py", False),
    "app.plugins.slow": ("python/app/plugins/slow.py", False),
    "app.ext.a": ("python/app/ext/a.py", False),  # app.ext: a namespace package
}


def _without(*names: str) -> dict[str, tuple[str, bool]]:
    return {n: v for n, v in LAYOUT.items() if n not in names}


def test_the_tables_of_a_shape():
    tables = shape_tables(((n, p) for n, (_, p) in LAYOUT.items()), {"deep_gemm.cpp": "dg"})
    assert tables.packages == {"app", "app.plugins", "app.ext", "deep_gemm"}
    assert tables.installed_packages == {"deep_gemm"}
    assert tables.children == {"app": ["app.ext", "app.main", "app.plugins"],
                               "app.plugins": ["app.plugins.fast", "app.plugins.slow"],
                               "app.ext": ["app.ext.a"]}
    assert tables.top_level == {"app", "deep_gemm"}


def test_the_index_answers_from_the_same_tables(tmp_path):
    index = module_index(tmp_path, {"app/__init__.py": "", "app/ext/a.py": "",
                                    "app/plugins/__init__.py": "", "app/plugins/fast.py": ""})
    assert index.packages == {"app", "app.ext", "app.plugins"}
    assert index.children == {"app": ["app.ext", "app.plugins"], "app.ext": ["app.ext.a"],
                              "app.plugins": ["app.plugins.fast"]}
    assert index.top_level == {"app"}


def test_a_removed_module_changes_its_name_and_its_package_s_children_only():
    diff = ShapeDiff(LAYOUT, {}, _without("app.plugins.fast"), {})
    assert diff.names == {"app.plugins.fast", CHILDREN + "app.plugins"}
    assert diff.paths == {"python/app/plugins/fast.py"}
    assert diff.touches(["app.plugins.fast"])
    assert diff.touches([CHILDREN + "app.plugins"])
    # the package is still one, with a file: asking whether it is there answers alike
    assert not diff.touches(["app.plugins", "app", "app.main", CHILDREN + "app"])


def test_the_last_module_of_a_namespace_package_takes_the_package():
    diff = ShapeDiff(LAYOUT, {}, _without("app.ext.a"), {})
    assert diff.names == {"app.ext.a", "app.ext", CHILDREN + "app.ext", CHILDREN + "app"}


def test_a_package_that_loses_its_init_changes_its_file_not_its_package_ness():
    layout = _without("app.plugins")
    diff = ShapeDiff(LAYOUT, {}, layout, {})
    assert diff.names == {"app.plugins"}


def test_extension_modules_and_the_packages_only_the_build_creates():
    diff = ShapeDiff(LAYOUT, {"deep_gemm.cpp": "dg"}, LAYOUT, {})
    # (an extension module is no package's child: submodules lists files and packages)
    assert diff.names == {"deep_gemm.cpp", "deep_gemm"}
    assert diff.installed == {"deep_gemm"}
    # is_module answers yes for anything inside a package only the build creates
    assert diff.touches(["deep_gemm.utils.jit"])
    assert not diff.touches(["deep_gemmx"])
    retargeted = ShapeDiff(LAYOUT, {"app.plugins._C": "a"}, LAYOUT, {"app.plugins._C": "b"})
    assert retargeted.names == {"app.plugins._C"} and not retargeted.installed


def test_a_path_looked_up_changes_when_a_file_it_matches_comes_or_goes():
    diff = ShapeDiff(LAYOUT, {}, _without("app.plugins.fast"), {})
    # module_at matches a path by its tails, and paths ending in it
    assert diff.touches([], ["app/plugins/fast.py"])
    assert diff.touches([], ["python/app/plugins/fast.py"])
    assert diff.touches([], ["fast.py"])
    assert diff.touches([], ["repo/python/app/plugins/fast.py"])
    assert not diff.touches([], ["app/plugins/slow.py"])
    assert not diff.touches([], ["st.py"])
    assert ShapeDiff(LAYOUT, {}, dict(LAYOUT), {}).empty
