"""Extract stage, CMake: ``extract(path, data) -> CmakeFacts``.

Purely syntactic and pure (path + bytes in, facts out): every command invocation in source
order with its arguments, line range and the ``if``/``elseif``/``else`` conditions it sits
under (as text; nothing is evaluated). Flow-control commands (``if``, ``endif``, ``foreach``,
``function`` ...) are listed too, so later stages know their line ranges. Variables,
includes, targets and fetched repos are worked out by the resolve stage
(``analyzer.resolve.cmake``).

Commands come from tree-sitter-cmake (patterns in ``queries/cmake.scm``). Regions the parser
marks as ERROR (unbalanced parentheses, unterminated strings ...) are re-read by a small
tolerant scanner that recovers at the next line starting with ``name(``; each recovery is
reported as a parse problem. Malformed input never raises.

Conditions: ``if(A)`` gives ``("A",)`` inside its body; an ``elseif(B)`` branch gives
``("NOT (A)", "B")`` and an ``else()`` branch ``("NOT (A)", "NOT (B)")``; nested ``if``s append.
The flow-control commands themselves carry the conditions around them, not their own.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

import tree_sitter as ts

from analyzer.extract import treesitter as tsu
from analyzer.extract.fact import Fact
from analyzer.model import ParseProblem

_IDENT_CALL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*[ \t]*\(")
_BRACKET_OPEN = re.compile(r"\[(=*)\[")
_WS = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class CMakeArg(Fact):
    value: str  # unquoted: as written; quoted / [[bracket]]: the content without delimiters
    quoted: bool
    line: int


@dataclass(frozen=True, slots=True)
class CMakeCommand(Fact):
    name: str  # lower-cased
    args: tuple[CMakeArg, ...]
    start_line: int
    end_line: int
    conditions: tuple[str, ...]  # enclosing if/elseif/else conditions, outermost first


@dataclass(frozen=True, slots=True)
class CmakeFacts(Fact):
    path: str
    commands: tuple[CMakeCommand, ...]
    problems: tuple[ParseProblem, ...]


@dataclass
class _Raw:
    """A command before conditions are known: name, args, lines, condition text."""

    start: int  # sort key (character offset)
    name: str
    args: list[CMakeArg]
    start_line: int
    end_line: int
    cond_text: str


def extract(path: str, data: bytes) -> CmakeFacts:
    """Commands of one CMake file. Never raises on bad input: problems are listed instead."""
    root, data, problems = tsu.parse_source(path, data, "cmake")
    if root is None:
        return CmakeFacts(path, (), tuple(problems))
    raws = _from_tree(root, data, problems, path)
    return CmakeFacts(path, _with_conditions(raws, problems, path), tuple(problems))


# -- tree-sitter path ----------------------------------------------------------------------------
def _from_tree(root: ts.Node, data: bytes, problems: list[ParseProblem], path: str) -> list[_Raw]:
    caps = tsu.captures(tsu.query("cmake"), root)
    commands = caps.get("command", [])
    # ERROR nodes, plus commands holding a MISSING node (e.g. an unclosed final command).
    errors = _top_errors(sorted([*caps.get("error", []), *(c for c in commands if c.has_error)],
                                key=lambda n: n.start_byte))
    args_by_list: dict[int, list[ts.Node]] = {}
    for arg in caps.get("argument", []):
        if arg.parent is not None:
            args_by_list.setdefault(arg.parent.id, []).append(arg)
    # Widen each ERROR region to whole lines and to any command overlapping it.
    regions: list[list[int]] = []
    for err in errors:
        start = data.rfind(b"\n", 0, err.start_byte) + 1
        end = data.find(b"\n", err.end_byte)
        end = len(data) if end < 0 else end
        for cmd in commands:
            if cmd.start_byte < end and cmd.end_byte > start:
                start, end = min(start, cmd.start_byte), max(end, cmd.end_byte)
        if regions and start <= regions[-1][1]:
            regions[-1][1] = max(regions[-1][1], end)
        else:
            regions.append([start, end])
    out: list[_Raw] = []
    for cmd in commands:
        if any(s <= cmd.start_byte < e for s, e in regions):
            continue
        name_node = cmd.named_children[0] if cmd.named_children else None
        arg_list = next((c for c in cmd.named_children if c.type == "argument_list"), None)
        args = [_arg(a) for a in args_by_list.get(arg_list.id, [])] if arg_list else []
        body = data[cmd.start_byte:cmd.end_byte].decode("utf-8", "replace")
        out.append(_Raw(cmd.start_byte, tsu.text(name_node).lower(), args,
                        cmd.start_point[0] + 1, cmd.end_point[0] + 1, _cond_text(body)))
    for start, end in regions:
        line0 = data.count(b"\n", 0, start) + 1
        text = data[start:end].decode("utf-8", "replace")
        for raw in _Scanner(text, line0, path, problems).commands():
            raw.start += start
            out.append(raw)
    out.sort(key=lambda r: r.start)
    return out


def _top_errors(errors: list[ts.Node]) -> list[ts.Node]:
    out: list[ts.Node] = []
    for err in errors:
        if out and err.start_byte < out[-1].end_byte:
            continue
        out.append(err)
    return out


def _arg(node: ts.Node) -> CMakeArg:
    line = node.start_point[0] + 1
    child = node.named_children[0] if node.named_children else None
    if child is None:
        return CMakeArg(tsu.text(node), False, line)
    if child.type == "quoted_argument":
        return CMakeArg(tsu.text(child)[1:-1], True, line)
    if child.type == "bracket_argument":
        content = next((c for c in child.named_children
                        if c.type == "bracket_argument_content"), None)
        return CMakeArg(tsu.text(content), True, line)
    return CMakeArg(tsu.text(child), False, line)


def _cond_text(command_text: str) -> str:
    """Text between a command's outer parentheses, whitespace collapsed, comments dropped."""
    open_ = command_text.find("(")
    close = command_text.rfind(")")
    inner = command_text[open_ + 1: close if close > open_ else len(command_text)]
    inner = re.sub(r"#[^\n]*", "", inner) if '"' not in inner else inner
    return _WS.sub(" ", inner).strip()


