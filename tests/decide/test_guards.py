"""Decide stage, guard folding: hand-written expectations on throwaway trees."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.decide.guards import (
    DeadRegion,
    GuardContext,
    evaluate,
    fold_all,
    fold_contexts,
    fold_module,
)
from analyzer.extract.fact import Packed
from analyzer.extract.python import extract
from analyzer.extract.python_branches import Cond
from analyzer.extract.python_facts import PythonFacts
from analyzer.model import from_jsonable, to_jsonable
from analyzer.resolve.python import ModuleIndex, PyModule
from tests.helpers import module_index

UTILS = '''\
def is_npu():
    return False


def is_hip():
    return False


def is_cuda():
    return True


def get_bool_env_var(name, default="false"):
    return False
'''

CTX = GuardContext(
    constants={"pkg.utils.is_npu": False, "pkg.utils.is_hip": False,
               "pkg.utils.is_cuda": True, "env:SGLANG_USE_AITER": False,
               "pkg.platforms.current_platform.is_rocm": False},
    domains=(("*.attention_backend", frozenset({"fa3", "fa4"})),),
    dead_imports=frozenset({"sgl_kernel.flash_ops", "dead_ext"}),
)


def build(tmp_path: Path, files: dict[str, str]) -> ModuleIndex:
    """Write the files, extract them and index them as modules (``pkg/a.py`` -> ``pkg.a``)."""
    return module_index(tmp_path, {"pkg/__init__.py": "", "pkg/utils.py": UTILS, **files})


def fold(tmp_path: Path, source: str, ctx: GuardContext = CTX,
         extra: dict[str, str] | None = None) -> list[DeadRegion]:
    index = build(tmp_path, {"pkg/mod.py": source, **(extra or {})})
    return fold_module("pkg.mod", index.modules["pkg.mod"].facts, index, ctx)


def brief(regions: list[DeadRegion]) -> list[tuple[int, int, str, tuple[int, int] | None]]:
    return [(r.start_line, r.end_line, r.rewrite, r.keep) for r in regions]


def test_several_contexts_fold_in_one_pass(tmp_path, monkeypatch):
    index = build(tmp_path, {
        "pkg/b.py": ("from pkg.utils import is_npu, is_hip\n"  # 1
                     "\n"                                       # 2
                     "if is_npu():\n"                           # 3
                     "    x = 1\n"                              # 4
                     "if is_hip():\n"                           # 5
                     "    y = 2\n"),                            # 6
    })
    # with is_npu dropped (CTX: False) both ifs go; with only is_hip known False, the second
    only_hip = GuardContext(constants={"pkg.utils.is_hip": False})
    alone = [fold_all(index, CTX), fold_all(index, only_hip)]
    assert {m: brief(r) for m, r in alone[0].items()} == {
        "pkg.b": [(3, 4, "delete", None), (5, 6, "delete", None)]}
    assert {m: brief(r) for m, r in alone[1].items()} == {"pkg.b": [(5, 6, "delete", None)]}
    unpacked: list[int] = []
    real = Packed.unpack
    monkeypatch.setattr(Packed, "unpack", lambda self: unpacked.append(1) or real(self))
    assert fold_contexts(index, [CTX, only_hip]) == alone
    # the one module with branches (pkg.b: pkg.utils has no if) unpacked once for both
    assert len(unpacked) == 1


def test_flag_folds_across_two_modules(tmp_path):
    index = build(tmp_path, {
        "pkg/a.py": "from pkg.utils import is_npu\n\n_is_npu = is_npu()\n",
        "pkg/b.py": ("from pkg.a import _is_npu\n"       # 1
                     "\n"                                 # 2
                     "if _is_npu:\n"                      # 3
                     "    import torch_npu\n"             # 4
                     "    from pkg.npu import kernels\n"  # 5
                     "x = 1\n"),                          # 6
    })
    regions = fold_module("pkg.b", index.modules["pkg.b"].facts, index, CTX)
    assert brief(regions) == [(3, 5, "delete", None)]
    assert regions[0].statement == (3, 5) and regions[0].scope == ""
    assert regions[0].reason.startswith("if _is_npu: folds to False")
    assert "pkg.utils.is_npu = False" in regions[0].reason
    assert fold_all(index, CTX) == {"pkg.b": regions}
    assert evaluate("pkg.b", "", Cond("name", "_is_npu"), index, CTX) is False
    # the function object itself is not the probe's result
    assert evaluate("pkg.a", "", Cond("name", "is_npu"), index, CTX) is None
    assert evaluate("pkg.a", "", Cond("call", "is_npu"), index, CTX) is False


@pytest.mark.parametrize(("src", "expected"), [
    pytest.param("from pkg.utils import is_npu, is_hip\n"  # 1
                 "if is_npu():\n"                         # 2
                 "    a = 1\n"                            # 3
                 "elif probe():\n"                        # 4
                 "    b = 1\n"                            # 5
                 "elif is_hip():\n"                       # 6
                 "    c = 1\n"                            # 7
                 "else:\n"                                # 8
                 "    d = 1\n",                           # 9
                 [(2, 3, "promote_elif", None), (6, 7, "delete_clause", None)],
                 id="head-dead-first-live-elif-is-promoted"),
    pytest.param("from pkg.utils import is_cuda, is_npu\n"  # 1
                 "if probe():\n"                           # 2
                 "    a = 1\n"                             # 3
                 "elif is_npu():\n"                        # 4
                 "    b = 1\n"                             # 5
                 "elif is_cuda():\n"                       # 6
                 "    c = 1\n"                             # 7
                 "elif other():\n"                         # 8
                 "    d = 1\n"                             # 9
                 "else:\n"                                 # 10
                 "    e = 1\n",                            # 11
                 [(4, 5, "delete_clause", None), (8, 11, "delete_clause", None)],
                 id="later-true-elif-deletes-following-clauses"),
    pytest.param("from pkg.utils import is_npu\n"   # 1
                 "fa_ver = 3\n"                     # 2
                 "DEBUG = False\n"                  # 3
                 "_is_npu = is_npu()\n"             # 4
                 "def set_ver(v):\n"                # 5
                 "    global fa_ver, _is_npu\n"     # 6
                 "    fa_ver = v\n"                 # 7
                 "if fa_ver == 4:\n    a = 1\n"     # 8
                 "if DEBUG:\n    b = 1\n"           # 10
                 "if _is_npu:\n    c = 1\n"         # 12
                 "if False:\n    d = 1\n",          # 14
                 [(14, 15, "delete", None)],
                 id="literal-and-global-module-variables-stay-unknown"),
])
def test_if_chain_regions(tmp_path, src, expected):
    assert brief(fold(tmp_path, src)) == expected


def test_dead_head_and_elifs_unwrap_else(tmp_path):
    src = ("from pkg.utils import is_npu, is_hip\n"  # 1
           "if is_npu():\n"                         # 2
           "    a = 1\n"                            # 3
           "elif is_hip():\n"                       # 4
           "    b = 1\n"                            # 5
           "else:\n"                                # 6
           "    import triton\n"                    # 7
           "    c = 1\n")                           # 8
    regions = fold(tmp_path, src)
    assert brief(regions) == [(2, 6, "unwrap_else", (7, 8))]
    assert regions[0].statement == (2, 8)
    assert "if is_npu(): folds to False" in regions[0].reason
    assert "elif is_hip(): folds to False" in regions[0].reason


def test_an_if_nested_in_a_kept_else_body_folds_too(tmp_path):
    # the else body stays (dedented), so an `if` inside it is folded like any other
    src = ("from pkg.utils import is_hip\n"  # 1
           "def f(x):\n"                    # 2
           "    if is_hip():\n"              # 3
           "        y = 1\n"                 # 4
           "    else:\n"                     # 5
           "        if is_hip():\n"          # 6
           "            y = 2\n"             # 7
           "        else:\n"                 # 8
           "            y = 3\n"             # 9
           "    return y\n")                 # 10
    assert brief(fold(tmp_path, src)) == [(3, 5, "unwrap_else", (6, 9)),
                                          (6, 8, "unwrap_else", (9, 9))]


def test_true_head_unwraps_if_and_kills_the_rest(tmp_path):
    src = ("from pkg import utils\n"      # 1
           "if utils.is_cuda():\n"        # 2
           "    import cuda_only\n"       # 3
           "elif probe():\n"              # 4
           "    b = 1\n"                  # 5
           "else:\n"                      # 6
           "    c = 1\n"                  # 7
           "if utils.is_cuda():\n"        # 8  nothing dead: no region
           "    d = 1\n")                 # 9
    regions = fold(tmp_path, src)
    assert brief(regions) == [(4, 7, "unwrap_if", (3, 3))]
    assert "unreachable: if utils.is_cuda(): folds to True" in regions[0].reason


THREE_VALUED = ("from pkg.utils import is_hip, is_npu, get_bool_env_var\n"
                "_is_hip = is_hip()\n"
                "_is_npu = is_npu()\n"
                "_use_aiter = get_bool_env_var('SGLANG_USE_AITER') and probe()\n"
                "_either = probe() or is_cuda_like()\n")


@pytest.mark.parametrize(("condition", "value"), [
    pytest.param("_use_aiter", False, id="env-flag-false-and-unknown"),
    pytest.param("not _is_npu", True, id="not-false"),
    pytest.param("probe() and _is_hip", False, id="unknown-and-false"),
    pytest.param("probe() or not _is_hip", True, id="unknown-or-true"),
    pytest.param("probe() and not _is_hip", None, id="unknown-and-true"),
    pytest.param("_either", None, id="unknown-or-unknown"),
    pytest.param("not (_is_npu or _is_hip)", True, id="not-false-or-false"),
    pytest.param("_is_npu or _is_hip or probe()", None, id="false-or-false-or-unknown"),
])
def test_and_or_not_three_valued(tmp_path, condition, value):
    index = build(tmp_path, {"pkg/mod.py": THREE_VALUED})
    facts = extract("x.py", f"if {condition}:\n    pass\n".encode())
    assert evaluate("pkg.mod", "", facts.branches[0].clauses[0].cond, index, CTX) is value


def test_domain_comparisons(tmp_path):
    src = ("def f(server_args, self):\n"                                   # 1
           "    if server_args.attention_backend == 'fa3':\n"              # 2
           "        a = 1\n"                                               # 3
           "    if self.server_args.attention_backend in ('fa3', 'fa4'):\n"  # 4
           "        b = 1\n"                                               # 5
           "    if self.attention_backend in ['fa3', 'triton']:\n"         # 6
           "        c = 1\n"                                               # 7
           "    if 'fa4' != get_args().attention_backend:\n"               # 8
           "        d = 1\n"                                               # 9
           "    else:\n"                                                   # 10
           "        e = 1\n"                                               # 11
           "    if attention_backend == 'fa3':\n"                          # 12 no dotted tail
           "        f = 1\n"                                               # 13
           "    if x.attention_backend not in {'fa3'}:\n"                  # 14
           "        g = 1\n"                                               # 15
           "    else:\n"                                                   # 16
           "        h = 1\n")                                              # 17
    regions = fold(tmp_path, src)
    assert brief(regions) == [(2, 3, "delete", None), (4, 5, "delete", None),
                              (10, 11, "unwrap_if", (9, 9)), (16, 17, "unwrap_if", (15, 15))]
    assert all(r.scope == "f" for r in regions)
    assert "server_args.attention_backend: fa3 dropped (*.attention_backend)" in regions[0].reason


def test_integer_domain_comparisons(tmp_path):
    # FlashAttention 3 dropped: the version is never 3 (but may still be "3", 2 or 4)
    ctx = GuardContext(constants={}, domains=(
        ("fa_version", frozenset({3})), ("*.fa_version", frozenset({3})),
        ("get_flash_attn_version()", frozenset({3}))))
    src = ("def f(self, fa_version):\n"                                    # 1
           "    if fa_version == 3:\n"                                     # 2
           "        a = 1\n"                                               # 3
           "    if 3 == self.fa_version:\n"                                # 4
           "        b = 1\n"                                               # 5
           "    if get_flash_attn_version() != 3:\n"                       # 6
           "        c = 1\n"                                               # 7
           "    else:\n"                                                   # 8
           "        d = 1\n"                                               # 9
           "    if fa_version == 4:\n"                                     # 10 not dropped
           "        e = 1\n"                                               # 11
           "    if fa_version == '3':\n"                                   # 12 a string
           "        g = 1\n"                                               # 13
           "    if get_flash_attn_version(True) == 3:\n"                   # 14 has arguments
           "        h = 1\n"                                               # 15
           "    if fa_version >= 3:\n"                                     # 16 not equality
           "        i = 1\n")                                              # 17
    assert brief(fold(tmp_path, src, ctx)) == [
        (2, 3, "delete", None), (4, 5, "delete", None), (8, 9, "unwrap_if", (7, 7))]


def test_env_flags(tmp_path):
    src = ("import os\n"                                                   # 1
           "from pkg.environ import envs\n"                                # 2
           "if envs.SGLANG_USE_AITER.get():\n"                             # 3
           "    a = 1\n"                                                   # 4
           "if os.environ.get('SGLANG_USE_AITER', '0') == '1':\n"          # 5
           "    b = 1\n"                                                   # 6
           "if os.getenv('SGLANG_USE_AITER'):\n"                           # 7
           "    c = 1\n"                                                   # 8
           "if os.getenv('OTHER_FLAG'):\n"                                 # 9
           "    d = 1\n"                                                   # 10
           "if os.environ.get('SGLANG_USE_AITER', 'false').lower() == 'true':\n"  # 11 unknown
           "    e = 1\n")                                                  # 12
    extra = {"pkg/environ.py": "class Envs:\n    pass\n\n\nenvs = Envs()\n"}
    assert brief(fold(tmp_path, src, extra=extra)) == [
        (3, 4, "delete", None), (5, 6, "delete", None), (7, 8, "delete", None)]


def test_method_of_a_platform_object(tmp_path):
    src = ("from pkg.platforms import current_platform\n"  # 1
           "if current_platform.is_rocm():\n"              # 2
           "    import rocm_only\n"                        # 3
           "elif current_platform.is_cuda():\n"            # 4
           "    import cuda_only\n"                        # 5
           "if current_platform.is_rocm:\n"                # 6 the bound method: unknown
           "    x = 1\n")                                  # 7
    extra = {"pkg/platforms/__init__.py": "current_platform = resolve_platform()\n"}
    regions = fold(tmp_path, src, extra=extra)
    assert brief(regions) == [(2, 3, "promote_elif", None)]
    assert "pkg.platforms.current_platform.is_rocm = False" in regions[0].reason


def test_conditional_expression(tmp_path):
    src = ("from pkg.utils import is_npu\n"                          # 1
           "_is_npu = is_npu()\n"                                    # 2
           "backend = NpuBackend if _is_npu else TritonBackend\n"   # 3
           "other = (\n"                                             # 4
           "    NpuBackend\n"                                        # 5
           "    if not _is_npu\n"                                    # 6
           "    else TritonBackend\n"                                # 7
           "    if probe() else None\n"                              # 8
           ")\n")                                                    # 9
    regions = fold(tmp_path, src)
    assert [(r.start_line, r.end_line, r.rewrite, r.keep, r.partial) for r in regions] == [
        (3, 3, "ifexp", (3, 3), True), (7, 8, "ifexp", (5, 5), False)]
    data = src.encode()
    dead, kept, whole = regions[0].spans
    assert data[dead[0]:dead[1]] == b"NpuBackend"
    assert data[kept[0]:kept[1]] == b"TritonBackend"
    assert data[whole[0]:whole[1]] == b"NpuBackend if _is_npu else TritonBackend"
    assert "folds to False" in regions[0].reason


def test_multiline_ifexp_arm_is_wholly_dead(tmp_path):
    src = ("from pkg.utils import is_npu\n"   # 1
           "x = (\n"                          # 2
           "    probe()\n"                    # 3
           "    if is_npu()\n"                # 4
           "    else\n"                       # 5
           "    fallback(\n"                  # 6
           "        1,\n"                     # 7
           "    )\n"                          # 8
           "    if is_cuda_like() else 0)\n")  # 9
    index = build(tmp_path, {"pkg/mod.py": src})
    regions = fold_module("pkg.mod", index.modules["pkg.mod"].facts, index, CTX)
    assert [(r.start_line, r.end_line, r.partial) for r in regions] == [(3, 3, False)]


def test_try_import_of_a_dead_module(tmp_path):
    src = ("try:\n"                                 # 1
           "    from sgl_kernel import flash_ops\n"  # 2
           "except ImportError:\n"                  # 3
           "    flash_ops = None\n"                 # 4
           "try:\n"                                 # 5
           "    import os\n"                        # 6
           "    import dead_ext.sub\n"              # 7
           "except ValueError:\n"                   # 8
           "    pass\n"                             # 9
           "except ModuleNotFoundError:\n"          # 10
           "    dead_ext = None\n"                  # 11
           "else:\n"                                # 12
           "    HAS = True\n"                       # 13
           "try:\n"                                 # 14  a live import
           "    from sgl_kernel import other_ops\n"  # 15
           "except ImportError:\n"                  # 16
           "    other_ops = None\n"                 # 17
           "try:\n"                                 # 18  code runs before the import
           "    setup()\n"                          # 19
           "    import dead_ext\n"                  # 20
           "except ImportError:\n"                  # 21
           "    pass\n")                            # 22
    regions = fold(tmp_path, src)
    assert [(r.start_line, r.end_line, r.rewrite, r.statement, r.keep) for r in regions] == [
        (1, 3, "try_unwrap", (1, 4), (4, 4)),
        (5, 10, "try_unwrap", (5, 13), (11, 11)),
        (12, 13, "try_unwrap", (5, 13), (11, 11)),
    ]
    assert "sgl_kernel.flash_ops" in regions[0].reason


def test_unknown_conditions_stay_live(tmp_path):
    src = ("import sys\n"
           "from typing import TYPE_CHECKING\n"
           "from pkg.utils import is_npu\n"
           "if sys.version_info >= (3, 10):\n    a = 1\n"
           "if __name__ == '__main__':\n    b = 1\n"
           "if probe(is_npu()):\n    c = 1\n"
           "if is_npu:\n    d = 1\n"
           "if some_flag[0] or x + 1:\n    e = 1\n"
           "if TYPE_CHECKING:\n    from pkg.utils import is_hip\n")
    assert fold(tmp_path, src) == []
    typed = GuardContext(CTX.constants, CTX.domains, CTX.dead_imports, fold_type_checking=True)
    assert brief(fold(tmp_path, src, typed)) == [(14, 15, "delete", None)]


def test_nested_regions_not_repeated_and_methods_have_scopes(tmp_path):
    src = ("from pkg.utils import is_npu\n"      # 1
           "_is_npu = is_npu()\n"                # 2
           "if _is_npu:\n"                       # 3
           "    if _is_npu:\n"                   # 4
           "        x = A if _is_npu else B\n"   # 5
           "class Model:\n"                      # 6
           "    def forward(self):\n"            # 7
           "        if not _is_npu:\n"           # 8
           "            return 1\n"              # 9
           "        else:\n"                     # 10
           "            return 2\n")             # 11
    regions = fold(tmp_path, src)
    assert [(r.start_line, r.end_line, r.rewrite, r.scope) for r in regions] == [
        (3, 5, "delete", ""), (10, 11, "unwrap_if", "Model")]


def test_rebound_flags_cycles_and_globs(tmp_path):
    index = build(tmp_path, {
        "pkg/a.py": "from pkg.b import y\nx = y\n",
        "pkg/b.py": "from pkg.a import x\ny = x\n",
        "pkg/c.py": ("from pkg.utils import is_npu\n_is_npu = is_npu()\n"
                     "if probe():\n    _is_npu = True\n"),
        "pkg/d.py": "from pkg.utils import is_npu as probe_npu\nflag = probe_npu()\n",
    })
    assert evaluate("pkg.a", "", Cond("name", "x"), index, CTX) is None
    assert evaluate("pkg.c", "", Cond("name", "_is_npu"), index, CTX) is None
    glob = GuardContext({"*.is_npu": True, "pkg.a.x": False})
    assert evaluate("pkg.d", "", Cond("name", "flag"), index, glob) is True
    assert evaluate("pkg.b", "", Cond("name", "y"), index, glob) is False


@pytest.mark.parametrize("source", [
    "if (:\n    pass\n",
    "if a if b else c:\n    pass\nelif not:\n    pass\n",
    "x = 1 if\n",
    "try:\n    import\nexcept:\n    pass\n",
])
def test_odd_syntax_never_raises(tmp_path, source):
    assert isinstance(fold(tmp_path, source), list)


def test_new_facts_round_trip_through_json(tmp_path):
    src = ("from pkg.utils import is_npu, get_bool_env_var\n"
           "_is_npu = is_npu()\n"
           "_aiter = get_bool_env_var('SGLANG_USE_AITER', x) and not _is_hip\n"
           "if _is_npu is not None and b in ('x', 'y') or c >= 3:\n    pass\n"
           "elif (f().g):\n    pass\nelse:\n    y = 1 if z else 2\n"
           "try:\n    import q\nexcept (ImportError, OSError) as e:\n    pass\n")
    facts = extract("pkg/mod.py", src.encode())
    assert facts.branches and facts.assigns
    assert from_jsonable(PythonFacts, to_jsonable(facts)) == facts


def test_hasattr_probe_named_by_the_profile(tmp_path):
    src = b"import torch\n\nif hasattr(torch.ops.my_ns, 'fa3_fwd'):\n    x = 1\nelse:\n    x = 2\n"
    mod = PyModule("pkg.m", "pkg/m.py", False, extract("pkg/m.py", src))
    index = ModuleIndex([mod])
    ctx = GuardContext({"hasattr:torch.ops.my_ns.fa3_fwd": False})
    regions = fold_module("pkg.m", mod.facts, index, ctx)
    # `if` head and body (3-4) and the `else:` header (5) go; the else body (6) stays
    assert [(r.start_line, r.end_line, r.rewrite, r.keep) for r in regions] == [
        (3, 5, "unwrap_else", (6, 6))]
    unknown = fold_module("pkg.m", mod.facts, index, GuardContext({}))
    assert unknown == []
