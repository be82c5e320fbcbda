"""End to end on sample_repos/mini_sglang (Python half): the exact dead set.

Every expectation below was written by reading the sample's files, not from the tool's output:
see the comments for the reasoning behind each entry.
"""

from __future__ import annotations

import pytest

from analyzer.pipeline.scan import run_scan
from tests.helpers import MINI_SGLANG, PY


@pytest.fixture(scope="module")
def served():
    # Default roots: the `minisgl` console script (python/pyproject.toml) -> cli.main:main.
    return run_scan(MINI_SGLANG, ["deepseek_v2"], use_profile=False)


def python_deletions(result):
    return {(d.kind, d.path, d.start_line, d.end_line, d.names)
            for d in result.plan.deletions if d.path.startswith("python/")}


def test_declared_entry_points_are_default_roots(served):
    # python/pyproject.toml's console script, and the `__main__` guards of launch_server.py
    # and srt/utils/fa3_check.py
    assert served.default_roots == ["py:minisgl.cli.main:main", "py:minisgl.launch_server",
                                    "py:minisgl.srt.utils.fa3_check"]
    assert served.roots[0] == "py:minisgl.srt.models.deepseek_v2"


def test_exact_python_dead_set_with_server_roots(served):
    assert python_deletions(served) == {
        # nobody imports it
        ("delete_file", f"{PY}/utils/legacy_helpers.py", None, None, ()),
        # imported only inside common.unused_helper, which is dead
        ("delete_file", f"{PY}/utils/legacy_only.py", None, None, ()),
        # common.unused_helper: referenced by nothing
        ("delete_range", f"{PY}/utils/common.py", 17, 20, ()),
        # engine._OldSchedulerConfig (from its @dataclass line) and then-unused `dataclass`
        ("delete_range", f"{PY}/entrypoints/engine.py", 16, 19, ()),
        ("delete_range", f"{PY}/entrypoints/engine.py", 1, 1, ()),
        # (utils/spec_info.py stays: model_runner's TYPE_CHECKING import of it stays, since
        # the annotation `spec: SpecInfo | None` names it, and an import of remaining code,
        # typing-only too, must resolve)
        # loader.DummyModelLoader: the string names only DefaultModelLoader
        ("delete_range", f"{PY}/model_loader/loader.py", 10, 12, ()),
        # server_args.print_deprecated_warning
        ("delete_range", f"{PY}/server_args.py", 15, 16, ()),
        # deepseek_v2: `import os` unused
        ("delete_range", f"{PY}/models/deepseek_v2.py", 1, 1, ()),
        # llama: get_device_name imported, never used there
        ("remove_import_names", f"{PY}/models/llama.py", 1, 1, ("get_device_name",)),
    }


def test_line_counts_and_hashes(served):
    by_path = {d.path: d for d in served.plan.deletions if d.kind == "delete_file"}
    assert by_path[f"{PY}/utils/legacy_helpers.py"].lines == 5
    assert f"{PY}/utils/spec_info.py" not in by_path
    assert all(len(d.sha256) == 64 for d in served.plan.deletions)


def test_registry_pkgutil_and_lazy_edges_keep_code_live(served):
    live = served.liveness.live
    for module in (
        "minisgl.srt.models.llama",  # pkgutil plugin family of minisgl.srt.models
        "minisgl.srt.layers.attention.triton_backend",  # lazy import in a registered factory
        "minisgl.srt.layers.attention.flashmla_backend",
        "minisgl.srt.utils.optional_deps",  # try/except ImportError
        "minisgl.srt.hardware_backend.npu.npu_ops",  # importlib.import_module("...")
        "minisgl.version",  # parent package __init__ re-export
        # a string passed to import_processors(), whose body walks its argument with pkgutil
        "minisgl.srt.multimodal.processors.qwen_vl",
        "minisgl.srt.multimodal.processors.base_processor",
        # component_loader walks its own folder (os.path.dirname(__file__)) with pkgutil
        "minisgl.srt.model_loader.component_loaders.vae_loader",
    ):
        assert f"py:{module}" in live, module
    assert "py:minisgl.srt.model_loader.loader:DefaultModelLoader" in live  # dotted string
    assert "py:minisgl.srt.utils.common:is_cuda" in live
    edge = served.graph.edges["py:minisgl.srt.layers.attention.attention_registry",
                              "py:minisgl.srt.layers.attention.attention_registry:"
                              "create_flashmla_backend"]
    assert (edge["kind"], edge["line"]) == ("registered", 26)


def test_tests_are_out_of_scope(served):
    assert "test/test_llama.py" not in served.in_scope
    assert not any(d.path.startswith("test/") for d in served.plan.deletions)


def test_model_root_alone():
    # Without the server entry point only the model's own imports stay live.
    result = run_scan(MINI_SGLANG, ["deepseek_v2"], use_default_roots=False, use_profile=False)
    live_modules = {result.graph.nodes[n]["module"] for n in result.liveness.live
                    if result.graph.nodes[n].get("kind") == "module"}
    assert {m for m in live_modules if m.startswith("minisgl")} == {
        "minisgl",  # parent package of everything, runs `from minisgl.version import ...`
        "minisgl.version",
        "minisgl.srt.models.deepseek_v2",
        "minisgl.srt.layers.attention",  # parent package of mla (has __init__.py)
        "minisgl.srt.layers.attention.mla",
        "minisgl.srt.utils.common",
        "minisgl.srt.layers.layernorm",  # RMSNorm
        # no profile: `if _is_npu:` is not folded, so its import stands
        "minisgl.srt.hardware_backend.npu.npu_ops",
    }
    dead_files = {d.path for d in result.plan.deletions if d.kind == "delete_file"}
    assert f"{PY}/layers/attention/flashmla_backend.py" in dead_files
    assert f"{PY}/models/llama.py" in dead_files
    assert f"{PY}/models/registry.py" in dead_files