# -- tolerant scanner for ERROR regions ----------------------------------------------------------
class _Scanner:
    def __init__(self, text: str, line0: int, path: str, problems: list[ParseProblem]):
        self.text = text
        self.pos = 0
        self.line0 = line0
        self.path = path
        self.problems = problems
        self.newlines = [i for i, c in enumerate(text) if c == "\n"]

    def line(self, pos: int) -> int:
        return self.line0 + bisect_right(self.newlines, pos - 1)

    def problem(self, pos: int, message: str) -> None:
        self.problems.append(ParseProblem(self.path, self.line(pos), "syntax-error", message))

    def commands(self) -> list[_Raw]:
        out: list[_Raw] = []
        text, n = self.text, len(self.text)
        while self.pos < n:
            ch = text[self.pos]
            if ch.isspace():
                self.pos += 1
            elif ch == "#":
                self._comment()
            elif m := _IDENT_CALL.match(text, self.pos):
                out.append(self._command(m))
            else:
                end = self.pos
                while end < n and not text[end].isspace():
                    end += 1
                self.problem(self.pos, f"unexpected text {text[self.pos:end][:40]!r}")
                self.pos = end
        return out

    def _comment(self) -> None:
        m = _BRACKET_OPEN.match(self.text, self.pos + 1)
        if m:
            close = self.text.find("]" + m.group(1) + "]", m.end())
            self.pos = len(self.text) if close < 0 else close + len(m.group(1)) + 2
        else:
            end = self.text.find("\n", self.pos)
            self.pos = len(self.text) if end < 0 else end

    def _command(self, m: re.Match[str]) -> _Raw:
        text, n = self.text, len(self.text)
        start = m.start()
        name = m.group().rstrip("( \t").lower()
        self.pos = m.end()
        depth, args = 1, []
        end = n
        while self.pos < n:
            ch = text[self.pos]
            if ch == "\n":
                nxt = self.pos + 1
                while nxt < n and text[nxt] in " \t":
                    nxt += 1
                if depth >= 1 and _IDENT_CALL.match(text, nxt):
                    self.problem(start, f"missing ')' in {name}(...)")
                    end = self.pos
                    break
                self.pos += 1
            elif ch.isspace():
                self.pos += 1
            elif ch == "#":
                self._comment()
            elif ch == "(":
                depth += 1
                self.pos += 1
            elif ch == ")":
                depth -= 1
                self.pos += 1
                if depth == 0:
                    end = self.pos
                    break
            elif ch == '"':
                args.append(self._quoted())
            elif (b := _BRACKET_OPEN.match(text, self.pos)) is not None:
                args.append(self._bracket(b))
            else:
                args.append(self._unquoted())
        else:
            self.problem(start, f"missing ')' in {name}(...)")
        return _Raw(start, name, args, self.line(start), self.line(max(start, end - 1)),
                    _cond_text(text[start:end]))

    def _quoted(self) -> CMakeArg:
        start = self.pos
        i = start + 1
        while i < len(self.text) and self.text[i] != '"':
            i += 2 if self.text[i] == "\\" else 1
        if i >= len(self.text):
            self.problem(start, "unterminated quoted argument")
        self.pos = min(i + 1, len(self.text))
        return CMakeArg(self.text[start + 1: i], True, self.line(start))

    def _bracket(self, m: re.Match[str]) -> CMakeArg:
        close = self.text.find("]" + m.group(1) + "]", m.end())
        if close < 0:
            self.problem(m.start(), "unterminated bracket argument")
            close = len(self.text)
        self.pos = min(close + len(m.group(1)) + 2, len(self.text))
        return CMakeArg(self.text[m.end(): close], True, self.line(m.start()))

    def _unquoted(self) -> CMakeArg:
        start, i, text = self.pos, self.pos, self.text
        while i < len(text) and not text[i].isspace() and text[i] not in '()"#':
            i += 2 if text[i] == "\\" else 1
        i = max(i, start + 1)
        self.pos = i
        return CMakeArg(text[start:i], False, self.line(start))


