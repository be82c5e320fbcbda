"""What `depgraph scan` prints: the per-feature table with its top blockers, C/C++/CUDA parse
problems collapsed to one counted line (listed with -v), and `--format json --out -`."""

from __future__ import annotations

import json

from click.testing import CliRunner

from analyzer.cli.main import main
from tests.helpers import MINI_SGLANG


def run(*args: str):
    return CliRunner().invoke(main, ["scan", str(MINI_SGLANG), "--roots", "deepseek_v2",
                                     "--no-cache", *args])


def test_the_feature_table_with_blockers(tmp_path) -> None:
    out = run("--out", str(tmp_path / "o"))
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    # mini_sglang: fa3 3 files / 51 lines / 2 TUs / 2 blocked (tests/outputs/test_html.py):
    # its files and server_args.py's import of is_fa3_supported, which only the folded fa3
    # branch read (with fa3 kept, it stays); kept by utils/fa3_check.py's call of
    # is_fa3_supported (line 8) and its import (line 5). Its TUs x architectures: "?", the
    # sample's CMake states no CUDA architecture list
    assert f"  {'fa3':<22} {'3':>6} {'51':>9} {'2':>5} {'?':>9} {'2':>8}" in lines
    assert "      blocked at python/minisgl/srt/utils/fa3_check.py:8: remove the use of " \
        "mini_kernel.flash_attn:is_fa3_supported (frees 1)" in lines
    # the import frees nothing alone: counted, not listed
    assert "      + 1 more place in live code (freeing nothing alone): the report lists them" \
        in lines
    assert f"wrote {tmp_path / 'o' / 'manifest.json'}, {tmp_path / 'o' / 'report.html'}" \
        in lines


def test_the_wrote_line_names_every_file(tmp_path) -> None:
    out = run("--out", str(tmp_path / "o"), "--format", "json", "--format", "md",
              "--format", "sarif")
    assert out.exit_code == 0, out.output
    # md: summary.md and one description per dropped feature (fa3, flashmla, ascend)
    names = ["manifest.json", "summary.md", "summary-fa3.md", "summary-flashmla.md",
             "summary-ascend.md", "depgraph.sarif"]
    assert f"wrote {', '.join(str(tmp_path / 'o' / n) for n in names)}" \
        in out.stdout.splitlines()
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == sorted(names)


def test_native_parse_problems_are_one_line_unless_verbose(tmp_path) -> None:
    # the sample's macro-heavy kernels: 6 constructs in 3 files (the 6 warnings the scan printed)
    quiet = run("--out", str(tmp_path / "a")).stderr.splitlines()
    assert quiet == ["note: 6 C/C++/CUDA constructs in 3 files tree-sitter could not parse; "
                     "extraction went on around them (-v lists them)"]
    loud = run("--out", str(tmp_path / "b"), "-v").stderr.splitlines()
    assert len(loud) == 7 and all(line.startswith("warning: sgl-kernel/") for line in loud[1:])


def test_manifest_to_stdout(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = run("--format", "json", "--out", "-")
    assert out.exit_code == 0
    assert json.loads(out.stdout)["totals"]["lines_removable"] == 214
    assert not (tmp_path / "-").exists()
    assert run("--out", "-").exit_code != 0  # html cannot go to stdout
