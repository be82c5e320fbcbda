"""Codemod stage, Python edits: the parts of a file its edits need parsed.

Input: a file's source and its ``PyEdit`` list (``python_edits.edit_python``). Output: the
regions LibCST parses instead of the whole file, or None (parse the whole file). Found with
``ast`` (the C parser: a few milliseconds a file); LibCST's parse and position pass cost
~0.2 s per thousand lines, and a plan edits a few lines of files of thousands.

A region is a run of statements of one block together with the context the edit of the whole
file would see, so the region's edited text is the bytes the whole file's edit gives there:

- edits inside the body of a ``def``, ``class`` or ``with`` whose header they leave alone
  descend into it: what they do stays inside that block (a block left empty gets ``pass``,
  comments of removed statements stay in it);
- the statements of a block that edits touch, from the end of the statement before them
  (its block's footer -- the comment lines indented at that block's level, which LibCST gives
  to it -- stays outside) to the start of the statement after them. A removed statement's
  comment lines are carried to the next statement; a ``pass`` stands in for each neighbour
  left out, so the carry lands and the first statement is not the block's first.

``python_edits`` parses a region under a ``class _:`` header (a block's statements) with the
stand-ins, edits it with the lines shifted, and cuts the header and stand-ins off again; any
failure there parses the whole file instead (which then says why an edit cannot be applied).

A ``def`` or ``class`` a ``delete_range`` of the region removes whole is *hollowed* first: the
lines from its body's first statement to its last line of code become one ``pass`` at the
body's indentation (``Region.hollow``). Nothing of those lines reaches the output -- the
statement goes with its body -- while everything the removal reads is left as written: the
lines above the statement (its decorators, header, the comment lines it carries), the block
indentation its footer is measured by and the comment lines after it. So LibCST parses, places
and prints a few lines instead of the whole definition, the edit's lines shifted past it.
"""

from __future__ import annotations

import ast
import dataclasses
import io
from collections.abc import Sequence
from dataclasses import dataclass

from analyzer.codemod.py_edit import PyEdit

__all__ = ["Region", "hollowed", "regions", "shifted", "source_lines"]

# statements whose one block an edit may descend into, leaving the header alone
_BLOCKS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.With, ast.AsyncWith)


@dataclass(frozen=True)
class Region:
    """Lines ``start``-``end`` of the file (1-based), parsed as the statements of a block
    (``indent``: the block's indentation; "" at module level). ``lead``/``trail``: a
    statement of the block precedes / follows the region (a ``pass`` stands in for it)."""

    start: int
    end: int
    indent: str
    lead: bool
    trail: bool
    edits: tuple[PyEdit, ...]
    # (first, last) lines of a removed definition's body that one ``pass`` stands for
    hollow: tuple[tuple[int, int], ...] = ()


def source_lines(source: str) -> list[str]:
    """The lines of ``source`` with their ends, split where Python counts lines (``\\n``,
    ``\\r\\n``, ``\\r``; not at form feeds or other breaks ``str.splitlines`` knows)."""
    return io.StringIO(source, newline="").readlines()


def regions(source: str, edits: Sequence[PyEdit]) -> list[Region] | None:
    """The regions to edit, in the file's order, or None when the whole file is one."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    lines = source_lines(source)
    plan = _Plan(lines)
    found = plan.block(tree.body, list(edits), 1, len(lines), "")
    if found is None or (len(found) == 1 and found[0].start == 1
                         and found[0].end == len(lines)):
        return None
    bodies = plan.removable_bodies(tree, edits)
    return sorted((dataclasses.replace(r, hollow=_hollows(r, bodies)) for r in found),
                  key=lambda r: r.start)


def _hollows(region: Region, bodies: list[tuple[int, int, int]]) -> tuple[tuple[int, int], ...]:
    """The bodies (lines ``first``-``last`` of a definition starting at line ``head``:
    ``bodies``) that a ``delete_range`` of ``region`` removes with their definition and no
    other edit of it reaches into, in the file's order, none inside another."""
    out: list[tuple[int, int]] = []
    for head, first, last in bodies:  # (in the file's order, outer before inner)
        if not (region.start <= head and last <= region.end):
            continue
        if out and out[-1][0] <= first <= out[-1][1]:
            continue  # (inside a body hollowed already)
        covering = [e for e in region.edits
                    if e.kind == "delete_range" and e.start <= head and last <= e.end]
        if not covering:
            continue
        others = [p for e in region.edits if e not in covering
                  for p in (e.start, e.end, *(e.statement or ()), *(e.keep or ()))]
        if any(first <= p <= last for p in others):
            continue
        out.append((first, last))
    return tuple(out)


