"""Analysis stage, anchors (``analyzer/analysis/anchors.py``): how much of what a profile says
of a feature a tree still has -- counted, the misses listed, a feature whose anchors mostly
miss flagged first on the terminal -- and the built-in SGLang profile's kernel anchors on both
layouts of the kernel project (``sgl-kernel/`` until August 2026, ``python/sglang/kernels/aot/``
after)."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.config.globs import path_matches
from analyzer.config.profile import builtin_profile
from analyzer.outputs.render import summary_lines
from analyzer.pipeline.scan import run_scan
from tests.helpers import write_tree

PROFILE = """\
name = "anchored"
entry_points = ["app.main"]
default_drops = ["fast", "gone"]

[features.fast]
paths = ["app/fast.py", "app/missing.py"]
identifiers = ["fast_*"]
cmake_options = { ENABLE_FAST = false }

[features.gone]
paths = ["old/layout/gone.py", "old/layout/also_gone.py"]
identifiers = ["renamed_long_ago"]
"""
TREE = {
    "depgraph.toml": PROFILE,
    "app/__init__.py": "",
    "app/main.py": "print(1)\n",
    "app/fast.py": "def fast_path():\n    return 1\n",
}


def test_anchors_are_counted_and_a_mostly_stale_feature_is_flagged_first(tmp_path: Path) -> None:
    result = run_scan(write_tree(tmp_path / "t", TREE), [])
    by_name = {a.feature: a for a in result.anchors}
    # fast: app/fast.py and fast_* match; app/missing.py and the option ENABLE_FAST (no CMake
    # here) do not
    assert (by_name["fast"].matched, by_name["fast"].total) == (2, 4)
    assert [str(a) for a in by_name["fast"].stale] == ["path app/missing.py",
                                                      "cmake_option ENABLE_FAST"]
    assert not by_name["fast"].out_of_date  # half match: not below half
    # gone: nothing of it is here
    assert (by_name["gone"].matched, by_name["gone"].total) == (0, 3)
    assert by_name["gone"].out_of_date
    out, _err = summary_lines(result)
    assert out[1] == ("  OUT OF DATE: gone: anchors 0/3; stale: path old/layout/gone.py, path "
                      "old/layout/also_gone.py, identifier renamed_long_ago -- the profile may "
                      "not know this tree; what the feature holds here may be missed")
    assert "      anchors 2/4; stale: path app/missing.py, cmake_option ENABLE_FAST" \
        in out


KERNEL_FILES = ("csrc/flash_extension.cc", "csrc/flashmla_extension.cc", "cmake/flashmla.cmake",
                "python/sgl_kernel/flash_attn.py", "python/sgl_kernel/flash_mla.py")


@pytest.mark.parametrize("project", ["sgl-kernel", "python/sglang/kernels/aot"])
def test_builtin_sglang_kernel_paths_hold_on_both_layouts(project: str) -> None:
    profile = builtin_profile("sglang")
    files = [f"{project}/{f}" for f in KERNEL_FILES]
    for name in ("fa3", "flashmla"):
        feature = profile.features[name]
        kernel = [p for p in feature.paths if "sglang/srt" not in p]
        # every kernel path glob of the feature matches a file of this layout
        assert kernel and all(any(path_matches(f, (p,)) for f in files) for p in kernel), name
    # ... and none names the project's folder
    assert not any("sgl-kernel" in p or "kernels/aot" in p
                   for f in ("fa3", "fa4", "flashmla") for p in profile.features[f].paths)


MOVED = {
    "depgraph.toml": """\
name = "moved"
entry_points = ["app.main"]
default_drops = ["fast"]

