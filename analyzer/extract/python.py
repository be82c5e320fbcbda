"""Extract stage, Python: ``extract(path, data) -> PythonFacts``.

A pure function of a file's path and bytes. It parses with tree-sitter (patterns in
``queries/python.scm``) and returns serialisable facts: imports with their context, top-level
definitions with line ranges, decorators, the names each definition and the module body read,
``__all__``, dynamic imports, dotted-path strings and ``torch.ops`` uses. Nothing here knows
about other files; resolving names to files is the resolve stage's job.

Scopes: every fact carries ``scope``, the name of the top-level definition it sits in
(methods belong to their class), or ``""`` for the module body. Decorators, default values and
annotations belong to the definition they decorate or annotate.

Guards: every ``if`` statement, conditional expression and ``try``/``except ImportError`` is
a ``Branch`` with its clauses' line ranges and conditions as ``Cond`` trees, and module-level
``NAME = expr`` assignments are ``ModuleAssign`` facts, so the analysis stage
(``analyzer/analysis/guards.py``) can fold platform probes and config comparisons.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, replace

import tree_sitter as ts

from analyzer.extract import treesitter as tsu
from analyzer.model import ParseProblem

# Import contexts.
IN_FUNCTION = "function"
TYPE_CHECKING = "type_checking"
TRY_IMPORT_ERROR = "try_import_error"
CONDITIONAL = "conditional"

_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_]\w*)?$")
_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}
_DYNAMIC_IMPORT_CALLS = {"importlib.import_module", "import_module", "__import__"}
_PACKAGE_WALK_CALLS = {
    "pkgutil.iter_modules": "iter_modules",
    "pkgutil.walk_packages": "walk_packages",
    "iter_modules": "iter_modules",
    "walk_packages": "walk_packages",
    "os.listdir": "listdir",
    "os.walk": "listdir",
    "os.scandir": "listdir",
    "glob.glob": "listdir",
}
_DEF_TYPES = {"function_definition", "class_definition"}
_COMPOUND_TYPES = {
    "if_statement",
    "try_statement",
    "with_statement",
    "for_statement",
    "while_statement",
    "match_statement",
}


@dataclass(frozen=True)
class ImportedName:
    """One name of a ``from m import name as alias`` (``name == "*"`` for a star import)."""

    name: str
    alias: str | None


@dataclass(frozen=True)
class ImportFact:
    """One imported module of an import statement (``import a, b`` gives two facts)."""

    module: str  # dotted module as written, without leading dots ("" in `from . import x`)
    level: int  # leading dots of a relative import
    is_from: bool
    names: tuple[ImportedName, ...]  # from-imports only
    alias: str | None  # `import a.b as c` -> "c"
    start_line: int  # the whole statement, 1-based inclusive
    end_line: int
    scope: str
    context: tuple[str, ...]  # IN_FUNCTION / TYPE_CHECKING / TRY_IMPORT_ERROR / CONDITIONAL
    # Lines of the enclosing `if` when this import is the only statement of its body and the
    # `if` has no elif/else: deleting the import alone would leave an empty block.
    sole_in_if: tuple[int, int] | None = None


@dataclass(frozen=True)
class Decorator:
    name: str  # dotted callee, e.g. "register_attention_backend" or "CustomOp.register"
    is_call: bool
    string_args: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class Definition:
    """A top-level binding: function, class or assignment (incl. those under top-level if/try)."""

    name: str
    kind: str  # "function" | "class" | "assignment"
    start_line: int  # first decorator line for decorated definitions
    end_line: int
    decorators: tuple[Decorator, ...]
    nested: bool  # inside a top-level compound statement (if/try/with/...)


@dataclass(frozen=True)
class Reference:
    """A dotted name chain read in a scope (``a.b.c`` from ``a.b.c(x)``)."""

    chain: str
    scope: str
    line: int


@dataclass(frozen=True)
class StringRef:
    """A string literal that may spell a module or symbol, or a dynamic import of one."""

    value: str
    kind: str  # "dotted" | "import_module"
    scope: str
    line: int
    call: str | None = None  # dotted callee when the string is a positional call argument


@dataclass(frozen=True)
class PackageWalk:
    """A call that lists modules or folders, or imports a computed name: the signs of a module
    that loads packages dynamically."""

    kind: str  # "iter_modules" | "walk_packages" | "listdir" | "dynamic_import" (non-literal)
    scope: str
    line: int


@dataclass(frozen=True)
class Cond:
    """A condition as a small expression tree (serialisable: strings and tuples only).

    ``kind``: ``name`` (value: dotted chain; zero-argument calls inside a chain are kept as
    ``f().attr``), ``call`` (value: dotted callee; args: positional string-literal arguments;
    children: the other positional arguments), ``str`` (value), ``const`` (value: ``True``,
    ``False``, ``None`` or an integer's text), ``strs`` (args: a tuple/list/set of string
    literals), ``not`` / ``and`` / ``or`` (children), ``cmp`` (value: the operator, one of
    ``== != is is not in not in < <= > >=``; children: two operands) and ``unknown``
    (value: the source text, shortened). Parentheses are unwrapped.
    """

    kind: str
    value: str = ""
    args: tuple[str, ...] = ()
    children: tuple[Cond, ...] = ()


@dataclass(frozen=True)
class Clause:
    """One clause of a ``Branch``: ``if``/``elif``/``else`` of an if statement, the ``if``
    (true) and ``else`` arms of a conditional expression, or ``try``/``except``/``else``/
    ``finally`` of a try statement (``cond`` of an except clause: the caught names; None for a
    bare ``except``). Lines are 1-based inclusive and include the clause's header."""

    kind: str
    cond: Cond | None
    start_line: int
    end_line: int
    body_start_line: int
    start_byte: int = 0
    end_byte: int = 0
    own_lines: bool = False  # ifexp arm: no other code shares its lines (brackets aside)


