"""One number: the line total of a plan -- the sum of its deletions' `lines` (whole files,
removed statements, blocks and entries; an edit inside a kept line counts 0) -- is what scan,
the manifest, the report, apply and verify print (mini_sglang: 214, tests/outputs/test_html.py)."""

from __future__ import annotations

import json
import shutil

from click.testing import CliRunner

from analyzer.cli.main import main
from tests.helpers import MINI_SGLANG


def test_scan_apply_verify_print_the_same_line_total(tmp_path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(MINI_SGLANG, tree)
    out = tmp_path / "out"
    runner = CliRunner()
    scanned = runner.invoke(main, ["scan", str(tree), "--roots", "deepseek_v2", "--no-cache",
                                   "--out", str(out)])
    assert scanned.exit_code == 0, scanned.output
    assert "removable: 14 files, 214 lines in" in scanned.stdout
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["totals"]["lines_removable"] == 214
    assert '<b id="total-lines">214</b>' in (out / "report.html").read_text()
    applied = runner.invoke(main, ["apply", str(out / "manifest.json"), "--write"])
    assert applied.exit_code == 0, applied.output
    assert "removed 214 lines by the plan's count (the diff removes " in applied.stderr
    verified = runner.invoke(main, ["verify", str(tree), "--no-cache", "--before",
                                    str(out / "manifest.json")])
    assert verified.exit_code == 0, verified.output
    lines = verified.stdout.splitlines()
    assert "  plan: 214 lines removed by the plan's count, 14 files" in lines
    # the files' count: 455 Python lines before (manifest totals); the plan's Python
    # deletions are 120 lines of them, the diff removes blank lines around them too
    python = next(line for line in lines if line.startswith("  Python lines: 455 -> "))
    after = int(python.split(" -> ")[1].split()[0])
    assert python.endswith(f"(-{455 - after} in the files: the plan's 120 Python lines and "
                           "the blank lines and block headers that went with them)")
    assert 455 - after >= 120
    # the whole plan applied: the pruned tree is the plan's fixpoint, nothing more to remove
    assert "  still removable: 0 deletions, 0 lines in 0 files (what a scan of this tree " \
        "plans)" in lines


def test_apply_stat_lists_files_instead_of_the_diff(tmp_path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(MINI_SGLANG, tree)
    out = tmp_path / "out"
    runner = CliRunner()
    runner.invoke(main, ["scan", str(tree), "--roots", "deepseek_v2", "--no-cache", "--format",
                         "json", "--out", str(out)])
    stat = runner.invoke(main, ["apply", str(out / "manifest.json"), "--stat",
                                "--feature", "flashmla"])
    assert stat.exit_code == 0, stat.output
    rows = [line.split() for line in stat.stdout.splitlines()]
    # flashmla's files, a row each, no diff: flashmla_backend.py (deleted whole) among them
    assert all(len(r) == 3 and r[1] in ("deleted", "edited") for r in rows)
    assert ["deleted", "python/minisgl/srt/layers/attention/flashmla_backend.py"] in [
        r[1:] for r in rows]
    assert "@@" not in stat.stdout
