"""Resolve stage, Python: what the callers of a function pass for one of its parameters.

``getattr(torch.ops, namespace)`` inside ``debug_torch_op(op, name, *, namespace="sglang")``
reads the namespaces its callers pass -- here, none pass one, so only ``sglang``. For each
``ParamGetattr`` fact (``analyzer.extract.python_names``) the values are read from every call
of the function in the tree: a string literal argument, or the parameter's literal default
where a call does not pass it. Anything else -- an argument that is not a literal, ``*args``
or ``**kwargs`` at a call, the function named anywhere other than in a call or an import
(handed on as a value: its callers cannot be seen) -- leaves the parameter unresolved (None).

The callers are found in the bytes of every Python file (the function's name followed by
``(``) and read with tree-sitter: a pure function of those bytes and the name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import tree_sitter as ts

from analyzer.extract import treesitter as tsu
from analyzer.extract.python_names import ParamGetattr
from analyzer.extract.python_nodes import _string_value
from analyzer.resolve.python import ModuleIndex

# (module, scope, line) of a ParamGetattr -> the values its parameter takes (None: unknown)
ParamValues = dict[tuple[str, str, int], frozenset[str] | None]


def resolve_param_getattrs(index: ModuleIndex, sources: Mapping[str, bytes]) -> ParamValues:
    """The values of every ``ParamGetattr`` of the tree, from its function's callers."""
    out: ParamValues = {}
    for name in sorted(index.modules):
        for pg in getattr(index.modules[name].facts, "param_getattrs", ()):
            out[(name, pg.scope, pg.line)] = caller_values(pg, sources)
    return out


def caller_values(pg: ParamGetattr, sources: Mapping[str, bytes]) -> frozenset[str] | None:
    """What the callers of ``pg.function`` pass for ``pg.param`` (see the module docstring)."""
    name = pg.function.encode()
    mention = re.compile(rb"(?<![\w.])" + re.escape(name) + rb"\b|\." + re.escape(name) + rb"\b")
    values: set[str] = set()
    for path, data in sources.items():
        if not path.endswith((".py", ".pyi")) or name not in data:
            continue
        for m in mention.finditer(data):
            rest = data[m.end():m.end() + 64].lstrip()
            line = data[data.rfind(b"\n", 0, m.start()) + 1:m.start()].strip()
            if rest.startswith(b"("):
                if line.startswith(b"def ") or line.startswith(b"async def "):
                    continue  # its own definition
                continue  # a call: read below
            if line.startswith((b"from ", b"import ")) or b"import" in line:
                continue  # imported by name
            return None  # handed on as a value (or spelled in a string): callers unknown
        for args in _calls(path, data, pg.function):
            got = _argument(args, pg)
            if got is None:
                return None
            values |= got
    return frozenset(values)


def _calls(path: str, data: bytes, function: str) -> list[ts.Node]:
    """The argument lists of every call of ``function`` (by its last name) in ``data``."""
    root, data, _problems = tsu.parse_source(path, data, "python")
    if root is None:
        return []
    out: list[ts.Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "call":
            func = node.child_by_field_name("function")
            args = node.child_by_field_name("arguments")
            if func is not None and args is not None and args.type == "argument_list":
                text = data[func.start_byte:func.end_byte].decode("utf-8", "replace")
                if text.rsplit(".", 1)[-1].strip() == function:
                    out.append(args)
        stack.extend(node.named_children)
    return out


def _argument(args: ts.Node, pg: ParamGetattr) -> set[str] | None:
    """The values one call passes for the parameter (its default when it passes none)."""
    positional: list[ts.Node] = []
    for a in args.named_children:
        if a.type in ("list_splat", "dictionary_splat"):
            return None
        if a.type == "keyword_argument":
            key = a.child_by_field_name("name")
            if key is not None and key.text is not None and key.text.decode() == pg.param:
                return _literal(a.child_by_field_name("value"))
        elif a.type != "comment":
            positional.append(a)
    if 0 <= pg.position < len(positional):
        return _literal(positional[pg.position])
    if pg.has_default:
        return {pg.default} if pg.default is not None else None
    return set()  # not passed and no default: the call fails, it reads nothing


def _literal(node: ts.Node | None) -> set[str] | None:
    if node is None or node.type != "string":
        return None
    value = _string_value(node)
    return {value} if value is not None else None