@dataclass(frozen=True)
class Branch:
    """An ``if`` statement (kind ``if``), a conditional expression ``a if c else b`` (kind
    ``ifexp``; byte spans locate arms sharing a line) or a ``try`` statement whose except
    clauses catch ImportError (kind ``try_import``)."""

    kind: str
    clauses: tuple[Clause, ...]
    start_line: int
    end_line: int
    scope: str
    depth: int  # enclosing blocks: 0 for a module body statement
    start_byte: int = 0
    end_byte: int = 0
    import_lines: tuple[int, ...] = ()  # try_import: imports directly in the try body
    body_lines: tuple[int, ...] = ()  # try_import: every statement directly in the try body
    sole_in_block: bool = False  # the only statement of its block (deleting it needs `pass`)


@dataclass(frozen=True)
class ModuleAssign:
    """A module-level unconditional ``NAME = expr`` (or ``NAME: T = expr``)."""

    name: str
    cond: Cond
    line: int


@dataclass(frozen=True)
class PythonFacts:
    path: str
    line_count: int
    imports: tuple[ImportFact, ...]
    definitions: tuple[Definition, ...]
    references: tuple[Reference, ...]
    all_names: tuple[str, ...] | None
    strings: tuple[StringRef, ...]
    package_walks: tuple[PackageWalk, ...]
    problems: tuple[ParseProblem, ...]
    main_guard_line: int | None = None  # `if __name__ == "__main__":` at module level
    branches: tuple[Branch, ...] = ()
    assigns: tuple[ModuleAssign, ...] = ()


def extract(path: str, data: bytes) -> PythonFacts:
    """Facts of one Python file. Never raises on bad input: problems are listed instead."""
    problems: list[ParseProblem] = []
    if b"\x00" in data[:8192]:
        problems.append(ParseProblem(path, 0, "binary", "file contains NUL bytes; not parsed"))
        return _empty(path, problems)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        problems.append(ParseProblem(path, line, "invalid-utf8", f"invalid UTF-8: {exc.reason}"))
        data = data.decode("utf-8", "replace").encode("utf-8")
    tree = tsu.parser("python").parse(data)
    root = tree.root_node
    for line, what in tsu.error_lines(root):
        problems.append(ParseProblem(path, line, "syntax-error", what))
    return _Extractor(path, data, root, problems).run()


