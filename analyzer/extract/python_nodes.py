"""Extract stage, Python: tree-sitter node helpers shared by the Python extractors.

Lines are 1-based; chains are dotted identifier/attribute texts; strings are plain literal
contents (f-strings and byte strings give None).
"""

from __future__ import annotations

from collections.abc import Iterator

import tree_sitter as ts

from analyzer.extract import treesitter as tsu

IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def _line(node: ts.Node) -> int:
    return node.start_point[0] + 1


def _end_line(node: ts.Node) -> int:
    # A node ending at column 0 of a line really ends on the line before.
    row, col = node.end_point
    return row if col == 0 and row > node.start_point[0] else row + 1


def _string_value(node: ts.Node) -> str | None:
    """Content of a plain string literal; None for f-strings and byte strings."""
    parts: list[str] = []
    for child in node.children:
        if child.type == "interpolation":
            return None
        if child.type == "string_start":
            prefix = tsu.text(child).lower()
            if "f" in prefix or "b" in prefix:
                return None
        elif child.type == "string_content":
            parts.append(tsu.text(child))
    return "".join(parts)


def literal_prefix(node: ts.Node) -> str | None:
    """The literal text a computed string starts with: an f-string's text before its first
    ``{...}``, the left string of ``"a." + x``, the text before ``%`` of ``"a.%s" % x`` or
    before ``{`` of ``"a.{}".format(x)``; None when it starts with no literal."""
    if node.type == "string":
        parts: list[str] = []
        for child in node.children:
            if child.type == "interpolation":
                break
            if child.type == "string_start" and "b" in tsu.text(child).lower():
                return None
            if child.type == "string_content":
                parts.append(tsu.text(child))
        return "".join(parts) or None
    if node.type == "binary_operator":
        left, op = node.child_by_field_name("left"), node.child_by_field_name("operator")
        if left is None or op is None:
            return None
        text = literal_prefix(left)
        if text is None or tsu.text(op) not in ("+", "%"):
            return None
        return (text.partition("%")[0] if tsu.text(op) == "%" else text) or None
    func = node.child_by_field_name("function") if node.type == "call" else None
    if func is not None and func.type == "attribute":
        obj, attr = func.child_by_field_name("object"), func.child_by_field_name("attribute")
        if obj is not None and obj.type == "string" and attr is not None \
                and tsu.text(attr) == "format":
            return (literal_prefix(obj) or "").partition("{")[0] or None
    return None


def _chain(node: ts.Node) -> str | None:
    """Dotted text of an identifier/attribute chain, or None if it is not a plain chain."""
    if node.type == "identifier":
        return tsu.text(node)
    if node.type == "attribute":
        obj = node.child_by_field_name("object")
        attr = node.child_by_field_name("attribute")
        if obj is None or attr is None:
            return None
        head = _chain(obj)
        return f"{head}.{tsu.text(attr)}" if head else None
    return None


def _walk(node: ts.Node) -> Iterator[ts.Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.named_children)


def _catches_import_error(clause: ts.Node) -> bool:
    """An except clause that catches ImportError (or anything broader, or everything)."""
    kinds = [c for c in clause.named_children if c.type != "block"]
    if not kinds:
        return True  # bare except
    names = {tsu.text(n) for k in kinds for n in _walk(k) if n.type == "identifier"}
    return bool(names & IMPORT_ERRORS)


def _guards_imports(stmt: ts.Node) -> bool:
    """An import in ``stmt``'s body block may fail and the code carries on: a ``try`` one of
    whose handlers catches ImportError without raising, or ``with suppress(ImportError)``."""
    if stmt.type == "try_statement":
        return any(_recovers_import_error(c) for c in stmt.named_children
                   if c.type == "except_clause")
    return stmt.type == "with_statement" and _suppresses_import_error(stmt)


def _suppresses_import_error(with_stmt: ts.Node) -> bool:
    """A ``with`` statement one of whose items is ``suppress(...)`` (``contextlib.suppress``)
    of ImportError or anything broader: an import in its body may fail and is skipped."""
    for clause in with_stmt.named_children:
        if clause.type != "with_clause":
            continue
        for item in clause.named_children:
            call = item.child_by_field_name("value")
            if call is None or call.type != "call":
                continue
            func = call.child_by_field_name("function")
            args = call.child_by_field_name("arguments")
            if func is None or args is None \
                    or tsu.text(func).rpartition(".")[2] != "suppress":
                continue
            if {tsu.text(a).rpartition(".")[2] for a in args.named_children} & IMPORT_ERRORS:
                return True
    return False


def _has_raise(node: ts.Node) -> bool:
    """A ``raise`` anywhere in ``node``'s own code (not in nested definitions)."""
    stack = list(node.named_children)
    while stack:
        n = stack.pop()
        if n.type == "raise_statement":
            return True
        if n.type not in ("function_definition", "class_definition", "lambda"):
            stack.extend(n.named_children)
    return False


def _recovers_import_error(clause: ts.Node) -> bool:
    """An except clause that catches ImportError and carries on: no ``raise`` in it (a
    handler that raises makes the import it guards as hard as a bare one)."""
    return _catches_import_error(clause) and not _has_raise(clause)


_ATTRIBUTE_ERRORS = frozenset({"AttributeError", "Exception", "BaseException"})


def _tolerates_attribute_error(node: ts.Node) -> bool:
    """``node`` runs inside the body of a ``try`` (in its own function) one of whose except
    clauses catches AttributeError (or anything broader, or everything) and carries on: a
    ``getattr`` there that finds nothing is skipped, not a failure."""
    child, parent = node, node.parent
    while parent is not None and parent.type not in ("function_definition", "lambda",
                                                      "class_definition", "module"):
        if parent.type == "try_statement" and parent.child_by_field_name("body") == child:
            for clause in parent.named_children:
                if clause.type != "except_clause" or _has_raise(clause):
                    continue
                kinds = [c for c in clause.named_children if c.type != "block"]
                names = {tsu.text(n) for k in kinds for n in _walk(k) if n.type == "identifier"}
                if not kinds or names & _ATTRIBUTE_ERRORS:
                    return True
        child, parent = parent, parent.parent
    return False