def hollowed(lines: list[str], r: Region) -> list[str]:
    """Lines ``r.start``-``r.end`` (of ``lines``, :func:`source_lines`), each of ``r.hollow``'s
    bodies one ``pass`` at its indentation."""
    out: list[str] = []
    at = r.start
    for first, last in r.hollow:
        out += lines[at - 1:first - 1]
        end = lines[last - 1]
        # (the body's last line's own ending: none at the end of a file without one)
        out.append(_indentation(lines[first - 1]) + "pass" + end[len(end.rstrip("\r\n")):])
        at = last + 1
    out += lines[at - 1:r.end]
    return out


def _indentation(text: str) -> str:
    return text[:len(text) - len(text.lstrip(" \t\f"))]


def _extent(e: PyEdit) -> tuple[int, int]:
    points = [e.start, e.end, *(e.statement or ()), *(e.keep or ())]
    return min(points), max(points)


def _first_line(s: ast.stmt) -> int:
    """The statement's first line: its first decorator's (the ``@`` shares its line)."""
    decorators = getattr(s, "decorator_list", None) or ()
    return int(min([s.lineno, *(d.lineno for d in decorators)]))


@dataclass
class _Plan:
    lines: list[str]

    def block(self, stmts: list[ast.stmt], edits: list[PyEdit], first: int, last: int,
              indent: str) -> list[Region] | None:
        """Regions for ``edits`` within the block of ``stmts`` (lines ``first``-``last``);
        None when an edit touches no statement of it (the caller takes the whole block)."""
        spans = [(_first_line(s), s.end_lineno or s.lineno) for s in stmts]
        touched: list[tuple[int, int, PyEdit]] = []
        for e in edits:
            lo, hi = _extent(e)
            hit = [i for i, (a, b) in enumerate(spans) if a <= hi and lo <= b]
            if not hit:
                return None
            touched.append((hit[0], hit[-1], e))
        touched.sort(key=lambda t: (t[0], t[1]))
        # edits sharing a statement act together
        clusters: list[tuple[int, int, list[PyEdit]]] = []
        for i, j, e in touched:
            if clusters and i <= clusters[-1][1]:
                a, b, group = clusters[-1]
                clusters[-1] = (a, max(b, j), [*group, e])
            else:
                clusters.append((i, j, [e]))
        # a cluster inside one statement's body is edited there; the others with their
        # neighbours, merged when one's neighbour is the next one's statement
        out: list[Region] = []
        runs: list[tuple[int, int, list[PyEdit]]] = []
        for i, j, group in clusters:
            inner = self.descend(stmts[i], group) if i == j else None
            if inner is not None:
                out += inner
            elif runs and i <= runs[-1][1] + 1:
                runs[-1] = (runs[-1][0], j, [*runs[-1][2], *group])
            else:
                runs.append((i, j, group))
        for i, j, group in runs:
            start = self.footer_end(stmts[i - 1], spans[i][0]) + 1 if i > 0 else first
            end = spans[j + 1][0] - 1 if j + 1 < len(stmts) else last
            out.append(Region(start, end, indent, i > 0, j + 1 < len(stmts), tuple(group)))
        return out

    def descend(self, s: ast.stmt, edits: list[PyEdit]) -> list[Region] | None:
        """Regions inside the body of ``s`` when every edit lies below its header."""
        if not isinstance(s, _BLOCKS) or not self.is_block(s.body):
            return None
        body_first = _first_line(s.body[0])
        colon = body_first - 1
        while colon > s.lineno and not self.code(colon):
            colon -= 1
        if any(_extent(e)[0] <= colon for e in edits):
            return None
        indent = self.indentation(body_first)
        end = self.footer_end(s, len(self.lines) + 1)
        inner = self.block(s.body, edits, colon + 1, end, indent)
        if inner is None:
            return [Region(colon + 1, end, indent, False, False, tuple(edits))]
        return inner

    def removable_bodies(self, tree: ast.Module, edits: Sequence[PyEdit]
                         ) -> list[tuple[int, int, int]]:
        """(first line, body's first line, last line) of each ``def`` and ``class`` a
        ``delete_range`` of ``edits`` reaches whose body is an indented block of more than one
        line, in the file's order (only the statements those ranges reach are walked; which
        one a range removes whole, :func:`_hollows` decides per region)."""
        ranges = [(e.start, e.end) for e in edits if e.kind == "delete_range"]
        out: list[tuple[int, int, int]] = []
        todo: list[ast.stmt] = list(tree.body)
        while todo:
            node = todo.pop()
            head, last = _first_line(node), node.end_lineno or node.lineno
            if not any(a <= last and head <= b for a, b in ranges):
                continue
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                first = _first_line(node.body[0])
                if node.lineno < first < last and self.is_block(node.body):
                    out.append((head, first, last))
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                for child in getattr(node, field, ()):
                    todo.extend(child.body if isinstance(
                        child, ast.ExceptHandler | ast.match_case) else [child])
        return sorted(out)

    def code(self, line: int) -> bool:
        """Whether ``line`` holds more than blanks and a comment (lines between statements,
        where no string can be open)."""
        text = self.lines[line - 1].strip()
        return bool(text) and not text.startswith("#")

    def indentation(self, line: int) -> str:
        return _indentation(self.lines[line - 1])

    def is_block(self, body: list[ast.stmt]) -> bool:
        """The statements are an indented block, not a suite on their header's line."""
        s = body[0]
        if getattr(s, "decorator_list", None):
            return True
        return self.lines[s.lineno - 1].encode("utf-8")[:s.col_offset].strip() == b""

    def footer_end(self, s: ast.stmt, limit: int) -> int:
        """The last line of ``s`` with its footer: the comment lines after it, before line
        ``limit``, up to the last one that starts with the indentation of its last block."""
        end = s.end_lineno or s.lineno
        body = _last_block(s, self.lines)
        if not body or not self.is_block(body):
            return end
        indent = self.indentation(_first_line(body[0]))
        last = end
        line = end + 1
        while line < limit and line <= len(self.lines) and not self.code(line):
            if indent and self.lines[line - 1].startswith(indent):
                last = line
            line += 1
        return last


