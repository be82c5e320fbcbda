"""Extract stage, Python: facts of small snippets, expectations written by hand."""

from __future__ import annotations

from analyzer.extract.python import extract
from analyzer.extract.python_facts import (
    CONDITIONAL,
    IN_FUNCTION,
    TRY_IMPORT_ERROR,
    TYPE_CHECKING,
    PythonFacts,
)
from analyzer.model import from_jsonable, to_jsonable

SOURCE = b'''\
from __future__ import annotations
import os, sys as system
from . import sibling
from ..pkg.mod import (a as b, c)
from star_src import *
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing_only import Hint

try:
    import fast_lib
except ImportError:
    fast_lib = None

__all__ = ["Model", "helper"]


@registry.register("fa3", kind="attn")
@functools.cache
def helper(x: Hint = DEFAULT) -> int:
    import importlib

    importlib.import_module("pkg.plugins.alpha")
    return torch.ops.my_ns.my_op.default(x) + os.sep


class Model(Base):
    LOADER = "pkg.loader.Loader"

    def forward(self, y):
        if y:
            from lazy.mod import thing
        return thing(y)


if system.platform == "linux":
    def platform_only():
        return 1

for _, name, _ in pkgutil.walk_packages(pkg.__path__):
    pass
x = y = f"{fmt}.not.a.path"
'''


def facts() -> PythonFacts:
    return extract("pkg/sample.py", SOURCE)


def test_imports_every_form_with_context_and_scope():
    got = [(f.module, f.level, f.is_from, tuple((n.name, n.alias) for n in f.names), f.alias,
            f.start_line, f.scope, f.context) for f in facts().imports]
    assert got == [
        ("os", 0, False, (), None, 2, "", ()),
        ("sys", 0, False, (), "system", 2, "", ()),
        ("", 1, True, (("sibling", None),), None, 3, "", ()),
        ("pkg.mod", 2, True, (("a", "b"), ("c", None)), None, 4, "", ()),
        ("star_src", 0, True, (("*", None),), None, 5, "", ()),
        ("typing", 0, True, (("TYPE_CHECKING", None),), None, 6, "", ()),
        ("typing_only", 0, True, (("Hint", None),), None, 9, "", (TYPE_CHECKING,)),
        ("fast_lib", 0, False, (), None, 12, "", (TRY_IMPORT_ERROR,)),
        ("importlib", 0, False, (), None, 22, "helper", (IN_FUNCTION,)),
        ("lazy.mod", 0, True, (("thing", None),), None, 33, "Model",
         (CONDITIONAL, IN_FUNCTION)),
    ]


def test_import_statement_span_and_sole_if_body():
    by_module = {f.module: f for f in facts().imports}
    assert (by_module["pkg.mod"].start_line, by_module["pkg.mod"].end_line) == (4, 4)
    assert by_module["typing_only"].sole_in_if == (8, 9)
    assert by_module["lazy.mod"].sole_in_if == (32, 33)
    assert by_module["os"].sole_in_if is None


def test_definitions_with_ranges_decorators_and_nesting():
    defs = {(d.name, d.kind): d for d in facts().definitions}
    helper = defs[("helper", "function")]
    assert (helper.start_line, helper.end_line, helper.nested) == (19, 25, False)
    assert [(d.name, d.is_call, d.string_args, d.line) for d in helper.decorators] == [
        ("registry.register", True, ("fa3", "attn"), 19),
        ("functools.cache", False, (), 20),
    ]
    model = defs[("Model", "class")]
    assert (model.start_line, model.end_line) == (28, 34)
    assert defs[("platform_only", "function")].nested is True
    assert (defs[("platform_only", "function")].start_line,
            defs[("platform_only", "function")].end_line) == (38, 39)
    assert defs[("fast_lib", "assignment")].nested is True
    assert defs[("__all__", "assignment")].start_line == 16
    assert {("x", "assignment"), ("y", "assignment")} <= set(defs)


