"""Discover stage, the walk (``analyzer/discover/walk.py``): ignores, languages, Python roots
and module names, symlinks, unreadable entries (gitignore matching: test_gitignore.py).

Each test builds a throwaway tree in ``tmp_path`` and checks hand-written expectations.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from analyzer.discover.walk import Discovery, DiscoveryError, discover, language_of, module_name
from tests.helpers import write_tree


def paths(found: Discovery) -> list[str]:
    return [f.path for f in found.files]


def kinds(found: Discovery) -> dict[str, str]:
    return {p.path: p.kind for p in found.problems}


# --- discovery: ignores ---------------------------------------------------------------------

def test_gitignore_in_walk(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        ".gitignore": "*.py\n!keep.py\ngen/\n/top.cu\n**/cache/**\nlogs/\n!logs/ok.py\n",
        "keep.py": "",
        "drop.py": "",
        "top.cu": "",
        "sub/top.cu": "",
        "gen/x.h": "",
        "gen.h": "",
        "a/cache/deep/k.cpp": "",
        "a/cache.h": "",
        "logs/ok.py": "",  # inside an excluded dir: cannot be re-included
        "sub/.gitignore": "!inner.py\n*.h\n",
        "sub/inner.py": "",
        "sub/z.h": "",
        "other/inner.py": "",
        "CMakeLists.txt": "",
    })
    found = discover(tmp_path)
    assert paths(found) == [
        "CMakeLists.txt", "a/cache.h", "gen.h", "keep.py", "sub/inner.py", "sub/top.cu",
    ]
    assert found.problems == ()


def test_git_info_exclude_and_extra_excludes(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        ".git/info/exclude": "secret.py\n",
        ".git/objects/x.py": "",
        "secret.py": "",
        "bench/b.py": "",
        "lib/l.py": "",
        "main.py": "",
    })
    found = discover(tmp_path, extra_excludes=("bench/",))
    assert paths(found) == ["lib/l.py", "main.py"]


def test_default_excludes(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "myenv/pyvenv.cfg": "home = /usr\n",
        "myenv/lib/site.py": "",
        "env/pyvenv.cfg": "",
        "env/x.py": "",
        "app/env/config.py": "",  # an "env" without pyvenv.cfg is kept
        "build/gen.py": "",
        "dist/d.py": "",
        "pkg/__pycache__/m.py": "",
        "pkg.egg-info/e.py": "",
        "node_modules/n.cu": "",
        "site-packages/s.py": "",
        "depgraph-out/o.py": "",
        ".venv/v.py": "",
        ".mypy_cache/c.py": "",
        "pkg/__init__.py": "",
        "pkg/build.py": "",  # a *file* named like an excluded dir is kept
    })
    found = discover(tmp_path)
    assert paths(found) == ["app/env/config.py", "pkg/__init__.py", "pkg/build.py"]


# --- languages ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("path", "lang"),
    [
        ("a/b.py", "python"), ("a/b.pyi", None), ("k.cu", "cuda"), ("k.cuh", "cuda"),
        ("x.cc", "cuda"), ("x.cpp", "cuda"), ("x.cxx", "cuda"), ("x.c", "cuda"), ("x.h", "cuda"),
        ("x.hpp", "cuda"), ("x.hh", "cuda"), ("x.inl", "cuda"), ("CMakeLists.txt", "cmake"),
        ("cmake/utils.cmake", "cmake"), ("README.md", None), ("Makefile", None),
        ("cmakelists.txt", None),
    ],
)
def test_language_of(path: str, lang: str | None) -> None:
    assert language_of(path) == lang


def test_files_have_sizes_and_languages(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": "x = 1\n", "k.cu": "", "CMakeLists.txt": "project(x)\n",
                         "README.md": "hi"})
    found = discover(tmp_path)
    assert [(f.path, f.language, f.size) for f in found.files] == [
        ("CMakeLists.txt", "cmake", 11), ("a.py", "python", 6), ("k.cu", "cuda", 0),
    ]
    assert found.root == tmp_path.resolve()


# --- python roots and module names ------------------------------------------------------------

MONO = ("", "sgl-kernel/python", "python")  # a monorepo's Python roots


def test_two_root_monorepo_with_namespace_package(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "python/pyproject.toml": "[project]\nname = 'pkg'\n",
        "python/pkg/__init__.py": "",
        "python/pkg/ns/mod.py": "",  # namespace gap: no __init__.py in ns/
        "python/pkg/ns/deep/__init__.py": "",
        "python/pkg/ns/deep/leaf.py": "",
        "kernel/pyproject.toml": "[tool.scikit-build]\nwheel.packages = ['python/kpkg']\n",
        "kernel/python/kpkg/__init__.py": "",
        "kernel/python/kpkg/ops.py": "",
        "kernel/tests/test_ops.py": "",
        "scripts/run.py": "",
        "kernel/csrc/k.cu": "",
    })
    found = discover(tmp_path)
    assert found.python_roots == ("", "kernel", "kernel/python", "python")
    names = {f.path: module_name(f.path, found.python_roots) for f in found.files}
    assert names == {
        "python/pkg/__init__.py": "pkg",
        "python/pkg/ns/mod.py": "pkg.ns.mod",
        "python/pkg/ns/deep/__init__.py": "pkg.ns.deep",
        "python/pkg/ns/deep/leaf.py": "pkg.ns.deep.leaf",
        "kernel/python/kpkg/__init__.py": "kpkg",
        "kernel/python/kpkg/ops.py": "kpkg.ops",
        "kernel/tests/test_ops.py": "tests.test_ops",  # nearest pyproject.toml dir
        "scripts/run.py": "scripts.run",
        "kernel/csrc/k.cu": None,
    }


@pytest.mark.parametrize(("path", "roots", "expected"), [
    pytest.param("python/a/b/__init__.py", MONO, "a.b", id="package"),
    pytest.param("python/a/b/c.py", MONO, "a.b.c", id="module"),
    pytest.param("sgl-kernel/python/sgl_kernel/x.py", MONO, "sgl_kernel.x", id="longest-root"),
    pytest.param("sgl-kernel/setup.py", MONO, None, id="dash-is-no-identifier"),
    pytest.param("python/a/my-mod.py", MONO, None, id="dash-in-file-name"),
    pytest.param("python/a/class.py", MONO, None, id="keyword"),
    pytest.param("python/a/x.cu", MONO, None, id="not-python"),
    pytest.param("tool.py", MONO, "tool", id="top-level-file"),
    pytest.param("__init__.py", MONO, None, id="root-init"),
    pytest.param("python/x.py", ("python",), "x", id="only-root"),
    pytest.param("other/x.py", ("python",), None, id="outside-every-root"),
    pytest.param("pythonic/x.py", ("python",), None, id="root-is-a-folder-not-a-prefix"),
])
def test_module_name_rules(path: str, roots: tuple[str, ...], expected: str | None) -> None:
    assert module_name(path, roots) == expected


def test_src_layout_and_declared_roots(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "proj/pyproject.toml": "[project]\nname = 'p'\n",
        "proj/src/nspkg/mod.py": "",  # pure namespace package: no __init__ anywhere
        "proj/tests/test_m.py": "",
        "lib/setup.cfg": "[options]\npackage_dir =\n    = code\n",
        "lib/code/ns2/m.py": "",
        "tool/pyproject.toml": "[tool.setuptools.packages.find]\nwhere = ['source']\n",
        "tool/source/ns3/m.py": "",
        "bad/pyproject.toml": "[[[not toml",
        "bad/x.py": "",
    })
    found = discover(tmp_path)
    assert found.python_roots == ("bad", "lib/code", "proj", "proj/src", "tool/source")
    names = {f.path: module_name(f.path, found.python_roots) for f in found.files}
    assert names == {
        "proj/src/nspkg/mod.py": "nspkg.mod",
        "proj/tests/test_m.py": "tests.test_m",
        "lib/code/ns2/m.py": "ns2.m",
        "tool/source/ns3/m.py": "ns3.m",
        "bad/x.py": "x",
    }
    assert kinds(found) == {"bad/pyproject.toml": "bad-metadata"}


# --- symlinks and unreadable entries ----------------------------------------------------------

def run_with_timeout(root: Path, seconds: float = 10.0) -> Discovery:
    result: list[Discovery] = []
    thread = threading.Thread(target=lambda: result.append(discover(root)), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "discover() hung"
    assert result, "discover() raised"
    return result[0]


def test_a_wheel_package_inside_another_package_is_top_level(tmp_path: Path) -> None:
    # SGLang since 2026-08: the kernel project at python/sglang/kernels/aot/ ships
    # python/sgl_kernel as the top-level package sgl_kernel
    root = write_tree(tmp_path, {
        "python/sglang/__init__.py": "",
        "python/sglang/kernels/__init__.py": "",
        "python/sglang/kernels/aot/pyproject.toml":
            '[tool.scikit-build]\nwheel.packages = ["python/sgl_kernel"]\n',
        "python/sglang/kernels/aot/python/sgl_kernel/__init__.py": "",
        "python/sglang/kernels/aot/python/sgl_kernel/flash_attn.py": "",
        "python/sglang/kernels/ops.py": "",
    })
    found = discover(root)
    assert set(found.python_roots) == {"python", "python/sglang/kernels/aot/python"}
    assert module_name("python/sglang/kernels/aot/python/sgl_kernel/flash_attn.py",
                       found.python_roots) == "sgl_kernel.flash_attn"
    assert module_name("python/sglang/kernels/ops.py", found.python_roots) == \
        "sglang.kernels.ops"


def test_symlink_loop_to_parent(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a/m.py": "", "a/b/n.py": ""})
    os.symlink("..", tmp_path / "a" / "b" / "up")  # a/b/up -> a
    os.symlink(".", tmp_path / "self")  # root/self -> root
    found = run_with_timeout(tmp_path)
    assert paths(found) == ["a/b/n.py", "a/m.py"]
    assert kinds(found) == {"a/b/up": "symlink-loop", "self": "symlink-loop"}


def test_self_referencing_link_and_dangling_link(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": ""})
    os.symlink("loop.py", tmp_path / "loop.py")
    os.symlink("missing.py", tmp_path / "dangling.py")
    found = run_with_timeout(tmp_path)
    assert paths(found) == ["m.py"]
    assert kinds(found) == {"loop.py": "symlink-loop", "dangling.py": "broken-symlink"}


def test_symlinks_inside_and_outside_root(tmp_path: Path) -> None:
    outside = write_tree(tmp_path / "outside", {"o.py": ""})
    root = write_tree(tmp_path / "root", {"real/r.py": "abc", "x.py": ""})
    os.symlink(outside, root / "out")
    os.symlink(outside / "o.py", root / "o.py")
    os.symlink("real", root / "alias")
    os.symlink("real/r.py", root / "r_link.py")
    found = run_with_timeout(root)
    assert paths(found) == ["alias/r.py", "r_link.py", "real/r.py", "x.py"]
    assert {f.path: f.size for f in found.files}["r_link.py"] == 3
    assert kinds(found) == {"out": "symlink-outside-root", "o.py": "symlink-outside-root"}


def test_unreadable_directory(tmp_path: Path) -> None:
    write_tree(tmp_path, {"ok.py": "", "locked/x.py": ""})
    locked = tmp_path / "locked"
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("running with privileges that ignore file permissions")
        found = discover(tmp_path)
        assert paths(found) == ["ok.py"]
        assert kinds(found) == {"locked": "unreadable"}
    finally:
        locked.chmod(0o755)


def test_unreadable_directory_simulated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same as above but independent of privileges: scandir raises PermissionError."""
    write_tree(tmp_path, {"ok.py": "", "locked/x.py": ""})
    real_scandir = os.scandir

    def fake_scandir(path: str) -> object:
        if os.path.basename(path) == "locked":
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr("analyzer.discover.walk.os.scandir", fake_scandir)
    found = discover(tmp_path)
    assert paths(found) == ["ok.py"]
    assert kinds(found) == {"locked": "unreadable"}


# --- bad input --------------------------------------------------------------------------------

def test_missing_path_raises(tmp_path: Path) -> None:
    with pytest.raises(DiscoveryError, match="does not exist"):
        discover(tmp_path / "nope")


def test_file_path_raises(tmp_path: Path) -> None:
    write_tree(tmp_path, {"f.py": ""})
    with pytest.raises(DiscoveryError, match="not a directory"):
        discover(tmp_path / "f.py")
