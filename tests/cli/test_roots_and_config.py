"""Nothing the user did not ask for (issue 48): a scan without roots is a usage error; the
config is found from the scanned folder up to the repository's top, its paths rebased onto
the scanned folder; verify refuses a manifest made for another tree before scanning."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from analyzer.cli.main import main
from analyzer.config.lookup import rebase_glob
from tests.helpers import MINI_SGLANG, write_tree

APP = {
    "python/app/__init__.py": "",
    "python/app/main.py": ("from app.platform import is_npu\nfrom app.util import helper\n\n\n"
                           "def run():\n    if is_npu():\n"
                           "        from app.npu.backend import NpuBackend\n\n"
                           "        return NpuBackend()\n    return helper()\n"),
    "python/app/platform.py": "def is_npu():\n    return False\n",
    "python/app/util.py": "def helper():\n    return 1\n\n\ndef unused():\n    return 2\n",
    "python/app/npu/__init__.py": "",
    "python/app/npu/backend.py": "class NpuBackend:\n    pass\n",
}
# the config at the checkout's top, its path globs written from there
TOP_CONFIG = ('roots = ["app.main:run"]\n'
              'out = "reports"\n'
              'default_drops = ["npu"]\n'
              '[features.npu]\n'
              'description = "An NPU backend"\n'
              'paths = ["python/app/npu/**"]\n'
              'constants = { "app.platform.is_npu" = false }\n')


def invoke(*args: str):
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_a_scan_without_roots_is_a_usage_error(tmp_path) -> None:
    repo = write_tree(tmp_path / "repo", APP)
    result = invoke("scan", str(repo / "python"), "--out", str(tmp_path / "o"))
    assert result.exit_code == 2
    lines = result.output.splitlines()
    assert len(lines) == 1 and lines[0].startswith("depgraph: error: no roots: name the "
                                                   "entry points you serve with --roots NAME")
    assert "roots = [...] in depgraph.toml" in lines[0]
    assert not (tmp_path / "o").exists()
    # why and verify (without a manifest) scan too: the same error
    assert invoke("why", str(repo / "python"), "app.util").exit_code == 2
    assert invoke("verify", str(repo / "python")).exit_code == 2


def test_the_config_above_the_scanned_folder_is_found_and_named(tmp_path) -> None:
    repo = write_tree(tmp_path / "repo", {**APP, "depgraph.toml": TOP_CONFIG})
    (repo / ".git").mkdir()  # the repository's top: the search stops here
    result = invoke("scan", str(repo / "python"), "--no-cache")
    assert result.exit_code == 0, result.output
    assert f"({repo / 'depgraph.toml'})" in result.output.splitlines()[0]
    # out = "reports" is the config's folder's, not the scanned folder's
    manifest = json.loads((repo / "reports" / "manifest.json").read_text())
    assert manifest["roots"] == ["app.main:run"]
    # python/app/npu/** seen from python/ is app/npu/**: the npu feature's files (its share:
    # with npu kept, run() would use the backend)
    by_path = {d["path"]: d for d in manifest["deletions"]}
    assert by_path["app/npu/backend.py"]["features"] == ["npu"]
    assert by_path["app/util.py"]["symbol"] == "app.util:unused"


def test_a_config_beyond_the_repository_top_is_not_read(tmp_path) -> None:
    write_tree(tmp_path, {"depgraph.toml": TOP_CONFIG})
    repo = write_tree(tmp_path / "repo", APP)
    (repo / ".git").mkdir()
    assert invoke("scan", str(repo / "python"), "--no-cache", "--out",
                  str(tmp_path / "o")).exit_code == 2


def test_globs_rebased_onto_a_subfolder() -> None:
    assert rebase_glob("python/sglang/srt/**", "python") == "sglang/srt/**"
    assert rebase_glob("python/sglang/srt/**", "python/sglang") == "srt/**"
    assert rebase_glob("*/sglang/**", "python") == "sglang/**"
    assert rebase_glob("**/npu/**", "python") == "**/npu/**"  # any depth: as written
    assert rebase_glob("conftest.py", "python") == "conftest.py"  # a name anywhere
    assert rebase_glob("test/srt/**", "python") == "test/srt/**"  # nothing under python/
    assert rebase_glob("python/", "python") == "python/"  # the folder itself


def scanned_mini(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the mini SGLang sample and the folder of its scan's outputs."""
    tree = tmp_path / "mini"
    shutil.copytree(MINI_SGLANG, tree)
    out = tmp_path / "out"
    assert invoke("scan", str(tree), "--roots", "deepseek_v2", "--out", str(out),
                  "--no-cache").exit_code == 0
    return tree, out


def test_verify_refuses_a_manifest_of_another_tree_first(tmp_path) -> None:
    _tree, out = scanned_mini(tmp_path)
    other = write_tree(tmp_path / "other", APP)
    result = invoke("verify", str(other), "--before", str(out / "manifest.json"),
                    "--no-cache")
    assert result.exit_code == 7
    lines = result.output.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "depgraph: error: manifest made for another tree: it was scanned from ")


def test_verify_refuses_a_manifest_of_another_version_of_the_tree(tmp_path) -> None:
    tree, out = scanned_mini(tmp_path)
    manifest = out / "manifest.json"
    assert invoke("apply", str(manifest), "--write").exit_code == 0
    # another version of the project: every file the manifest edits changed since
    edited = {d["path"] for d in json.loads(manifest.read_text())["deletions"]
              if d["kind"] != "delete_file"}
    for path in edited:
        with open(tree / path, "a", encoding="utf-8") as f:
            f.write("\n# a later version\n")
    result = invoke("verify", str(tree), "--before", str(manifest), "--no-cache")
    assert result.exit_code == 7
    assert result.output.startswith("depgraph: error: manifest made for another version of "
                                    "this tree: ")
