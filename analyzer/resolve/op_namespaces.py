"""Resolve stage, native: op namespaces written as macros the build defines per target.

vLLM registers its ops in ``TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops)`` and
``TORCH_LIBRARY_EXPAND(CONCAT(TORCH_EXTENSION_NAME, _cache_ops), cache_ops)``; the macro is
``-DTORCH_EXTENSION_NAME=<target>``, set by ``target_compile_definitions`` for each target
(inside the ``define_extension_target`` function). ``resolve_op_namespaces(facts, project)``
rewrites the namespace of each registration to the literal torch sees (``_C``,
``_C_cache_ops``) when that is certain:

- every target the build makes that compiles the file (definitions under a false ``if()`` with
  the forced options do not count) defines the macro, each with the same identifier value;
- no header of the tree ``#define``s the macro, nor the file itself (a ``#define`` in another
  translation unit -- the CPU build's ``torch_bindings.cpp`` -- reaches no other file);
- a function-like macro around it (``CONCAT(A, B)`` -> ``_CONCAT(A, B)`` -> ``A##B``) is
  defined once in the tree with a body this expander follows: parameters, other such macros,
  ``##`` pasting.

Anything else leaves the registration as written: the graph stage keeps every registration
under a namespace it cannot read. Pure: facts in, facts out.
"""

from __future__ import annotations

import dataclasses
import re

from analyzer.extract.cuda import CudaFacts, MacroDefine
from analyzer.resolve.cmake_model import CMakeProject, CMakeTarget

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CALL = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)$", re.S)
_MAX_DEPTH = 8
_TU_SUFFIXES = (".cu", ".cc", ".cpp", ".cxx", ".c")  # translation units: the rest are headers


def resolve_op_namespaces(facts: dict[str, CudaFacts], project: CMakeProject
                          ) -> dict[str, CudaFacts]:
    """``facts`` with the namespaces of registrations rewritten where the build decides them."""
    in_headers: dict[str, list[MacroDefine]] = {}
    for path, f in facts.items():
        if not path.endswith(_TU_SUFFIXES):
            for d in f.defines:
                in_headers.setdefault(d.name, []).append(d)
    built: dict[str, list[CMakeTarget]] = {}
    for t in project.targets:
        if t.off:
            continue
        for s in t.sources:
            if s.path and not s.off:
                built.setdefault(s.path, []).append(t)
    out = dict(facts)
    for path, f in facts.items():
        targets = built.get(path)
        if not f.ops or not targets:
            continue
        values = [_target_macros(t) for t in targets]
        visible = dict(in_headers)
        for d in f.defines:
            visible[d.name] = [*visible.get(d.name, []), d]
        ops = []
        changed = False
        for op in f.ops:
            literal = _literal(op.namespace, values, visible)
            if literal is not None and literal != op.namespace:
                ops.append(dataclasses.replace(op, namespace=literal))
                changed = True
            else:
                ops.append(op)
        if changed:
            out[path] = dataclasses.replace(f, ops=tuple(ops))
    return out


def _target_macros(t: CMakeTarget) -> dict[str, str | None]:
    """Macro -> value a target defines (None: defined twice with different values)."""
    out: dict[str, str | None] = {}
    for item in t.definitions:
        name, sep, value = item.partition("=")
        if not _IDENT.fullmatch(name):
            continue
        value = value.strip() if sep else "1"
        out[name] = value if out.get(name, value) == value else None
    return out


def _literal(namespace: str, per_target: list[dict[str, str | None]],
             tree: dict[str, list[MacroDefine]]) -> str | None:
    """The identifier ``namespace`` expands to in every target, or None."""
    found: set[str] = set()
    for macros in per_target:
        value = _expand(namespace.strip(), macros, tree, 0)
        if value is None or not _IDENT.fullmatch(value):
            return None
        found.add(value)
    return found.pop() if len(found) == 1 else None


def _expand(text: str, macros: dict[str, str | None], tree: dict[str, list[MacroDefine]],
            depth: int) -> str | None:
    if depth > _MAX_DEPTH:
        return None
    if _IDENT.fullmatch(text):
        if text in tree:
            return None  # a header may (re)define it
        if text in macros:
            value = macros[text]
            return None if value is None else _expand(value, macros, tree, depth + 1)
        return text  # a plain token
    call = _CALL.match(text)
    if call is None:
        return None
    name, args = call.group(1), _split_args(call.group(2))
    defs = tree.get(name, [])
    if len(defs) != 1 or defs[0].params is None or not defs[0].body or args is None \
            or len(args) != len(defs[0].params):
        return None
    d = defs[0]
    raw = dict(zip(d.params or (), args, strict=True))
    # operands of ## are pasted unexpanded (C's rule); other uses of a parameter expand first
    pieces = [p.strip() for p in d.body.split("##")]
    if len(pieces) > 1:
        pasted = []
        for p in pieces:
            if p in raw:
                pasted.append(raw[p])
            elif _IDENT.fullmatch(p):
                pasted.append(p)
            else:
                return None
        return _expand("".join(pasted), macros, tree, depth + 1)
    body = d.body
    for param, arg in raw.items():
        value = _expand(arg, macros, tree, depth + 1)
        if value is None:
            return None
        body = re.sub(rf"\b{re.escape(param)}\b", value, body)
    return _expand(body.strip(), macros, tree, depth + 1)


def _split_args(text: str) -> list[str] | None:
    args, depth, current = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return None
        if ch == "," and depth == 0:
            args.append(current.strip())
            current = ""
        else:
            current += ch
    args.append(current.strip())
    return args if all(args) else None