def _main_guard(root: ts.Node) -> int | None:
    for stmt in root.named_children:
        if stmt.type == "if_statement":
            condition = tsu.text(stmt.child_by_field_name("condition")).replace("'", '"')
            if "__name__" in condition and '"__main__"' in condition:
                return _line(stmt)
    return None


def _call_of(node: ts.Node) -> str | None:
    """Dotted callee if ``node`` is a positional argument of a call."""
    parent = node.parent
    if parent is None or parent.type != "argument_list" or parent.parent is None:
        return None
    func = parent.parent.child_by_field_name("function")
    return _chain(func) if func is not None else None


def _empty(path: str, problems: list[ParseProblem]) -> PythonFacts:
    return PythonFacts(path, 0, (), (), (), None, (), (), tuple(problems))


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


class _Extractor:
    def __init__(self, path: str, data: bytes, root: ts.Node, problems: list[ParseProblem]):
        self.path = path
        self.data = data
        self.root = root
        self.problems = problems
        self.definitions: list[Definition] = []
        # Byte ranges of the outermost definitions, for scope lookup by bisection.
        self._scope_starts: list[int] = []
        self._scope_spans: list[tuple[int, int, str]] = []

    def run(self) -> PythonFacts:
        self._collect_definitions(self.root, nested=False)
        spans = sorted(self._scope_spans)
        self._scope_spans = spans
        self._scope_starts = [s for s, _, _ in spans]
        caps: dict[str, list[ts.Node]] = {}
        calls: list[tuple[ts.Node, ts.Node]] = []
        for _, match in tsu.matches(tsu.query("python"), self.root):
            if "call.function" in match:
                calls.append((match["call.function"][0], match["call.arguments"][0]))
                continue
            for capture, nodes in match.items():
                caps.setdefault(capture, []).extend(nodes)
        imports = [f for n in caps.get("import", []) for f in self._import_facts(n)]
        references = self._references(caps.get("name", []))
        strings = self._strings(caps.get("string", []))
        strings.extend(self._dynamic_imports(calls))
        walks = self._package_walks(calls)
        ends_open = bool(self.data) and not self.data.endswith(b"\n")
        line_count = self.data.count(b"\n") + int(ends_open)
        return PythonFacts(
            path=self.path,
            line_count=line_count,
            imports=tuple(imports),
            definitions=tuple(self.definitions),
            references=tuple(references),
            all_names=self._all_names(caps.get("all.value", [])),
            strings=tuple(sorted(set(strings),
                                 key=lambda s: (s.line, s.value, s.kind, s.call or ""))),
            package_walks=tuple(walks),
            problems=tuple(self.problems),
            main_guard_line=_main_guard(self.root),
            branches=tuple(self._branches(caps)),
            assigns=tuple(self._module_assigns(
                {tsu.text(n) for n in caps.get("global.name", [])})),
        )

    # -- definitions and scopes ------------------------------------------------------------
    def _collect_definitions(self, block: ts.Node, nested: bool) -> None:
        for stmt in block.named_children:
            if stmt.type == "decorated_definition":
                inner = stmt.child_by_field_name("definition")
                if inner is not None:
                    decorators = tuple(self._decorator(d) for d in stmt.named_children
                                       if d.type == "decorator")
                    self._add_def(inner, stmt, decorators, nested)
            elif stmt.type in _DEF_TYPES:
                self._add_def(stmt, stmt, (), nested)
            elif stmt.type == "expression_statement":
                for expr in stmt.named_children:
                    if expr.type == "assignment":
                        self._add_assignment(expr, stmt, nested)
            elif stmt.type in _COMPOUND_TYPES:
                for sub in self._blocks_of(stmt):
                    self._collect_definitions(sub, nested=True)

    @staticmethod
    def _blocks_of(stmt: ts.Node) -> list[ts.Node]:
        out: list[ts.Node] = []
        stack = list(stmt.named_children)
        while stack:
            node = stack.pop(0)
            if node.type == "block":
                out.append(node)
            elif node.type in {"elif_clause", "else_clause", "except_clause", "finally_clause",
                               "except_group_clause", "case_clause"}:
                stack.extend(node.named_children)
        return out

    def _add_def(self, node: ts.Node, outer: ts.Node, decorators: tuple[Decorator, ...],
                 nested: bool) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        name = tsu.text(name_node)
        kind = "class" if node.type == "class_definition" else "function"
        self.definitions.append(
            Definition(name, kind, _line(outer), _end_line(outer), decorators, nested))
        self._scope_spans.append((outer.start_byte, outer.end_byte, name))

    def _add_assignment(self, expr: ts.Node, stmt: ts.Node, nested: bool) -> None:
        left = expr.child_by_field_name("left")
        targets = [left] if left is not None else []
        names: list[str] = []
        while targets:
            t = targets.pop()
            if t.type == "identifier":
                names.append(tsu.text(t))
            elif t.type in {"pattern_list", "tuple_pattern", "list_pattern", "tuple", "list"}:
                targets.extend(t.named_children)
        right = expr.child_by_field_name("right")
        if right is not None and right.type == "assignment":  # a = b = value
            self._add_assignment(right, stmt, nested)
        for name in sorted(set(names)):
            self.definitions.append(
                Definition(name, "assignment", _line(stmt), _end_line(stmt), (), nested))

    def _decorator(self, node: ts.Node) -> Decorator:
        expr = node.named_children[0] if node.named_children else node
        is_call = expr.type == "call"
        callee = expr.child_by_field_name("function") if is_call else expr
        args: list[str] = []
        if is_call:
            arg_list = expr.child_by_field_name("arguments")
            for arg in arg_list.named_children if arg_list is not None else []:
                value = arg.child_by_field_name("value") if arg.type == "keyword_argument" else arg
                if value is not None and value.type == "string":
                    s = _string_value(value)
                    if s is not None:
                        args.append(s)
        name = (_chain(callee) if callee is not None else None) or tsu.text(callee)
        return Decorator(name, is_call, tuple(args), _line(node))

    def _scope_of(self, node: ts.Node) -> str:
        i = bisect_right(self._scope_starts, node.start_byte) - 1
        if i >= 0:
            start, end, name = self._scope_spans[i]
            if start <= node.start_byte < end:
                return name
        return ""

    # -- imports -------------------------------------------------------------------------------
    def _import_facts(self, node: ts.Node) -> list[ImportFact]:
        start, end = _line(node), _end_line(node)
        scope = self._scope_of(node)
        context = self._context(node)
        sole = self._sole_in_if(node)
        facts: list[ImportFact] = []
        if node.type == "import_statement":
            for child in node.named_children:
                if child.type == "dotted_name":
                    facts.append(ImportFact(tsu.text(child), 0, False, (), None, start, end,
                                            scope, context, sole))
                elif child.type == "aliased_import":
                    mod = child.child_by_field_name("name")
                    alias = child.child_by_field_name("alias")
                    facts.append(ImportFact(tsu.text(mod), 0, False, (), tsu.text(alias) or None,
                                            start, end, scope, context, sole))
            return facts
        module_node = node.child_by_field_name("module_name")
        module, level = "", 0
        if module_node is not None and module_node.type == "relative_import":
            for part in module_node.named_children:
                if part.type == "import_prefix":
                    level = tsu.text(part).count(".")
                elif part.type == "dotted_name":
                    module = tsu.text(part)
        elif module_node is not None:
            module = tsu.text(module_node)
        names: list[ImportedName] = []
        for child in node.named_children:
            if child == module_node:
                continue
            if child.type == "wildcard_import":
                names.append(ImportedName("*", None))
            elif child.type == "dotted_name":
                names.append(ImportedName(tsu.text(child), None))
            elif child.type == "aliased_import":
                names.append(ImportedName(tsu.text(child.child_by_field_name("name")),
                                          tsu.text(child.child_by_field_name("alias")) or None))
        if module == "__future__":
            return []
        return [ImportFact(module, level, True, tuple(names), None, start, end, scope, context,
                           sole)]

    @staticmethod
    def _sole_in_if(node: ts.Node) -> tuple[int, int] | None:
        block = node.parent
        if block is None or block.type != "block" or block.parent is None:
            return None
        stmt = block.parent
        statements = [c for c in block.named_children if c.type != "comment"]
        if stmt.type != "if_statement" or statements != [node]:
            return None
        if stmt.child_by_field_name("alternative") is not None:
            return None
        return (_line(stmt), _end_line(stmt))

    def _context(self, node: ts.Node) -> tuple[str, ...]:
        found: set[str] = set()
        child, parent = node, node.parent
        while parent is not None:
            if parent.type in {"function_definition", "lambda"}:
                found.add(IN_FUNCTION)
            elif parent.type == "if_statement":
                condition = parent.child_by_field_name("condition")
                consequence = parent.child_by_field_name("consequence")
                if "TYPE_CHECKING" in tsu.text(condition) and child == consequence:
                    found.add(TYPE_CHECKING)
                else:
                    found.add(CONDITIONAL)
            elif parent.type in {"elif_clause", "else_clause"}:
                found.add(CONDITIONAL)
            elif parent.type == "try_statement" and child.type == "block" and any(
                    self._catches_import_error(c) for c in parent.named_children
                    if c.type == "except_clause"):
                found.add(TRY_IMPORT_ERROR)
            child, parent = parent, parent.parent
        return tuple(sorted(found))

    @staticmethod
    def _catches_import_error(clause: ts.Node) -> bool:
        kinds = [c for c in clause.named_children if c.type != "block"]
        if not kinds:
            return True  # bare except
        names = {tsu.text(n) for k in kinds for n in _walk(k) if n.type == "identifier"}
        return bool(names & _IMPORT_ERRORS)

    # -- references ----------------------------------------------------------------------------
    def _references(self, names: list[ts.Node]) -> list[Reference]:
        seen: set[tuple[str, str]] = set()
        out: list[Reference] = []
        data = self.data
        for node in names:
            head = data[node.start_byte:node.end_byte]
            if head in (b"self", b"cls"):  # instance/class attributes: never module names
                continue
            parent = node.parent
            if parent is None or not self._is_read(node, parent):
                continue
            top = node
            while (top.parent is not None and top.parent.type == "attribute"
                   and top.parent.start_byte == top.start_byte
                   and top.parent.child_by_field_name("object") == top):
                top = top.parent
            raw = data[top.start_byte:top.end_byte]
            if top is node or raw.replace(b".", b"").replace(b"_", b"").isalnum():
                chain = raw.decode("utf-8", "replace")
            else:  # spaces, newlines or comments inside the chain
                chain = _chain(top) or head.decode("utf-8", "replace")
            scope = self._scope_of(node)
            key = (chain, scope)
            if key in seen:
                continue
            seen.add(key)
            out.append(Reference(chain, scope, _line(node)))
        return out

    @staticmethod
    def _is_read(node: ts.Node, parent: ts.Node) -> bool:
        ptype = parent.type
        if ptype in {"dotted_name", "aliased_import", "import_prefix", "parameters",
                     "lambda_parameters", "global_statement", "nonlocal_statement"}:
            return False
        if ptype == "attribute":
            return parent.child_by_field_name("object") == node
        if ptype in {"function_definition", "class_definition"}:
            return parent.child_by_field_name("name") != node
        if ptype == "keyword_argument":
            return parent.child_by_field_name("name") != node
        if ptype in {"default_parameter", "typed_default_parameter", "typed_parameter"}:
            return parent.child_by_field_name("name") != node and parent.named_children[0] != node
        return ptype not in {"list_splat_pattern", "dictionary_splat_pattern"} or (
            parent.parent is None or parent.parent.type != "parameters")

    # -- strings, dynamic imports, package walks ----------------------------------------------
    def _strings(self, nodes: list[ts.Node]) -> list[StringRef]:
        out: list[StringRef] = []
        for node in nodes:
            value = _string_value(node)
            if value and _DOTTED.match(value):
                out.append(StringRef(value, "dotted", self._scope_of(node), _line(node),
                                     _call_of(node)))
        return out

    def _dynamic_imports(self, calls: list[tuple[ts.Node, ts.Node]]) -> list[StringRef]:
        out: list[StringRef] = []
        for func, args in calls:
            if _chain(func) not in _DYNAMIC_IMPORT_CALLS or not args.named_children:
                continue
            first = args.named_children[0]
            value = _string_value(first) if first.type == "string" else None
            if value:
                out.append(StringRef(value, "import_module", self._scope_of(func), _line(func)))
        return out

    def _package_walks(self, calls: list[tuple[ts.Node, ts.Node]]) -> list[PackageWalk]:
        out: list[PackageWalk] = []
        for func, args in calls:
            callee = _chain(func) or ""
            if callee in _PACKAGE_WALK_CALLS:
                out.append(PackageWalk(_PACKAGE_WALK_CALLS[callee], self._scope_of(func),
                                       _line(func)))
            elif callee in _DYNAMIC_IMPORT_CALLS and args.named_children and (
                    args.named_children[0].type != "string"
                    or _string_value(args.named_children[0]) is None):
                out.append(PackageWalk("dynamic_import", self._scope_of(func), _line(func)))
        return out

    def _all_names(self, values: list[ts.Node]) -> tuple[str, ...] | None:
        names: list[str] = []
        found = False
        for value in values:
            if self._scope_of(value):
                continue
            found = True
            for elem in value.named_children:
                if elem.type == "string" and (s := _string_value(elem)):
                    names.append(s)
        return tuple(names) if found else None

    # -- guards: branches and module-level assignments -----------------------------------------
    def _branches(self, caps: dict[str, list[ts.Node]]) -> list[Branch]:
        out: list[Branch] = []
        for node in caps.get("branch.if", []):
            out.append(self._branch(node, "if", _if_clauses(node)))
        for node in caps.get("branch.ifexp", []):
            arms = [c for c in node.named_children if c.type != "comment"]
            if len(arms) == 3:
                body, cond, other = arms
                arm = _clause("if", _cond(cond), body, body, body)
                alt = _clause("else", None, other, other, other)
                out.append(self._branch(node, "ifexp", [
                    replace(arm, own_lines=self._owns_lines(body)),
                    replace(alt, own_lines=self._owns_lines(other))]))
        for node in caps.get("branch.try", []):
            excepts = [c for c in node.named_children if c.type == "except_clause"]
            if not any(self._catches_import_error(c) for c in excepts):
                continue
            body = node.child_by_field_name("body")
            if body is None:
                continue
            stmts = [c for c in body.named_children if c.type != "comment"]
            clauses = [_clause("try", None, node, body, node, end=body)]
            for c in node.named_children:
                if c.type in {"except_clause", "else_clause", "finally_clause"}:
                    kind = c.type.split("_")[0]
                    block = next((b for b in c.named_children if b.type == "block"), c)
                    clauses.append(_clause(kind, _except_cond(c) if kind == "except" else None,
                                           c, block, c))
            out.append(self._branch(
                node, "try_import", clauses,
                import_lines=tuple(_line(s) for s in stmts
                                   if s.type in {"import_statement", "import_from_statement"}),
                body_lines=tuple(_line(s) for s in stmts)))
        out.sort(key=lambda b: (b.start_byte, b.kind))
        return out

    def _owns_lines(self, node: ts.Node) -> bool:
        data = self.data
        first = data.rfind(b"\n", 0, node.start_byte) + 1
        last = data.find(b"\n", node.end_byte)
        after = data[node.end_byte:last if last >= 0 else len(data)]
        return bool(_OPEN_ONLY.fullmatch(data[first:node.start_byte])
                    and _CLOSE_ONLY.fullmatch(after))

    def _branch(self, node: ts.Node, kind: str, clauses: list[Clause], **extra: object) -> Branch:
        depth, parent = 0, node.parent
        while parent is not None:
            depth += parent.type == "block"
            parent = parent.parent
        block = node.parent
        sole = kind != "ifexp" and block is not None and block.type == "block" and [
            c for c in block.named_children if c.type != "comment"] == [node]
        return Branch(kind, tuple(clauses), _line(node), _end_line(node), self._scope_of(node),
                      depth, node.start_byte, node.end_byte, sole_in_block=sole,
                      **extra)  # type: ignore[arg-type]

    def _module_assigns(self, rebound: set[str]) -> list[ModuleAssign]:
        """``NAME = expr`` of the module body; a name some function declares ``global``
        gets an ``unknown`` condition (it changes at run time)."""
        out: list[ModuleAssign] = []
        for stmt in self.root.named_children:
            if stmt.type != "expression_statement" or len(stmt.named_children) != 1:
                continue
            expr, names = stmt.named_children[0], []
            while expr.type == "assignment":
                left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
                if left is None or right is None or left.type != "identifier":
                    names = []
                    break
                names.append(tsu.text(left))
                expr = right
            if names:
                cond = _cond(expr)
                out.extend(ModuleAssign(n, Cond("unknown", f"global {n}") if n in rebound
                                        else cond, _line(stmt)) for n in names)
        return out


