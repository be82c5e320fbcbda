"""The vLLM look-alike ``sample_repos/mini_vllm`` (read it: every expectation below comes from
it), scanned with ``--roots deepseek_v2`` and its profile (flashmla and rocm dropped):

- ``vllm/models/registry.py`` maps architectures to (module, class) pairs of ``vllm.models``
  (``module_package``): the entries naming ``llama``, deleted with it, go too;
- ``AttentionBackendEnum.FLASHMLA`` in ``CudaPlatform``'s priority list and membership tuple
  is removed with the member, so ``vllm/attention/flashmla.py`` (named by the member's class
  path) and ``vllm/flashmla_ops.py`` go;
- ``backend == AttentionBackendEnum.ROCM_ATTN`` in a keyword argument (no condition) folds to
  ``False``, so nothing reads the ROCm member any more and ``vllm/attention/rocm_attn.py`` goes;
- ``builtin_platform_plugins["rocm"]`` (a dict registry) goes, then its probe function, then
  ``vllm/platforms/rocm.py`` the probe names;
- ``setup.py`` is the build's root and is edited only where a registry says so: its
  ``CMakeExtension(name="vllm._flashmla_C")`` statement (a ``call`` registry keyed by the
  ``name`` keyword);
- the ``_flashmla_C`` target, created through the CMake function ``define_extension_target``,
  is dead, and so is the ``flashmla`` fetch: ``_C`` links only ``system_libraries`` (torch,
  CUDA::*); ``cmake/flashmla.cmake`` is left empty and goes with its ``include()``;
- ``benchmarks/bench_llama.py`` (a ``__main__`` script under the profile's ``test_paths``) is
  no root: it goes with the llama model it imports;
- ``vllm/cli/main.py`` (the ``vllm`` script of pyproject.toml) puts the module
  ``vllm.cli.serve`` in a list and calls ``m.cmd_init()`` on each element: a module used as a
  value keeps its public definitions (``cmd_init``), not its private ones;
- ``vllm/cli/launch.py`` finds its subcommands with ``LaunchSubcommandBase.__subclasses__()``:
  ``RenderSubcommand``, named nowhere, stays;
- the cpu feature forces the string variable ``VLLM_TARGET_DEVICE`` to ``cuda``: the
  ``if(VLLM_TARGET_DEVICE STREQUAL "cpu")`` block goes, ``cmake/cpu_extension.cmake`` is read
  by nothing and goes, and with it the CPU definition of ``_C``: keeping ``_C`` keeps the CUDA
  definition's sources, not ``csrc/cpu/ops_cpu.cpp`` (whose ``rms_norm`` registration the CUDA
  build never compiles).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from analyzer.config.options import ScanOptions
from analyzer.pipeline.scan import ScanResult, run_scan
from analyzer.pipeline.verify import verify_scan
from tests.helpers import SAMPLES, prune_copy

SAMPLE = SAMPLES / "mini_vllm"


@pytest.fixture(scope="module")
def result() -> ScanResult:
    return run_scan(SAMPLE, ["deepseek_v2"])


def planned(result: ScanResult) -> set[tuple]:
    return {(d.kind, d.path, d.start_line, d.end_line, d.names, d.feature)
            for d in result.plan.deletions}


def test_exact_plan(result: ScanResult) -> None:
    assert result.profile.blocked_keys == {}
    assert planned(result) == {
        # build: the extension statement, the flashmla CMake file and its include
        ("delete_range", "setup.py", 18, 18, (), "flashmla"),
        ("delete_range", "CMakeLists.txt", 22, 22, (), "flashmla"),
        ("delete_file", "cmake/flashmla.cmake", None, None, (), "flashmla"),
        # the CPU build: its if() block, the file it included, the source only it compiled
        ("delete_range", "CMakeLists.txt", 7, 10, (), "cpu"),
        ("delete_file", "cmake/cpu_extension.cmake", None, None, (), "cpu"),
        ("delete_file", "csrc/cpu/ops_cpu.cpp", None, None, (), "cpu"),
        # the enum members, and the member in the priority list and the membership tuple
        ("delete_range", "vllm/attention/registry.py", 10, 10, (), "flashmla"),
        ("delete_range", "vllm/attention/registry.py", 11, 11, (), "rocm"),
        ("remove_list_element", "vllm/platforms/cuda.py", 10, 10,
         ("AttentionBackendEnum.FLASHMLA",), "flashmla"),
        ("remove_list_element", "vllm/platforms/cuda.py", 17, 17,
         ("AttentionBackendEnum.FLASHMLA",), "flashmla"),
        ("delete_file", "vllm/attention/flashmla.py", None, None, (), "flashmla"),
        ("delete_file", "vllm/flashmla_ops.py", None, None, (), "flashmla"),
        ("delete_file", "vllm/attention/rocm_attn.py", None, None, (), "rocm"),
        ("fold_branch", "vllm/platforms/cuda.py", 21, 21,
         ("backend == AttentionBackendEnum.ROCM_ATTN", "False",
          "AttentionBackendEnum.ROCM_ATTN"), "rocm"),
        # the platform registry's entry, the probe it held, the platform it named
        ("delete_range", "vllm/platforms/__init__.py", 11, 11, (), "rocm"),
        ("delete_range", "vllm/platforms/__init__.py", 5, 6, (), "rocm"),  # a knock-on
        ("delete_file", "vllm/platforms/rocm.py", None, None, (), "rocm"),
        # the model nothing serves, its registry entries, its benchmark
        ("delete_file", "vllm/models/llama.py", None, None, (), ""),
        ("delete_range", "vllm/models/registry.py", 5, 5, (), ""),
        ("delete_range", "vllm/models/registry.py", 6, 9, (), ""),
        ("delete_file", "benchmarks/bench_llama.py", None, None, (), ""),
        # the CLI module is a value: only its private helper goes
        ("delete_range", "vllm/cli/serve.py", 5, 6, (), ""),
    }


def test_native_plan(result: ScanResult) -> None:
    native = result.native_summary
    assert [t.name for t in native.dead_targets] == ["_flashmla_C"]
    assert native.dead_fetches == ["flashmla"]
    assert "_C" in native.kept_targets or result.graph.has_node("target:_C")
    assert result.liveness.is_live("target:_C") and result.liveness.is_live("fetch:cutlass")


def test_system_libraries_free_the_fetch(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLE, tree)
    profile = tree / "depgraph.toml"
    profile.write_text(profile.read_text().replace('system_libraries = ["torch", "CUDA::*"]',
                                                   ""))
    without = run_scan(tree, ["deepseek_v2"])
    # _C links torch: the made-available flashmla project could define it
    assert without.native_summary.dead_fetches == []
    assert without.liveness.is_live("fetch:flashmla")
    flashmla = next(f for f in without.features if f.name == "flashmla")
    assert "fetch:flashmla" in {i.node for i in flashmla.blocked}


def test_a_module_used_as_a_value_keeps_its_public_definitions(result: ScanResult) -> None:
    assert result.liveness.is_live("py:vllm.cli.serve:cmd_init")
    assert not result.liveness.is_live("py:vllm.cli.serve:_unused_helper")


def test_setup_py_is_a_root_and_entry_classes_keep_their_api(result: ScanResult) -> None:
    assert "py:setup" in result.roots
    # LLM (a profile entry point) is an API: LLM.generate stays, and the model's forward
    # it calls
    assert result.liveness.is_live("py:vllm.engine:LLM.generate")
    assert result.liveness.is_live("py:vllm.models.deepseek_v2:DeepseekV2ForCausalLM.forward")


def test_pruned_sample_verifies(tmp_path: Path) -> None:
    tree, manifest = prune_copy(SAMPLE, tmp_path, ["deepseek_v2"])
    assert verify_scan(tree, ScanOptions(roots=("deepseek_v2",)), before=manifest).problems == []
    cuda = (tree / "vllm/platforms/cuda.py").read_text()
    assert "FLASHMLA" not in cuda
    kept = "AttentionBackendEnum.FLASH_ATTN_MLA,\n                AttentionBackendEnum.TRITON_MLA,"
    assert kept in cuda
    assert "return backend in (AttentionBackendEnum.FLASH_ATTN,)" in cuda
    assert "return dict(rocm=(False), varlen=True)" in cuda
    setup = (tree / "setup.py").read_text()
    assert 'CMakeExtension(name="vllm._C")' in setup and "_flashmla_C" not in setup
    registry = (tree / "vllm/models/registry.py").read_text()
    assert '"DeepseekV2ForCausalLM"' in registry and "Llama" not in registry
    assert "rocm" not in (tree / "vllm/platforms/__init__.py").read_text()
    cmake = (tree / "CMakeLists.txt").read_text()
    assert "flashmla" not in cmake and "cpu_extension" not in cmake
    assert (tree / "csrc/torch_bindings.cpp").exists()
    assert not (tree / "csrc/cpu/ops_cpu.cpp").exists()


def test_verify_catches_a_module_value_losing_a_definition(tmp_path: Path) -> None:
    tree, manifest = prune_copy(SAMPLE, tmp_path, ["deepseek_v2"])
    # by hand, after the pruning: cmd_init leaves the module main.py uses as a value
    (tree / "vllm/cli/serve.py").write_text("def other():\n    return 1\n")
    problems = verify_scan(tree, ScanOptions(roots=("deepseek_v2",)), before=manifest).problems
    assert ("vllm/cli/main.py", 7) in {(p.path, p.line) for p in problems}
    assert any("module vllm.cli.serve (used as a value)" in p.what for p in problems)


def test_subclasses_enumerated_by_live_code_stay(result: ScanResult) -> None:
    # launch_names() (called by the vllm script) enumerates LaunchSubcommandBase's
    # subclasses: RenderSubcommand, which nothing names, is live
    assert result.liveness.is_live("py:vllm.cli.launch:RenderSubcommand")
    assert not any(d.path == "vllm/cli/launch.py" for d in result.plan.deletions)


def test_verify_catches_a_lost_subclass(tmp_path: Path) -> None:
    tree, manifest = prune_copy(SAMPLE, tmp_path, ["deepseek_v2"])
    assert manifest["verify_baseline_subclasses"] == {
        "py:vllm.cli.launch:LaunchSubcommandBase": ["py:vllm.cli.launch:RenderSubcommand"]}
    launch = tree / "vllm/cli/launch.py"
    text = launch.read_text()
    # by hand: the subclass goes, its registration with it
    start = text.index("class RenderSubcommand")
    launch.write_text(text[:start] + text[text.index("def launch_names"):])
    problems = verify_scan(tree, ScanOptions(roots=("deepseek_v2",)), before=manifest).problems
    lost = [p for p in problems if p.path == "vllm/cli/launch.py"]
    assert [(p.line, "no longer finds vllm.cli.launch:RenderSubcommand" in p.what)
            for p in lost] == [(11, True)]  # line 15 of the sample, 4 lines removed above
