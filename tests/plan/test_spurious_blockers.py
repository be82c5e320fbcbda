"""What made a mid-2026 SGLang report FlashMLA blocked while nothing live needed it, on the
hand-written sample ``sample_repos/spurious_blockers`` (read it: the expectations come from
it). Dropping ``fmla`` frees everything of it: no blocker remains."""

from __future__ import annotations

import pytest

from analyzer.pipeline.scan import ScanResult, run_scan
from tests.helpers import SAMPLES

SAMPLE = SAMPLES / "spurious_blockers"


@pytest.fixture(scope="module")
def result() -> ScanResult:
    return run_scan(SAMPLE, [])


def test_nothing_of_the_feature_is_blocked(result: ScanResult) -> None:
    fmla = next(f for f in result.features if f.name == "fmla")
    assert fmla.blocked == []
    assert result.profile.blocked_keys == {}
    assert {(d.path, d.start_line, d.end_line, d.category) for d in result.plan.deletions} == {
        # the registry entry of the dropped key, and the backend module only it constructs
        ("app/registry.py", 18, 22, "python-symbol"),
        ("app/fmla_backend.py", None, None, "python-file"),
        # Factory.make("triton") is the only call: getattr(self, f"_create_{name}_backend")
        # reads _create_triton_backend alone
        ("app/draft.py", 8, 11, "python-symbol"),
        # capture(): FmlaBackend is appended to a list only isinstance() reads; nothing live
        # constructs it, so the append goes, and the import only it read
        ("app/cache.py", 29, 29, "python-type-test"),
        ("app/cache.py", 27, 27, "python-import"),
        # debug_op reads the torch.ops namespace its callers pass (the default "mine"), not
        # every op: the kern::fmla_decode registrations only FmlaBackend called go
        ("csrc/ops.cc", 9, 9, "op-registration"),
        ("csrc/ops.cc", 10, 10, "op-registration"),
    }
    assert result.native_summary.dead_ops == ["kern::fmla_decode"]


def test_a_kernel_argument_spelling_the_key_selects_nothing(result: ScanResult) -> None:
    # fused_store(backend, type="fmla"): `type` is no selector of attention backends
    produced = [p for p in result.index.modules["app.cache"].facts.produced
                if p.value == "fmla"]
    assert [(p.kind, p.target) for p in produced] == [("keyword", "type")]
    assert "fmla" not in result.profile.blocked_keys


def test_setattr_writes_and_literal_locals_narrow_what_getattr_reads(result: ScanResult) -> None:
    uses = {u.name for u in result.index.modules["app.quant"].facts.member_uses}
    # setattr(layer, f"{sub}_{name}", ...) reads nothing; getattr(layer, sublayer + "_" + key)
    # with sublayer "w2" or "w13" reads those shapes only
    assert "*_*" not in uses
    assert {"w2_*", "w13_*"} <= uses


def test_each_share_verifies_and_the_manifest_says_what_goes_with_fmla(result: ScanResult
                                                                      ) -> None:
    assert all("fmla" in (*d.features, *d.with_features) for d in result.plan.deletions)
