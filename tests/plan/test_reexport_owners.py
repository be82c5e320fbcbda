"""An import binding other modules resolve through (a re-export) stays while one of them
remains; a module the plan deletes whole needs nothing. Expectations from the trees below."""

from __future__ import annotations

from pathlib import Path

from analyzer.pipeline.scan import run_scan
from tests.helpers import write_tree

TREE = {
    "depgraph.toml": 'name = "t"\ndescription = "t"\nentry_points = ["app.main:main"]\n',
    "app/__init__.py": "",
    "app/main.py": "from app.conf import Conf\n\n\ndef main():\n    return Conf\n",
    # re-exports VitConf, which it does not use itself
    "app/conf.py": "from app.vit import VitConf\n\n\nclass Conf:\n    pass\n",
    "app/vit.py": "class VitConf:\n    pass\n",
    # nothing imports it: deleted whole, so its import through app.conf needs nothing
    "app/dead_model.py": "from app.conf import VitConf\n\n\ndef build():\n    return VitConf()\n",
}


def _planned(result) -> set[tuple[str, str, int | None]]:
    return {(d.kind, d.path, d.start_line) for d in result.plan.deletions}


def test_a_reexport_only_a_deleted_module_uses_goes(tmp_path: Path) -> None:
    result = run_scan(write_tree(tmp_path / "t", TREE), [], parse_all=True)
    assert _planned(result) == {("delete_file", "app/dead_model.py", None),
                                ("delete_range", "app/conf.py", 1),
                                ("delete_file", "app/vit.py", None)}


def test_a_reexport_a_remaining_file_uses_stays(tmp_path: Path) -> None:
    # app.other (live: main calls it) imports VitConf through app.conf
    files = {**TREE,
             "app/main.py": ("from app.conf import Conf\nfrom app.other import make\n\n\n"
                             "def main():\n    return Conf, make()\n"),
             "app/other.py": ("from app.conf import VitConf\n\n\n"
                              "def make():\n    return VitConf()\n")}
    result = run_scan(write_tree(tmp_path / "t", files), [], parse_all=True)
    assert _planned(result) == {("delete_file", "app/dead_model.py", None)}


def test_a_test_of_what_only_it_uses_goes_with_it_through_a_reexport(tmp_path: Path) -> None:
    # the test imports VitConf through app.conf; nothing live uses VitConf, so the test only
    # keeps alive what it tests: it goes, and so do the re-export and app/vit.py -- as when
    # it imports VitConf from app.vit directly
    for source in ("app.conf", "app.vit"):
        files = {**TREE, "tests/test_conf.py": (f"from {source} import VitConf\n\n\n"
                                                "def test_vit():\n    assert VitConf()\n")}
        result = run_scan(write_tree(tmp_path / source, files), [], parse_all=True)
        assert _planned(result) == {("delete_file", "app/dead_model.py", None),
                                    ("delete_file", "tests/test_conf.py", None),
                                    ("delete_range", "app/conf.py", 1),
                                    ("delete_file", "app/vit.py", None)}


def test_a_reexport_only_a_deleted_test_uses_goes(tmp_path: Path) -> None:
    # the test imports VitConf through app.conf, but it also tests app.dead_model, which
    # goes: the test goes with it, and nothing else needs the re-export (nor app/vit.py)
    files = {**TREE, "tests/test_model.py": ("from app.conf import VitConf\n"
                                             "from app.dead_model import build\n\n\n"
                                             "def test_build():\n"
                                             "    assert isinstance(build(), VitConf)\n")}
    result = run_scan(write_tree(tmp_path / "t", files), [], parse_all=True)
    assert _planned(result) == {("delete_file", "app/dead_model.py", None),
                                ("delete_file", "tests/test_model.py", None),
                                ("delete_range", "app/conf.py", 1),
                                ("delete_file", "app/vit.py", None)}