def _last_block(s: ast.stmt, lines: list[str]) -> list[ast.stmt] | None:
    """The statements of the last clause of ``s`` (None for a simple statement)."""
    if isinstance(s, ast.If):
        if not s.orelse:
            return s.body
        nxt = s.orelse[0]
        if len(s.orelse) == 1 and isinstance(nxt, ast.If) and \
                lines[nxt.lineno - 1].lstrip().startswith("elif"):
            return _last_block(nxt, lines)
        return s.orelse
    if isinstance(s, ast.For | ast.AsyncFor | ast.While):
        return s.orelse or s.body
    if isinstance(s, ast.Try | ast.TryStar):
        return s.finalbody or s.orelse or (s.handlers[-1].body if s.handlers else s.body)
    if isinstance(s, ast.Match):
        return s.cases[-1].body if s.cases else None
    if isinstance(s, _BLOCKS):
        return s.body
    return None


def shifted(e: PyEdit, by: int, hollow: Sequence[tuple[int, int]] = ()) -> PyEdit:
    """``e`` with its lines moved up by ``by``, and by the lines each of ``hollow``'s bodies
    loses (it becomes one line) for a line at or after the body's last."""
    def moved(line: int) -> int:
        return line - by - sum(last - first for first, last in hollow if line >= last)

    def pair(p: tuple[int, int] | None) -> tuple[int, int] | None:
        return None if p is None else (moved(p[0]), moved(p[1]))
    return dataclasses.replace(e, start=moved(e.start), end=moved(e.end),
                               statement=pair(e.statement), keep=pair(e.keep))
