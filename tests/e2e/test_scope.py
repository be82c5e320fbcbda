"""Features apart from other dead code, and ``--scope features`` (issue 27, item 3).

mini_sglang with root deepseek_v2 (read from the sample): besides the dropped features (fa3,
flashmla, ascend), the roots leave dead four whole files that belong to no feature --
``models/llama.py`` (a model not served), ``utils/legacy_helpers.py`` and
``utils/legacy_only.py`` (helpers nothing imports) and ``test/test_llama.py`` (the test of
llama) -- and dead symbols and imports in live files (``engine.py``'s ``_OldSchedulerConfig``,
``common.py``'s ``unused_helper``, ...). ``model_runner.py``'s ``load_platform_ops`` is dead
code too, but it goes with ascend (it reads the ascend helper the feature deletes).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from analyzer.cli.main import main
from analyzer.model import goes_with
from tests.helpers import MINI_SGLANG

OTHER_FILES = {"python/minisgl/srt/models/llama.py", "python/minisgl/srt/utils/legacy_helpers.py",
               "python/minisgl/srt/utils/legacy_only.py", "test/test_llama.py"}
DROPPED = frozenset({"fa3", "flashmla", "ascend"})


def scan(tree: Path, out: Path, *args: str) -> tuple[str, dict[str, Any]]:
    got = CliRunner().invoke(main, ["scan", str(tree), "--roots", "deepseek_v2", "--no-cache",
                                    "--out", str(out), "--format", "json", "--format", "html",
                                    "--format", "md", "--format", "sarif", *args])
    assert got.exit_code == 0, got.output
    return got.stdout, json.loads((out / "manifest.json").read_text())


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("scope")


@pytest.fixture(scope="module")
def both(base: Path) -> dict[str, tuple[str, dict[str, Any]]]:
    return {"all": scan(MINI_SGLANG, base / "all"),
            "features": scan(MINI_SGLANG, base / "features", "--scope", "features")}


def test_the_terminal_shows_features_and_other_dead_code_apart(both) -> None:
    stdout, manifest = both["all"]
    t = manifest["totals"]
    other = [d for d in manifest["deletions"]
             if not goes_with(d["features"], d["with_features"], DROPPED)]
    assert {d["path"] for d in other if d["kind"] == "delete_file"} == OTHER_FILES
    assert t["files_other"] == 4
    assert t["lines_features"] + t["lines_other"] == t["lines_removable"]
    assert t["files_features"] + t["files_other"] == t["files_removable"]
    lines = stdout.splitlines()
    assert f"  dropped features: {t['files_features']:>7} files, {t['lines_features']:>9} " \
        "lines   (--scope features plans only these)" in lines
    assert any(line.startswith(f"  other dead code:  {4:>7} files, {t['lines_other']:>9} lines")
               for line in lines)
    # load_platform_ops (model_runner.py, 4 lines) runs once ascend is kept: ascend's share,
    # no dead code taken along; the table has no "(dead code with them)" row
    along = [d for d in manifest["deletions"] if d["feature"] == "" and d["with_features"]]
    assert along == []
    assert not any(line.lstrip().startswith("(dead code with them)") for line in lines)


def test_scope_features_plans_only_the_features_share(both, tmp_path) -> None:
    stdout, manifest = both["features"]
    full = both["all"][1]
    assert manifest["options"]["scope"] == "features"
    assert all(goes_with(d["features"], d["with_features"], DROPPED)
               for d in manifest["deletions"])
    assert not OTHER_FILES & {d["path"] for d in manifest["deletions"]}
    assert manifest["totals"]["lines_removable"] == full["totals"]["lines_features"]
    assert manifest["totals"]["lines_other"] == 0
    assert "  other dead code:  not planned (--scope features)" in stdout.splitlines()
    # the build: the dead targets are fa3's flash_ops and flashmla's flashmla_ops, both
    # removed with their features
    assert [t["name"] for t in manifest["build"]["dead_targets"]] == ["flash_ops",
                                                                      "flashmla_ops"]


def test_scope_features_outputs_hold_only_the_share(both, base: Path) -> None:
    manifest = both["features"][1]
    html = (base / "features" / "report.html").read_text()
    md = "".join(p.read_text() for p in sorted((base / "features").glob("*.md")))
    sarif = (base / "features" / "depgraph.sarif").read_text()
    for path in OTHER_FILES:
        assert f'data-path="{path}"' not in html
        assert path not in md
        assert path not in sarif
        assert f'data-path="{path}"' in (base / "all" / "report.html").read_text()
    assert html.count("<tr data-path=") == len(manifest["deletions"])


def test_apply_of_a_features_scope_verifies(tmp_path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(MINI_SGLANG, tree)
    _out, manifest = scan(tree, tmp_path / "o", "--scope", "features")
    runner = CliRunner()
    applied = runner.invoke(main, ["apply", str(tmp_path / "o" / "manifest.json"), "--write"])
    assert applied.exit_code == 0, applied.output
    for path in OTHER_FILES:  # other dead code stays
        assert (tree / path).is_file()
    assert not (tree / "python/minisgl/srt/layers/attention/flashmla_backend.py").exists()
    verified = runner.invoke(main, ["verify", str(tree), "--no-cache", "--before",
                                    str(tmp_path / "o" / "manifest.json")])
    assert verified.exit_code == 0, verified.output
    assert f"  plan: {manifest['totals']['lines_removable']} lines removed" in verified.stdout


def test_scope_is_a_config_key(tmp_path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(MINI_SGLANG, tree)
    config = tree / "depgraph.toml"
    config.write_text('scope = "features"\n' + config.read_text())
    _out, manifest = scan(tree, tmp_path / "o")
    assert manifest["options"]["scope"] == "features"
    assert not OTHER_FILES & {d["path"] for d in manifest["deletions"]}
