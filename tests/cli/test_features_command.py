"""``depgraph features`` (issue 51, item 3): the profile's features with what each is, whether
it is dropped by default and in this run, and its anchors on the tree (stale ones with the
candidate files). Expectations from the tree and profile written below."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from analyzer.cli.main import main
from tests.helpers import write_tree

PROFILE = """\
name = "tiny"
entry_points = ["app.main"]
default_drops = ["fast"]

[features.fast]
description = "the fast kernels"
paths = ["app/fast/*.py", "app/old_fast.py"]
identifiers = ["FastKernel"]

[features.fast_extras]
description = "extras built on fast"
requires = ["fast"]
paths = ["app/extras.py"]

[features.other]
description = "something else"
identifiers = ["OtherThing"]
"""

FILES = {
    "depgraph.toml": PROFILE,
    "app/__init__.py": "",
    "app/main.py": "print('hi')\n",
    "app/fast/__init__.py": "",
    "app/fast/k.py": "X = 1\n",
    # app/old_fast.py moved: FastKernel is defined here now
    "app/moved.py": "class FastKernel:\n    pass\n",
    "app/extras.py": "Y = 2\n",
}


def run(*args: str | Path) -> tuple[int, str, str]:
    got = CliRunner().invoke(main, [str(a) for a in args])
    assert "Traceback" not in got.output
    return got.exit_code, got.stdout, got.stderr


def test_features_as_json(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "t", FILES)
    code, out, err = run("features", tree, "--no-cache", "--format", "json", "--keep",
                         "fast_extras")
    assert code == 0, err
    got = json.loads(out)
    assert got["profile"]["name"] == "tiny"
    rows = {f["name"]: f for f in got["features"]}
    assert list(rows) == ["fast", "fast_extras", "other"]
    fast = rows["fast"]
    assert (fast["by_default"], fast["dropped"]) == (True, True)
    # paths app/fast/*.py (k.py) and identifier FastKernel match; app/old_fast.py does not:
    # its candidate is app/moved.py, which defines FastKernel
    assert fast["anchors"]["matched"] == 2 and fast["anchors"]["total"] == 3
    assert fast["anchors"]["stale"] == [{"kind": "path", "value": "app/old_fast.py",
                                         "candidates": ["app/moved.py"]}]
    # requires the dropped fast: dropped by default; --keep fast_extras keeps it this run
    extras = rows["fast_extras"]
    assert (extras["by_default"], extras["dropped"], extras["requires"]) == (True, False,
                                                                           ["fast"])
    other = rows["other"]
    assert (other["by_default"], other["dropped"]) == (False, False)
    assert other["anchors"] == {"matched": 0, "total": 1, "stale": [
        {"kind": "identifier", "value": "OtherThing", "candidates": []}]}


def test_features_as_a_table(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "t", FILES)
    code, out, err = run("features", tree, "--no-cache", "--drop", "other")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("profile tiny (") and lines[0].endswith("): 3 features")
    assert any(line.split()[:3] == ["fast", "yes", "(default)"] and "2/3" in line
               for line in lines)
    assert any(line.split()[:3] == ["other", "yes", "(--drop)"] and "OUT OF DATE" in line
               for line in lines)
    assert "stale: path app/old_fast.py (candidates: app/moved.py)" in out


def test_no_profile_is_exit_6(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "t", {"a.py": "x = 1\n"})
    code, _, err = run("features", tree, "--no-cache")
    assert code == 6
    assert err.startswith("depgraph: error: no features to list: no profile matches")