[features.fast]
paths = [["old/fast_interface.py", "app/kernels/fast_interface.py"], "app/gone.py"]
identifiers = [["fast_func_v1", "is_fast_available"]]
extension_modules = [["fast_origin.cute", "app.kernels.fast.cute"]]
""",
    "app/__init__.py": "",
    "app/main.py": "print(1)\n",
    "app/kernels/__init__.py": "",
    "app/kernels/fast_interface.py": "def is_fast_available():\n    return True\n",
    "app/kernels/fast/cute/__init__.py": "",
}


def test_the_spellings_of_one_name_are_one_anchor(tmp_path: Path) -> None:
    result = run_scan(write_tree(tmp_path / "t", MOVED), [])
    (fast,) = result.anchors
    # the interface moved (found under its new path), the identifier was renamed (found by its
    # new name), the built package became a vendored one (found as a package); app/gone.py is
    # stale: 3 of 4, each group once
    assert (fast.matched, fast.total) == (3, 4)
    assert [str(a) for a in fast.stale] == ["path app/gone.py"]
    # every spelling is the feature's: the moved interface is planned as its file
    assert {d.path for d in result.plan.deletions} >= {"app/kernels/fast_interface.py"}


@pytest.mark.parametrize("layout", ["feb", "aug"])
def test_builtin_fa4_anchors_hold_on_both_layouts(layout: str) -> None:
    profile = builtin_profile("sglang")
    fa4 = profile.features["fa4"]
    files = {
        # 2026-02: sgl-kernel's _fa4_interface.py, the CuTe FA vendored under jit_kernel/
        "feb": ["sgl-kernel/python/sgl_kernel/_fa4_interface.py",
                "sgl-kernel/python/sgl_kernel/flash_attn.py",
                "python/sglang/srt/layers/attention/flashattention_backend.py",
                "python/sglang/jit_kernel/flash_attention_v4.py",
                "python/sglang/jit_kernel/flash_attention/cute/interface.py"],
        # 2026-08: the kernel project under kernels/aot, FA4 under kernels/ops/attention
        "aug": ["python/sglang/kernels/aot/python/sgl_kernel/flash_attn.py",
                "python/sglang/srt/layers/attention/flashattention_backend.py",
                "python/sglang/kernels/ops/attention/flash_attention_v4.py",
                "python/sglang/kernels/ops/attention/flash_attn/cute/interface.py"],
    }[layout]
    for group in fa4.anchors_of("paths"):
        assert any(path_matches(f, group) for f in files), (layout, group)


def test_a_moved_name_found_under_one_spelling_is_no_stale_warning(tmp_path: Path) -> None:
    result = run_scan(write_tree(tmp_path / "t", MOVED), [])
    stale = [s for s in result.profile.stale if "feature fast" in s]
    # only app/gone.py: the old spellings of the moved interface and renamed function are not
    assert len(stale) == 1 and "path app/gone.py matches no file" in stale[0]


def test_builtin_fa4_anchors_on_the_pip_layout() -> None:
    # 2026-04: FA4 from pip (flash-attn-4, `flash_attn.cute`) behind jit_kernel's wrapper; no
    # vendored CuTe folder: that one path stays stale, every other path anchor holds
    fa4 = builtin_profile("sglang").features["fa4"]
    files = ["sgl-kernel/python/sgl_kernel/flash_attn.py",
             "python/sglang/srt/layers/attention/flashattention_backend.py",
             "python/sglang/jit_kernel/flash_attention_v4.py",
             "python/sglang/jit_kernel/flash_attention.py"]
    stale = [g for g in fa4.anchors_of("paths") if not any(path_matches(f, g) for f in files)]
    assert stale == [("**/sglang/jit_kernel/flash_attention/cute",
                      "**/sglang/kernels/ops/attention/flash_attn/cute")]
    assert any("flash_attn.cute" in g for g in fa4.anchors_of("extension_modules"))


CANDIDATES = """\
name = "candidates"
entry_points = ["app.main"]
default_drops = ["fast"]

[features.fast]
paths = ["app/fast.py", "app/vendored/cute"]
identifiers = ["fast_attention", "fast_varlen_v4"]
extension_modules = ["fast_kernels.cute"]
"""


def test_a_stale_anchor_names_the_files_showing_the_feature(tmp_path: Path) -> None:
    # the vendored CuTe folder and the v4 entry point are gone: the code now comes from a
    # package, imported by app/wrapper.py (outside the feature's paths: the first candidate),
    # and app/legacy.py still defines fast_attention; app/fast.py is the feature's own path,
    # so no candidate
    result = run_scan(write_tree(tmp_path / "t", {
        "depgraph.toml": CANDIDATES,
        "app/__init__.py": "",
        "app/main.py": "import app.legacy\nimport app.wrapper\n",
        "app/fast.py": "def fast_attention():\n    return 1\n",
        "app/wrapper.py": "from fast_kernels.cute import attention\n",
        "app/legacy.py": "def fast_attention():\n    return 2\n",
    }), [])
    (fast,) = result.anchors
    assert [str(a) for a in fast.stale] == [
        "path app/vendored/cute (candidates: app/wrapper.py, app/legacy.py)",
        "identifier fast_varlen_v4 (candidates: app/wrapper.py, app/legacy.py)"]
