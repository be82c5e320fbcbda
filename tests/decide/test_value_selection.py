"""Selection by value, on the hand-written sample ``sample_repos/value_selection`` (read it:
every expectation below comes from it).

- ``pkg/forward.py``: ``method is Method.MLA_NPU`` and ``method in (Method.MLA_NPU,)`` fold
  when the ``forward_methods`` enum registry drops ``MLA_NPU``;
- ``pkg/moe.py``: ``get_backend().is_npu_fuse()`` folds: ``A2ABackend.is_npu_fuse`` only
  compares ``self`` with the dropped member ``NPU_FUSE`` and no other class defines it;
- ``pkg/args.py``: the final ``else`` that only selects ``"npu_attn"`` folds (an enclosing
  ``if self.attention_backend is None`` reads the target: it exists); the npu feature's own
  ``_find_npu_quant_config`` producing the key blocks nothing;
- ``examples/run_npu.py``: an example selecting the dropped key goes with the feature;
- ``npu_graphs`` requires ``npu``: dropped with it;
- ``pkg/moe.py``'s ``try: from pkg import npu_ext`` takes its ``except`` path: the npu
  feature's ``extension_modules`` are not built.
"""

from __future__ import annotations

import pytest

from analyzer.config.options import ScanOptions
from analyzer.pipeline.scan import ScanResult, run_scan
from analyzer.pipeline.verify import verify_scan
from tests.helpers import SAMPLES, prune_copy

SAMPLE = SAMPLES / "value_selection"


def planned(result: ScanResult) -> set[tuple]:
    return {(d.kind, d.path, d.start_line, d.end_line, d.names, d.rewrite)
            for d in result.plan.deletions}


@pytest.fixture(scope="module")
def result() -> ScanResult:
    return run_scan(SAMPLE, [])


def test_exact_plan(result: ScanResult) -> None:
    assert result.profile.blocked_keys == {}
    assert planned(result) == {
        ("remove_list_element", "pkg/args.py", 1, 1, ("npu_attn",), ""),
        ("fold_branch", "pkg/args.py", 11, 12, (), "delete_clause"),
        # the member and the predicate that only tested for it
        ("delete_range", "pkg/backends.py", 7, 7, (), ""),
        ("delete_range", "pkg/backends.py", 12, 13, (), ""),
        ("delete_range", "pkg/forward.py", 7, 7, (), ""),
        ("fold_branch", "pkg/forward.py", 13, 16, (), "delete_clause"),
        ("fold_branch", "pkg/forward.py", 17, 20, (), "delete"),
        ("fold_branch", "pkg/moe.py", 9, 12, (), "delete"),
        # `try: from pkg import npu_ext` (an extension the npu feature's build provides):
        # the except body stays, the try goes
        ("fold_branch", "pkg/moe.py", 18, 20, (), "try_unwrap"),
        ("delete_file", "pkg/npu_mla.py", None, None, (), ""),
        ("delete_file", "pkg/npu_moe.py", None, None, (), ""),
        ("delete_file", "pkg/graphs_npu.py", None, None, (), ""),
        ("delete_file", "examples/run_npu.py", None, None, (), ""),
    }


def test_reasons_name_the_rule(result: ScanResult) -> None:
    reasons = {(d.path, d.start_line): d.reason for d in result.plan.deletions}
    assert "a dropped enum member" in reasons[("pkg/forward.py", 13)]
    assert "is_npu_fuse(): tests for a dropped enum member" in reasons[("pkg/moe.py", 9)]
    assert "a behaviour decision" in reasons[("pkg/args.py", 11)]
    assert reasons[("examples/run_npu.py", None)] == \
        "selects dropped key 'npu_attn' (line 3: attention_backend = 'npu_attn')"
    # it goes with the feature and counts in its totals
    example = next(d for d in result.plan.deletions if d.path == "examples/run_npu.py")
    assert example.feature == "npu" and example.category == "test-file"


def test_required_feature_is_dropped_with_its_base(result: ScanResult) -> None:
    assert result.profile.drops == ("npu", "npu_graphs")
    graphs = next(f for f in result.features if f.name == "npu_graphs")
    assert {i.label for i in graphs.removable} == {"pkg.graphs_npu", "pkg.graphs_npu:NPUGraphs"}
    kept = run_scan(SAMPLE, [], keep=("npu_graphs",))
    assert kept.profile.drops == ("npu",)
    # nothing imports it: dead code all the same, but no dropped feature's
    assert [f.name for f in kept.features] == ["npu"]
    assert [d.feature for d in kept.plan.deletions if d.path == "pkg/graphs_npu.py"] == [""]


