"""Tree-sitter plumbing for the extraction stage: grammars, parsers and ``queries/*.scm``.

Queries ship inside the wheel as ``analyzer/queries`` (see pyproject's force-include); in a
source checkout they are read from the top-level ``queries/`` folder.
"""

from __future__ import annotations

from functools import cache
from typing import assert_never

import tree_sitter as ts

from analyzer.model import Language, ParseProblem
from analyzer.util.data import data_dir


def _grammar(language: Language) -> object:
    if language == "python":
        import tree_sitter_python

        return tree_sitter_python.language()
    if language == "cuda":
        import tree_sitter_cuda

        return tree_sitter_cuda.language()
    if language == "cmake":
        import tree_sitter_cmake

        return tree_sitter_cmake.language()
    assert_never(language)


@cache
def language(name: Language) -> ts.Language:
    """The tree-sitter ``Language`` for ``python``, ``cuda`` or ``cmake``."""
    return ts.Language(_grammar(name))


def parser(name: Language) -> ts.Parser:
    """A fresh parser (parsers are cheap; not shared across threads)."""
    return ts.Parser(language(name))


@cache
def query(language_name: Language, file_stem: str | None = None) -> ts.Query:
    """Compile ``queries/<file_stem or language_name>.scm`` for the language."""
    text = (data_dir("queries") / f"{file_stem or language_name}.scm").read_text("utf-8")
    return ts.Query(language(language_name), text)


def captures(q: ts.Query, node: ts.Node) -> dict[str, list[ts.Node]]:
    """All captures of ``q`` under ``node``, by capture name, in document order."""
    found = ts.QueryCursor(q).captures(node)
    return {k: sorted(v, key=lambda n: n.start_byte) for k, v in found.items()}


def matches(q: ts.Query, node: ts.Node) -> list[tuple[int, dict[str, list[ts.Node]]]]:
    """All matches of ``q`` under ``node`` as (pattern index, captures)."""
    return ts.QueryCursor(q).matches(node)


def text(node: ts.Node | None) -> str:
    """Source text of a node, decoded leniently."""
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def error_lines(root: ts.Node, limit: int = 20) -> list[tuple[int, str]]:
    """(1-based line, description) of ERROR / MISSING nodes, for parse-problem reports."""
    out: list[tuple[int, str]] = []
    if not root.has_error:
        return out
    stack = [root]
    while stack and len(out) < limit:
        node = stack.pop()
        if node.is_error:
            out.append((node.start_point[0] + 1, "syntax error"))
            continue
        if node.is_missing:
            out.append((node.start_point[0] + 1, f"missing {node.type}"))
            continue
        if node.has_error:
            stack.extend(reversed(node.children))
    return sorted(out)


def parse_source(path: str, data: bytes, language_name: Language
                 ) -> tuple[ts.Node | None, bytes, list[ParseProblem]]:
    """The common start of every extractor: refuse binary files, decode invalid UTF-8
    leniently, parse, and list syntax errors. Returns (root or None if binary, the bytes that
    were parsed, problems). Never raises."""
    problems: list[ParseProblem] = []
    if b"\x00" in data[:8192]:
        problems.append(ParseProblem(path, 0, "binary", "file contains NUL bytes; not parsed"))
        return None, data, problems
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        problems.append(ParseProblem(path, line, "invalid-utf8", f"invalid UTF-8: {exc.reason}"))
        data = data.decode("utf-8", "replace").encode("utf-8")
    root = parser(language_name).parse(data).root_node
    problems.extend(ParseProblem(path, line, "syntax-error", what)
                    for line, what in error_lines(root))
    return root, data, problems
