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

import dataclasses
import re

import tree_sitter as ts

from analyzer.extract import python_literals
from analyzer.extract import treesitter as tsu
from analyzer.extract.fact import Packed
from analyzer.extract.python_branches import BranchCollector, Cond
from analyzer.extract.python_branches import _cond as _branch_cond
from analyzer.extract.python_digest import analysis_digest, code_without_comments
from analyzer.extract.python_facts import (
    CONDITIONAL,
    IN_FUNCTION,
    TRY_IMPORT_ERROR,
    TYPE_CHECKING,
    AttrAssign,
    Decorator,
    Definition,
    ImportedName,
    ImportFact,
    MemberUse,
    MethodDef,
    PackageWalk,
    ProducedString,
    PythonFacts,
    Reference,
    StringRef,
)
from analyzer.extract.python_fstrings import expand_fstring
from analyzer.extract.python_names import (
    param_getattr,
    skeletons,
    type_test_appends,
)
from analyzer.extract.python_nodes import (
    _chain,
    _end_line,
    _guards_imports,
    _line,
    _string_value,
    literal_prefix,
)
from analyzer.extract.python_shapes import (
    _IDENTIFIER,
    _arm,
    _call_arg,
    _call_of,
    _element_of,
    _is_type_checking_test,
    _main_guard,
    _named_attribute,
    _probed,
    _receiver,
    _sole_return,
    _span_name,
    _tested,
    data_of,
)
from analyzer.model import ParseProblem

_KEYLIKE = re.compile(r"[A-Za-z0-9_.\-]{1,48}")
_DECIMAL = re.compile(r"[0-9]{1,9}")
_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_]\w*)?$")
# a relative path to a Python file (``spec_from_file_location(name, root / "pkg/mod.py")``)
_PY_PATH = re.compile(r"^(?:[\w.-]+/)+[A-Za-z_]\w*\.py$")
_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}
_DYNAMIC_IMPORT_CALLS = {"importlib.import_module", "import_module", "__import__"}
# the start of a computed module name: dotted identifiers, maybe a part of the last one
_DOTTED_PREFIX = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*\.?\w*")
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
# last segments of the callees above: the cheap first test of a call
_CALL_NAMES = {c.rsplit(".", 1)[-1].encode() for c in (*_DYNAMIC_IMPORT_CALLS,
                                                        *_PACKAGE_WALK_CALLS)}
# calls that read an attribute named by a computed string: callee's last segment -> argument
# index (``setattr`` writes one: it reads nothing, so no method is named by it)
_NAMING_CALLS = {b"getattr": 1, b"hasattr": 1, b"delattr": 1,
                 b"methodcaller": 0, b"attrgetter": 0}
_INTERESTING_CALLS = _CALL_NAMES | _NAMING_CALLS.keys()
_DEF_TYPES = {"function_definition", "class_definition"}
_COMPOUND_TYPES = {
    "if_statement",
    "try_statement",
    "with_statement",
    "for_statement",
    "while_statement",
    "match_statement",
}


def extract(path: str, data: bytes) -> PythonFacts:
    """Facts of one Python file. Never raises on bad input: problems are listed instead."""
    root, data, problems = tsu.parse_source(path, data, "python")
    if root is None:
        return _empty(path, problems)
    return _Extractor(path, data, root, problems).run()


def _empty(path: str, problems: list[ParseProblem]) -> PythonFacts:
    return PythonFacts(path, 0, (), (), (), None, (), (), tuple(problems))


def _start_byte(node: ts.Node) -> int:
    return node.start_byte


