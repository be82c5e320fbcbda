"""Blockers: where live code enters a dropped feature, what it keeps and the edit that frees it
(hand-written samples; expectations from reading them)."""

from __future__ import annotations

from click.testing import CliRunner

from analyzer.cli.main import main as cli
from analyzer.outputs.markdown import render_feature_markdown
from analyzer.pipeline.scan import run_scan
from analyzer.pipeline.verify import manifest_of
from tests.helpers import MINI_SGLANG, SAMPLES


def test_a_method_is_blocked_by_the_read_of_its_name() -> None:
    # method_selection: backend_map's "hybrid" entry (pkg/draft.py:15) reads
    # self._create_fa3_prefill_backend; that method imports pkg.fa3_backend (module, Backend)
    result = run_scan(SAMPLES / "method_selection", [])
    (b,) = result.blockers["fa3"]
    assert (b.kind, b.file, b.line) == ("attribute_read", "pkg/draft.py", 15)
    assert b.edit == "remove the read of ._create_fa3_prefill_backend at pkg/draft.py:15"
    assert set(b.blocks) == set(b.frees) == {
        "py:pkg.draft:DraftBackendFactory._create_fa3_prefill_backend", "py:pkg.fa3_backend",
        "py:pkg.fa3_backend:Backend", "py:pkg.fa3_backend:Backend.forward"}
    assert result.blockers["flashmla"] == [] and result.blockers["npu"] == []


def test_blockers_sorted_by_what_they_free_and_reported_everywhere() -> None:
    # mini_sglang: utils/fa3_check.py imports mini_kernel.flash_attn (line 5) and calls
    # is_fa3_supported (line 8); the call keeps the function and, through it, the module; the
    # import keeps the module only: the call frees 1 (the function), the import 0
    result = run_scan(MINI_SGLANG, ["deepseek_v2"])
    fa3 = result.blockers["fa3"]
    assert [(b.kind, b.line, len(b.frees), len(b.blocks)) for b in fa3] == [
        ("reference", 8, 1, 2), ("import", 5, 0, 1)]
    entry = manifest_of(result)["profile"]["features"][0]["blockers"][1]
    assert entry == {"path": "python/minisgl/srt/utils/fa3_check.py", "line": 5,
                     "kind": "import", "from": "minisgl.srt.utils.fa3_check",
                     "enters": "mini_kernel.flash_attn", "blocks": ["mini_kernel.flash_attn"],
                     "frees": 0, "edit": "delete the import of mini_kernel.flash_attn at "
                     "python/minisgl/srt/utils/fa3_check.py:5", "group": "code", "behind": ""}
    md = render_feature_markdown(result, "fa3")
    assert md.index("### What blocks it") < md.index("- files removed:")
    out = CliRunner().invoke(cli, ["why", str(MINI_SGLANG), "mini_kernel.flash_attn",
                                   "--roots", "deepseek_v2"])
    assert out.exit_code == 0, out.output
    assert out.output.rstrip().splitlines()[-2:] == [
        "to free it: remove the use of mini_kernel.flash_attn:is_fa3_supported at "
        "python/minisgl/srt/utils/fa3_check.py:8",
        "   and: delete the import of mini_kernel.flash_attn at "
        "python/minisgl/srt/utils/fa3_check.py:5"]