def test_the_features_own_producer_is_reported_not_blocking(result: ScanResult) -> None:
    npu = next(f for f in result.features if f.name == "npu")
    assert [i.label for i in npu.blocked] == ["pkg.args:Args._find_npu_quant_config"]


def test_pruned_sample_verifies(tmp_path) -> None:
    tree, manifest = prune_copy(SAMPLE, tmp_path)
    assert verify_scan(tree, ScanOptions(), before=manifest).problems == []
    text = (tree / "pkg/args.py").read_text()
    # the else clause went, the if before it stays; the feature's own method stays (blocked)
    assert 'else:\n                    self.attention_backend = "npu_attn"' not in text
    assert 'self.attention_backend = "triton"' in text and "_find_npu_quant_config" in text
    assert "NPU_FUSE" not in (tree / "pkg/backends.py").read_text()


def test_behaviour_decisions_are_their_own_group(result: ScanResult) -> None:
    from analyzer.outputs.html import render_html
    from analyzer.outputs.markdown import render_markdown
    from analyzer.pipeline.verify import manifest_of

    # the else clause that selected "npu_attn" and the example that selected it; the enum
    # and device folds are no behaviour decisions (no choice of the target changes)
    decided = manifest_of(result)["profile"]["behaviour_decisions"]
    assert [(d["path"], d["line"], d["feature"]) for d in decided] == [
        ("examples/run_npu.py", 0, "npu"), ("pkg/args.py", 11, "npu")]
    md = render_markdown(result)
    assert "### Behaviour decisions" in md and "- `pkg/args.py:11`: else: folded" in md
    html = render_html(result)
    assert '<section id="decisions-section">' in html and "pkg/args.py:11" in html


def test_a_membership_tuple_selects_nothing() -> None:
    # sample_repos/membership_tuple: `supported_draft_backends = ("flashinfer", "fa3", "fa4",
    # "triton")` is only tested with `not in` and printed: no producer of "fa4". The fa4 key
    # is not blocked, its registration (backends.py 9-13) goes, and the backend module only
    # it imported goes too; `draft_backend = "fa3"` selects a key nobody drops
    result = run_scan(SAMPLES / "membership_tuple", [])
    assert result.profile.blocked_keys == {}
    assert {(d.path, d.start_line, d.end_line) for d in result.plan.deletions} == {
        ("app/backends.py", 9, 13), ("app/fa4_backend.py", None, None)}


def test_a_version_parameter_folds_once_no_live_code_passes_it(tmp_path) -> None:
    # sample_repos/impl_version: only fa4's own code passes fa_impl_ver=4 (its registration,
    # the draft factory's fa4 method), so `self.fa_impl_ver == 4` (backend.py 8-11) and
    # `elif ver == 4` (dispatch.py 4-7) fold, and the FA4 kernels module goes with them
    result = run_scan(SAMPLES / "impl_version", [])
    assert result.profile.blocked_keys == {}
    assert {(d.path, d.start_line, d.end_line, d.rewrite) for d in result.plan.deletions} == {
        ("app/backend.py", 8, 11, "delete"),
        ("app/backends.py", 10, 12, ""),
        ("app/dispatch.py", 4, 7, "delete_clause"),
        ("app/draft.py", 11, 11, ""),
        ("app/draft.py", 21, 22, ""),
        ("app/fa4_kernels.py", None, None, ""),
    }
    # live code passing 4 selects it: the key is blocked (with its line), nothing folds
    import shutil

    tree = tmp_path / "tree"
    shutil.copytree(SAMPLES / "impl_version", tree)
    server = tree / "app" / "server.py"
    server.write_text(server.read_text().replace(
        "    return backend.forward(1), draft.forward(2)\n",
        "    fast = FlashAttentionBackend(runner, fa_impl_ver=4)\n"
        "    return backend.forward(1), draft.forward(2), fast\n").replace(
        "import app.backends", "from app.backend import FlashAttentionBackend\n"
        "import app.backends"))
    selected = run_scan(tree, [])
    assert selected.profile.blocked_keys == {"4": "app/server.py:10: fa_impl_ver = 4"}
    assert not any(d.kind == "fold_branch" for d in selected.plan.deletions)
