"""Resolve stage, CMake: ``if()`` conditions decided by forced option values.

A profile's dropped features force CMake options (``cmake_options = { ENABLE_FA3 = false }``);
everything else about the build (the CUDA version, the platform, other variables) is unknown.
``evaluate_condition(text, forced)`` decides one condition as the extract stage records it
(``CMakeCommand.conditions``: the text between ``if(`` and ``)``, or ``NOT (...)`` for the
branches after it) in three values: ``True``, ``False``, or ``None`` when it depends on
something not forced, or when it uses syntax this evaluator does not know.

What is decided, with CMake's precedence (parentheses, unary tests, binary tests, ``NOT``,
``AND``, ``OR``, left to right):

- a forced option by name (``OPT``) or expanded (``${OPT}``, ``"${OPT}"``); ``DEFINED OPT``;
- the constants ``1 ON YES TRUE Y`` / ``0 OFF NO FALSE N IGNORE NOTFOUND *-NOTFOUND`` and
  numbers; an empty quoted string is false;
- ``STREQUAL``/``EQUAL`` (and their ``LESS``/``GREATER`` kin) between operands that are all
  known (literals, forced options);
- ``NOT``/``AND``/``OR`` in three-valued logic: ``X AND FALSE`` is false and ``X OR TRUE`` is
  true whatever ``X`` is.

Any other name, ``${VAR}``, unary or binary test (``EXISTS``, ``TARGET``, ``MATCHES``,
``VERSION_*`` ...) is unknown. Pure: no state, nothing read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["condition_options", "evaluate_condition", "forced_values", "is_false"]

_TRUE = {"1", "ON", "YES", "TRUE", "Y"}
_FALSE = {"0", "OFF", "NO", "FALSE", "N", "IGNORE", "NOTFOUND", ""}
_UNARY = {"EXISTS", "COMMAND", "DEFINED", "TARGET", "POLICY", "TEST", "IS_DIRECTORY",
          "IS_SYMLINK", "IS_ABSOLUTE", "IS_READABLE", "IS_WRITABLE", "IS_EXECUTABLE"}
_STRING_CMP = {"STREQUAL": "==", "STRLESS": "<", "STRGREATER": ">", "STRLESS_EQUAL": "<=",
               "STRGREATER_EQUAL": ">="}
_NUMBER_CMP = {"EQUAL": "==", "LESS": "<", "GREATER": ">", "LESS_EQUAL": "<=",
               "GREATER_EQUAL": ">="}
_BINARY = {*_STRING_CMP, *_NUMBER_CMP, "MATCHES", "VERSION_EQUAL", "VERSION_LESS",
           "VERSION_GREATER", "VERSION_LESS_EQUAL", "VERSION_GREATER_EQUAL", "IN_LIST",
           "IS_NEWER_THAN", "PATH_EQUAL"}
_VAR = re.compile(r"\$(?:ENV|CACHE)?\{([^${}]*)\}")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)")
_TOKEN = re.compile(r'\s*(?:(\()|(\))|"((?:[^"\\]|\\.)*)"|([^\s()"]+))')


def forced_values(options: Mapping[str, bool | str]) -> dict[str, str]:
    """``{name: True}`` -> ``{name: "ON"}``: the text a forced option expands to (a string
    variable, ``{"VLLM_TARGET_DEVICE": "cuda"}``, expands to itself)."""
    return {name: value if isinstance(value, str) else "ON" if value else "OFF"
            for name, value in options.items()}


class _Unparsable(Exception):
    pass


# a token: (text, quoted); parentheses are ("(", None) / (")", None)
_Tok = tuple[str, bool | None]


def _tokens(text: str) -> list[_Tok]:
    out: list[_Tok] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise _Unparsable(text)
        pos = m.end()
        if m.group(1):
            out.append(("(", None))
        elif m.group(2):
            out.append((")", None))
        elif m.group(3) is not None:
            out.append((m.group(3), True))
        elif m.group(4):
            out.append((m.group(4), False))
    return out


def _expand(text: str, forced: Mapping[str, str]) -> str | None:
    """``${OPT}`` of forced options replaced; None when any other ``${...}`` remains."""
    for _ in range(20):
        m = _VAR.search(text)
        if m is None:
            return text
        if m.group(0).startswith("${") and m.group(1) in forced:
            text = text[: m.start()] + forced[m.group(1)] + text[m.end():]
        else:
            return None
    return None


def _constant(value: str) -> bool | None:
    upper = value.upper()
    if upper in _TRUE:
        return True
    if upper in _FALSE or upper.endswith("-NOTFOUND"):
        return False
    if _NUMBER.fullmatch(value):
        return float(value) != 0
    return None


def _operand(tok: _Tok, forced: Mapping[str, str]) -> str | None:
    """The value an operand of a comparison stands for (unquoted names are variables)."""
    text, quoted = tok
    expanded = _expand(text, forced)
    if expanded is None:
        return None
    if not quoted and expanded != text:
        return expanded
    if not quoted:
        if expanded in forced:
            return forced[expanded]
        if _NUMBER.fullmatch(expanded):
            return expanded
        return None  # may name a variable we know nothing of
    return expanded


def _truth(tok: _Tok, forced: Mapping[str, str]) -> bool | None:
    """``if(<word>)``: a constant, a forced option's name, or unknown."""
    text, quoted = tok
    expanded = _expand(text, forced)
    if expanded is None:
        return None
    const = _constant(expanded)
    if const is not None:
        return const
    if not quoted and expanded in forced:
        return _constant(forced[expanded])
    return None  # another variable's name, or a string CMP0054 may dereference


