"""Run-time selection at method and value level, on the hand-written sample
``sample_repos/method_selection`` (read it: every expectation below comes from it).

- ``pkg/draft.py``: a factory whose method-local ``backend_map`` is an instance of the
  ``backend_choices`` registry; the dropped keys' entries go, then the ``_create_*`` methods
  only they named, then the backend modules only those methods imported lazily. The
  ``"hybrid"`` entry still names ``_create_fa3_prefill_backend``: it stays, and FA3's module
  stays blocked with that chain.
- ``pkg/ops.py``: platform dispatch; ``forward_npu`` of an ``nn.Module`` subclass may go
  because the npu feature names it and the folded ``dispatch_forward`` no longer reads it.
- ``pkg/runner.py``: ``defaultdict(f, {"cpu": ..., "npu": ...})`` keyed by device names.
- ``pkg/visitors.py``: methods named only through ``getattr(self, f"visit_{kind}")`` stay (its
  caller passes a parameter on: any kind may come), a method only a test calls stays, a method
  nothing names goes.
"""

from __future__ import annotations

import shutil

import pytest

from analyzer.pipeline.scan import ScanResult, run_scan
from tests.helpers import SAMPLES

SAMPLE = SAMPLES / "method_selection"


def planned(result: ScanResult) -> set[tuple]:
    return {(d.kind, d.path, d.start_line, d.end_line, d.names) for d in result.plan.deletions}


@pytest.fixture(scope="module")
def result() -> ScanResult:
    return run_scan(SAMPLE, [])


def test_exact_plan(result: ScanResult) -> None:
    assert planned(result) == {
        # BACKENDS = ["flashinfer", "triton", "fa3", "flashmla"]: elements share the line
        ("remove_list_element", "pkg/choices.py", 1, 1, ("fa3",)),
        ("remove_list_element", "pkg/choices.py", 1, 1, ("flashmla",)),
        # backend_map: 4 keys the choices list knows -> an instance; its fa3/flashmla entries
        ("delete_range", "pkg/draft.py", 13, 13, ()),
        ("delete_range", "pkg/draft.py", 19, 19, ()),
        # the methods only those entries named, and the module only one of them imported
        ("delete_range", "pkg/draft.py", 33, 36, ()),
        ("delete_range", "pkg/draft.py", 43, 46, ()),
        ("delete_file", "pkg/flashmla_backend.py", None, None, ()),
        # platform dispatch: the elif _is_npu clause folds, forward_npu is named nowhere live
        ("fold_branch", "pkg/ops.py", 26, 27, ()),
        ("delete_range", "pkg/ops.py", 20, 21, ()),
        ("delete_range", "pkg/ops.py", 35, 38, ()),
        ("delete_file", "pkg/npu_kernels.py", None, None, ()),
        # the device map's "npu" entry, then its now unused import, then the module
        ("delete_range", "pkg/runner.py", 25, 25, ()),
        ("delete_range", "pkg/runner.py", 3, 3, ()),
        ("delete_file", "pkg/npu_runner.py", None, None, ()),
        # forward_cpu: named by nothing live, and [platform_methods] says only a CPU target
        # selects it (is_cpu is False): the nn.Module base does not keep it
        ("delete_range", "pkg/ops.py", 43, 44, ()),
        # is_cpu itself: declared for the profile, called by nothing
        ("delete_range", "pkg/platform.py", 9, 10, ()),
        # legacy_walk: named by nothing; what only it imported goes with it
        ("delete_range", "pkg/visitors.py", 11, 14, ()),
        ("delete_file", "pkg/legacy.py", None, None, ()),
    }


def test_methods_are_nodes_with_their_own_edges(result: ScanResult) -> None:
    g = result.graph
    fa3 = "py:pkg.draft:DraftBackendFactory._create_fa3_prefill_backend"
    assert g.nodes[fa3]["kind"] == "method"
    assert g.edges["py:pkg.draft:DraftBackendFactory", fa3]["kind"] == "member"
    # the lazy import belongs to the method, not to its class
    assert g.edges[fa3, "py:pkg.fa3_backend"]["kind"] == "import"
    assert not g.has_edge("py:pkg.draft:DraftBackendFactory", "py:pkg.fa3_backend")
    # each method's `Backend` is its own import, not another method's
    assert not g.has_edge(fa3, "py:pkg.flashmla_backend:Backend")


def test_what_stays_live_and_why(result: ScanResult) -> None:
    live = result.liveness
    for node in ("py:pkg.visitors:Visitor.visit_call", "py:pkg.visitors:Visitor.visit_name",
                 "py:pkg.visitors:Visitor.tested_only", "py:pkg.ops:SiluAndMul.extra_repr",
                 "py:pkg.ops:SiluAndMul.forward_cuda"):
        assert live.is_live(node), node
    # the hybrid entry names the prefill factory: FA3's module is blocked through it
    fa3 = next(f for f in result.features if f.name == "fa3")
    blocked = {i.label: i.chain for i in fa3.blocked}
    assert "pkg.fa3_backend" in blocked
    assert "DraftBackendFactory._create_fa3_prefill_backend" in blocked["pkg.fa3_backend"][-2]
    assert "[import at pkg/draft.py:39]" in blocked["pkg.fa3_backend"][-1]
    removable = {i.label for i in fa3.removable}
    assert removable == {"pkg.draft:DraftBackendFactory._create_fa3_decode_backend"}


def test_a_test_reading_a_method_keeps_it(result: ScanResult) -> None:
    assert any(c.path == "tests/test_visitors.py" and ".tested_only" in c.what
               for c in result.conflicts)
    assert not any(d.symbol == "pkg.visitors:Visitor.tested_only"
                   for d in result.plan.deletions)


def test_an_enumeration_keeps_every_method_of_its_module(tmp_path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLE, tree)
    path = tree / "pkg/visitors.py"
    path.write_text(path.read_text() + "\n\ndef names(v):\n    return dir(v)\n")
    scanned = run_scan(tree, [])
    # only the (unreferenced) function `names` goes; every method of the module stays
    assert {(d.path, d.symbol) for d in scanned.plan.deletions
            if d.path in ("pkg/visitors.py", "pkg/legacy.py")} == {
        ("pkg/visitors.py", "pkg.visitors:names")}


def test_kept_feature_keeps_its_methods() -> None:
    scanned = run_scan(SAMPLE, [], keep=("npu", "flashmla"))
    paths = {d.path for d in scanned.plan.deletions}
    assert not paths & {"pkg/npu_kernels.py", "pkg/npu_runner.py", "pkg/flashmla_backend.py",
                        "pkg/runner.py"}
    # is_cuda is still fixed: the elif _is_npu clause folds all the same (and forward_cpu
    # goes by [platform_methods]), but forward_npu of the nn.Module subclasses stays: a base
    # outside the tree may call any method by name, and with npu kept no dropped feature
    # claims the name (is_npu is un-fixed too)
    assert {(d.kind, d.start_line) for d in scanned.plan.deletions
            if d.path == "pkg/ops.py"} == {("fold_branch", 26), ("delete_range", 43)}
    assert scanned.liveness.is_live("py:pkg.ops:SiluAndMul.forward_npu")
