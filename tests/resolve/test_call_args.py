"""What the callers of a function pass for a parameter (``analyzer.resolve.call_args``):
every file naming the function as a word is read once, only where the name occurs; a name
inside a longer name, a string or a comment is no use of it; a use other than a call or an
import makes the values unknown."""

from __future__ import annotations

import pytest

from analyzer.extract.python_names import ParamGetattr
from analyzer.resolve.call_args import caller_values, function_uses
from tests.helpers import stored

DEFINITION = b'''
import torch


def debug_op(op, name, namespace="sglang"):
    return getattr(torch.ops, namespace)
'''

# (the parameter is the third one a caller passes; its default is "sglang")
PG = ParamGetattr(obj="torch.ops", function="debug_op", scope="debug_op", line=6,
                  param="namespace", position=2, default="sglang", has_default=True)


def test_literal_arguments_and_the_default_are_the_values() -> None:
    sources = {
        "pkg/ops.py": DEFINITION,
        "pkg/a.py": b'from pkg.ops import debug_op\n\ndebug_op(x, "add", namespace="custom")\n',
        "pkg/b.py": b'import pkg.ops as o\n\no.debug_op(x, "mul")\n',
        "pkg/c.py": b'debug_op(x, "sub", "mine")\n',
    }
    assert caller_values(PG, sources) == frozenset({"custom", "sglang", "mine"})


def test_longer_names_strings_and_comments_are_no_uses() -> None:
    sources = {
        "pkg/ops.py": DEFINITION,
        "pkg/a.py": b'debug_op(x, "add")\n',
        # none of these is a use of debug_op: a longer name, a string, a comment, bytes of
        # another file type
        "pkg/d.py": b'f = debug_op_table\nprint("debug_op")\n# debug_op is handy\n',
        "csrc/ops.cu": b"debug_op = 1;\n",
    }
    assert caller_values(PG, sources) == frozenset({"sglang"})


def test_a_use_other_than_a_call_makes_the_values_unknown() -> None:
    sources = {
        "pkg/ops.py": DEFINITION,
        "pkg/a.py": b'debug_op(x, "add", namespace="custom")\n',
        "pkg/e.py": b"handlers = [debug_op]\n",
    }
    assert caller_values(PG, sources) is None
    # another function named in the same files is answered on its own
    uses = function_uses({b"debug_op", b"other"}, {**sources, "pkg/f.py": b"other(1)\n"})
    assert uses[b"debug_op"] == {"pkg/e.py": None}
    assert set(uses[b"other"]) == {"pkg/f.py"}


def test_a_call_through_a_splat_makes_the_values_unknown() -> None:
    sources = {"pkg/ops.py": DEFINITION, "pkg/a.py": b"debug_op(*args)\n"}
    assert caller_values(PG, sources) is None


