"""Blockers that tell the true edit (issue 27, item 4), on sample_repos/blocker_story.

Read from the sample: the dropped feature fa3 is app/fa3.py and app/fa3_utils.py, and the
registry key "fa3". app/server_args.py:3 sets ``self.attention_backend = "fa3"``, a live
default that selects the key, so app/backends.py's ``@register_backend("fa3")`` registration
stays live and with it create_fa3_backend, which imports app.fa3 (line 20) and uses
FA3Backend (line 22). app/model.py uses fa3_utils.fa3_page_size (line 5, imported at line 1),
with no key on the way; tests/test_fa3.py imports app.fa3. So: changing the default frees
app.fa3, FA3Backend, its workspace method and fa3_workspace (fa3_utils stays: model.py uses
it); removing the registration would break the runs that select "fa3".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from analyzer.cli.main import main
from tests.helpers import SAMPLES

SAMPLE = SAMPLES / "blocker_story"
DEFAULT = "app/server_args.py:3: self.attention_backend = 'fa3'"


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any], Path]:
    out = tmp_path_factory.mktemp("bs")
    got = CliRunner().invoke(main, ["scan", str(SAMPLE), "--no-cache", "--out", str(out),
                                    "--format", "json", "--format", "html", "--format", "md"])
    assert got.exit_code == 0, got.output
    return got.stdout, json.loads((out / "manifest.json").read_text()), out


def test_the_default_leads_the_blockers_in_the_manifest(scanned) -> None:
    manifest = scanned[1]
    assert manifest["profile"]["blocked_keys"] == {"fa3": DEFAULT}
    rows = [(b["group"], b["path"], b["line"], b["frees"], b["behind"])
            for b in manifest["profile"]["features"][0]["blockers"]]
    assert rows == [
        ("default", "app/server_args.py", 3, 4, "fa3"),
        ("code", "app/backends.py", 22, 3, "fa3"),  # FA3Backend, workspace, fa3_workspace
        ("code", "app/model.py", 5, 1, ""),  # fa3_page_size
        ("code", "app/backends.py", 20, 0, "fa3"),
        ("code", "app/model.py", 1, 0, ""),
        ("test", "tests/test_fa3.py", 1, 0, ""),
    ]
    default = manifest["profile"]["features"][0]["blockers"][0]
    assert default["edit"].startswith(f"change the default at {DEFAULT} (it selects the "
                                      "dropped key 'fa3'")
    assert sorted(default["blocks"]) == ["app.fa3", "app.fa3:FA3Backend",
                                         "app.fa3:FA3Backend.workspace", "app.fa3_utils",
                                         "app.fa3_utils:fa3_workspace"]


def test_the_terminal_says_the_true_edit_first(scanned) -> None:
    lines = scanned[0].splitlines()
    at = lines.index(f"  {'fa3':<22} {'0':>6} {'0':>9} {'0':>5} {'0':>9} {'6':>8}")
    assert lines[at + 1:at + 6] == [
        f"      change the default at {DEFAULT} (selects the dropped key 'fa3'; frees 4)",
        "      blocked at app/backends.py:22: remove the use of app.fa3:FA3Backend (frees 3; "
        "live only through the key 'fa3')",
        "      blocked at app/model.py:5: remove the use of app.fa3_utils:fa3_page_size "
        "(frees 1)",
        "      + 2 more places in live code (freeing nothing alone): the report lists them",
        "      1 test imports it: tests/test_fa3.py",
    ]
    assert not any("remove the registration" in line for line in lines)


def test_the_report_groups_them(scanned) -> None:
    html = (scanned[2] / "report.html").read_text()
    lead = html.split('<table class="blockers" data-feature="fa3">', 1)[1].split("</table>")[0]
    assert lead.count("<tr class=") == 3 and '<tr class="blocker-default">' in lead
    assert lead.index("app/server_args.py:3") < lead.index("app/model.py:5")
    assert "2 more places in live code that free nothing alone" in html
    assert "1 test imports it" in html


def test_the_feature_markdown_leads_with_the_default(scanned) -> None:
    md = (scanned[2] / "summary-fa3.md").read_text()
    blocks = md.split("### What blocks it", 1)[1]
    assert blocks.index("change the default at app/server_args.py:3") \
        < blocks.index("app/model.py:5")


def why(*args: str) -> str:
    got = CliRunner().invoke(main, ["why", str(SAMPLE), *args, "--no-cache"])
    assert got.exit_code == 0, got.output
    return got.stdout


def test_why_of_a_blocked_item_names_the_default_first() -> None:
    out = why("app.fa3").splitlines()
    assert out[-4].startswith(f"to free it: change the default at {DEFAULT}")
    assert out[-1] == "   and: delete the import of app.fa3 at tests/test_fa3.py:1"


def test_why_of_a_root_says_why_it_is_one() -> None:
    assert why("app.main:main").startswith(
        "app.main:main (app/main.py:6) is live: it is a root: an entry point of the profile "
        "(app.main:main, entry_points in ")
    assert why("--roots", "model", "app.model").strip() == (
        "app.model (app/model.py) is live: it is a root: named by --roots model.")
    assert "it is a root: a test that stays (it uses live code)" in why("tests/test_fa3.py")
    # a chain names its root's reason
    chain = why("app.fa3_utils:fa3_page_size").splitlines()
    assert chain[1] == "root app.main:main (app/main.py:6)  [an entry point of the profile " \
        f"(app.main:main, entry_points in {SAMPLE / 'depgraph.toml'})]"


def test_applying_a_feature_whose_share_is_empty_changes_nothing(scanned, tmp_path) -> None:
    """fa3 is dropped, but all of it is blocked (0 files, 0 lines): --feature fa3 has nothing
    to apply -- exit 0, the tree as it was; a feature the profile does not know is exit 6."""
    import shutil

    tree = tmp_path / "t"
    shutil.copytree(SAMPLE, tree)
    before = {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    got = CliRunner().invoke(main, ["apply", str(scanned[2] / "manifest.json"), "--root",
                                    str(tree), "--feature", "fa3", "--write", "--no-cache"])
    assert got.exit_code == 0, got.output
    assert got.stderr.startswith("nothing to apply: the plan deletes nothing of feature 'fa3'")
    assert {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()} == before
    got = CliRunner().invoke(main, ["apply", str(scanned[2] / "manifest.json"), "--root",
                                    str(tree), "--feature", "fa4", "--no-cache"])
    assert got.exit_code == 6
    assert "unknown feature 'fa4'" in got.stderr and "did you mean 'fa4'" not in got.stderr