def test_references_by_scope():
    refs = {(r.chain, r.scope) for r in facts().references}
    # decorators, defaults and annotations belong to the definition
    assert {("registry.register", "helper"), ("functools.cache", "helper"),
            ("Hint", "helper"), ("DEFAULT", "helper"), ("int", "helper")} <= refs
    assert ("torch.ops.my_ns.my_op.default", "helper") in refs
    assert ("os.sep", "helper") in refs
    assert ("Base", "Model") in refs and ("thing", "Model") in refs
    assert ("system.platform", "") in refs and ("pkgutil.walk_packages", "") in refs
    assert ("pkg.__path__", "") in refs
    # parameter names and keyword-argument names are not reads
    assert ("x", "helper") in refs  # read in the body
    assert not any(chain == "kind" for chain, _ in refs)
    assert not any(chain == "self" and scope == "" for chain, scope in refs)


def test_all_strings_and_dynamic_loads():
    f = facts()
    assert f.all_names == ("Model", "helper")
    assert {(s.value, s.kind, s.scope, s.line) for s in f.strings} == {
        ("pkg.plugins.alpha", "dotted", "helper", 24),
        ("pkg.plugins.alpha", "import_module", "helper", 24),
        ("pkg.loader.Loader", "dotted", "Model", 29),
    }
    assert [(w.kind, w.scope, w.line) for w in f.package_walks] == [("walk_packages", "", 41)]
    assert f.line_count == 43


def test_facts_round_trip_through_json():
    f = facts()
    assert from_jsonable(PythonFacts, to_jsonable(f)) == f


def test_syntax_error_still_extracts():
    f = extract("bad.py", b"import good\ndef broken(:\n    pass\nfrom pkg import ok\n")
    assert [p.kind for p in f.problems] and all(p.kind == "syntax-error" for p in f.problems)
    assert {i.module for i in f.imports} >= {"good", "pkg"}


def test_invalid_utf8_and_binary():
    f = extract("latin.py", b"import os\nname = '\xe9t\xe9'\n")
    assert [p.kind for p in f.problems] == ["invalid-utf8"]
    assert [i.module for i in f.imports] == ["os"]
    b = extract("blob.py", b"\x7fELF\x00\x00\x01")
    assert [p.kind for p in b.problems] == ["binary"] and b.imports == ()


GUARDS = b'''\
import os
_is_npu = is_npu()
_use_aiter = get_bool_env_var("SGLANG_USE_AITER") and _is_hip
CONST: int = 3
a = b = (not _is_npu)
if _is_npu:
    import torch_npu
elif (current_platform.is_rocm()):
    pass
else:
    x = 1


class Model:
    def forward(self):
        if self.server_args.attention_backend not in ("fa3", 'fa4'):
            y = FlashMLA if use_flashmla else Triton
        return y


try:
    import fast
    from sgl_kernel import flash_ops
except (ImportError, OSError):
    flash_ops = None
finally:
    pass
'''


def test_branches_of_if_statements():
    from analyzer.extract.python_branches import Cond
    f = extract("pkg/g.py", GUARDS)
    first = f.branches[0]
    assert (first.kind, first.start_line, first.end_line, first.scope, first.depth) == (
        "if", 6, 11, "", 0)
    assert [(c.kind, c.cond, c.start_line, c.end_line, c.body_start_line)
            for c in first.clauses] == [
        ("if", Cond("name", "_is_npu"), 6, 7, 7),
        ("elif", Cond("call", "current_platform.is_rocm"), 8, 9, 9),
        ("else", None, 10, 11, 11),
    ]
    inner = f.branches[1]
    assert (inner.kind, inner.start_line, inner.end_line, inner.scope, inner.depth,
            inner.sole_in_block) == ("if", 16, 17, "Model", 2, False)
    assert inner.clauses[0].cond == Cond("cmp", "not in", children=(
        Cond("name", "self.server_args.attention_backend"), Cond("strs", args=("fa3", "fa4"))))