def _compare(op: str, left: str | None, right: str | None) -> bool | None:
    if left is None or right is None:
        return None
    if op in _STRING_CMP:
        a, b = left, right
    elif op in _NUMBER_CMP:
        if not (_NUMBER.fullmatch(left) and _NUMBER.fullmatch(right)):
            return None
        fa, fb = float(left), float(right)
        return {"==": fa == fb, "<": fa < fb, ">": fa > fb, "<=": fa <= fb,
                ">=": fa >= fb}[_NUMBER_CMP[op]]
    else:
        return None
    return {"==": a == b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[_STRING_CMP[op]]


class _Parser:
    def __init__(self, toks: list[_Tok], forced: Mapping[str, str]) -> None:
        self.toks, self.forced, self.pos = toks, forced, 0

    def peek(self, k: int = 0) -> _Tok | None:
        i = self.pos + k
        return self.toks[i] if i < len(self.toks) else None

    def keyword(self, word: str, k: int = 0) -> bool:
        tok = self.peek(k)
        return tok is not None and tok[1] is False and tok[0] == word

    def take(self) -> _Tok:
        tok = self.peek()
        if tok is None:
            raise _Unparsable("unexpected end")
        self.pos += 1
        return tok

    def parse(self) -> bool | None:
        value = self.or_()
        if self.pos != len(self.toks):
            raise _Unparsable("trailing tokens")
        return value

    def or_(self) -> bool | None:
        values = [self.and_()]
        while self.keyword("OR"):
            self.pos += 1
            values.append(self.and_())
        if len(values) == 1:
            return values[0]
        return True if True in values else None if None in values else False

    def and_(self) -> bool | None:
        values = [self.not_()]
        while self.keyword("AND"):
            self.pos += 1
            values.append(self.not_())
        if len(values) == 1:
            return values[0]
        return False if False in values else None if None in values else True

    def not_(self) -> bool | None:
        if self.keyword("NOT"):
            self.pos += 1
            inner = self.not_()
            return None if inner is None else not inner
        return self.test()

    def test(self) -> bool | None:
        tok = self.take()
        if tok == (")", None):
            raise _Unparsable("unbalanced )")
        if tok == ("(", None):
            value = self.or_()
            if self.take() != (")", None):
                raise _Unparsable("unbalanced (")
            return value
        if tok[1] is False and tok[0] in _UNARY:
            arg = self.take()
            if arg[1] is None:
                raise _Unparsable("unary test of a parenthesis")
            if tok[0] == "DEFINED" and arg[1] is False and arg[0] in self.forced:
                return True
            return None
        nxt = self.peek()
        if nxt is not None and nxt[1] is False and nxt[0] in _BINARY:
            self.pos += 1
            right = self.take()
            if right[1] is None:
                raise _Unparsable("binary test of a parenthesis")
            return _compare(nxt[0], _operand(tok, self.forced), _operand(right, self.forced))
        return _truth(tok, self.forced)


def evaluate_condition(text: str, forced: Mapping[str, str]) -> bool | None:
    """The value of one ``if()`` condition (as the extract stage records it) when only the
    ``forced`` options (name -> ``"ON"``/``"OFF"``) are known; None when it is not decided."""
    if not forced:
        return None
    try:
        return _Parser(_tokens(text), forced).parse()
    except _Unparsable:
        return None


def is_false(conditions: tuple[str, ...], forced: Mapping[str, str]) -> str | None:
    """The first of ``conditions`` (a conjunction: the ``if()``s around a command) that is
    false with the ``forced`` options, or None when none is known to be false."""
    return next((c for c in conditions if evaluate_condition(c, forced) is False), None)


def condition_options(text: str, forced: Mapping[str, str]) -> tuple[str, ...]:
    """The forced options a condition names (bare or as ``${OPT}``), in order."""
    try:
        toks = _tokens(text)
    except _Unparsable:
        return ()
    names: list[str] = []
    for value, quoted in toks:
        if quoted is False and value in forced:
            names.append(value)
        names.extend(n for n in _VAR.findall(value) if n in forced)
    return tuple(dict.fromkeys(names))
