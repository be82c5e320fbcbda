"""End to end on sample_repos/mini_sglang with kernels: targets, sources, CMake ranges, ops.

Scenario: only the two models are roots (no server), so the FlashMLA-like and FA3-like
Python wrappers are unreachable. Expectations are written from reading the sample:
sgl-kernel/CMakeLists.txt (FA3 `if` block at lines 39-47, `include(flashmla.cmake)` at 49,
`"csrc/gemm/fp8_gemm.cu"` alone on line 22), csrc/common_extension.cc (registrations of
fp8_scaled_mm at 21-22, get_workspace_size at 27, unused_op at 35-36) and the Python
wrappers (models call rmsnorm/silu_and_mul/moe_align and gelu_and_mul/topk_softmax only).
"""

from __future__ import annotations

import itertools
import shutil

import pytest

from analyzer.pipeline.scan import run_scan
from tests.helpers import MINI_SGLANG

K = "sgl-kernel"


@pytest.fixture(scope="module")
def models_only():
    return run_scan(MINI_SGLANG, ["deepseek_v2", "llama"], use_default_roots=False,
                    use_profile=False)


def native_deletions(result):
    return {(d.kind, d.path, d.start_line, d.end_line) for d in result.plan.deletions
            if d.category not in ("python-file", "python-symbol", "python-import")}


def test_targets_sources_ranges_and_ops(models_only):
    assert native_deletions(models_only) == {
        # flash_ops (FA3): the whole `if(ENABLE_FA3)` block, and its two sources
        ("delete_range", f"{K}/CMakeLists.txt", 39, 47),
        ("delete_file", f"{K}/csrc/flash_extension.cc", None, None),
        ("delete_file", f"{K}/csrc/flash/flash_fwd.cu", None, None),
        # flashmla_ops: the .cmake file (target + its FetchContent) and the include() line
        ("delete_file", f"{K}/cmake/flashmla.cmake", None, None),
        ("delete_range", f"{K}/CMakeLists.txt", 49, 49),
        ("delete_file", f"{K}/csrc/flashmla_extension.cc", None, None),
        ("delete_file", f"{K}/csrc/flashmla/mla_metadata.cu", None, None),
        # header included only by the two flashmla sources
        ("delete_file", f"{K}/csrc/flashmla/mla_utils.cuh", None, None),
        # live target common_ops loses a kernel whose ops nobody calls...
        ("delete_file", f"{K}/csrc/gemm/fp8_gemm.cu", None, None),
        ("delete_range", f"{K}/CMakeLists.txt", 22, 22),
        # ...and the registrations of its ops, plus unused_op (kernel in live norm.cu)
        ("delete_range", f"{K}/csrc/common_extension.cc", 21, 21),
        ("delete_range", f"{K}/csrc/common_extension.cc", 22, 22),
        ("delete_range", f"{K}/csrc/common_extension.cc", 27, 27),
        ("delete_range", f"{K}/csrc/common_extension.cc", 35, 35),
        ("delete_range", f"{K}/csrc/common_extension.cc", 36, 36),
    }


def test_build_summary(models_only):
    s = models_only.native_summary
    assert {(t.name, t.tus_in_repo, t.tus_fetched) for t in s.dead_targets} == {
        ("flash_ops", 2, 0), ("flashmla_ops", 2, 2)}
    assert s.dead_fetches == ["repo-flashmla"]  # repo-cutlass is still used by common_ops
    # 4 sources of dead targets + fp8_gemm.cu in the repo, 2 fetched flashmla sources
    assert s.tus_removed == 7
    assert s.dead_ops == ["mini_kernel::fp8_scaled_mm", "mini_kernel::fwd",
                          "mini_kernel::get_mla_metadata", "mini_kernel::get_workspace_size",
                          "mini_kernel::mla_decode", "mini_kernel::unused_op"]
    # compiled by no target, included by nothing: kept, never deleted on a guess
    assert s.kept_unknown == 1
    assert any(k.path == f"{K}/csrc/moe/legacy/old_align.cu" for k in models_only.plan.kept)


def test_live_chain_from_python_to_a_kernel(models_only):
    live = models_only.liveness
    g = models_only.graph
    chain = live.chain(f"file:{K}/csrc/moe/align.cu")
    kinds = [g.edges[a, b]["kind"] for a, b in itertools.pairwise(chain)]
    assert chain[0] == "py:minisgl.srt.models.deepseek_v2"
    assert kinds[-2:] == ["torch_op", "implemented_in"]
    assert chain[-2] == "op:mini_kernel::moe_align"


def test_extension_import_reaches_its_target(models_only):
    g = models_only.graph
    assert g.edges["py:mini_kernel.common_ops", "target:common_ops"]["kind"] == "built_by"
    assert g.nodes["target:flashmla_ops"]["install_destination"] == "mini_kernel"
    assert "target:common_ops" in models_only.liveness.live


def test_keep_target_keeps_it_whole():
    result = run_scan(MINI_SGLANG, ["deepseek_v2", "llama"], use_default_roots=False,
                      keep_targets=("common_ops",), use_profile=False)
    paths = {d.path for d in result.plan.deletions}
    assert f"{K}/csrc/gemm/fp8_gemm.cu" not in paths
    assert not any(d.category == "op-registration" and d.start_line in (21, 22, 27)
                   for d in result.plan.deletions)
    assert f"{K}/cmake/flashmla.cmake" in paths  # other targets are still judged


def test_server_roots_keep_every_backend_kernel():
    # With the server entry point, the registry keeps the FA3/FlashMLA backends (and their
    # kernels) live: only common_ops' unused kernel and ops go.
    result = run_scan(MINI_SGLANG, ["deepseek_v2"], use_profile=False)
    assert result.native_summary.dead_targets == []
    assert {d.path for d in result.plan.deletions if d.category == "native-file"} == {
        f"{K}/csrc/gemm/fp8_gemm.cu"}


def test_malformed_native_input_never_stops_a_scan(tmp_path):
    # native_edge_cases: unbalanced parentheses, generator expressions, an unknown command,
    # a variable nothing defines, C++ with ERROR nodes and invalid UTF-8.
    tree = tmp_path / "repo"
    shutil.copytree(MINI_SGLANG.parent / "native_edge_cases", tree)
    (tree / "driver.py").write_text("import torch\n")
    result = run_scan(tree, [], use_default_roots=False)
    kinds = {p.kind for p in result.problems}
    assert "syntax-error" in kinds
    assert result.unresolved  # what could not be evaluated is listed...
    unresolved_files = {u["path"] for u in result.unresolved}
    # ...and nothing in a file with unresolved CMake is deleted whole on a guess
    assert not any(d.kind == "delete_file" and d.path in unresolved_files
                   for d in result.plan.deletions)