def _walk(node: ts.Node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.named_children)


# -- guards: conditions as Cond trees --------------------------------------------------------
_PLAIN_CHAIN = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_OPEN_ONLY = re.compile(rb"[\s(\[{,]*(?:else)?[\s(\[{]*")
_CLOSE_ONLY = re.compile(rb"[\s)\]},]*(?:#.*)?")
_CMP_OPS = {"==", "!=", "is", "is not", "in", "not in", "<", "<=", ">", ">="}
_CONSTS = {"true": "True", "false": "False", "none": "None"}


def _clause(kind: str, cond: Cond | None, node: ts.Node, body: ts.Node, start: ts.Node,
            end: ts.Node | None = None) -> Clause:
    """Clause from ``start`` (its header) to the end of ``end`` (default: ``node``)."""
    last = end if end is not None else node
    return Clause(kind, cond, _line(start), _end_line(last), _line(body), start.start_byte,
                  last.end_byte)


def _if_clauses(node: ts.Node) -> list[Clause]:
    body = node.child_by_field_name("consequence")
    cond = node.child_by_field_name("condition")
    out = [_clause("if", _cond(cond) if cond is not None else Cond("unknown"), node,
                   body or node, node, end=body or node)]
    for alt in node.children_by_field_name("alternative"):
        alt_body = alt.child_by_field_name("consequence" if alt.type == "elif_clause" else "body")
        if alt.type == "elif_clause":
            c = alt.child_by_field_name("condition")
            out.append(_clause("elif", _cond(c) if c is not None else Cond("unknown"), alt,
                               alt_body or alt, alt))
        else:
            out.append(_clause("else", None, alt, alt_body or alt, alt))
    return out


