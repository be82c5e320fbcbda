"""Benchmark input: a generator of synthetic ML monorepos shaped like ``sample_repos/mini_sglang``
(an SGLang look-alike), ``--scale K`` times larger, to measure how depgraph's cost grows.

    python bench/synth.py OUT_DIR --scale 10

The tree is a pure function of K (no randomness, no clock): two runs write identical bytes.
Shared part (once): a regular package ``synthsgl`` whose ``srt`` is a namespace package (no
``__init__.py``), platform probes ``is_cuda``/``is_npu``, an attention-backend registry with
decorators and lazy imports, ``server_args`` with a choices list, a models registry that walks
its package with ``pkgutil``, an engine entry point, a kernel package ``sgl-kernel`` with
CMake (``option()``, ``FetchContent``, ``include()`` of ``cmake/flashmla.cmake``, ``file(GLOB)``,
``Python_add_library`` targets) and a ``depgraph.toml`` profile dropping fa3/flashmla/ascend.
Each unit ``u`` in ``range(K)`` adds (see ``UNIT_*``): ``MODELS`` models (each a 200-line
module importing its unit's layers), ``LAYERS`` layers (one calling ``torch.ops`` of its unit's
kernel, platform guards ``if is_npu(): ... elif is_cuda(): ...``), ``HELPERS`` utility modules
with dead functions, four attention backends (``triton_u`` and ``torch_u`` kept, ``fa3_u`` and
``flashmla_u`` in the dropped features), one Ascend NPU module, one test, and three kernel
sources with their ``m.def``/``m.impl`` registrations (common, FA3, FlashMLA targets).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

PKG = "synthsgl"
KPKG = "synth_kernel"
SRT = f"python/{PKG}/srt"
MODELS = 8  # per unit
LAYERS = 20
HELPERS = 6
FUNCS = 12  # padding functions per model/layer/helper module
BACKENDS = ("triton", "torch", "fa3", "flashmla")

# files per unit and shared files, for tests and the summary (kept in step with generate())
UNIT_PY = MODELS + LAYERS + HELPERS + len(BACKENDS) + 1 + 1  # + npu module + test
UNIT_NATIVE = 3
SHARED_PY = 15  # 12 in python/, 3 in sgl-kernel/python
SHARED_NATIVE = 3  # common_extension.cc, flash_extension.cc, synth_ops.h
SHARED_CMAKE = 2


def _functions(prefix: str, n: int, helper: str | None = None) -> str:
    """``n`` ordinary functions of ~14 lines each (loops, branches, calls)."""
    out = []
    for i in range(n):
        call = f"    y = {helper}(y)\n" if helper else ""
        out.append(
            f"def {prefix}_{i}(x, scale=1.0):\n"
            f'    """Step {i} of {prefix}."""\n'
            f"    y = x * scale\n"
            f"    for k in range({i % 5 + 2}):\n"
            f"        if k % 2 == 0:\n"
            f"            y = y + k\n"
            f"        else:\n"
            f"            y = y - k / 2\n"
            f"{call}"
            f"    values = [y, y * 2, y * 3]\n"
            f"    total = sum(values)\n"
            f"    return total / len(values)\n")
    return "\n\n".join(out)


def _class(name: str, methods: int, body_call: str = "") -> str:
    lines = [f"class {name}:", f'    """{name} of the synthetic engine."""', "",
             "    def __init__(self, config=None):", "        self.config = config or {}",
             "        self.cache = {}", ""]
    for m in range(methods):
        lines += [f"    def method_{m}(self, x):",
                  f"        key = ('{name}', {m})",
                  "        if key in self.cache:",
                  "            return self.cache[key]",
                  f"        value = x + {m}" + (f" + {body_call}" if body_call and m == 0 else ""),
                  "        self.cache[key] = value",
                  "        return value", ""]
    return "\n".join(lines)


def generate(scale: int) -> dict[str, str]:
    """Relative path -> text of the whole tree."""
    files: dict[str, str] = {}
    units = range(scale)
    files.update(_shared(scale))
    for u in units:
        files.update(_unit(u, scale))
    return files


def _shared(scale: int) -> dict[str, str]:
    f: dict[str, str] = {}
    backends = [f"{b}_{u}" for u in range(scale) for b in BACKENDS]
    f["python/pyproject.toml"] = (
        f'[project]\nname = "{PKG}"\nversion = "0.0.1"\n\n[project.scripts]\n'
        f'{PKG} = "{PKG}.cli:main"\n')
    f[f"python/{PKG}/__init__.py"] = '__version__ = "0.0.1"\n'
    f[f"python/{PKG}/cli.py"] = (
        f"from {PKG}.srt.entrypoints.engine import Engine\n\n\n"
        "def main():\n    return Engine().run()\n")
    f[f"{SRT}/utils/common.py"] = (
        "import functools\n\n\n@functools.lru_cache\ndef is_cuda():\n    return True\n\n\n"
        "def is_npu():\n    return False\n\n\ndef get_device_name():\n    return 'cuda:0'\n")
    f[f"{SRT}/server_args.py"] = (
        "ATTENTION_BACKEND_CHOICES = [\n"
        + "".join(f'    "{b}",\n' for b in backends) + "]\n\n\n"
        "class ServerArgs:\n    def __init__(self, attention_backend=\"triton_0\"):\n"
        "        assert attention_backend in ATTENTION_BACKEND_CHOICES\n"
        "        self.attention_backend = attention_backend\n")
    reg = ["ATTENTION_BACKENDS = {}", "", "",
           "def register_attention_backend(name):",
           "    def decorator(fn):", "        ATTENTION_BACKENDS[name] = fn", "        return fn",
           "", "    return decorator", ""]
    for u in range(scale):
        for b in BACKENDS:
            cls = f"{b.capitalize()}Backend{u}"
            reg += ["", f'@register_attention_backend("{b}_{u}")', f"def create_{b}_{u}(runner):",
                    f"    from {PKG}.srt.layers.attention.{b}_{u}_backend import {cls}", "",
                    f"    return {cls}(runner)", ""]
    f[f"{SRT}/layers/attention/attention_registry.py"] = "\n".join(reg)
    f[f"{SRT}/layers/attention/__init__.py"] = ""
    f[f"{SRT}/layers/attention/base_attn_backend.py"] = _class("AttentionBackend", 6)
    f[f"{SRT}/models/registry.py"] = (
        "import importlib\nimport pkgutil\n\n\n"
        "def import_model_classes(package_name):\n    classes = {}\n"
        "    package = importlib.import_module(package_name)\n"
        "    for _, name, ispkg in pkgutil.iter_modules(package.__path__, package_name + '.'):\n"
        "        if ispkg:\n            continue\n"
        "        module = importlib.import_module(name)\n"
        "        if hasattr(module, 'EntryClass'):\n"
        "            classes[module.EntryClass.__name__] = module.EntryClass\n"
        f"    return classes\n\n\nMODELS = import_model_classes('{PKG}.srt.models')\n")
    f[f"{SRT}/models/__init__.py"] = ""
    f[f"{SRT}/model_executor/model_runner.py"] = (
        f"from {PKG}.srt.layers.attention.attention_registry import ATTENTION_BACKENDS\n"
        f"from {PKG}.srt.models.registry import MODELS\n"
        f"from {PKG}.srt.server_args import ServerArgs\n"
        + "".join(f"from {PKG}.srt.layers.unit{u}.layer0 import fused_op as fused_op_{u}\n"
                  for u in range(scale)) + "\n\n"
        "class ModelRunner:\n    def __init__(self, args=None):\n"
        "        self.args = args or ServerArgs()\n"
        "        self.backend = ATTENTION_BACKENDS[self.args.attention_backend](self)\n"
        "        self.models = MODELS\n"
        "        self.ops = [" + ", ".join(f"fused_op_{u}" for u in range(scale)) + "]\n")
    f[f"{SRT}/entrypoints/engine.py"] = (
        f"from {PKG}.srt.model_executor.model_runner import ModelRunner\n\n\n"
        "class Engine:\n    def run(self):\n        return ModelRunner()\n")
    f[f"python/{PKG}/launch_server.py"] = (
        f"from {PKG}.srt.entrypoints.engine import Engine\n\n"
        "if __name__ == '__main__':\n    Engine().run()\n")
    f.update(_kernel_shared(scale))
    f["depgraph.toml"] = _profile(scale)
    return f


def _unit(u: int, scale: int) -> dict[str, str]:
    f: dict[str, str] = {}
    common = f"from {PKG}.srt.utils.common import is_cuda, is_npu\n"
    for h in range(HELPERS):
        f[f"{SRT}/utils/unit{u}_helpers{h}.py"] = (
            '"""Helpers of unit {u}; the odd-numbered ones nothing calls."""\n\n'
            + _functions(f"helper{u}_{h}", FUNCS) + "\n")
    for i in range(LAYERS):
        helper = f"unit{u}_helpers{i % HELPERS}"
        body = [f"import torch\n\n{common}from {PKG}.srt.utils import {helper}\n\n",
                "if is_npu():\n    _impl = 'npu'\nelif is_cuda():\n    _impl = 'cuda'\n"
                "else:\n    _impl = 'cpu'\n\n\n",
                _class(f"Layer{u}_{i}", 10,
                       f"{helper}.helper{u}_{i % HELPERS}_0(x)" if i % 2 == 0 else "")]
        if i == 0:
            body.append(f"\n\ndef fused_op(x):\n    return torch.ops.{KPKG}.unit{u}_op(x)\n")
        body.append("\n\n" + _functions(f"layer{u}_{i}_step", FUNCS // 2) + "\n")
        f[f"{SRT}/layers/unit{u}/layer{i}.py"] = "".join(body)
    for m in range(MODELS):
        layers = [m % LAYERS, (m + 1) % LAYERS, (m + 7) % LAYERS]
        imports = "".join(f"from {PKG}.srt.layers.unit{u}.layer{i} import Layer{u}_{i}\n"
                          for i in layers)
        name = f"Model{u}_{m}"
        f[f"{SRT}/models/model{u}_{m}.py"] = (
            f'"""Synthetic model {m} of unit {u}."""\n\nimport torch\n\n{imports}\n\n'
            f"class {name}:\n    def __init__(self):\n"
            + "".join(f"        self.l{i} = Layer{u}_{i}()\n" for i in layers)
            + "\n    def forward(self, x):\n"
            + "".join(f"        x = self.l{i}.method_0(x)\n" for i in layers)
            + "        return torch.relu(x)\n\n\n" + _functions(f"model{u}_{m}_util", FUNCS)
            + f"\n\n\nEntryClass = {name}\n")
    for b in BACKENDS:
        cls = f"{b.capitalize()}Backend{u}"
        extra = ""
        if b == "fa3":
            extra = f"\nfrom {KPKG}.flash_attn import flash_attn_fwd{u}\n"
        if b == "flashmla":
            extra = f"\nfrom {KPKG}.flash_mla import flash_mla_fwd{u}\n"
        f[f"{SRT}/layers/attention/{b}_{u}_backend.py"] = (
            f"from {PKG}.srt.layers.attention.base_attn_backend import AttentionBackend\n"
            f"{extra}\n\n" + _class(cls, 8).replace(f"class {cls}:", f"class {cls}"
                                                      "(AttentionBackend):") + "\n")
    f[f"{SRT}/hardware_backend/npu/npu_ops{u}.py"] = (
        f'"""Ascend kernels of unit {u}."""\n\n' + _functions(f"npu{u}", 4) + "\n")
    f[f"test/test_model{u}.py"] = (
        f"from {PKG}.srt.models.model{u}_0 import Model{u}_0\n\n\n"
        f"def test_model{u}():\n    assert Model{u}_0() is not None\n")
    f.update(_kernel_unit(u))
    return f


def _kernel_shared(scale: int) -> dict[str, str]:
    f: dict[str, str] = {}
    defs = "".join(f'  m.def("unit{u}_op(Tensor x) -> Tensor");\n'
                   f'  m.impl("unit{u}_op", torch::kCUDA, &unit{u}_op);\n' for u in range(scale))
    f["sgl-kernel/csrc/common_extension.cc"] = (
        "#include <torch/library.h>\n#include \"synth_ops.h\"\n\n"
        f"TORCH_LIBRARY_FRAGMENT({KPKG}, m) {{\n{defs}}}\n")
    flash = "".join(f'  m.def("fwd{u}(Tensor q) -> Tensor");\n'
                    f'  m.impl("fwd{u}", torch::kCUDA, &fwd{u});\n' for u in range(scale))
    f["sgl-kernel/csrc/flash_extension.cc"] = (
        f"#include <torch/library.h>\n\nTORCH_LIBRARY_FRAGMENT({KPKG}, m) {{\n{flash}}}\n")
    f["sgl-kernel/CMakeLists.txt"] = (
        "cmake_minimum_required(VERSION 3.26 FATAL_ERROR)\n"
        "project(synth-kernel LANGUAGES CXX CUDA)\n\n"
        "include(FetchContent)\nFetchContent_Declare(\n    repo-cutlass\n"
        "    GIT_REPOSITORY https://github.com/example/cutlass-lite\n    GIT_TAG v0.1.0\n)\n"
        "FetchContent_Populate(repo-cutlass)\n\n"
        'option(ENABLE_FA3 "Build the FA3-like flash_ops extension" OFF)\n\n'
        'set(SOURCES "csrc/common_extension.cc")\n'
        'file(GLOB UNIT_SOURCES "${CMAKE_CURRENT_SOURCE_DIR}/csrc/unit*/kernel.cu")\n'
        "list(APPEND SOURCES ${UNIT_SOURCES})\n\n"
        "Python_add_library(common_ops MODULE WITH_SOABI ${SOURCES})\n"
        f"install(TARGETS common_ops LIBRARY DESTINATION {KPKG})\n\n"
        "if(ENABLE_FA3)\n"
        '    file(GLOB FLASH_SOURCES "${CMAKE_CURRENT_SOURCE_DIR}/csrc/unit*/flash_fwd.cu")\n'
        '    Python_add_library(flash_ops MODULE WITH_SOABI "csrc/flash_extension.cc" '
        "${FLASH_SOURCES})\n"
        f'    install(TARGETS flash_ops LIBRARY DESTINATION "{KPKG}")\nendif()\n\n'
        "include(${CMAKE_CURRENT_LIST_DIR}/cmake/flashmla.cmake)\n")
    f["sgl-kernel/cmake/flashmla.cmake"] = (
        "FetchContent_Declare(\n    repo-flashmla\n"
        "    GIT_REPOSITORY https://github.com/example/flashmla-lite\n    GIT_TAG v0.1.0\n)\n"
        "FetchContent_Populate(repo-flashmla)\n"
        'file(GLOB FLASHMLA_SOURCES "${CMAKE_CURRENT_SOURCE_DIR}/csrc/unit*/mla.cu")\n'
        "Python_add_library(flashmla_ops MODULE WITH_SOABI ${FLASHMLA_SOURCES})\n"
        f"install(TARGETS flashmla_ops LIBRARY DESTINATION {KPKG})\n")
    f[f"sgl-kernel/python/{KPKG}/__init__.py"] = (
        f"from {KPKG} import common_ops  # noqa: F401\n")
    f[f"sgl-kernel/python/{KPKG}/flash_attn.py"] = (
        f"import torch\n\ntry:\n    from {KPKG} import flash_ops  # noqa: F401\n"
        "except ImportError:\n    flash_ops = None\n\n"
        + "".join(f"\n\ndef flash_attn_fwd{u}(q):\n    return torch.ops.{KPKG}.fwd{u}(q)\n"
                  for u in range(scale)))
    f[f"sgl-kernel/python/{KPKG}/flash_mla.py"] = (
        f"import torch\n\nfrom {KPKG} import flashmla_ops  # noqa: F401\n"
        + "".join(f"\n\ndef flash_mla_fwd{u}(q):\n    return torch.ops.{KPKG}.mla{u}(q)\n"
                  for u in range(scale)))
    f["sgl-kernel/include/synth_ops.h"] = "#pragma once\n#include <torch/all.h>\n"
    return f


def _kernel_unit(u: int) -> dict[str, str]:
    body = "".join(f"  out[{i}] = in[{i}] * {i + 1}.0f;\n" for i in range(16))
    kernel = (f"#include <torch/all.h>\n\n__global__ void unit{u}_kernel(float* out, "
              f"const float* in) {{\n{body}}}\n\n"
              f"torch::Tensor unit{u}_op(torch::Tensor x) {{\n  return x;\n}}\n")
    mla = (f"#include <torch/library.h>\n\n"
           f"__global__ void mla{u}_kernel(float* o) {{ o[0] = 1; }}\n\n"
           f"TORCH_LIBRARY_FRAGMENT({KPKG}, m) {{\n"
           f'  m.def("mla{u}(Tensor q) -> Tensor");\n'
           f'  m.impl("mla{u}", torch::kCUDA, &mla{u});\n}}\n')
    return {f"sgl-kernel/csrc/unit{u}/kernel.cu": kernel,
            f"sgl-kernel/csrc/unit{u}/flash_fwd.cu": kernel.replace(f"unit{u}_", f"fwd{u}_"),
            f"sgl-kernel/csrc/unit{u}/mla.cu": mla}


def _profile(scale: int) -> str:
    fa3 = ", ".join(f'"fa3_{u}"' for u in range(scale))
    mla = ", ".join(f'"flashmla_{u}"' for u in range(scale))
    return f'''# depgraph profile of a synthetic monorepo written by bench/synth.py
name = "synthsgl"
description = "Synthetic SGLang look-alike for benchmarks"
detect = ["{SRT}/server_args.py"]
entry_points = ["{PKG}.cli:main", "{PKG}.launch_server"]
default_drops = ["fa3", "flashmla", "ascend"]
keep_targets = ["common_ops"]

[[plugin_families]]
name = "models"
package = "{PKG}.srt.models"
select = "roots"

[[registries]]
name = "attention_backends"
kind = "decorator"
target = "{PKG}.srt.layers.attention.attention_registry.register_attention_backend"

[[registries]]
name = "attention_backend_choices"
kind = "choices"
target = "{PKG}.srt.server_args.ATTENTION_BACKEND_CHOICES"

[constants]
"{PKG}.srt.utils.common.is_npu" = false
"{PKG}.srt.utils.common.is_cuda" = true

[features.fa3]
description = "FlashAttention 3 backends and the flash_ops extension"
paths = ["{SRT}/layers/attention/fa3_*_backend.py", "sgl-kernel/csrc/flash_extension.cc",
         "sgl-kernel/csrc/unit*/flash_fwd.cu", "sgl-kernel/python/{KPKG}/flash_attn.py"]
identifiers = ["create_fa3_*"]
cmake_options = {{ ENABLE_FA3 = false }}
targets = ["flash_ops"]
extension_modules = ["{KPKG}.flash_ops"]

[features.fa3.registry_keys]
attention_backends = [{fa3}]
attention_backend_choices = [{fa3}]

[features.flashmla]
description = "FlashMLA backends and kernels"
paths = ["{SRT}/layers/attention/flashmla_*_backend.py", "sgl-kernel/cmake/flashmla.cmake",
         "sgl-kernel/csrc/unit*/mla.cu", "sgl-kernel/python/{KPKG}/flash_mla.py"]
identifiers = ["create_flashmla_*"]
targets = ["flashmla_ops"]
extension_modules = ["{KPKG}.flashmla_ops"]
fetches = ["repo-flashmla"]

[features.flashmla.registry_keys]
attention_backends = [{mla}]
attention_backend_choices = [{mla}]

[features.ascend]
description = "Ascend NPU kernels"
paths = ["{SRT}/hardware_backend/npu/**"]
constants = {{ "{PKG}.srt.utils.common.is_npu" = false }}
'''


def write(out: Path, scale: int, force: bool = False) -> dict[str, tuple[int, int]]:
    """Write the tree; returns language -> (files, lines)."""
    if out.exists() and any(out.iterdir()) and not force:
        raise SystemExit(f"synth: {out} is not empty (use --force)")
    counts: dict[str, tuple[int, int]] = {}
    for rel, text in sorted(generate(scale).items()):
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        lang = ("python" if rel.endswith(".py") else "cmake" if rel.endswith(
            (".cmake", "CMakeLists.txt")) else "native" if rel.endswith(
            (".cc", ".cu", ".h")) else "other")
        files, lines = counts.get(lang, (0, 0))
        counts[lang] = (files + 1, lines + text.count("\n"))
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--force", action="store_true", help="write into a non-empty folder")
    args = parser.parse_args(argv)
    if args.scale < 1:
        parser.error("--scale must be at least 1")
    counts = write(args.out, args.scale, args.force)
    print(f"synth x{args.scale}: " + ", ".join(
        f"{lang} {files} files / {lines} lines" for lang, (files, lines) in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