# -- conditions ----------------------------------------------------------------------------------
def _with_conditions(raws: list[_Raw], problems: list[ParseProblem],
                     path: str) -> tuple[CMakeCommand, ...]:
    frames: list[tuple[list[str], str | None]] = []  # (earlier branch conds, current cond)

    def current() -> tuple[str, ...]:
        out: list[str] = []
        for prior, cond in frames:
            out.extend(f"NOT ({p})" for p in prior)
            if cond is not None:
                out.append(cond)
        return tuple(out)

    commands: list[CMakeCommand] = []
    for raw in raws:
        if raw.name in ("elseif", "else", "endif") and not frames:
            problems.append(ParseProblem(path, raw.start_line, "syntax-error",
                                         f"{raw.name}() without if()"))
            commands.append(_cmd(raw, current()))
            continue
        if raw.name in ("elseif", "else", "endif"):
            prior, cond = frames.pop()
            outer = current()
            if raw.name != "endif":
                if cond is not None:
                    prior = [*prior, cond]
                frames.append((prior, raw.cond_text if raw.name == "elseif" else None))
            commands.append(_cmd(raw, outer))
            continue
        commands.append(_cmd(raw, current()))
        if raw.name == "if":
            frames.append(([], raw.cond_text))
    if frames:
        problems.append(ParseProblem(path, raws[-1].end_line if raws else 0, "syntax-error",
                                     f"{len(frames)} if() without endif()"))
    return tuple(commands)


def _cmd(raw: _Raw, conditions: tuple[str, ...]) -> CMakeCommand:
    return CMakeCommand(raw.name, tuple(raw.args), raw.start_line, raw.end_line, conditions)