def _except_cond(clause: ts.Node) -> Cond | None:
    kinds = [c for c in clause.named_children if c.type not in {"block", "comment"}]
    if not kinds:
        return None
    value = kinds[0]
    if value.type == "as_pattern" and value.named_children:
        value = value.named_children[0]
    if value.type in {"tuple", "parenthesized_expression"}:
        names = [Cond("name", c) for n in value.named_children if (c := _chain(n))]
        return Cond("or", children=tuple(names)) if len(names) != 1 else names[0]
    return _cond(value)


def _cond_chain(node: ts.Node) -> str | None:
    """Dotted chain, allowing zero-argument calls inside it (``get_args().backend``)."""
    raw = node.text or b""
    if _PLAIN_CHAIN.fullmatch(raw):
        return raw.decode("utf-8")
    if node.type == "identifier":
        return tsu.text(node)
    if node.type == "attribute":
        obj, attr = node.child_by_field_name("object"), node.child_by_field_name("attribute")
        head = _cond_chain(obj) if obj is not None and attr is not None else None
        return f"{head}.{tsu.text(attr)}" if head else None
    if node.type == "call":
        func, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if func is None or args is None or args.type != "argument_list" or args.named_children:
            return None
        head = _cond_chain(func)
        return f"{head}()" if head else None
    return None