@pytest.fixture
def searched(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files ``function_uses`` is handed (each one searched for callers), in order."""
    from analyzer.resolve import call_args

    out: list[str] = []
    real = call_args.function_uses

    def counted(names, srcs):  # type: ignore[no-untyped-def]
        out.extend(srcs)
        return real(names, srcs)

    monkeypatch.setattr(call_args, "function_uses", counted)
    return out


def test_each_file_is_searched_again_only_when_it_changed(tmp_path, searched: list[str]) -> None:
    from analyzer.resolve import call_args
    from tests.helpers import module_index

    files = {"pkg/__init__.py": "", "pkg/ops.py": DEFINITION.decode(),
             "pkg/a.py": 'from pkg.ops import debug_op\n\ndebug_op(x, "add", "custom")\n',
             "pkg/b.py": 'from pkg.ops import debug_op\n\ndebug_op(x, "mul", "mine")\n'}
    index = module_index(tmp_path / "tree", files)
    sources = {p: v.encode() for p, v in files.items()}
    cache = tmp_path / "cache"
    key = ("pkg.ops", "debug_op", 6)
    # the callers pass "custom" and "mine" (the default is never used: every call passes one)
    assert stored(cache, call_args.resolve_param_getattrs, index, sources) == {
        key: {"custom", "mine"}}
    # every file naming the function, once (pkg/__init__.py does not)
    assert sorted(searched) == ["pkg/a.py", "pkg/b.py", "pkg/ops.py"]
    searched.clear()
    assert stored(cache, call_args.resolve_param_getattrs, index, sources) == {
        key: {"custom", "mine"}}
    assert searched == []  # read back
    # one caller changed: that file is searched again, the others' calls are read back
    sources["pkg/a.py"] = sources["pkg/a.py"].replace(b'"custom"', b'"other"')
    assert stored(cache, call_args.resolve_param_getattrs, index, sources) == {
        key: {"other", "mine"}}
    assert searched == ["pkg/a.py"]
    # a caller now hands the function on as a value: nothing can be known
    searched.clear()
    sources["pkg/b.py"] += b"handler = debug_op\n"
    assert stored(cache, call_args.resolve_param_getattrs, index, sources) == {key: None}
    assert searched == ["pkg/b.py"]
    # without a cache: the same answers
    assert call_args.resolve_param_getattrs(index, sources) == {key: None}
    # a.py changed again: searched again; b.py, read back, still hands the function on
    searched.clear()
    sources["pkg/a.py"] += b"\n"
    assert stored(cache, call_args.resolve_param_getattrs, index, sources) == {key: None}
    assert searched == ["pkg/a.py"]


def test_a_function_handed_on_is_searched_no_further(tmp_path, searched: list[str]) -> None:
    """Files are read in path order: once a function is named otherwise (its callers cannot
    be seen), later files are not searched for it."""
    from analyzer.resolve import call_args
    from tests.helpers import module_index

    files = {"pkg/__init__.py": "", "pkg/ops.py": DEFINITION.decode(),
             "pkg/a.py": "from pkg.ops import debug_op\n\nhandler = debug_op\n",
             "pkg/b.py": 'from pkg.ops import debug_op\n\ndebug_op(x, "mul", "mine")\n'}
    index = module_index(tmp_path / "tree", files)
    sources = {p: v.encode() for p, v in files.items()}
    assert call_args.resolve_param_getattrs(index, sources) == {
        ("pkg.ops", "debug_op", 6): None}
    assert searched == ["pkg/a.py"]  # b.py and ops.py: no function is left to search for


def test_a_pruned_copy_reads_back_the_files_it_did_not_change(
        tmp_path, searched: list[str]) -> None:
    """The pruning deletes a function whose parameter a getattr reads (the calls asked about
    change) and edits one file: only the edited file is searched again."""
    from analyzer.resolve import call_args
    from tests.helpers import module_index

    other = DEFINITION.decode().replace("debug_op", "other_op").replace("namespace", "ns")
    files = {"pkg/__init__.py": "", "pkg/ops.py": DEFINITION.decode(),
             "pkg/other.py": other,
             "pkg/a.py": 'from pkg.ops import debug_op\n\ndebug_op(x, "add", "custom")\n',
             "pkg/b.py": 'from pkg.other import other_op\n\nother_op(x, "mul", "mine")\n'
                         "\n\ndef dead():\n    return 1\n"}
    cache = tmp_path / "cache"
    index = module_index(tmp_path / "tree", files)
    sources = {p: v.encode() for p, v in files.items()}
    assert stored(cache, call_args.resolve_param_getattrs, index, sources) == {
        ("pkg.ops", "debug_op", 6): {"custom"}, ("pkg.other", "other_op", 6): {"mine"}}
    searched.clear()
    pruned = {p: v for p, v in files.items() if p != "pkg/other.py"}
    pruned["pkg/b.py"] = "\n\ndef dead():\n    return 1\n"
    index = module_index(tmp_path / "pruned", pruned)
    assert stored(cache, call_args.resolve_param_getattrs, index,
                  {p: v.encode() for p, v in pruned.items()}) == {
        ("pkg.ops", "debug_op", 6): {"custom"}}
    assert searched == []  # a.py and ops.py read back; b.py changed but names no function