def test_branches_of_ifexp_and_try_import():
    from analyzer.extract.python_branches import Cond
    f = extract("pkg/g.py", GUARDS)
    ifexp = f.branches[2]
    assert (ifexp.kind, ifexp.scope, ifexp.depth, ifexp.start_line) == ("ifexp", "Model", 3, 17)
    body, other = ifexp.clauses
    assert body.cond == Cond("name", "use_flashmla") and other.cond is None
    assert GUARDS[body.start_byte:body.end_byte] == b"FlashMLA"
    assert GUARDS[other.start_byte:other.end_byte] == b"Triton"
    assert not body.own_lines and not other.own_lines
    tr = f.branches[3]
    assert (tr.kind, tr.start_line, tr.end_line, tr.import_lines, tr.body_lines) == (
        "try_import", 21, 27, (22, 23), (22, 23))
    assert [(c.kind, c.start_line, c.end_line, c.body_start_line) for c in tr.clauses] == [
        ("try", 21, 23, 22), ("except", 24, 25, 25), ("finally", 26, 27, 27)]
    assert tr.clauses[1].cond == Cond("or", children=(Cond("name", "ImportError"),
                                                      Cond("name", "OSError")))
    assert len(f.branches) == 4


def test_module_assigns():
    from analyzer.extract.python_branches import Cond
    f = extract("pkg/g.py", GUARDS)
    assert [(a.name, a.cond, a.line) for a in f.assigns] == [
        ("_is_npu", Cond("call", "is_npu"), 2),
        ("_use_aiter", Cond("and", children=(
            Cond("call", "get_bool_env_var", ("SGLANG_USE_AITER",)), Cond("name", "_is_hip"))),
         3),
        ("CONST", Cond("const", "3"), 4),
        ("a", Cond("not", children=(Cond("name", "_is_npu"),)), 5),
        ("b", Cond("not", children=(Cond("name", "_is_npu"),)), 5),
    ]
    assert from_jsonable(PythonFacts, to_jsonable(f)) == f


def test_member_uses_stay_packed_and_their_names_are_loaded() -> None:
    """A file's member uses are kept pickled (read whole only where a name matters); the
    names they read are a fact of their own, for the checks that only ask which."""
    from analyzer.extract.fact import Packed

    facts = extract("m.py", b"class A:\n"
                           b"    def f(self, p):\n"
                           b"        self.load()\n"
                           b"        getattr(self, 'forward_native')\n"
                           b"        return getattr(self, f'forward_{p}')\n"
                           b"def g(obj):\n"
                           b"    return dir(obj)\n")
    assert isinstance(facts.member_uses, Packed)
    names = {u.name for u in facts.member_uses}
    # written from the source: an attribute read, a getattr string, a skeleton, an enumeration
    assert {"load", "forward_native", "forward_*", "*"} <= names
    assert facts.member_names == frozenset(names)


def test_member_uses_by_source_scope_and_line() -> None:
    """Each way code may name a method, written from the source: an attribute's name
    (``__dict__`` enumerates), a bare enumerator call (``dir()``, ``getmembers(x)``) and the
    names a class body reads or binds outside its methods (``alias = run``); the object of an
    attribute and an enumerator's own name are no member uses. One use per name, scope and
    method."""
    facts = extract("m.py", b"class A:\n"
                           b"    def run(self):\n"
                           b"        return self.obj.__dict__\n"
                           b"    alias = run\n"
                           b"    names = dir()\n"
                           b"def g(x):\n"
                           b"    return getmembers(x), x.size\n")
    assert [(u.name, u.scope, u.lines) for u in facts.member_uses] == [
        ("*", "A", (5,)), ("*", "A", (3,)), ("*", "g", (7,)), ("alias", "A", (4,)),
        ("names", "A", (5,)), ("obj", "A", (3,)), ("run", "A", (4,)), ("size", "g", (7,))]


def test_an_import_under_suppress_import_error_may_fail():
    # `with contextlib.suppress(ImportError):` skips a failing import, as a try whose handler
    # carries on does; suppress of another error, or a plain `with`, does not
    src = (b"import contextlib\n"
           b"from contextlib import suppress\n"
           b"with contextlib.suppress(ImportError):\n"
           b"    import pkg._rocm_C\n"
           b"with suppress(ModuleNotFoundError, AttributeError):\n"
           b"    import pkg._xpu_C\n"
           b"with suppress(ValueError):\n"
           b"    import pkg.values\n"
           b"with open('f'):\n"
           b"    import pkg.opened\n")
    contexts = {i.module: i.context for i in extract("m.py", src).imports}
    assert contexts["pkg._rocm_C"] == (TRY_IMPORT_ERROR,)
    assert contexts["pkg._xpu_C"] == (TRY_IMPORT_ERROR,)
    assert contexts["pkg.values"] == ()
    assert contexts["pkg.opened"] == ()
