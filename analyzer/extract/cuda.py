"""Extract stage, C/C++/CUDA: ``extract(path, data) -> CudaFacts``.

A pure function of a file's path and bytes (never imports, compiles or runs anything). It
parses with tree-sitter-cuda (patterns in ``queries/cuda.scm``) and returns serialisable
facts: ``#include`` directives, function definitions/declarations with qualified names,
torch op registrations (``TORCH_LIBRARY*`` blocks with ``m.def`` / ``m.impl``) and pybind11
modules. Linking ops to Python callers and sources to CMake targets is the resolve stage's job.

Robustness: tree-sitter-cuda yields ERROR nodes on many real kernel files. Registrations
must never be lost, so besides the query matches a small token scanner (comments and string
literals understood) walks the whole file for registration blocks and ``m.def(`` /
``m.impl(`` calls; results are merged by source offset. Arguments of every call are read from
tokens, which handles adjacent string concatenation and macro-wrapped schemas alike.

``OpRegistration.op_name`` is the schema text before ``(``, keeping any overload suffix
(``"foo.out(Tensor a) -> ()"`` gives ``"foo.out"``); for ``m.def("name", &fn)`` and
``m.impl("name", ...)`` it is the string itself and ``schema`` is ``None``.
``OpRegistration.namespace`` is the block's first argument as written (tokens joined without
spaces: ``CONCAT(TORCH_EXTENSION_NAME,_cache_ops)``) and ``macro`` the block macro as written;
whether that names a literal namespace is decided by the graph stage, which also sees the
``#define``s of every file (``CudaFacts.defines``: every object- and function-like macro, with
the replacement text kept only for macros that expand to a ``TORCH_LIBRARY*`` block).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

import tree_sitter as ts

from analyzer.extract import treesitter as tsu
from analyzer.extract.fact import Fact
from analyzer.model import ParseProblem

BLOCK_TORCH = "TORCH_LIBRARY"
BLOCK_FRAGMENT = "TORCH_LIBRARY_FRAGMENT"
BLOCK_IMPL = "TORCH_LIBRARY_IMPL"

_BLOCK_MACRO = re.compile(r"^(TORCH_LIBRARY[A-Z0-9_]*|PYBIND11_MODULE)$")
_INCLUDE_LINE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]*)[>"]', re.M)
# `#define NAME(params) body`, the body running on over backslash-newlines
_DEFINE_LINE = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\([^)\n]*\))?"
    rb"((?:[^\n\\]|\\.)*(?:\\\n(?:[^\n\\]|\\.)*)*)", re.M)
_TOKEN = re.compile(
    r"""
    (?P<ws>\s+|\\\n)
  | (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
  | (?P<string>(?:u8|[uUL])?R"(?P<delim>[^()\\\s"]{0,16})\(.*?\)(?P=delim)"
      |(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*(?:"|$))
  | (?P<char>(?:u8|[uUL])?'(?:[^'\\\n]|\\.){1,8}')
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<number>\.?\d(?:[\w.]|'(?=\w))*)
  | (?P<punct>::|->|.)
    """,
    re.S | re.X | re.M,
)
_DECLARATOR_WRAPPERS = {
    "pointer_declarator", "reference_declarator", "attributed_declarator",
    "parenthesized_declarator",
}
_SCOPE_TYPES = {"namespace_definition", "class_specifier", "struct_specifier", "union_specifier"}
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "0": "\0", "r": "\r"}


@dataclass(frozen=True, slots=True)
class IncludeFact(Fact):
    target: str  # as written between the delimiters
    system: bool  # angle brackets
    line: int


@dataclass(frozen=True, slots=True)
class FunctionFact(Fact):
    name: str  # unqualified, template arguments stripped
    qualified_name: str  # enclosing namespaces/classes joined with "::"
    start_line: int
    end_line: int
    is_definition: bool


@dataclass(frozen=True, slots=True)
class OpRegistration(Fact):
    namespace: str  # first argument of the TORCH_LIBRARY* block
    op_name: str  # schema before "(", overload kept ("foo.out")
    schema: str | None  # full schema when the string has a "(" signature
    kind: str  # "def" | "impl"
    function: str | None  # C++ function linked via &fn / fn / torch::dispatch(K, &fn)
    dispatch_key: str | None  # "CUDA" for torch::kCUDA / c10::DispatchKey::CUDA / IMPL block
    block: str  # TORCH_LIBRARY | TORCH_LIBRARY_FRAGMENT | TORCH_LIBRARY_IMPL
    line: int
    end_line: int = 0  # last line of the call's arguments (multi-line schemas); 0 = unknown
    macro: str = ""  # the block macro as written (TORCH_LIBRARY_EXPAND, ...); "" = ``block``


@dataclass(frozen=True, slots=True)
class MacroDefine(Fact):
    """``#define NAME`` / ``#define NAME(A, B) body``: ``params`` is None for object-like
    macros; ``body`` (whitespace collapsed) when it names a ``TORCH_LIBRARY*`` macro or the
    macro is function-like and short."""

    name: str
    params: tuple[str, ...] | None
    body: str
    line: int


@dataclass(frozen=True, slots=True)
class PybindModule(Fact):
    name: str
    line: int
    functions: tuple[str, ...]  # m.def("fn", ...) names
    classes: tuple[str, ...] = ()  # py::class_<T>(m, "Name") / py::enum_<T>(m, "Name") names


@dataclass(frozen=True, slots=True)
class CudaFacts(Fact):
    path: str
    includes: tuple[IncludeFact, ...]
    functions: tuple[FunctionFact, ...]
    ops: tuple[OpRegistration, ...]
    pybind_modules: tuple[PybindModule, ...]
    problems: tuple[ParseProblem, ...]
    defines: tuple[MacroDefine, ...] = ()


@dataclass(frozen=True, slots=True)
class _Tok(Fact):
    kind: str
    text: str
    start: int  # byte offset (the scanner works on latin-1 text: one char per byte)


@dataclass
class _Block:
    macro: str
    args: list[str]
    start: int  # offset of the macro name
    body_start: int
    body_end: int
    line: int


def extract(path: str, data: bytes) -> CudaFacts:
    """Facts of one C/C++/CUDA file. Never raises on bad input: problems are listed instead."""
    root, data, problems = tsu.parse_source(path, data, "cuda")
    if root is None:
        return CudaFacts(path, (), (), (), (), tuple(problems))
    return _Extractor(path, data, root, problems).run()


class _Extractor:
    def __init__(self, path: str, data: bytes, root: ts.Node, problems: list[ParseProblem]):
        self.path = path
        self.data = data
        self.root = root
        self.problems = problems
        self.newlines = [m.start() for m in re.finditer(b"\n", data)]
        self.caps = tsu.captures(tsu.query("cuda"), root)
        # The token scan is the fallback for registrations; only files naming a block need it.
        has_blocks = b"TORCH_LIBRARY" in data or b"PYBIND11_MODULE" in data
        self.tokens = _tokens(self._latin(0, len(data))) if has_blocks else []

    def line(self, offset: int) -> int:
        return bisect_right(self.newlines, offset - 1) + 1

    def run(self) -> CudaFacts:
        blocks = self._blocks()
        ops, pybind = self._registrations(blocks)
        return CudaFacts(self.path, self._includes(), self._functions(), tuple(ops),
                         tuple(pybind), tuple(self.problems), self._defines())

    # -- macros --------------------------------------------------------------------------------
    def _defines(self) -> tuple[MacroDefine, ...]:
        out: list[MacroDefine] = []
        if b"define" not in self.data:
            return ()
        for m in _DEFINE_LINE.finditer(self.data):
            if self._in_comment(m.start(1)):
                continue
            name = m.group(1).decode("latin-1")
            params = None
            if m.group(2) is not None:
                inner = m.group(2).decode("latin-1")[1:-1]
                params = tuple(p.strip() for p in inner.split(",") if p.strip())
            body = ""
            raw = m.group(3).decode("latin-1").replace("\\\n", " ")
            if "TORCH_LIBRARY" in raw or (params is not None and len(raw) < 200):
                # block wrappers, and short function-like macros (CONCAT(A, B) -> A##B: what
                # a namespace written CONCAT(TORCH_EXTENSION_NAME, _cache_ops) expands to)
                body = re.sub(r"\s+", " ", re.sub(r"//[^\n]*|/\*.*?\*/", " ", raw)).strip()
            out.append(MacroDefine(name, params, body, self.line(m.start(1))))
        return tuple(out)

    # -- includes ------------------------------------------------------------------------------
    def _includes(self) -> tuple[IncludeFact, ...]:
        found: dict[int, IncludeFact] = {}
        for node in self.caps.get("include.path", []):
            raw = tsu.text(node).strip()
            system = node.type == "system_lib_string"
            target = raw[1:-1] if raw[:1] in "<\"" and len(raw) >= 2 else raw
            line = node.start_point[0] + 1
            found[line] = IncludeFact(target, system, line)
        # Fallback for directives swallowed by ERROR regions.
        for m in _INCLUDE_LINE.finditer(self.data):
            line = self.line(m.start(1))
            if line not in found and not self._in_comment(m.start(1)):
                target = m.group(2).decode("utf-8", "replace")
                found[line] = IncludeFact(target, m.group(1) == b"<", line)
        return tuple(found[k] for k in sorted(found))

    def _in_comment(self, offset: int) -> bool:
        node = self.root.descendant_for_byte_range(offset, offset + 1)
        return node is not None and node.type == "comment"

    # -- functions -----------------------------------------------------------------------------
    def _functions(self) -> tuple[FunctionFact, ...]:
        decls = self.caps.get("function.declarator", [])
        out: dict[tuple[int, int], FunctionFact] = {}
        for decl in decls:
            owner = decl.parent
            if owner is None:
                continue
            is_def = owner.type == "function_definition"
            if not is_def and _inside_body(owner):
                continue
            fdecl = _function_declarator(decl)
            if fdecl is None:
                continue
            name_node = fdecl.child_by_field_name("declarator")
            written = re.sub(r"\s+", "", tsu.text(name_node))
            if not written or _BLOCK_MACRO.match(written):
                continue
            if (is_def and owner.child_by_field_name("type") is None
                    and re.fullmatch(r"[A-Z][A-Z0-9_]*", written)):
                continue  # `SOME_MACRO(args) { ... }`: a macro invocation, not a function
            written = _strip_templates(written)
            prefix = _scope_prefix(owner)
            qualified = "::".join([*prefix, written]) if prefix else written
            name = written.rsplit("::", 1)[-1]
            key = (owner.start_byte, fdecl.start_byte)
            out[key] = FunctionFact(name, qualified, owner.start_point[0] + 1,
                                    owner.end_point[0] + 1, is_def)
        return tuple(out[k] for k in sorted(out))

    # -- registration blocks -------------------------------------------------------------------
    def _blocks(self) -> list[_Block]:
        blocks: dict[int, _Block] = {}
        for node in self.caps.get("block", []):
            macro = node.child_by_field_name("declarator")
            body = node.child_by_field_name("body")
            if macro is None or body is None:
                continue
            name_node = macro.child_by_field_name("declarator")
            params = macro.child_by_field_name("parameters")
            if name_node is None or params is None:
                continue
            args = _split_args(_tokens(self._latin(params.start_byte, params.end_byte))[1:-1])
            blocks[name_node.start_byte] = _Block(
                tsu.text(name_node), [_group_text(g) for g in args], name_node.start_byte,
                body.start_byte, body.end_byte, name_node.start_point[0] + 1)
        for block in _scan_blocks(self.tokens, len(self.data)):
            if block.start not in blocks:
                block.line = self.line(block.start)
                blocks[block.start] = block
        return [blocks[k] for k in sorted(blocks)]

    def _latin(self, start: int, end: int) -> str:
        return self.data[start:end].decode("latin-1")

    def _registrations(
            self, blocks: list[_Block]) -> tuple[list[OpRegistration], list[PybindModule]]:
        calls: dict[int, tuple[str, str, list[list[_Tok]]]] = {}  # offset -> receiver, method, args
        for node in self.caps.get("call", []):
            fn = node.child_by_field_name("function")
            arg_list = node.child_by_field_name("arguments")
            if fn is None or arg_list is None:
                continue
            recv_node = fn.child_by_field_name("argument")
            method_node = fn.child_by_field_name("field")
            toks = _tokens(self._latin(arg_list.start_byte, arg_list.end_byte),
                           arg_list.start_byte)
            calls[node.start_byte] = (tsu.text(recv_node), tsu.text(method_node),
                                      _split_args(toks[1:-1]))
        for offset, recv, method, args in _scan_calls(self.tokens):
            calls.setdefault(offset, (recv, method, args))
        ops: list[OpRegistration] = []
        modules: list[PybindModule] = []
        for block in blocks:
            var = block.args[-1] if block.args else "m"
            inside = sorted(o for o in calls if block.body_start <= o < block.body_end
                            and calls[o][0] == var)
            if block.macro == "PYBIND11_MODULE":
                names = []
                for o in inside:
                    if calls[o][1] == "def" and calls[o][2]:
                        first = _strings_of(calls[o][2][0])
                        if first:
                            names.append(first)
                name = block.args[0] if block.args else ""
                classes = _bound_classes(self.tokens, block, var)
                modules.append(PybindModule(name, block.line, tuple(names), classes))
                continue
            for o in inside:
                _recv, method, args = calls[o]
                last = max((t.start + len(t.text) for g in args for t in g), default=o)
                ops.append(self._op(block, method, args, self.line(o), self.line(last)))
        return ops, modules

    def _op(self, block: _Block, method: str, args: list[list[_Tok]], line: int,
            end_line: int) -> OpRegistration:
        kind_name = (BLOCK_IMPL if block.macro.startswith(BLOCK_IMPL)
                     else BLOCK_FRAGMENT if block.macro.startswith(BLOCK_FRAGMENT)
                     else BLOCK_TORCH)
        namespace = block.args[0] if block.args else ""
        block_key = _dispatch_key(block.args[1]) if kind_name == BLOCK_IMPL and len(
            block.args) >= 3 else None
        text = _strings_of(args[0]) if args else None
        if text is None and args:
            text = _macro_text(args[0])
        text = (text or "").strip()
        if "(" in text:
            op_name, schema = text.split("(", 1)[0].strip(), text
        else:
            op_name, schema = text, None
        function, key = None, None
        for group in args[1:]:
            f, k = _callable_arg(group)
            function = function or f
            key = key or k
        return OpRegistration(namespace, op_name, schema, method, function, key or block_key,
                              kind_name, line, max(line, end_line), block.macro)


# -- token helpers -------------------------------------------------------------------------------
def _tokens(text: str, base: int = 0) -> list[_Tok]:
    out: list[_Tok] = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or "punct"
        if kind in ("ws", "comment"):
            continue
        if kind == "delim":
            kind = "string"
        out.append(_Tok(kind, m.group(), base + m.start()))
    return out


def _match(toks: list[_Tok], i: int, open_: str, close: str) -> int:
    """Index of the token closing ``toks[i]`` (``len(toks)`` when unbalanced)."""
    depth = 0
    for j in range(i, len(toks)):
        t = toks[j].text
        if toks[j].kind != "punct":
            continue
        if t == open_:
            depth += 1
        elif t == close:
            depth -= 1
            if depth == 0:
                return j
    return len(toks)


def _split_args(toks: list[_Tok]) -> list[list[_Tok]]:
    groups: list[list[_Tok]] = [[]]
    depth = 0
    for t in toks:
        if t.kind == "punct" and t.text in "([{":
            depth += 1
        elif t.kind == "punct" and t.text in ")]}":
            depth -= 1
        elif t.kind == "punct" and t.text == "," and depth == 0:
            groups.append([])
            continue
        groups[-1].append(t)
    return [g for g in groups if g] if any(groups) else []


def _group_text(group: list[_Tok]) -> str:
    return "".join(t.text for t in group)


def _scan_blocks(toks: list[_Tok], size: int) -> list[_Block]:
    out: list[_Block] = []
    i = 0
    while i < len(toks) - 1:
        t = toks[i]
        if t.kind == "ident" and _BLOCK_MACRO.match(t.text) and toks[i + 1].text == "(":
            close = _match(toks, i + 1, "(", ")")
            if close + 1 < len(toks) and toks[close + 1].text == "{":
                end = _match(toks, close + 1, "{", "}")
                body_end = toks[end].start + 1 if end < len(toks) else size
                args = [_group_text(g) for g in _split_args(toks[i + 2:close])]
                out.append(_Block(t.text, args, t.start, toks[close + 1].start, body_end, 0))
                i = close + 1
                continue
        i += 1
    return out


def _scan_calls(toks: list[_Tok]) -> list[tuple[int, str, str, list[list[_Tok]]]]:
    out = []
    for i in range(len(toks) - 3):
        a, dot, meth, par = toks[i], toks[i + 1], toks[i + 2], toks[i + 3]
        if (a.kind == "ident" and dot.text == "." and meth.text in ("def", "impl")
                and par.text == "(" and (i == 0 or toks[i - 1].text not in (".", "->", "::"))):
            close = _match(toks, i + 3, "(", ")")
            out.append((a.start, a.text, meth.text, _split_args(toks[i + 4:close])))
    return out


def _bound_classes(toks: list[_Tok], block: _Block, var: str) -> tuple[str, ...]:
    """Names bound by ``py::class_<T>(m, "Name")`` / ``py::enum_<T>(m, "Name")`` in a block."""
    out: list[str] = []
    body = [t for t in toks if block.body_start <= t.start < block.body_end]
    for i, tok in enumerate(body):
        if tok.text not in ("class_", "enum_") or i + 1 >= len(body) or body[i + 1].text != "<":
            continue
        j = _match(body, i + 1, "<", ">")
        if j + 1 < len(body) and body[j + 1].text == "(":
            args = _split_args(body[j + 2:_match(body, j + 1, "(", ")")])
            if len(args) >= 2 and _group_text(args[0]) == var and (s := _strings_of(args[1])):
                out.append(s)
    return tuple(out)


def _unquote(tok: str) -> str:
    body = tok[tok.index('"'):]
    if tok[: tok.index('"')].endswith("R"):
        delim = body[1:body.index("(")]
        inner = body[len(delim) + 2: len(body) - len(delim) - 2]
    else:
        inner = body[1:-1] if len(body) >= 2 and body.endswith('"') else body[1:]
        inner = re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), inner)
    return inner.encode("latin-1", "replace").decode("utf-8", "replace")


def _strings_of(group: list[_Tok]) -> str | None:
    """Concatenated string literals of an argument (covers `"a" "b"` and `MACRO("a")`)."""
    parts = [_unquote(t.text) for t in group if t.kind == "string"]
    return "".join(parts) if parts else None


def _macro_text(group: list[_Tok]) -> str | None:
    """`STRINGIFY(foo(Tensor a) -> ())` -> the source text inside the macro's parentheses."""
    if len(group) >= 3 and group[0].kind == "ident" and group[1].text == "(":
        close = _match(group, 1, "(", ")")
        inner = group[2:close]
        text = ""
        for prev, tok in zip([None, *inner], inner, strict=False):
            gap = prev is not None and tok.start > prev.start + len(prev.text)
            text += (" " if gap else "") + tok.text
        return text.encode("latin-1", "replace").decode("utf-8", "replace")
    return None


def _path_at(group: list[_Tok], i: int) -> tuple[str, int]:
    """Qualified identifier starting at ``group[i]`` and the index after it."""
    parts = []
    while i < len(group) and (group[i].kind == "ident" or group[i].text == "::"):
        parts.append(group[i].text)
        i += 1
    return "".join(parts), i


def _dispatch_key(text: str) -> str | None:
    last = text.strip().rsplit("::", 1)[-1]
    if not last:
        return None
    return last[1:] if re.match(r"^k[A-Z]", last) else last


def _looks_like_key(path: str) -> bool:
    last = path.rsplit("::", 1)[-1]
    return "DispatchKey" in path or bool(re.match(r"^k[A-Z][A-Za-z0-9]*$", last))


def _callable_arg(group: list[_Tok]) -> tuple[str | None, str | None]:
    """(function, dispatch key) named by one argument after the schema."""
    if not group or group[0].text == "[":  # nothing, or a lambda
        return None, None
    head, after = _path_at(group, 0)
    if head.endswith("dispatch") and after < len(group) and group[after].text == "(":
        close = _match(group, after, "(", ")")
        inner = _split_args(group[after + 1:close])
        key = _dispatch_key(_group_text(inner[0])) if inner else None
        fn = _callable_arg(inner[1])[0] if len(inner) > 1 else None
        return fn, key
    if head and after == len(group):
        return (None, _dispatch_key(head)) if _looks_like_key(head) else (head, None)
    for i, tok in enumerate(group):  # &fn, TORCH_FN(fn), makeFromBoxedFunction<&fn>()
        if tok.text == "&" and i + 1 < len(group) and group[i + 1].kind == "ident":
            return _path_at(group, i + 1)[0], None
    if head in ("TORCH_FN", "TORCH_FN_TYPE") and after + 1 < len(group):
        return _path_at(group, after + 1)[0] or None, None
    return None, None


# -- tree helpers --------------------------------------------------------------------------------
def _function_declarator(node: ts.Node | None) -> ts.Node | None:
    while node is not None:
        if node.type == "function_declarator":
            return node
        if node.type not in _DECLARATOR_WRAPPERS:
            return None
        node = node.child_by_field_name("declarator") or (
            node.named_children[-1] if node.named_children else None)
    return None


def _inside_body(node: ts.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type in ("compound_statement", "lambda_expression"):
            return True
        parent = parent.parent
    return False


def _scope_prefix(node: ts.Node) -> list[str]:
    names: list[str] = []
    parent = node.parent
    while parent is not None:
        if parent.type in _SCOPE_TYPES:
            name = parent.child_by_field_name("name")
            if name is not None:
                names.append(_strip_templates(re.sub(r"\s+", "", tsu.text(name))))
            elif parent.type == "namespace_definition":
                names.append("(anonymous)")
        parent = parent.parent
    return list(reversed(names))


def _strip_templates(name: str) -> str:
    if name.startswith("operator"):
        return name
    out, depth = [], 0
    for ch in name:
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)