class _Extractor:
    def __init__(self, path: str, data: bytes, root: ts.Node, problems: list[ParseProblem]):
        self.path = path
        self.data = data
        self.root = root
        self.problems = problems
        self.methods: list[str] = []
        self.method_defs: list[MethodDef] = []
        self.definitions: list[Definition] = []
        self.classes: set[str] = set()
        # byte ranges of methods ("Class.method"), for attributing a fact to its method
        self._member_starts: list[int] = []
        self._member_spans: list[tuple[int, int, str]] = []
        # Byte ranges of the outermost definitions, for scope lookup by bisection.
        self._scope_starts: list[int] = []
        self._scope_spans: list[tuple[int, int, str]] = []

    def run(self) -> PythonFacts:
        self._collect_definitions(self.root, nested=False)
        spans = sorted(self._scope_spans)
        self._scope_spans = spans
        self._scope_starts = [s for s, _, _ in spans]
        self._member_spans.sort()
        self._member_starts = [s for s, _, _ in self._member_spans]
        # built in C; not reliably in document order, so every list but the large "name" one
        # is sorted here and references are ordered by line by _references
        caps: dict[str, list[ts.Node]] = {
            k: v if k == "name" else sorted(v, key=_start_byte)
            for k, v in ts.QueryCursor(tsu.query("python")).captures(self.root).items()}
        calls: list[tuple[ts.Node, ts.Node]] = []
        data = self.data
        for args in caps.get("call.arguments", ()):
            call = args.parent
            function = call.child_by_field_name("function") if call is not None else None
            # only calls whose callee ends in a name of interest (import_module, iter_modules,
            # ...) are kept: the last segment is cut from the bytes, no tree walk
            if function is not None and data[function.start_byte:function.end_byte].rsplit(
                    b".", 1)[-1].strip() in _INTERESTING_CALLS:
                calls.append((function, args))
        imports = [f for n in caps.get("import", []) for f in self._import_facts(n)]
        references = self._references(caps.get("name", []), self._bound_names(imports))
        # each string literal's value once (None: an f-string or bytes), for the three readers
        string_values = [(n, _string_value(n)) for n in caps.get("string", [])]
        member_uses = self._member_uses(caps, string_values, calls)
        strings = self._strings(string_values)
        produced = self._produced(string_values)
        produced.extend(self._produced_integers(caps.get("integer", [])))
        strings.extend(self._dynamic_imports(calls))
        walks = self._package_walks(calls)
        param_getattrs = [pg for func, args in calls
                          if data_of(self.data, func).rsplit(b".", 1)[-1].strip() == b"getattr"
                          and (pg := param_getattr(self.data, args, self._scope_of(func),
                                                   _line(func))) is not None]
        ends_open = bool(self.data) and not self.data.endswith(b"\n")
        line_count = self.data.count(b"\n") + int(ends_open)
        collector = BranchCollector(self.data, self.root, self._scope_of)
        literals, module_calls = python_literals.collect(self.data, self.root)
        facts = PythonFacts(
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
            branches=Packed(collector.branches(caps)),
            assigns=tuple(collector.module_assigns(
                {tsu.text(n) for n in caps.get("global.name", [])})),
            literals=tuple(literals),
            calls=tuple(module_calls),
            produced=tuple(produced),
            methods=tuple(self.methods),
            attr_assigns=tuple(self._attr_assigns(caps)),
            method_defs=tuple(self.method_defs),
            member_uses=Packed(member_uses),
            member_names=frozenset(u.name for u in member_uses),
            displays=tuple(python_literals.displays(self.data, caps.get("dict", []),
                                                    self._scope_of)),
            chain_displays=tuple(python_literals.chain_displays(
                self.data, caps.get("collection", []), self._scope_of)),
            chain_comparisons=tuple(python_literals.chain_comparisons(
                self.data, caps.get("comparison", []), self._scope_of)),
            param_getattrs=tuple(param_getattrs),
            type_test_appends=tuple(type_test_appends(self.data, self.root, self._scope_of)),
        )
        if self.problems:  # (no cut-off where tree-sitter recovered from an error)
            return facts
        return dataclasses.replace(facts, analysis_digest=analysis_digest(
            facts, code_without_comments(self.data, caps.get("comment", ()))))

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
        supers = node.child_by_field_name("superclasses") if kind == "class" else None
        bases = tuple(tsu.text(b) for b in supers.named_children
                      if b.type in ("identifier", "attribute")) if supers is not None else ()
        other = supers is not None and any(
            b.type not in ("identifier", "attribute") for b in supers.named_children)
        body = node.child_by_field_name("body") if kind == "class" else None
        stmts = [c for c in body.named_children if c.type != "comment"] if body is not None \
            else []
        self.definitions.append(
            Definition(name, kind, _line(outer), _end_line(outer), decorators, nested, bases,
                       other, len(stmts)))
        self._scope_spans.append((outer.start_byte, outer.end_byte, name))
        if kind == "class":
            self.classes.add(name)
        for stmt in stmts:
            inner = stmt.child_by_field_name("definition") \
                if stmt.type == "decorated_definition" else stmt
            if inner is not None and inner.type == "function_definition":
                method = inner.child_by_field_name("name")
                if method is not None:
                    method_name = tsu.text(method)
                    self.methods.append(method_name)
                    if nested:
                        continue  # a class under a top-level if/try: its methods stay with it
                    decos = tuple(
                        tsu.text(d.named_children[0].child_by_field_name("function")
                                 or d.named_children[0])
                        if d.named_children and d.named_children[0].type == "call"
                        else tsu.text(d.named_children[0] if d.named_children else d)
                        for d in stmt.named_children if d.type == "decorator")
                    self.method_defs.append(MethodDef(name, method_name, _line(stmt),
                                                      _end_line(stmt), decos,
                                                      _sole_return(inner)))
                    self._member_spans.append((stmt.start_byte, stmt.end_byte,
                                               f"{name}.{method_name}"))

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

    def _member_of(self, node: ts.Node) -> str:
        """``Class.method`` of the method ``node`` lies in, or ``""``."""
        return _span_name(self._member_starts, self._member_spans, node.start_byte)

    def _scope_of(self, node: ts.Node) -> str:
        return _span_name(self._scope_starts, self._scope_spans, node.start_byte)

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
                if child == consequence and _is_type_checking_test(tsu.text(condition)):
                    found.add(TYPE_CHECKING)
                else:
                    found.add(CONDITIONAL)
            elif parent.type in {"elif_clause", "else_clause"}:
                found.add(CONDITIONAL)
            elif child.type == "block" and _guards_imports(parent):
                found.add(TRY_IMPORT_ERROR)
            child, parent = parent, parent.parent
        return tuple(sorted(found))

    # -- references ----------------------------------------------------------------------------
    def _bound_names(self, imports: list[ImportFact]) -> set[bytes] | None:
        """Names this file binds at module level or by any import (the only heads a reads can
        resolve through), or ``None`` when a star import may bind anything."""
        names = {d.name for d in self.definitions}
        for fact in imports:
            if not fact.is_from:
                names.add(fact.alias or fact.module.split(".")[0])
                continue
            for imported in fact.names:
                if imported.name == "*":
                    return None
                names.add(imported.alias or imported.name)
        return {n.encode() for n in names}

    def _references(self, names: list[ts.Node], bound: set[bytes] | None) -> list[Reference]:
        """Reads of names the file binds (plus dunders such as ``__file__``): a read of a
        builtin, parameter or local resolves to nothing, so it is not recorded."""
        # (chain, scope, method) -> the lines it is read on
        seen: dict[tuple[str, str, str], list[int]] = {}
        values: dict[tuple[str, str, str], list[int]] = {}
        data = self.data
        for node in names:
            head = data[node.start_byte:node.end_byte]
            if bound is not None and head not in bound and not head.startswith(b"__"):
                continue
            if head in (b"self", b"cls"):  # instance/class attributes: never module names
                continue
            parent = node.parent
            if parent is None or not self._is_read(node, parent):
                continue
            top = node
            # an attribute node starting where ``top`` starts has ``top`` as its object
            while (up := top.parent) is not None and up.type == "attribute" \
                    and up.start_byte == top.start_byte:
                top = up
            raw = data[top.start_byte:top.end_byte]
            if top is node or raw.replace(b".", b"").replace(b"_", b"").isalnum():
                chain = raw.decode("utf-8", "replace")
            else:  # spaces, newlines or comments inside the chain
                chain = _chain(top) or head.decode("utf-8", "replace")
            named = _named_attribute(top)
            if named and chain == "torch.ops" and _call_arg(top, "hasattr") is not None:
                continue  # hasattr(torch.ops, "_C"): whether the namespace exists; no op read
            if named:  # getattr(x.y, "z") reads x.y.z
                chain = f"{chain}.{named}"
            elif chain.startswith("torch.ops") and _probed(top):
                continue  # hasattr(torch.ops, name): asks whether an op exists, uses none
            key = (chain, self._scope_of(node), self._member_of(node))
            seen.setdefault(key, []).append(_line(node))
            if not named and not _tested(top):
                values.setdefault(key, []).append(_line(node))
        out: list[Reference] = []
        for key, lines in seen.items():
            chain, scope, _member = key
            ordered = sorted(set(lines))
            out.append(Reference(chain, scope, ordered[0], tuple(ordered[1:]),
                                 tuple(sorted(set(values.get(key, ()))))))
        out.sort(key=lambda r: (r.line, r.chain, r.scope))
        return out

    def _member_uses(self, caps: dict[str, list[ts.Node]],
                     strings: list[tuple[ts.Node, str | None]],
                     calls: list[tuple[ts.Node, ts.Node]]) -> list[MemberUse]:
        """What may name a method, per (name, scope, method): attribute names, bare reads in
        class bodies, identifier-like strings, computed names in getattr-like calls, and
        attribute enumeration (``*``)."""
        seen: dict[tuple[str, str, str], set[int]] = {}
        data = self.data
        scope_starts, scope_spans = self._scope_starts, self._scope_spans
        member_starts, member_spans = self._member_starts, self._member_spans

        def add(name: str, node: ts.Node) -> None:
            start = node.start_byte
            key = (name, _span_name(scope_starts, scope_spans, start),
                   _span_name(member_starts, member_spans, start))
            seen.setdefault(key, set()).add(node.start_point[0] + 1)

        for node in caps.get("name.attribute", ()):
            text = data[node.start_byte:node.end_byte].decode("utf-8", "replace")
            add("*" if text == "__dict__" else text, node)
        enumerators = caps.get("name.enumerator", [])
        for node in enumerators:
            add("*", node)
        if self.classes:  # `alias = method` in a class body: a bare read there
            classes = self.classes
            counted = {node.start_byte for node in enumerators}
            for node in caps.get("name", ()):
                start = node.start_byte
                if _span_name(scope_starts, scope_spans, start) not in classes \
                        or _span_name(member_starts, member_spans, start) or start in counted:
                    continue  # (outside a class body; an enumerator: counted above)
                parent = node.parent
                if parent is None or parent.type == "attribute":
                    continue  # (an attribute's name or object)
                if self._is_read(node, parent):
                    add(data[start:node.end_byte].decode("utf-8", "replace"), node)
        for node, value in strings:
            if value and _IDENTIFIER.fullmatch(value):
                add(value, node)
        for func, args in calls:
            position = _NAMING_CALLS.get(
                data[func.start_byte:func.end_byte].rsplit(b".", 1)[-1].strip())
            if position is None:
                continue
            positional = [a for a in args.named_children
                          if a.type not in ("keyword_argument", "comment")]
            if len(positional) > position:
                # a plain string was counted above; a wholly computed name (a variable) is
                # taken to come from strings the tree spells, or from an enumeration
                for skeleton in skeletons(data, positional[position]):
                    if skeleton.strip("*") and (
                            "*" in skeleton or positional[position].type != "string"):
                        add(skeleton, func)
        return [MemberUse(name, scope, tuple(sorted(lines)))
                for (name, scope, _member), lines in sorted(seen.items())]

    @staticmethod
    def _is_read(node: ts.Node, parent: ts.Node) -> bool:
        ptype = parent.type
        if ptype in {"dotted_name", "aliased_import", "import_prefix", "parameters",
                     "lambda_parameters", "global_statement", "nonlocal_statement"}:
            return False
        if ptype == "attribute":  # the object starts the attribute node, the name does not
            return parent.start_byte == node.start_byte
        if ptype in {"function_definition", "class_definition"}:
            return parent.child_by_field_name("name") != node
        if ptype == "keyword_argument":
            return parent.child_by_field_name("name") != node
        if ptype in {"default_parameter", "typed_default_parameter", "typed_parameter"}:
            return parent.child_by_field_name("name") != node and parent.named_children[0] != node
        return ptype not in {"list_splat_pattern", "dictionary_splat_pattern"} or (
            parent.parent is None or parent.parent.type != "parameters")

    # -- strings, dynamic imports, package walks ----------------------------------------------
    def _strings(self, nodes: list[tuple[ts.Node, str | None]]) -> list[StringRef]:
        out: list[StringRef] = []
        for node, value in nodes:
            if value and _DOTTED.match(value):
                out.append(StringRef(value, "dotted", self._scope_of(node), _line(node),
                                     _call_of(node)))
            elif value and _PY_PATH.match(value):
                out.append(StringRef(value, "path", self._scope_of(node), _line(node),
                                     _call_of(node), _element_of(node)))
        return out

    def _attr_assigns(self, caps: dict[str, list[ts.Node]]) -> list[AttrAssign]:
        out: list[AttrAssign] = []
        for node in caps.get("assign.target", []):
            stmt = node.parent
            if stmt is None:
                continue
            scope = self._scope_of(node)
            target = tsu.text(node)
            if node.type == "identifier":  # a name: only class-body assignments matter
                line_stmt = stmt.parent
                block = line_stmt.parent if line_stmt is not None else None
                owner = block.parent if block is not None else None
                if line_stmt is None or line_stmt.type != "expression_statement" \
                        or block is None or block.type != "block" \
                        or owner is None or owner.type != "class_definition":
                    continue
            attr = target.rsplit(".", 1)[-1]
            right = stmt.child_by_field_name("right")
            single = (stmt.type == "assignment" and stmt.child_by_field_name("left") == node
                      and right is not None and right.type != "assignment")
            cond = _branch_cond(right) if single and right is not None else Cond(
                "unknown", target)
            out.append(AttrAssign(scope, target, attr, cond, _line(node)))
        return out

    def _produced(self, nodes: list[tuple[ts.Node, str | None]]) -> list[ProducedString]:
        out: list[ProducedString] = []
        for node, value in nodes:
            if not value or not _KEYLIKE.fullmatch(value):
                continue
            found = _receiver(node)
            if found is not None:
                arm_of, arm = _arm(node)
                out.append(ProducedString(value, found[1], found[0], self._scope_of(node),
                                          _line(node), arm_of, arm))
        return out

    def _produced_integers(self, nodes: list[ts.Node]) -> list[ProducedString]:
        out: list[ProducedString] = []
        for node in nodes:
            value = tsu.text(node)
            if not _DECIMAL.fullmatch(value):
                continue
            found = _receiver(node)
            if found is not None and (found[1] or found[0] == "return"):
                out.append(ProducedString(str(int(value)), found[1], found[0],
                                          self._scope_of(node), _line(node), integer=True))
        return out

    def _dynamic_imports(self, calls: list[tuple[ts.Node, ts.Node]]) -> list[StringRef]:
        out: list[StringRef] = []
        for func, args in calls:
            if _chain(func) not in _DYNAMIC_IMPORT_CALLS or not args.named_children:
                continue
            first = args.named_children[0]
            value = _string_value(first) if first.type == "string" else None
            # import_module(f"{__name__}.{group}") in a loop over literal names: each of them
            values = [value] if value else expand_fstring(first, self.root) or []
            out.extend(StringRef(v, "import_module", self._scope_of(func), _line(func))
                       for v in values)
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
                prefix = literal_prefix(args.named_children[0])
                out.append(PackageWalk("dynamic_import", self._scope_of(func), _line(func),
                                       prefix if prefix and _DOTTED_PREFIX.fullmatch(prefix)
                                       else None))
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