def _unknown(node: ts.Node) -> Cond:
    text = " ".join(tsu.text(node).split())
    return Cond("unknown", text if len(text) <= 80 else text[:77] + "...")


def _cond(node: ts.Node, depth: int = 0) -> Cond:
    """The ``Cond`` tree of an expression; ``unknown`` for anything else (never raises)."""
    t = node.type
    if depth > 40:
        return _unknown(node)
    if t == "parenthesized_expression":
        inner = [c for c in node.named_children if c.type != "comment"]
        return _cond(inner[0], depth + 1) if len(inner) == 1 else _unknown(node)
    if t in {"identifier", "attribute"}:
        chain = _cond_chain(node)
        return Cond("name", chain) if chain else _unknown(node)
    if t in _CONSTS:
        return Cond("const", _CONSTS[t])
    if t == "integer":
        text = tsu.text(node).replace("_", "")
        return Cond("const", str(int(text, 0))) if text.isdigit() else _unknown(node)
    if t == "string":
        value = _string_value(node)
        return Cond("str", value) if value is not None else _unknown(node)
    if t == "not_operator":
        arg = node.child_by_field_name("argument")
        return Cond("not", children=(_cond(arg, depth + 1),)) if arg is not None else _unknown(
            node)
    if t == "boolean_operator":
        op = tsu.text(node.child_by_field_name("operator"))
        parts: list[Cond] = []
        for side in (node.child_by_field_name("left"), node.child_by_field_name("right")):
            sub = _cond(side, depth + 1) if side is not None else Cond("unknown")
            parts.extend(sub.children if sub.kind == op else (sub,))
        return Cond(op, children=tuple(parts)) if op in {"and", "or"} else _unknown(node)
    if t == "comparison_operator":
        op_nodes = node.children_by_field_name("operators")
        operands = [c for c in node.named_children if c.type != "comment" and c not in op_nodes]
        op = " ".join(tsu.text(op_nodes[0]).split()) if len(op_nodes) == 1 else ""
        if op not in _CMP_OPS or len(operands) != 2:
            return _unknown(node)
        return Cond("cmp", op, children=tuple(_cond(o, depth + 1) for o in operands))
    if t in {"tuple", "list", "set"}:
        values = [_string_value(c) if c.type == "string" else None
                  for c in node.named_children if c.type != "comment"]
        if all(v is not None for v in values):
            return Cond("strs", args=tuple(v for v in values if v is not None))
        return _unknown(node)
    if t == "call":
        func, arg_list = node.child_by_field_name("function"), node.child_by_field_name(
            "arguments")
        callee = _cond_chain(func) if func is not None else None
        if callee is None or arg_list is None or arg_list.type != "argument_list":
            return _unknown(node)
        strs: list[str] = []
        others: list[Cond] = []
        for arg in arg_list.named_children:
            if arg.type in {"keyword_argument", "comment"}:
                continue
            value = _string_value(arg) if arg.type == "string" else None
            if value is not None:
                strs.append(value)
            else:
                others.append(_cond(arg, depth + 1))
        return Cond("call", callee, tuple(strs), tuple(others))
    return _unknown(node)
