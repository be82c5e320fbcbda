"""Extract stage, Python: facts of small snippets, expectations written by hand."""

from __future__ import annotations

from analyzer.extract.python import (
    CONDITIONAL,
    IN_FUNCTION,
    TRY_IMPORT_ERROR,
    TYPE_CHECKING,
    PythonFacts,
    extract,
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
